package ingest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/provider"
)

// embedServer is an OpenAI-compatible /v1/embeddings server that counts the
// inputs it embeds, and fails with HTTP 500 while down is set.
type embedServer struct {
	srv    *httptest.Server
	inputs atomic.Int64
	down   atomic.Bool
	failed atomic.Int64 // requests refused while down

	mu   sync.Mutex
	seen []string
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		if s.down.Load() {
			s.failed.Add(1)
			http.Error(w, `{"error":{"message":"model unavailable"}}`, http.StatusInternalServerError)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range req.Input {
			v := make([]float32, 8)
			v[0] = 1
			for _, w := range strings.Fields(in) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%8]++
			}
			data = append(data, item{"embedding", i, v})
		}
		s.inputs.Add(int64(len(req.Input)))
		s.mu.Lock()
		s.seen = append(s.seen, req.Input...)
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *embedServer) embedder(t *testing.T) *embed.Embedder {
	t.Helper()
	e, err := embed.NewOpenAI("fake-embed", embed.Config{Provider: provider.Config{OpenAIBaseURL: s.srv.URL + "/v1", HTTPClient: &http.Client{Transport: &provider.Transport{MaxAttempts: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// paragraphs returns a document of n paragraphs, each about 60 tokens,
// with paragraph i's text depending on version[i].
func paragraphs(n int, version map[int]string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("Paragraph ")
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i/26))
		b.WriteString(" " + version[i] + ": ")
		b.WriteString(strings.Repeat("words that fill the paragraph with ordinary text. ", 6))
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestEmbedOnlyNewChunks: an edit to one paragraph of a long file embeds a
// chunk or two, not the file; an unchanged file embeds nothing.
func TestEmbedOnlyNewChunks(t *testing.T) {
	srv := newEmbedServer(t)
	st := newStore(t)
	sp, err := chunk.New(chunk.Options{Size: 120, Overlap: 10})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Embedder: srv.embedder(t), Splitter: sp}
	fsys := fstest.MapFS{"long.md": file(paragraphs(60, nil)), "other.md": file("A short other file.")}
	stats, _, err := run(t, st, fsys, opts, ".")
	if err != nil {
		t.Fatal(err)
	}
	first := srv.inputs.Load()
	// One more input: the probe that learns the model's dimension.
	if stats.Chunks < 30 || int(first) != stats.Chunks+1 || stats.Vectors != stats.Chunks {
		t.Fatalf("first run: %d chunks, %d vectors, %d embedded", stats.Chunks, stats.Vectors, first)
	}
	// Unchanged: nothing embedded.
	if _, _, err := run(t, st, fsys, opts, "."); err != nil {
		t.Fatal(err)
	}
	if n := srv.inputs.Load() - first; n != 0 {
		t.Fatalf("unchanged files embedded %d chunks", n)
	}
	// Edit one paragraph in the middle.
	fsys["long.md"] = file(paragraphs(60, map[int]string{30: "edited"}))
	fsys["long.md"].ModTime = t0.Add(1)
	stats, _, err = run(t, st, fsys, opts, ".")
	if err != nil {
		t.Fatal(err)
	}
	n := srv.inputs.Load() - first
	if n < 1 || n > 2 || stats.Updated != 1 {
		t.Fatalf("editing one paragraph embedded %d chunks (updated %d)", n, stats.Updated)
	}
	srv.mu.Lock()
	last := srv.seen[len(srv.seen)-1]
	srv.mu.Unlock()
	if !strings.Contains(last, "edited") {
		t.Fatalf("embedded %q, not the edited chunk", last)
	}
	checkIndex(t, st)
}

// TestEmbedFailureLosesNothing: with the embedder down, documents are
// stored without vectors (full-text search finds them), the run says so,
// and the next run makes the missing vectors.
func TestEmbedFailureLosesNothing(t *testing.T) {
	srv := newEmbedServer(t)
	st := newStore(t)
	opts := Options{Embedder: srv.embedder(t), Workers: 2}
	fsys := fstest.MapFS{}
	for _, name := range []string{"a.md", "b.md", "c.txt"} {
		fsys[name] = file("The text of " + name + " about honeybees.")
	}
	// Record the embedder first (its dimension comes from the server).
	if _, _, err := run(t, st, fstest.MapFS{"z.md": file("zebra")}, opts, "."); err != nil {
		t.Fatal(err)
	}
	srv.down.Store(true)
	stats, events, err := run(t, st, fsys, opts, ".")
	if err == nil || !strings.Contains(err.Error(), "stored without vectors") || !strings.Contains(err.Error(), "500") {
		t.Fatalf("err = %v", err)
	}
	if stats.Added != 3 || stats.MissingVectors != 3 || stats.Failed != 0 {
		t.Fatalf("stats %+v", stats)
	}
	warned := 0
	for _, e := range events {
		if e.Warning != nil {
			warned++
		}
	}
	// After the first failure no more is tried: at most one attempt per
	// worker was already under way.
	if warned < 1 || warned > 2 || srv.failed.Load() != int64(warned) {
		t.Fatalf("%d warnings, %d failed requests", warned, srv.failed.Load())
	}
	if rs, err := st.SearchText(t.Context(), "honeybee", index.Filter{}, 10); err != nil || len(rs) != 3 {
		t.Fatalf("full-text search found %d, %v", len(rs), err)
	}
	if n, _ := st.CountMissingVectors(t.Context()); n != 3 {
		t.Fatalf("%d missing vectors", n)
	}
	srv.down.Store(false)
	stats, _, err = run(t, st, fsys, opts, ".")
	if err != nil || stats.Unchanged != 3 || stats.Vectors != 3 {
		t.Fatalf("after recovery: %+v, %v", stats, err)
	}
	if rep, err := st.Check(t.Context()); err != nil || !rep.OK() {
		t.Fatalf("check: %+v, %v", rep.Problems, err)
	}
}

func TestEmbedderMismatchRefused(t *testing.T) {
	st := newStore(t)
	a, _ := embed.New("hash:64", embed.Config{})
	b, _ := embed.New("hash:128", embed.Config{})
	if _, _, err := run(t, st, fstest.MapFS{"a.md": file("x")}, Options{Embedder: a}, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := New(t.Context(), st, Options{Embedder: b}); err == nil || !strings.Contains(err.Error(), "cite reindex") {
		t.Fatalf("err = %v", err)
	}
}

// TestHashEmbedderAnalyzesOnce: with the hash embedder, which reports the
// terms it reads, each chunk is analyzed once for its vector and its
// full-text terms; the vectors are EmbedDocuments' (as stored: rounded
// to float16, index.RoundVector), and the full-text
// index ranks as one made without an embedder. The memory of each vector
// is handed back once its chunk is prepared (and overwritten here, with
// NaNs, as the next vector written there would): the vectors stored are
// still EmbedDocuments', and under -race nothing reads that memory as it
// is written again.
func TestHashEmbedderAnalyzesOnce(t *testing.T) {
	ctx := t.Context()
	e, err := embed.New("hash:256", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := chunk.New(chunk.Options{Size: 120, Overlap: 10})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"long.md":  file(paragraphs(300, nil)), // chunks done on all the cores
		"short.md": file("# Bees\n\nHoneybees dance to say where the flowers are."),
		"stop.md":  file("The and of to."),
		"cafe.md":  file("Café naïve 東京都 don't Tom's"),
	}
	for i := range 40 {
		// Files written while the next ones are prepared.
		fsys[fmt.Sprintf("more/%02d.md", i)] = file(paragraphs(2+i%9, map[int]string{0: fmt.Sprint("file", i)}))
	}
	withVectors, plain := newStore(t), newStore(t)
	ix, err := New(ctx, withVectors, Options{FS: fsys, Embedder: e, Splitter: sp, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var recycled atomic.Int64
	ix.onRecycle = func(v []float32) {
		recycled.Add(1)
		for i := range v {
			v[i] = float32(math.NaN())
		}
	}
	stats, err := ix.Index(ctx, ".")
	if err != nil || stats.Chunks < 100 || stats.Vectors != stats.Chunks || stats.MissingVectors != 0 {
		t.Fatalf("%+v %v", stats, err)
	}
	if recycled.Load() != int64(stats.Chunks) {
		t.Fatalf("%d vectors' memory handed back, want %d", recycled.Load(), stats.Chunks)
	}
	if _, _, err := run(t, plain, fsys, Options{Splitter: sp}, "."); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, withVectors)
	checkIndex(t, plain)
	n := 0
	err = withVectors.Vectors(ctx, func(id string, v []float32) error {
		n++
		c, err := withVectors.ChunkByID(ctx, id)
		if err != nil {
			return err
		}
		want, err := e.EmbedDocuments(ctx, []string{c.Text})
		if err != nil {
			return err
		}
		stored := index.RoundVector(want[0])
		for i := range v {
			if math.Float32bits(v[i]) != math.Float32bits(stored[i]) {
				t.Fatalf("chunk %q: vector differs from EmbedDocuments' at %d", c.Text, i)
			}
		}
		return nil
	})
	if err != nil || n != stats.Chunks {
		t.Fatalf("%d vectors: %v", n, err)
	}
	for _, q := range []string{"paragraph words", "ordinary text", "honeybee", "cafe", "東京", "the", "edited zz"} {
		a, err := withVectors.SearchText(ctx, q, index.Filter{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		b, err := plain.SearchText(ctx, q, index.Filter{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits, %d without vectors", q, len(a), len(b))
		}
		for i := range a {
			if a[i].Score != b[i].Score {
				t.Fatalf("%q rank %d: score %v, %v without vectors", q, i, a[i].Score, b[i].Score)
			}
		}
	}
}

// TestVectorsMadeLater: chunks left without vectors (an index made without
// an embedder, vectors dropped by cite reindex or cite check --repair) get
// them from the next run, whose files are unchanged; then a run finds none
// missing.
func TestVectorsMadeLater(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md": file("# Bees\n\nHoneybees dance to say where the flowers are."),
		"b.md": file(paragraphs(40, nil)),
	}
	e, err := embed.New("hash:64", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := chunk.New(chunk.Options{Size: 120, Overlap: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		first Options
		drop  func(t *testing.T, st *index.Store)
	}{
		{"made without an embedder", Options{Splitter: sp}, nil},
		{"dropped", Options{Splitter: sp, Embedder: e}, func(t *testing.T, st *index.Store) {
			if err := st.ResetVectors(t.Context(), e); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			first, _, err := run(t, st, fsys, tc.first, ".")
			if err != nil || first.Chunks < 10 {
				t.Fatalf("%+v, %v", first, err)
			}
			if tc.drop != nil {
				tc.drop(t, st)
			}
			stats, _, err := run(t, st, fsys, Options{Splitter: sp, Embedder: e}, ".")
			if err != nil || stats.Unchanged != 2 || stats.Vectors != first.Chunks {
				t.Fatalf("made %d of %d vectors: %+v, %v", stats.Vectors, first.Chunks, stats, err)
			}
			checkIndex(t, st)
			stats, _, err = run(t, st, fsys, Options{Splitter: sp, Embedder: e}, ".")
			if err != nil || stats.Unchanged != 2 || stats.Vectors != 0 {
				t.Fatalf("again: %+v, %v", stats, err)
			}
		})
	}
}
