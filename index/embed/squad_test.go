package embed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/internal/testenv"
)

type squadPassage struct {
	ID      string `json:"id"`
	Article string `json:"article"`
	Text    string `json:"text"`
}

type squadQuestion struct {
	Question  string `json:"question"`
	PassageID string `json:"passage_id"`
}

func embedReadJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// squadSet is SQuAD loaded for retrieval: passages are the documents.
type squadSet struct {
	passages  []squadPassage
	questions []squadQuestion
	gold      []int // passage index of each question
	idf       func(string) float64
}

// packSQuAD returns s with the passages of each article packed in
// consecutive chunks of about maxBytes, as the chunker would cut an
// article: a question's gold chunk is the one holding its passage.
func packSQuAD(s *squadSet, maxBytes int) *squadSet {
	out := &squadSet{questions: s.questions}
	chunkOf := make([]int, len(s.passages))
	var cur *squadPassage
	for i, p := range s.passages {
		if cur == nil || cur.Article != p.Article || len(cur.Text)+1+len(p.Text) > maxBytes {
			out.passages = append(out.passages, squadPassage{ID: p.ID, Article: p.Article, Text: p.Text})
			cur = &out.passages[len(out.passages)-1]
		} else {
			cur.Text += "\n" + p.Text
		}
		chunkOf[i] = len(out.passages) - 1
	}
	for _, g := range s.gold {
		out.gold = append(out.gold, chunkOf[g])
	}
	df := map[string]int{}
	for _, p := range out.passages {
		seen := map[string]bool{}
		for _, t := range analysis.Analyze(p.Text) {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	n := len(out.passages)
	out.idf = func(t string) float64 { return analysis.IDF(n, df[t]) }
	return out
}

func loadSQuAD(tb testing.TB) *squadSet {
	dir := testenv.SharedData(tb, "squad")
	s := &squadSet{
		passages:  embedReadJSONL[squadPassage](tb, filepath.Join(dir, "passages.jsonl")),
		questions: embedReadJSONL[squadQuestion](tb, filepath.Join(dir, "questions.jsonl")),
	}
	index := map[string]int{}
	df := map[string]int{}
	for i, p := range s.passages {
		index[p.ID] = i
		seen := map[string]bool{}
		for _, t := range analysis.Analyze(p.Text) {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	for _, q := range s.questions {
		i, ok := index[q.PassageID]
		if !ok {
			tb.Fatalf("question %q: unknown passage %s", q.Question, q.PassageID)
		}
		s.gold = append(s.gold, i)
	}
	n := len(s.passages)
	s.idf = func(t string) float64 { return analysis.IDF(n, df[t]) }
	return s
}

// retrievalMetrics are the standard retrieval measures over a question set.
type retrievalMetrics struct {
	R1, R5, R20, MRR10 float64
}

func (m retrievalMetrics) String() string {
	return fmt.Sprintf("R@1 %.3f  R@5 %.3f  R@20 %.3f  MRR@10 %.3f", m.R1, m.R5, m.R20, m.MRR10)
}

// evalEmbedder embeds the passages as documents and the questions as
// queries and ranks passages by dot product.
func evalEmbedder(tb testing.TB, e *Embedder, s *squadSet) retrievalMetrics {
	tb.Helper()
	ctx := tb.Context()
	texts := make([]string, len(s.passages))
	for i, p := range s.passages {
		texts[i] = p.Text
	}
	docs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		tb.Fatal(err)
	}
	dim := e.Dim()
	nd := len(docs)
	// Transposed: column i of every document, contiguous.
	cols := make([]float32, dim*nd)
	for d, v := range docs {
		for i, x := range v {
			cols[i*nd+d] = x
		}
	}
	scores := make([]float32, nd)
	var m retrievalMetrics
	for qi, q := range s.questions {
		qv, err := e.EmbedQuery(ctx, q.Question, s.idf)
		if err != nil {
			tb.Fatal(err)
		}
		clear(scores)
		for i, x := range qv {
			if x == 0 {
				continue
			}
			col := cols[i*nd : (i+1)*nd]
			for d, y := range col {
				scores[d] += x * y
			}
		}
		g := scores[s.gold[qi]]
		rank := 1 // 1 + number of passages scoring above gold (ties go against gold)
		for d, sc := range scores {
			if d != s.gold[qi] && sc >= g {
				rank++
			}
		}
		if rank <= 1 {
			m.R1++
		}
		if rank <= 5 {
			m.R5++
		}
		if rank <= 20 {
			m.R20++
		}
		if rank <= 10 {
			m.MRR10 += 1 / float64(rank)
		}
	}
	n := float64(len(s.questions))
	m.R1 /= n
	m.R5 /= n
	m.R20 /= n
	m.MRR10 /= n
	return m
}

// squadCase is one hash embedder configuration measured on SQuAD, with
// floors just under the numbers measured when it was written (the ranking
// is deterministic, so they only move when the analyzer or the embedder
// changes).
type squadCase struct {
	spec          string
	minR5, minMRR float64
}

// squadDefault is the default configuration (2048 dimensions; see
// DefaultHashDim for why not 4096, whose floor matches the Recall@5 0.913
// the issue measured for hashed word-unigram tf-idf with idf on both sides).
var squadDefault = squadCase{"hash", 0.903, 0.790}

// squadMatrixCases, measured with Go 1.26 on 2 cores. Passages: 1,023
// passages as documents, 5,397 questions. Chunks: the same passages packed
// in order in 404 chunks of at most 2,400 bytes (about a 500-token chunk),
// the chunk holding the gold passage counting as the hit.
//
//	spec                  passages: R@1   R@5   R@20  MRR@10   chunks: R@1   R@5   R@20  MRR@10
//	hash:1024?ngrams=0              0.628 0.852 0.950 0.722            0.592 0.864 0.961 0.708
//	hash:1024?ngrams=3-4            0.692 0.886 0.961 0.775            0.623 0.887 0.969 0.735
//	hash:1024 (3-5)                 0.684 0.890 0.965 0.772            0.631 0.886 0.970 0.741
//	hash:1024?ngrams=3-6            0.685 0.886 0.963 0.771            0.636 0.887 0.971 0.743
//	hash:2048?ngrams=0              0.674 0.882 0.963 0.763            0.657 0.906 0.978 0.765
//	hash:2048?ngrams=3-4            0.707 0.909 0.971 0.793            0.679 0.926 0.983 0.784
//	hash:2048 (3-5, default)        0.709 0.908 0.972 0.795            0.679 0.926 0.984 0.785
//	hash:2048?ngrams=3-6            0.712 0.908 0.973 0.795            0.684 0.925 0.983 0.787
//	hash:4096?ngrams=0              0.700 0.899 0.968 0.785            0.694 0.925 0.986 0.794
//	hash:4096?ngrams=3-4            0.716 0.917 0.974 0.802            0.708 0.936 0.987 0.806
//	hash:4096 (3-5)                 0.719 0.918 0.975 0.804            0.712 0.936 0.988 0.809
//	hash:4096?ngrams=3-6            0.721 0.918 0.974 0.805            0.713 0.937 0.988 0.809
//	hash:4096?words=0.3             0.717 0.912 0.972 0.801            0.705 0.934 0.987 0.803
//	hash:4096?words=0.7             0.716 0.917 0.974 0.802            0.713 0.936 0.987 0.808
var squadMatrixCases = []squadCase{
	{"hash:1024?ngrams=0", 0.847, 0.717},
	{"hash:1024?ngrams=3-4", 0.881, 0.770},
	{"hash:1024", 0.885, 0.767},
	{"hash:1024?ngrams=3-6", 0.881, 0.766},
	{"hash:2048?ngrams=0", 0.877, 0.758},
	{"hash:2048?ngrams=3-4", 0.904, 0.788},
	{"hash:2048", 0.903, 0.790},
	{"hash:2048?ngrams=3-6", 0.903, 0.790},
	{"hash:4096?ngrams=0", 0.894, 0.780},
	{"hash:4096?ngrams=3-4", 0.912, 0.797},
	{"hash:4096", 0.913, 0.799},
	{"hash:4096?ngrams=3-6", 0.913, 0.800},
	{"hash:4096?words=0.3", 0.907, 0.796},
	{"hash:4096?words=0.7", 0.912, 0.797},
}

func runSQuADCase(t *testing.T, s, chunks *squadSet, c squadCase) {
	t.Helper()
	e, err := New(c.spec, Config{})
	if err != nil {
		t.Fatal(err)
	}
	m := evalEmbedder(t, e, s)
	line := fmt.Sprintf("%-22s passages: %v", e.Name(), m)
	if chunks != nil {
		line += fmt.Sprintf("   chunks: %v", evalEmbedder(t, e, chunks))
	}
	t.Log(line)
	if m.R5 < c.minR5 || m.MRR10 < c.minMRR {
		t.Errorf("%s: Recall@5 %.3f, MRR@10 %.3f: below the floor %.3f, %.3f", e.Name(), m.R5, m.MRR10, c.minR5, c.minMRR)
	}
}

// TestHashEmbedderSQuAD checks the retrieval quality of the default hash
// embedder on SQuAD (passages as documents, questions as queries, idf from
// the passages, brute-force ranking by cosine).
func TestHashEmbedderSQuAD(t *testing.T) {
	if testenv.Race {
		t.Skip("a quality measurement (90 s under the race detector): run without -race")
	}
	s := loadSQuAD(t)
	runSQuADCase(t, s, nil, squadDefault)
}

// TestHashEmbedderSQuADMatrix measures dimensions and n-gram settings (11 s
// on 2 cores; skipped with -short and under the race detector).
func TestHashEmbedderSQuADMatrix(t *testing.T) {
	if testing.Short() || testenv.Race {
		t.Skip("measures 14 configurations: skipped with -short and -race")
	}
	s := loadSQuAD(t)
	chunks := packSQuAD(s, 2400)
	t.Logf("%d passages, %d chunks, %d questions", len(s.passages), len(chunks.passages), len(s.questions))
	for _, c := range squadMatrixCases {
		runSQuADCase(t, s, chunks, c)
	}
}
