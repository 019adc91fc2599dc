package search

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/provider"
)

// semanticServer fakes an OpenAI-compatible embeddings server whose model,
// like a real one, embeds any text, punctuation too.
func semanticServer(t *testing.T) *embed.Embedder {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{1, float32(len(in)%7) / 7, 0.5}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	emb, err := embed.NewOpenAI("fake", embed.Config{Provider: provider.Config{OpenAIBaseURL: srv.URL + "/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// TestNoTermsNoHits: a query without a word finds nothing in any mode,
// even with an embedder that makes a vector of anything.
func TestNoTermsNoHits(t *testing.T) {
	emb := semanticServer(t)
	st := newIndex(t, emb)
	s, err := New(t.Context(), st, emb)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range Modes {
		for _, text := range []string{"?!", "...", " -- ", "#$%", "→ ・"} {
			res, err := s.Search(t.Context(), Query{Text: text, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 0 {
				t.Errorf("%s %q: %d hits: %q", mode, text, len(res.Hits), paths(res.Hits))
			}
		}
	}
	// A word still finds something by vectors alone.
	if res, err := s.Search(t.Context(), Query{Text: "queen", Mode: Vector}); err != nil || len(res.Hits) == 0 {
		t.Fatalf("vector search for a word: %v, %d hits", err, len(res.Hits))
	}
}

func TestInvalidQuery(t *testing.T) {
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	for _, tc := range []struct {
		q     Query
		field string
	}{
		{Query{Text: "queen", PerDocument: -5}, "PerDocument -5"},
		{Query{Text: "queen", K: -1}, "K -1"},
		{Query{Text: "queen", Filter: index.Filter{Path: "["}}, "Filter.Path"},
		{Query{Text: "queen", Filter: index.Filter{Path: "/docs/[ab"}}, "never closed"},
		{Query{Text: "queen", Mode: "semantic"}, "Mode"},
	} {
		_, err := s.Search(t.Context(), tc.q)
		if !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: err = %v, want ErrInvalidQuery naming %s", tc.q, err, tc.field)
		}
	}
}

func TestUnknownFilter(t *testing.T) {
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	_, err := s.Search(t.Context(), Query{Text: "queen", Filter: index.Filter{Sources: []string{"nosuch"}}})
	if !errors.Is(err, ErrUnknownSource) || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "docs, notes") {
		t.Errorf("unknown source: err = %v, want ErrUnknownSource listing docs, notes", err)
	}
	_, err = s.Search(t.Context(), Query{Text: "?!", Filter: index.Filter{Sources: []string{"nosuch"}}})
	if !errors.Is(err, ErrUnknownSource) {
		t.Errorf("unknown source, no terms: err = %v", err)
	}
	_, err = s.Search(t.Context(), Query{Text: "queen", Filter: index.Filter{Document: "0123456789abcdef"}})
	if !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown document: err = %v, want index.ErrNotFound", err)
	}
	// A known source without a match is no error.
	res, err := s.Search(t.Context(), Query{Text: "goroutines", Mode: BM25, Filter: index.Filter{Sources: []string{"notes"}}})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("known source, no match: %v, %q", err, paths(res.Hits))
	}
}

// TestMissingVectors: after an interrupted reindex most chunks have no
// vector; hybrid and vector searches say so, with the count and the fix.
func TestMissingVectors(t *testing.T) {
	ctx := t.Context()
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	for _, mode := range Modes {
		if res, err := s.Search(ctx, Query{Text: "queen", Mode: mode}); err != nil || len(res.Warnings) != 0 {
			t.Fatalf("%s, all vectors: %v, %v", mode, res.Warnings, err)
		}
	}
	// cite reindex drops the vectors, then is killed after one chunk.
	emb := mustHash(t)
	if err := st.ResetVectors(ctx, emb); err != nil {
		t.Fatal(err)
	}
	todo, err := st.MissingVectors(ctx, 0, 1)
	if err != nil || len(todo) != 1 {
		t.Fatal(todo, err)
	}
	vs, err := emb.EmbedDocuments(ctx, []string{todo[0].Text})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutVectors(ctx, map[string][]float32{todo[0].ID: vs[0]}); err != nil {
		t.Fatal(err)
	}
	total, err := st.CountMissingVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chunks := total + 1
	for _, mode := range Modes {
		res, err := s.Search(ctx, Query{Text: "queen", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if mode == BM25 {
			if len(res.Warnings) != 0 {
				t.Errorf("bm25: warnings %v", res.Warnings)
			}
			continue
		}
		want := Warning{Code: WarnMissingVectors, Fix: "cite check --repair"}
		if len(res.Warnings) != 1 || res.Warnings[0].Code != want.Code || res.Warnings[0].Fix != want.Fix ||
			!strings.Contains(res.Warnings[0].Message, strings.Join([]string{itoa(total), "of", itoa(chunks), "chunks"}, " ")) {
			t.Errorf("%s: warnings %+v, want %d of %d chunks missing", mode, res.Warnings, total, chunks)
		}
	}
	// Repaired, the warning goes.
	if _, err := ingest.FillVectors(ctx, st, emb, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Search(ctx, Query{Text: "queen"}); err != nil || len(res.Warnings) != 0 {
		t.Errorf("after repair: %v, %v", res.Warnings, err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestOpen(t *testing.T) {
	ctx := t.Context()
	emb, _ := embed.New("hash:512", embed.Config{})
	st := newIndex(t, emb)
	s, err := Open(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.emb == nil || s.emb.Name() != "hash:512" {
		t.Fatalf("Open's embedder: %v", s.emb)
	}
	res, err := s.Search(ctx, Query{Text: "goroutine channels", Mode: Vector})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Document.Path != "docs/go.md" {
		t.Fatalf("vector search: %v, %q", err, paths(res.Hits))
	}

	// An index without vectors: BM25 works, hybrid falls back, vector fails.
	empty, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	s, err = Open(ctx, empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(ctx, Query{Text: "queen", Mode: BM25}); err != nil {
		t.Errorf("bm25: %v", err)
	}
	if res, err := s.Search(ctx, Query{Text: "queen"}); err != nil || len(res.Warnings) != 1 || res.Warnings[0].Code != WarnVectorSearchFailed {
		t.Errorf("hybrid: %v, %v", res, err)
	}
	if _, err := s.Search(ctx, Query{Text: "queen", Mode: Vector}); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("vector: %v", err)
	}
}

func TestChunk(t *testing.T) {
	st := newIndex(t, nil)
	s := newSearcher(t, st)
	res, err := s.Search(t.Context(), Query{Text: "waggle dance", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := res.Hits[0]
	got, err := s.Chunk(t.Context(), want.ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	want.Rank, want.Score, want.Scores = 0, 0, Scores{}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.Ordinal != want.Ordinal || got.Span != want.Span || got.Rowid != want.Rowid {
		t.Errorf("Chunk = %s, want %s", g, w)
	}
	if _, err := s.Chunk(t.Context(), "nosuchchunk"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("missing chunk: %v", err)
	}
}

// TestHitJSONPath: a hit's document path, and its copies', are written
// escaped as every path in cite's JSON (caf\xe9, not caf\ufffd) and read
// back exact.
func TestHitJSONPath(t *testing.T) {
	h := Hit{Rank: 1, Document: DocumentRef{ID: "d1", Path: "/docs/caf\xe9.md", Kind: index.KindFile},
		Copies: []DocumentRef{{ID: "d2", Path: `/docs/back\slash.md`}}}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"path":"/docs/caf\\xe9.md"`, `"path":"/docs/back\\\\slash.md"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
	var back Hit
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Document != h.Document || len(back.Copies) != 1 || back.Copies[0] != h.Copies[0] {
		t.Errorf("read back %+v", back)
	}
}
