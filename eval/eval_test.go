package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/search"
)

func TestTally(t *testing.T) {
	var tl tally
	tl.add([]bool{true, false}, 1)                // rank 1
	tl.add([]bool{false, false, true}, 2)         // rank 3, one of two relevant chunks
	tl.add([]bool{false, false, false, false}, 1) // missed
	m := tl.metrics("x")
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	idcg2 := 1 + 1/math.Log2(3)
	if m.Questions != 3 || !near(m.Recall1, 1.0/3) || !near(m.Recall5, 2.0/3) || !near(m.Recall20, 2.0/3) ||
		!near(m.MRR10, (1+1.0/3)/3) || !near(m.NDCG10, (1+(1/math.Log2(4))/idcg2)/3) {
		t.Fatalf("%+v", m)
	}
}

func TestLoadErrors(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no articles":      {"questions.jsonl": "", "passage_spans.jsonl": ""},
		"bad span":         {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":5,"byte_end":5}`, "questions.jsonl": ""},
		"unknown passage":  {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":0,"byte_end":1}`, "questions.jsonl": `{"id":"q","question":"?","passage_id":"zz"}`},
		"no questions":     {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":0,"byte_end":1}`, "questions.jsonl": ""},
		"broken json line": {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":`, "questions.jsonl": ""},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, data := range files {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(data), 0o644)
			}
			if _, err := Load(dir); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestRun(t *testing.T) {
	ctx := t.Context()
	set, err := Load(filepath.Join("testdata", "qa"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, _ := embed.New("hash", embed.Config{})
	// Chunks of about a paragraph each.
	sp, err := chunk.New(chunk.Options{Size: 24, Overlap: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Index(ctx, st, emb, sp); err != nil {
		t.Fatal(err)
	}
	s, err := search.New(ctx, st, emb)
	if err != nil {
		t.Fatal(err)
	}
	extra := []search.Fusion{{Method: "rrf", BM25Weight: 1, VectorWeight: 1}}
	var progress int
	ms, err := Run(ctx, set, st, s, Options{Fusions: extra, Progress: func(done, total int) { progress = done }})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || progress != 4 {
		t.Fatalf("%d results, progress %d", len(ms), progress)
	}
	for _, m := range ms {
		t.Logf("%+v", m)
		if m.Questions != 4 || m.Recall5 != 1 || m.Recall20 != 1 {
			t.Errorf("%s: %+v", m.Name, m)
		}
		if strings.HasPrefix(m.Name, "bm25") && (m.Recall1 != 1 || m.MRR10 != 1) {
			t.Errorf("bm25 misses an obvious question: %+v", m)
		}
		if m.Name != "hybrid rrf:1:1" && (m.P50 <= 0 || m.P99 < m.P50) {
			t.Errorf("%s: latencies %v %v", m.Name, m.P50, m.P99)
		}
	}
	// An index without the set's articles cannot be judged.
	other, _ := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	defer other.Close()
	if _, err := Run(ctx, set, other, s, Options{}); err == nil || !strings.Contains(err.Error(), "no indexed chunk overlaps") {
		t.Fatalf("err = %v", err)
	}
}
