package search

import (
	"encoding/json"
	"errors"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/provider"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// corpus is a small set of documents in two sources.
var corpus = map[string]map[string]string{
	"docs": {
		"bees.md": "# Honeybees\n\nA honeybee colony has one queen and thousands of workers.\n\n" +
			"## The waggle dance\n\nForagers dance to tell their sisters where flowers are.\n",
		"sqlite.md": "# SQLite\n\nIn WAL mode, readers do not block the writer, and the writer does not block readers.\n\n" +
			"## Checkpoints\n\nA checkpoint copies pages from the write-ahead log back into the database.\n",
		"go.md": "# Go\n\nGoroutines are cheap threads; channels connect goroutines.\n\n" +
			"## Select\n\nselect waits on several channel operations.\n",
	},
	"notes": {
		"queen.txt": "The queen bee lays up to 2,000 eggs a day in summer.",
	},
}

// newIndex indexes corpus with the hash embedder (or emb) and returns the
// store.
func newIndex(t *testing.T, emb *embed.Embedder) *index.Store {
	t.Helper()
	return newIndexWith(t, emb, nil)
}

// newIndexWith is newIndex with a replica attached before indexing (nil:
// none).
func newIndexWith(t *testing.T, emb *embed.Embedder, r index.Replica) *index.Store {
	t.Helper()
	st, err := index.Open(t.Context(), filepath.Join(t.TempDir(), "idx"), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if r != nil {
		if err := st.SetReplica(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	if emb == nil {
		if emb, err = embed.New("hash", embed.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, source := range []string{"docs", "notes"} {
		fsys := fstest.MapFS{}
		for name, text := range corpus[source] {
			fsys[source+"/"+name] = &fstest.MapFile{Data: []byte(text), ModTime: t0}
		}
		ix, err := ingest.New(t.Context(), st, ingest.Options{Source: source, FS: fsys, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Index(t.Context(), source); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func newSearcher(t *testing.T, st *index.Store) *Searcher {
	t.Helper()
	info, err := st.Embedder(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.New(info.Name, embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), st, emb)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func paths(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Document.Path
	}
	return out
}

func TestSearch(t *testing.T) { testSearch(t, newSearcher(t, newIndex(t, nil))) }

// TestSearchWeaviate runs TestSearch's table over the same corpus in a real
// one-node Weaviate (package index/weaviate): the searcher reads the
// collection, not the index folder.
func TestSearchWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	w, err := weaviate.Open(t.Context(), weaviate.Config{Addr: c.Addr(), Collection: "SearchTable"})
	if err != nil {
		t.Fatal(err)
	}
	newIndexWith(t, nil, w)
	info, err := w.Embedder(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.New(info.Name, embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), w, emb)
	if err != nil {
		t.Fatal(err)
	}
	testSearch(t, s)
}

func testSearch(t *testing.T, s *Searcher) {
	for _, tc := range []struct {
		name  string
		q     Query
		first string   // path of the first hit
		all   []string // every hit's path, in order, when set
		check func(t *testing.T, hits []Hit)
	}{
		{name: "hybrid", q: Query{Text: "where do foragers dance"}, first: "docs/bees.md"},
		{name: "bm25", q: Query{Text: "checkpoint pages", Mode: BM25}, first: "docs/sqlite.md"},
		{name: "vector", q: Query{Text: "goroutine channels", Mode: Vector}, first: "docs/go.md"},
		{name: "typo found by vectors", q: Query{Text: "checkpointt", Mode: Vector}, first: "docs/sqlite.md"},
		{name: "typo in hybrid", q: Query{Text: "honeybee checkpointt"}, check: func(t *testing.T, hits []Hit) {
			if !slices.Contains(paths(hits[:2]), "docs/sqlite.md") {
				t.Errorf("the typo's document is not in the first two: %q", paths(hits))
			}
		}},
		{name: "source filter", q: Query{Text: "queen", Filter: index.Filter{Sources: []string{"notes"}}}, all: []string{"notes/queen.txt"}},
		{name: "path filter", q: Query{Text: "queen", Filter: index.Filter{Path: "docs/*"}}, all: []string{"docs/bees.md"}},
		{name: "every source", q: Query{Text: "queen", Filter: index.Filter{Sources: []string{"notes", "docs"}}}, all: []string{"notes/queen.txt", "docs/bees.md"}},
		{name: "k", q: Query{Text: "the", K: 2}, check: func(t *testing.T, hits []Hit) {
			if len(hits) != 2 {
				t.Errorf("%d hits, want 2", len(hits))
			}
		}},
		{name: "empty query", q: Query{Text: "  "}, all: []string{}},
		{name: "no terms", q: Query{Text: "?!"}, all: []string{}},
		{name: "hit fields", q: Query{Text: "waggle dance", Mode: BM25, K: 1}, check: func(t *testing.T, hits []Hit) {
			h := hits[0]
			src := corpus["docs"]["bees.md"]
			if h.Rank != 1 || h.Scores.BM25 == nil || h.Scores.Vector != nil || h.Score != *h.Scores.BM25 {
				t.Errorf("rank/scores: %+v", h)
			}
			if h.Document.Title != "Honeybees" || h.Document.DataSource != "docs" || h.Document.Format != "markdown" || h.Document.Kind != index.KindFile || h.Heading != "Honeybees" || len(h.ChunkID) != 24 {
				t.Errorf("document/heading/id: %+v", h)
			}
			if h.SourceSpan.Start < 0 || h.SourceSpan.End > len(src) || !strings.Contains(src[h.SourceSpan.Start:h.SourceSpan.End], "waggle dance") {
				t.Errorf("source span %v does not hold the text", h.SourceSpan)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Search(t.Context(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings: %q", res.Warnings)
			}
			got := paths(res.Hits)
			if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
				t.Errorf("hits %q, want %s first", got, tc.first)
			}
			if tc.all != nil && !slices.Equal(got, tc.all) {
				t.Errorf("hits %q, want %q", got, tc.all)
			}
			for i, h := range res.Hits {
				if h.Rank != i+1 || i > 0 && h.Score > res.Hits[i-1].Score {
					t.Errorf("hit %d: rank %d, score %v after %v", i, h.Rank, h.Score, res.Hits[i-1].Score)
				}
			}
			if tc.check != nil {
				tc.check(t, res.Hits)
			}
		})
	}
}

func TestPerDocument(t *testing.T) {
	st := newIndex(t, nil)
	// Cut a document into several chunks: one chunk per paragraph.
	var b strings.Builder
	for i := range 12 {
		b.WriteString("Paragraph about honeybees number " + strings.Repeat("x", i+1) + ". ")
		b.WriteString(strings.Repeat("Bees make honey from nectar. ", 8) + "\n\n")
	}
	fsys := fstest.MapFS{"long/bees.md": &fstest.MapFile{Data: []byte(b.String()), ModTime: t0}}
	sp, err := chunk.New(chunk.Options{Size: 80, Overlap: 8})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: "long", FS: fsys, Splitter: sp, Embedder: mustHash(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(t.Context(), "long"); err != nil {
		t.Fatal(err)
	}
	s := newSearcher(t, st)
	res, err := s.Search(t.Context(), Query{Text: "honeybees", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(paths(res.Hits), " "), "long/bees.md"); n < 4 {
		t.Fatalf("without a cap, the long document has %d of 5 hits: %q", n, paths(res.Hits))
	}
	res, err = s.Search(t.Context(), Query{Text: "honeybees", K: 5, PerDocument: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range paths(res.Hits) {
		if seen[p] {
			t.Fatalf("two hits from %s: %q", p, paths(res.Hits))
		}
		seen[p] = true
	}
	if len(res.Hits) < 2 {
		t.Fatalf("%d hits", len(res.Hits))
	}
}

// TestCopies: chunks of the same text in several documents (a page in
// each version of a product's docs) are one hit, listing the other
// documents, and the hits after it are other texts.
func TestCopies(t *testing.T) {
	st := newIndex(t, nil)
	page := "The zorbulator hums at forty-two hertz when the hive is calm."
	fsys := fstest.MapFS{}
	for _, v := range []string{"5.1", "7.4", "7.5"} {
		fsys["versions/"+v+"/zorbulator.md"] = &fstest.MapFile{Data: []byte(page), ModTime: t0}
	}
	fsys["versions/7.6/zorbulator.md"] = &fstest.MapFile{Data: []byte(page + " It was renamed in 7.6."), ModTime: t0}
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: "versions", FS: fsys, Embedder: mustHash(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(t.Context(), "versions"); err != nil {
		t.Fatal(err)
	}
	s := newSearcher(t, st)
	for _, perDoc := range []int{0, 1} {
		res, err := s.Search(t.Context(), Query{Text: "zorbulator hertz", K: 3, PerDocument: perDoc})
		if err != nil {
			t.Fatal(err)
		}
		ps := paths(res.Hits)
		if len(ps) < 2 || !strings.Contains(ps[0]+ps[1], "7.6/zorbulator.md") || strings.Count(strings.Join(ps, " "), "zorbulator.md") != 2 {
			t.Fatalf("perDoc %d: hits %q, want the 7.6 page and one of the others", perDoc, ps)
		}
		for i, h := range res.Hits {
			if h.Rank != i+1 {
				t.Errorf("hit %d has rank %d", i+1, h.Rank)
			}
			want := 0
			if strings.HasSuffix(h.Document.Path, "zorbulator.md") && !strings.Contains(h.Document.Path, "7.6") {
				want = 2
			}
			if len(h.Copies) != want {
				t.Errorf("perDoc %d: %s has copies %+v, want %d", perDoc, h.Document.Path, h.Copies, want)
			}
			for _, c := range h.Copies {
				if !strings.HasSuffix(c.Path, "zorbulator.md") || c.Path == h.Document.Path || c.ID == "" {
					t.Errorf("copy %+v of %s", c, h.Document.Path)
				}
			}
		}
	}
}

// TestHitJSON freezes the JSON of cite search --json: an interface.
func TestHitJSON(t *testing.T) {
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	res, err := s.Search(t.Context(), Query{Text: "readers block the writer", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "hits.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("JSON changed (run go test -update if on purpose):\n%s", got)
	}
}

// TestVectorFailure: when the embedder fails, hybrid search falls back to
// BM25 with a warning, and vector search fails with the provider's error.
func TestVectorFailure(t *testing.T) {
	down := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{1, float32(len(in) % 7), 0.5}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	emb, err := embed.NewOpenAI("fake", embed.Config{Provider: provider.Config{OpenAIBaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: &provider.Transport{MaxAttempts: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	st := newIndex(t, emb)
	s, err := New(t.Context(), st, emb)
	if err != nil {
		t.Fatal(err)
	}
	down = true
	res, err := s.Search(t.Context(), Query{Text: "checkpoint"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Code != WarnVectorSearchFailed || !strings.Contains(res.Warnings[0].Message, "503") || len(res.Hits) == 0 || res.Hits[0].Document.Path != "docs/sqlite.md" {
		t.Fatalf("hybrid: %q, %q", res.Warnings, paths(res.Hits))
	}
	if _, err := s.Search(t.Context(), Query{Text: "checkpoint", Mode: Vector}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("vector: %v", err)
	}
}

func TestSearcherRefusesOtherEmbedder(t *testing.T) {
	st := newIndex(t, nil)
	other, _ := embed.New("hash:512", embed.Config{})
	if _, err := New(t.Context(), st, other); !errors.Is(err, index.ErrEmbedderMismatch) {
		t.Fatalf("err = %v", err)
	}
	s, err := New(t.Context(), st, nil) // BM25 only
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(t.Context(), Query{Text: "queen", Mode: Vector}); !errors.Is(err, ErrNoEmbedder) {
		t.Fatalf("vector search without an embedder: %v", err)
	}
}

// TestOpenFollowsReindex: a Searcher made by Open (a cite serve, a cite
// mcp) that outlives a cite reindex embeds its queries with the index's new
// embedder: with the old one, of as many dimensions, they were compared with
// the new vectors without a warning, the scores and the order wrong.
func TestOpenFollowsReindex(t *testing.T) {
	ctx := t.Context()
	st := newIndex(t, nil)
	s, err := Open(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Text: "how do bees tell each other where the flowers are", Mode: Vector, K: 3}
	if _, err := s.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"hash:2048?ngrams=0", "hash:512"} {
		emb, err := embed.New(spec, embed.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ResetVectors(ctx, emb); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.FillVectors(ctx, st, emb, nil); err != nil {
			t.Fatal(err)
		}
		fresh, err := Open(ctx, st, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if len(got.Warnings) != 0 || len(got.Hits) != len(want.Hits) || len(got.Hits) == 0 {
			t.Fatalf("%s: %v, %q; a new Searcher: %q", spec, got.Warnings, paths(got.Hits), paths(want.Hits))
		}
		for i := range got.Hits {
			if got.Hits[i].ChunkID != want.Hits[i].ChunkID || got.Hits[i].Score != want.Hits[i].Score {
				t.Errorf("%s: hit %d is %s (%v), a new Searcher's %s (%v)", spec, i, got.Hits[i].ChunkID, got.Hits[i].Score, want.Hits[i].ChunkID, want.Hits[i].Score)
			}
		}
	}
}

func TestFuse(t *testing.T) {
	bm := []index.Scored{{Chunk: 1, Score: 10}, {Chunk: 2, Score: 5}, {Chunk: 3, Score: 2}}
	vec := []index.Scored{{Chunk: 3, Score: 0.8}, {Chunk: 4, Score: 0.4}}
	for _, tc := range []struct {
		f    Fusion
		want map[int64]float64
	}{
		{Fusion{Method: "max", BM25Weight: 0.75, VectorWeight: 0.25},
			map[int64]float64{1: 0.75, 2: 0.375, 3: 0.75*0.2 + 0.25, 4: 0.125}},
		{Fusion{Method: "minmax", BM25Weight: 0.5, VectorWeight: 0.5},
			map[int64]float64{1: 0.5, 2: 0.5 * 3 / 8, 3: 0.5, 4: 0}},
		{Fusion{Method: "rrf", BM25Weight: 1, VectorWeight: 1},
			map[int64]float64{1: 1.0 / 61, 2: 1.0 / 62, 3: 1.0/63 + 1.0/61, 4: 1.0 / 62}},
	} {
		got := tc.f.Rank(bm, vec)
		if len(got) != 4 {
			t.Fatalf("%v: %v", tc.f, got)
		}
		for i, g := range got {
			if math.Abs(g.Score-tc.want[g.Chunk]) > 1e-12 {
				t.Errorf("%v: chunk %d scored %v, want %v", tc.f, g.Chunk, g.Score, tc.want[g.Chunk])
			}
			if i > 0 && (g.Score > got[i-1].Score || g.Score == got[i-1].Score && g.Chunk < got[i-1].Chunk) {
				t.Errorf("%v: not ordered: %v", tc.f, got)
			}
		}
	}
}

func TestParseFusion(t *testing.T) {
	for _, s := range []string{"max:0.75:0.25", "minmax:1:0", "rrf:1:0.5", "rrf:1:1:20"} {
		f, err := ParseFusion(s)
		if err != nil || f.String() != s {
			t.Errorf("%s: %v, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "max", "max:1", "sum:1:1", "max:x:1", "max:1:-1", "max:1:1:5", "rrf:1:1:0"} {
		if _, err := ParseFusion(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Hybrid, "BM25": BM25, "vector": Vector, "hybrid": Hybrid} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("%q: %v, %v", in, m, err)
		}
	}
	if _, err := ParseMode("semantic"); err == nil {
		t.Error("semantic: no error")
	}
}

// The examples and tests share these.
func mustHash(t *testing.T) *embed.Embedder {
	e, err := embed.New("hash", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSourcesKeptAfterNarrow: a search over every source runs unfiltered;
// a source added between that check and the ranking (another process
// indexing) must still not reach the hits.
func TestSourcesKeptAfterNarrow(t *testing.T) {
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	f, err := s.narrow(t.Context(), session.Public, index.Filter{Sources: []string{"docs", "notes"}})
	if err != nil || !f.IsZero() {
		t.Fatalf("narrow over every source: %+v, %v; want the zero filter", f, err)
	}
	if f, _ := s.narrow(t.Context(), session.Public, index.Filter{Sources: []string{"docs"}}); !slices.Equal(f.Sources, []string{"docs"}) {
		t.Fatalf("narrow over one of two sources: %+v", f)
	}
	// Rank everything, as the unfiltered search does, then keep docs only:
	// notes stands for the source that arrived late.
	bm, vec, err := s.Candidates(t.Context(), Query{Text: "queen bee"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := s.hits(t.Context(), s.Fusion.fuse(bm, vec), 10, 0, session.Public, []string{"docs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range hits {
		if h.Document.DataSource != "docs" {
			t.Errorf("hit %s of source %q, want docs only", h.Document.Path, h.Document.DataSource)
		}
	}
}
