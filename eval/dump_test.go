package eval

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/search"
)

// TestDumpSQuADHits writes, to the file CITE_SQUAD_DUMP names, every
// question of the shared SQuAD half with its gold answers and its top
// DefaultAnswerK hybrid hits, and the index's document frequencies of their
// terms: what answer/extractive's TestFitWeights fits the extractive
// weights on, without indexing again. It skips unless CITE_SQUAD_DUMP is set.
func TestDumpSQuADHits(t *testing.T) {
	out := os.Getenv("CITE_SQUAD_DUMP")
	if out == "" {
		t.Skip("set CITE_SQUAD_DUMP to write the file")
	}
	set, st, s := openSet(t, testenv.SharedData(t, "squad"), nil)
	type hit struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	type question struct {
		Text    string   `json:"text"`
		Answers []string `json:"answers"`
		Hits    []hit    `json:"hits"`
	}
	var qs []question
	var terms []string
	for _, q := range set.Questions {
		res, err := s.Search(t.Context(), search.Query{Text: q.Text, K: DefaultAnswerK})
		if err != nil {
			t.Fatal(err)
		}
		dq := question{Text: q.Text, Answers: q.Answers}
		terms = append(terms, analysis.QueryTerms(q.Text)...)
		for _, h := range res.Hits {
			dq.Hits = append(dq.Hits, hit{Title: h.Document.Title, Text: h.Text})
		}
		qs = append(qs, dq)
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	df := map[string]int{}
	chunks := 0
	for i := 0; i < len(terms); i += 500 {
		ts, err := st.TermStats(t.Context(), terms[i:min(i+500, len(terms))])
		if err != nil {
			t.Fatal(err)
		}
		chunks = ts.Chunks
		for k, v := range ts.DF {
			df[k] = v
		}
	}
	data, err := json.Marshal(map[string]any{"questions": qs, "df": df, "chunks": chunks})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
