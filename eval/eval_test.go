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
		"a passage twice": {"articles/a.md": "xy", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":0,"byte_end":1}` + "\n" + `{"passage_id":"p","doc":"articles/a.md","byte_start":1,"byte_end":2}`,
			"questions.jsonl": `{"id":"q","question":"?","passage_id":"p"}`},
		"a span past the end": {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":0,"byte_end":99}`, "questions.jsonl": `{"id":"q","question":"?","passage_id":"p"}`},
		"no such doc":         {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/b.md","byte_start":0,"byte_end":1}`, "questions.jsonl": `{"id":"q","question":"?","passage_id":"p"}`},
		"a doc outside":       {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"../../etc/passwd","byte_start":0,"byte_end":1}`, "questions.jsonl": `{"id":"q","question":"?","passage_id":"p"}`},
		"no question text":    {"articles/a.md": "x", "passage_spans.jsonl": `{"passage_id":"p","doc":"articles/a.md","byte_start":0,"byte_end":1}`, "questions.jsonl": `{"id":"q","passage_id":"p"}`},
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
	if _, err := Run(ctx, set, other, s, Options{}); err == nil || !strings.Contains(err.Error(), "is not in the index (missing from the set's articles, skipped when indexed, or the index is not built from this set)") {
		t.Fatalf("err = %v", err)
	}
}

// TestTextJudge judges chunks by their article and words, as the same set
// written in another format is judged: formatting and line breaks aside,
// a chunk is right when it is from the article and shares a run of
// ShingleWords words with the gold passage.
func TestTextJudge(t *testing.T) {
	set, err := Load(filepath.Join("testdata", "qa"))
	if err != nil {
		t.Fatal(err)
	}
	q := set.Questions[0] // "Foragers perform the waggle dance to tell their sisters the direction and distance of flowers."
	for _, c := range []struct {
		name, path, text string
		want             bool
	}{
		{"the passage", "/x/bees.pdf", "Foragers perform the waggle dance to tell their sisters the direction and distance of flowers.", true},
		{"reflowed and curled", "/y/bees.docx", "# Honeybees\n\n…workers.\n\nForagers perform the “waggle” dance\nto tell their SISTERS the direction", true},
		{"eight words of it", "/x/bees.epub", "before. Tell their sisters the direction and distance of flowers!", true},
		{"seven words of it", "/x/bees.epub", "before. Sisters the direction and distance of flowers!", false},
		{"another article", "/x/sqlite.pdf", "Foragers perform the waggle dance to tell their sisters the direction and distance of flowers.", false},
		{"another passage", "/x/bees.pdf", "A honeybee colony has one queen, a few hundred drones and thousands of workers.", false},
		{"empty", "/x/bees.pdf", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := newTextJudge().right(q, c.path, c.text)
			if err != nil || got != c.want {
				t.Errorf("right = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	// A passage shorter than the run must be in the chunk whole.
	short := Question{ID: "s", Doc: q.Doc, Start: q.Start, End: q.Start + len("Foragers perform the waggle")}
	for text, want := range map[string]bool{"so foragers perform the waggle dance": true, "foragers perform the": false} {
		if got, _ := newTextJudge().right(short, "bees.html", text); got != want {
			t.Errorf("short passage, %q: right = %v", text, got)
		}
	}
}

// TestRunByText judges the same index by text and by span: on Markdown,
// where both apply, they agree on these questions.
func TestRunByText(t *testing.T) {
	set, st, s := openSet(t, filepath.Join("testdata", "qa"), nil)
	var hits int
	for _, byText := range []bool{false, true} {
		ms, err := Run(t.Context(), set, st, s, Options{ByText: byText, Modes: []search.Mode{search.BM25}, Fusions: []search.Fusion{{Method: "rrf", BM25Weight: 1, VectorWeight: 1}},
			Hits: func(Question, search.Mode, []search.Hit) { hits++ }})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Recall1 != 1 || m.Recall5 != 1 || m.Questions != 4 {
				t.Errorf("by text %v: %+v", byText, m)
			}
		}
	}
	if hits != 8 {
		t.Errorf("Hits called %d times, want 8", hits)
	}
}
