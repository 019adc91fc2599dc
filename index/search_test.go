package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/chunk"
	chromem "github.com/philippgille/chromem-go"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
)

// textDoc stores a document of one chunk per text, each with the hash
// embedder's vector when e is set, and returns its id.
func textDoc(t *testing.T, st *Store, e *embed.Embedder, source, path string, texts ...string) string {
	t.Helper()
	var cs []Chunk
	off := 0
	for i, text := range texts {
		c := Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text)}
		off += len(text)
		if e != nil {
			c.Vector = embedDocs(t, e, text)[0]
		}
		cs = append(cs, c)
	}
	doc := &Document{Source: source, Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}
	if _, err := st.PutDocument(t.Context(), doc, cs); err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

// texts returns the texts of the chunks ranked, in order.
func texts(t *testing.T, st *Store, rs []Scored) []string {
	t.Helper()
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.Chunk
	}
	recs, err := st.ChunksByRowid(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = recs[r.Chunk].Text
	}
	return out
}

func TestSearchText(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	textDoc(t, st, nil, "a", "/a/bees.md", "Honeybees dance to tell where flowers are.", "The queen lays eggs.")
	textDoc(t, st, nil, "a", "/a/wal.md", "SQLite's write-ahead log lets readers run while one writer commits.")
	textDoc(t, st, nil, "b", "/b/go.md", "Goroutines run concurrently; channels connect running goroutines.", "A queen bee is not a goroutine.")
	for _, tc := range []struct {
		name  string
		query string
		f     Filter
		want  []string // texts, in order
	}{
		{"one term", "eggs", Filter{}, []string{"The queen lays eggs."}},
		{"stemmed", "dancing honeybee", Filter{}, []string{"Honeybees dance to tell where flowers are."}},
		{"folded and stemmed", "WRITERS Commit", Filter{}, []string{"SQLite's write-ahead log lets readers run while one writer commits."}},
		{"more hits rank higher", "goroutine run", Filter{}, []string{
			"Goroutines run concurrently; channels connect running goroutines.",
			"A queen bee is not a goroutine.",
			"SQLite's write-ahead log lets readers run while one writer commits.",
		}},
		{"stopwords only are kept", "the", Filter{}, []string{"The queen lays eggs."}},
		{"source filter", "queen", Filter{Sources: []string{"b"}}, []string{"A queen bee is not a goroutine."}},
		{"path filter", "queen", Filter{Path: "/a/*"}, []string{"The queen lays eggs."}},
		{"two sources", "queen", Filter{Sources: []string{"a", "b"}}, []string{"The queen lays eggs.", "A queen bee is not a goroutine."}},
		{"source and path", "queen", Filter{Sources: []string{"b"}, Path: "/a/*"}, []string{}},
		{"no match", "zebra", Filter{}, []string{}},
		{"no terms", "?!", Filter{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := st.SearchText(ctx, tc.query, tc.f, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(t, st, rs); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for i := 1; i < len(rs); i++ {
				if rs[i].Score > rs[i-1].Score {
					t.Errorf("scores not descending: %v", rs)
				}
			}
		})
	}
}

// TestBM25Score checks the score against Okapi BM25 computed by hand.
func TestBM25Score(t *testing.T) {
	st := openStore(t)
	docs := []string{"apple banana apple", "banana cherry", "cherry cherry cherry date", "elder"}
	textDoc(t, st, nil, "s", "/x", docs...)
	rs, err := st.SearchText(t.Context(), "apple cherry", Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// N = 4 chunks, avgdl = 10/4 rounded to 3 (FTS4's matchinfo 'a' is an
	// integer).
	bm25 := func(tf, dl, df float64) float64 {
		idf := math.Log(1 + (4-df+0.5)/(df+0.5))
		return idf * tf * 2.2 / (tf + 1.2*(1-0.75+0.75*dl/3))
	}
	want := map[string]float64{
		docs[0]: bm25(2, 3, 1),
		docs[1]: bm25(1, 2, 2),
		docs[2]: bm25(3, 4, 2),
	}
	got := texts(t, st, rs)
	if len(got) != 3 {
		t.Fatalf("got %q", got)
	}
	for i, text := range got {
		if math.Abs(rs[i].Score-want[text]) > 1e-9 {
			t.Errorf("%q: score %v, want %v", text, rs[i].Score, want[text])
		}
	}
}

func TestFullTextFollowsChunks(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	id := textDoc(t, st, nil, "s", "/d", "old words here", "shared words")
	textDoc(t, st, nil, "s", "/d", "new words there", "shared words")
	if rs, _ := st.SearchText(ctx, "old", Filter{}, 10); len(rs) != 0 {
		t.Errorf("replaced chunk still found: %v", texts(t, st, rs))
	}
	if rs, _ := st.SearchText(ctx, "new shared", Filter{}, 10); len(rs) != 2 {
		t.Errorf("found %q", texts(t, st, rs))
	}
	if _, err := st.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	if rs, _ := st.SearchText(ctx, "words", Filter{}, 10); len(rs) != 0 {
		t.Errorf("deleted document still found: %q", texts(t, st, rs))
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep, err)
	}
}

func TestVectorsFollowChunks(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:256")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	search := func(q string) []string {
		t.Helper()
		qv, err := e.EmbedQuery(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := st.SearchVectors(ctx, qv, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return texts(t, st, rs)
	}
	id := textDoc(t, st, e, "s", "/d", "honeybees dance", "sqlite writes ahead")
	if got := search("honeybee dancing"); len(got) != 2 || got[0] != "honeybees dance" {
		t.Fatalf("got %q", got)
	}
	// Loaded in memory now: an update must reach it.
	textDoc(t, st, e, "s", "/d", "goroutines and channels", "sqlite writes ahead")
	if got := search("honeybee dancing"); slices.Contains(got, "honeybees dance") || len(got) != 2 {
		t.Fatalf("after update: %q", got)
	}
	if got := search("goroutine channel"); got[0] != "goroutines and channels" {
		t.Fatalf("after update: %q", got)
	}
	if _, err := st.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := search("goroutine channel"); len(got) != 0 {
		t.Fatalf("after delete: %q", got)
	}
	rep, err := st.Check(ctx)
	if err != nil || !rep.OK() || rep.Vectors != 0 {
		t.Fatalf("check: %+v %v", rep, err)
	}
}

// TestVectorsAcrossStores: a store holding vectors in memory sees what
// another process (here, another Store on the same folder) wrote.
func TestVectorsAcrossStores(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e := mustEmbedder(t, "hash:256")
	if err := a.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	textDoc(t, a, e, "s", "/1", "first text")
	if n, _, err := a.VectorStats(ctx); err != nil || n != 1 {
		t.Fatalf("a: %d vectors, %v", n, err)
	}
	textDoc(t, b, e, "s", "/2", "second text")
	if n, _, err := a.VectorStats(ctx); err != nil || n != 2 {
		t.Fatalf("a after b wrote: %d vectors, %v", n, err)
	}
}

func TestVectorFilter(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:256")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	textDoc(t, st, e, "a", "/a/1", "queen bee")
	doc := textDoc(t, st, e, "b", "/b/2", "queen of hearts")
	qv, _ := e.EmbedQuery(ctx, "queen", nil)
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"queen bee", "queen of hearts"}},
		{Filter{Sources: []string{"a"}}, []string{"queen bee"}},
		{Filter{Document: doc}, []string{"queen of hearts"}},
		{Filter{Path: "/b/*"}, []string{"queen of hearts"}},
		{Filter{Sources: []string{"none"}}, []string{}},
		{Filter{Sources: []string{"a", "b"}}, []string{"queen bee", "queen of hearts"}},
		{Filter{Sources: []string{"a", "none"}}, []string{"queen bee"}},
		{Filter{Sources: []string{"a"}, Path: "/b/*"}, []string{}},
	} {
		rs, err := st.SearchVectors(ctx, qv, tc.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := texts(t, st, rs)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: got %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestEmbedderRecorded(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	a, b := mustEmbedder(t, "hash:64"), mustEmbedder(t, "hash:32")
	if err := st.CheckEmbedder(ctx, a); !errors.Is(err, ErrNoVectors) {
		t.Fatalf("no embedder yet: %v", err)
	}
	if err := st.UseEmbedder(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, b); !errors.Is(err, ErrEmbedderMismatch) || !strings.Contains(err.Error(), "cite reindex --embedder hash:32") {
		t.Fatalf("other embedder: %v", err)
	}
	// A vector of another size is refused, and nothing is written.
	c := Chunk{Chunk: chunk.Chunk{Text: "x", End: 1, Tokens: 1}, SourceEnd: 1, Vector: make([]float32, 32)}
	if _, err := st.PutDocument(ctx, &Document{Source: "s", Path: "/x", TextBytes: 1}, []Chunk{c}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("wrong size: %v", err)
	}
	if docs, _ := st.Documents(ctx, ""); len(docs) != 0 {
		t.Fatalf("stored %d documents", len(docs))
	}
	textDoc(t, st, a, "s", "/y", "some text")
	if err := st.ResetVectors(ctx, b); err != nil {
		t.Fatal(err)
	}
	if info, _ := st.Embedder(ctx); info != (EmbedderInfo{"hash:32", 32}) {
		t.Fatalf("after reset: %+v", info)
	}
	missing, err := st.MissingVectors(ctx, 0, 10)
	if err != nil || len(missing) != 1 || missing[0].Text != "some text" {
		t.Fatalf("missing: %+v, %v", missing, err)
	}
	n, err := st.PutVectors(ctx, map[string][]float32{missing[0].ID: embedDocs(t, b, "some text")[0], "gone": make([]float32, 32)})
	if err != nil || n != 1 {
		t.Fatalf("put vectors: %d, %v", n, err)
	}
	if n, _ := st.CountMissingVectors(ctx); n != 0 {
		t.Fatalf("%d still missing", n)
	}
}

func TestCheckAndRepairSearchTables(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:64")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"missing vector", `DELETE FROM vectors WHERE chunk = (SELECT min(rowid) FROM chunks)`, "chunks have no vector"},
		{"bad vector", `UPDATE vectors SET vec = x'0000' WHERE chunk = (SELECT min(rowid) FROM chunks)`, "do not have the embedder's dimension"},
		{"orphan vector", `PRAGMA foreign_keys = OFF; INSERT INTO vectors (chunk, vec) VALUES (999999, zeroblob(256))`, "vectors belong to no chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := textDoc(t, st, e, "s", "/d", "alpha beta", "gamma delta")
			conn, err := st.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.ExecContext(ctx, tc.sql)
			conn.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
			conn.Close()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := st.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), tc.want) {
				t.Fatalf("problems %+v, want %q", rep.Problems, tc.want)
			}
			if _, err := st.Repair(ctx); err != nil {
				t.Fatal(err)
			}
			// What is left are missing vectors, which need the embedder.
			missing, err := st.MissingVectors(ctx, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			vs := map[string][]float32{}
			for _, m := range missing {
				vs[m.ID] = embedDocs(t, e, m.Text)[0]
			}
			if _, err := st.PutVectors(ctx, vs); err != nil {
				t.Fatal(err)
			}
			if rep, err := st.Check(ctx); err != nil || !rep.OK() {
				t.Fatalf("after repair: %+v, %v", rep.Problems, err)
			}
			if rs, _ := st.SearchText(ctx, "alpha", Filter{}, 10); len(rs) != 1 {
				t.Fatalf("after repair, full-text finds %d", len(rs))
			}
			if _, err := st.DeleteDocument(ctx, id); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMigrationAddsFullText opens an index written at schema 1 and finds
// its chunks by full-text search.
func TestMigrationAddsFullText(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	textDoc(t, st, nil, "s", "/old", "written before full-text search")
	// Make it look like schema 1.
	for _, q := range append(toSchema6(), `DROP TRIGGER chunks_fts_delete`, `CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunks_fts WHERE docid = old.rowid; END`, `DROP TABLE fts_postings`, `DROP TABLE fts_segments`, `DROP TABLE fts_deleted`, `ALTER TABLE chunks DROP COLUMN page`, `ALTER TABLE chunks DROP COLUMN page_end`, `ALTER TABLE documents DROP COLUMN layout`, `DROP TABLE session_turns`, `DROP TABLE sessions`, `ALTER TABLE documents DROP COLUMN kind`, `DROP TRIGGER chunks_fts_delete`, `DROP TABLE term_df`, `DROP TABLE chunks_fts`, `DROP TABLE vectors`, `DROP TABLE meta`, `PRAGMA user_version = 1`) {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.SearchText(ctx, "full-text", Filter{}, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("after migration: %v, %v", rs, err)
	}
}

// TestVectorIndexMatchesChromem compares the in-memory search (the
// quantized shortlist ranked by the float32 vectors) with chromem-go's
// exhaustive QueryEmbedding on the same vectors: the same chunks, the same
// order, the same scores (to float32 rounding).
func TestVectorIndexMatchesChromem(t *testing.T) {
	ctx := context.Background()
	const n, dim = 5000, 64
	rng := rand.New(rand.NewPCG(3, 4))
	x := newVectorIndex(dim)
	floats := map[int64][]float32{}
	col, err := chromem.NewDB().CreateCollection("t", nil, func(context.Context, string) ([]float32, error) {
		return nil, errors.New("no embedding here")
	})
	if err != nil {
		t.Fatal(err)
	}
	unit := func(v []float32) []float32 {
		var s float64
		for _, f := range v {
			s += float64(f * f)
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(s))
		}
		return v
	}
	var docs []chromem.Document
	for i := 1; i <= n; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		unit(v)
		x.add(int64(i), v, nil)
		floats[int64(i)] = v
		docs = append(docs, chromem.Document{ID: fmt.Sprint(i), Embedding: v})
	}
	// Remove some, as updates do, and reuse their slots.
	for i := 1; i <= n; i += 7 {
		x.remove(int64(i))
	}
	docs = slices.DeleteFunc(docs, func(d chromem.Document) bool {
		var i int
		fmt.Sscan(d.ID, &i)
		return (i-1)%7 == 0
	})
	if err := col.AddDocuments(ctx, docs, 2); err != nil {
		t.Fatal(err)
	}
	for qi := range 20 {
		q := make([]float32, dim)
		nz := dim
		if qi%2 == 0 {
			nz = 5 // sparse, as hash-embedder queries are
		}
		for range nz {
			q[rng.IntN(dim)] = float32(rng.NormFloat64())
		}
		unit(q)
		got, err := searchFloats(ctx, x, floats, q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := col.QueryEmbedding(ctx, q, 10, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if fmt.Sprint(got[i].Chunk) != want[i].ID || math.Abs(got[i].Score-float64(want[i].Similarity)) > 1e-5 {
				t.Fatalf("query %d, rank %d: got %d (%.6f), chromem-go %s (%.6f)", qi, i, got[i].Chunk, got[i].Score, want[i].ID, want[i].Similarity)
			}
		}
	}
}

func TestOpenRebuildsFullTextForNewAnalyzer(t *testing.T) {
	ctx := t.Context()
	dir, st, e := createWithEmbedder(t, "hash:64")
	textDoc(t, st, e, "s", "/d", "analyzed once")
	if _, err := st.db.ExecContext(ctx, `UPDATE meta SET value = '0' WHERE key = 'analyzer'; DELETE FROM term_df; DELETE FROM fts_postings`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if rs, _ := st.SearchText(ctx, "analyzed", Filter{}, 10); len(rs) != 1 {
		t.Fatalf("full-text not rebuilt: %v", rs)
	}
	// Vectors are the embedder's business: the hash embedder names its
	// analysis version, so vectors of another are refused as another
	// embedder's (embed's TestHashEmbedderAnalysisVersion), not dropped.
	if n, _ := st.CountMissingVectors(ctx); n != 0 {
		t.Fatalf("%d missing vectors, want 0", n)
	}
}

// TestVectorCache: the snapshot written at the end of an indexing run is
// used by the next process when current, ignored when stale or damaged,
// and never changed by writes to the mapped vectors.
func TestVectorCache(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	e := mustEmbedder(t, "hash:64")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := st.LoadVectors(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		textDoc(t, st, e, "s", fmt.Sprintf("/d%d", i), fmt.Sprintf("document %d about topic%d", i, i%7), "shared closing words")
	}
	if err := st.SaveVectorCache(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	cache := filepath.Join(dir, cacheFile)
	saved, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	qv, _ := e.EmbedQuery(ctx, "topic3 document", nil)
	search := func(st *Store) []Scored {
		t.Helper()
		rs, err := st.SearchVectors(ctx, qv, Filter{}, 5)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	reopen := func() *Store {
		t.Helper()
		st, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	// The reference: vectors read from the database.
	os.Rename(cache, cache+".saved")
	want := search(reopen())
	os.Rename(cache+".saved", cache)
	if len(want) != 5 {
		t.Fatalf("%d hits", len(want))
	}

	st = reopen()
	if got := search(st); !slices.Equal(got, want) {
		t.Fatalf("from the cache: %v, want %v", got, want)
	}
	st.vmu.Lock()
	fromCache := st.cachedGen > 0 && len(st.releases) == 1
	st.vmu.Unlock()
	if !fromCache {
		t.Fatal("the cache was not used")
	}
	// Writes change the mapped vectors, not the file, until saved.
	textDoc(t, st, e, "s", "/d3", "replaced text")
	if now, _ := os.ReadFile(cache); !slices.Equal(now, saved) {
		t.Fatal("a write through the mapping changed the cache file")
	}
	after := search(st)
	if slices.Equal(after, want) {
		t.Fatal("the update did not reach the mapped vectors")
	}
	// The cache is now stale: another process reads the database.
	other := reopen()
	if got := search(other); !slices.Equal(got, after) {
		t.Fatalf("stale cache used: %v, want %v", got, after)
	}
	// A damaged cache is ignored.
	st.Close()
	other.Close()
	os.WriteFile(cache, saved[:len(saved)/2], 0o644)
	if got := search(reopen()); !slices.Equal(got, after) {
		t.Fatalf("damaged cache: %v, want %v", got, after)
	}
}

// TestVectorCacheOfFloats: the float32 vector cache cite wrote before the
// vectors were quantized (CITEVEC2) is stale, not damage: a read-only open
// searches the database's vectors, and the first writable open replaces
// it with the quantized cache, which the next open maps.
func TestVectorCacheOfFloats(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	e := mustEmbedder(t, "hash:64")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		textDoc(t, st, e, "s", fmt.Sprintf("/d%d", i), fmt.Sprintf("document %d about topic%d", i, i%7))
	}
	qv, _ := e.EmbedQuery(ctx, "topic3 document", nil)
	want, err := st.SearchVectors(ctx, qv, Filter{}, 5)
	if err != nil || len(want) != 5 {
		t.Fatalf("search: %v %v", want, err)
	}
	st.Close()
	// A cache as cite wrote it before: same header, float32 vectors.
	cache := filepath.Join(dir, cacheFile)
	old := make([]byte, cacheHeader+8*30+4*30*64)
	copy(old, "CITEVEC2")
	if err := os.WriteFile(cache, old, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, ro := range []bool{true, false, false} {
		st, err := Open(ctx, dir, Options{ReadOnly: ro})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.SearchVectors(ctx, qv, Filter{}, 5)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("read-only %v: %v %v, want %v", ro, got, err, want)
		}
		st.vmu.Lock()
		mapped := len(st.releases) == 1
		st.vmu.Unlock()
		if mapped != (i == 2) {
			t.Errorf("open %d: cache mapped %v", i, mapped)
		}
		rep, err := st.Check(ctx)
		if err != nil || !rep.OK() {
			t.Errorf("read-only %v: check: %v %+v", ro, err, rep.Problems)
		}
		st.Close()
		data, _ := os.ReadFile(cache)
		if magic := string(data[:8]); ro && magic != "CITEVEC2" || !ro && magic != cacheMagic {
			t.Errorf("read-only %v: the cache is %q", ro, magic)
		}
	}
}

// TestVectorCacheDamage: a vector cache whose rowids were swapped, or whose
// vectors differ from the database's, is not trusted by search, is reported
// by Check and rebuilt by Repair.
func TestVectorCacheDamage(t *testing.T) {
	cases := []struct {
		name   string
		damage func(data []byte, rowids, scales, vectors int)
	}{
		{"two rowids swapped", func(data []byte, rowids, _, _ int) {
			a, b := data[rowids:rowids+8], data[rowids+8:rowids+16]
			var tmp [8]byte
			copy(tmp[:], a)
			copy(a, b)
			copy(b, tmp[:])
		}},
		{"a scale changed", func(data []byte, _, scales, _ int) {
			data[scales+5] ^= 0x55
		}},
		{"a vector changed", func(data []byte, _, _, vectors int) {
			// Value 0 of every vector (column-major).
			for i := vectors; i < vectors+20; i++ {
				data[i] ^= 0x55
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			e := mustEmbedder(t, "hash:64")
			st, err := Open(ctx, dir, Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.UseEmbedder(ctx, e); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				textDoc(t, st, e, "s", fmt.Sprintf("/d%d", i), fmt.Sprintf("document %d about topic%d", i, i%7))
			}
			qv, _ := e.EmbedQuery(ctx, "topic3 document", nil)
			want, err := st.SearchVectors(ctx, qv, Filter{}, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.SaveVectorCache(ctx); err != nil {
				t.Fatal(err)
			}
			st.Close()
			cache := filepath.Join(dir, cacheFile)
			data, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			// A cache holds what the index holds, not a segment of 2,048.
			if len(data) > 64<<10 {
				t.Errorf("vector cache of 20 vectors of 64 dimensions is %d bytes", len(data))
			}
			name := int(binary.NativeEndian.Uint32(data[20:]))
			slots := int(binary.NativeEndian.Uint64(data[32:]))
			rowids := cacheHeader + pad8(name)
			scales := rowids + 8*slots
			c.damage(data, rowids, scales, scales+pad8(4*slots))
			os.WriteFile(cache, data, 0o644)

			ro, err := Open(ctx, dir, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ro.SearchVectors(ctx, qv, Filter{}, 3)
			if err != nil || !slices.Equal(got, want) && c.name == "two rowids swapped" {
				t.Errorf("search with the damaged cache: %v %v, want %v", got, err, want)
			}
			rep, err := ro.Check(ctx)
			ro.Close()
			if err != nil || rep.BadVectorCache == 0 || rep.OK() {
				t.Fatalf("check: %v %+v, want the cache reported", err, rep)
			}
			st, err = Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			did, err := st.Repair(ctx)
			if err != nil || !slices.ContainsFunc(did, func(s string) bool { return strings.Contains(s, "vector cache") }) {
				t.Fatalf("repair: %v %v", did, err)
			}
			if rep, err := st.Check(ctx); err != nil || !rep.OK() {
				t.Fatalf("check after repair: %v %+v", err, rep)
			}
			if got, err := st.SearchVectors(ctx, qv, Filter{}, 3); err != nil || !slices.Equal(got, want) {
				t.Errorf("search after repair: %v %v, want %v", got, err, want)
			}
		})
	}
}

// TestVectorIndexMemory: the in-memory vectors take what they hold (the
// last segment grows), and a segment at most segBytes, whatever the
// dimension.
func TestVectorIndexMemory(t *testing.T) {
	for _, c := range []struct{ dim, n int }{{64, 1}, {64, 5000}, {2048, 3}, {2048, 2100}, {1 << 20, 3}} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.dim), func(t *testing.T) {
			x := newVectorIndex(c.dim)
			floats := map[int64][]float32{}
			v := make([]float32, c.dim)
			for i := 1; i <= c.n; i++ {
				clear(v)
				v[i%c.dim] = 1
				x.add(int64(i), v, nil)
				floats[int64(i)] = slices.Clone(v)
			}
			bytes := 0
			for _, s := range x.segs {
				bytes += len(s)
				if len(s) > max(segBytes, c.dim) {
					t.Errorf("a segment of %d bytes", len(s))
				}
			}
			if limit := (2*c.n + firstRows) * c.dim; bytes > limit {
				t.Errorf("%d vectors of %d dimensions take %d bytes, want at most %d", c.n, c.dim, bytes, limit)
			}
			q := make([]float32, c.dim)
			q[c.n%c.dim] = 1
			got, err := searchFloats(t.Context(), x, floats, q, 1, nil)
			if err != nil || len(got) != 1 || got[0].Chunk%int64(c.dim) != int64(c.n%c.dim) || got[0].Score != 1 {
				t.Errorf("search: %v %v", got, err)
			}
		})
	}
}

// searchFloats searches x as [Store.SearchVectors] does, reading the
// float32 vectors of the shortlist from floats.
func searchFloats(ctx context.Context, x *vectorIndex, floats map[int64][]float32, q []float32, k int, allow bitmap) ([]Scored, error) {
	cands, err := x.shortlist(ctx, q, k, allow)
	if err != nil {
		return nil, err
	}
	return rank(q, cands, k, func(rowids []int64, fn func(int64, []float32) error) error {
		for _, r := range rowids {
			if v, ok := floats[r]; ok {
				if err := fn(r, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TestPostingsMatchExhaustive: block-max MaxScore over the postings gives
// exactly the ranking of scoring every match, both over the postings and
// as before over FTS4's matchinfo, on a corpus with Zipf-distributed
// words, through updates, deletes and merges of segments, with and
// without filters.
func TestPostingsMatchExhaustive(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	skipped := 0
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.1, 2, 400)
	word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
	text := func() string {
		var ws []string
		for range 5 + rng.IntN(60) {
			ws = append(ws, word())
		}
		return strings.Join(ws, " ")
	}
	for d := range 300 {
		var ts []string
		for range 1 + rng.IntN(4) {
			ts = append(ts, text())
		}
		textDoc(t, st, nil, fmt.Sprintf("s%d", d%3), fmt.Sprintf("/d%d", d), ts...)
	}
	for d := range 90 { // rewrite some, delete some
		if d%3 == 0 {
			id := DocumentID(fmt.Sprintf("s%d", d%3), fmt.Sprintf("/d%d", d))
			if _, err := st.DeleteDocument(ctx, id); err != nil {
				t.Fatal(err)
			}
		} else {
			textDoc(t, st, nil, fmt.Sprintf("s%d", d%3), fmt.Sprintf("/d%d", d), text())
		}
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep.Problems, err)
	}
	var segments, tombstones int
	if err := st.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM fts_segments), (SELECT count(*) FROM fts_deleted)`).Scan(&segments, &tombstones); err != nil {
		t.Fatal(err)
	}
	if segments > 3*mergeFactor || tombstones == 0 {
		t.Fatalf("%d segments and %d tombstones: the test does not exercise merges and deletes", segments, tombstones)
	}
	filters := []Filter{{}, {Sources: []string{"s1"}}, {Path: "/d1*"}, {Document: DocumentID("s2", "/d5")}}
	for q := range 400 {
		var ws []string
		for range 1 + rng.IntN(6) {
			ws = append(ws, word())
		}
		query := strings.Join(ws, " ")
		k := 1 + q%15
		f := filters[q%len(filters)]
		scored := 0
		scoreHook = func(n int) { scored = n }
		got, err := st.SearchText(ctx, query, f, k)
		if err != nil {
			t.Fatal(err)
		}
		pruned := scored
		live, err := st.liveTerms(ctx, analysis.QueryTerms(query))
		if err != nil {
			t.Fatal(err)
		}
		if len(live) == 0 {
			continue
		}
		all, err := st.searchPostings(ctx, live, f, k, true)
		if err != nil {
			t.Fatal(err)
		}
		if pruned < scored {
			skipped++
		}
		tstats, _ := st.TermStats(ctx, live)
		fts4, err := st.searchAll(ctx, live, tstats, f, k)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string][]Scored{"exhaustive": all, "FTS4": fts4} {
			if len(got) != len(want) {
				t.Fatalf("%q k=%d %+v: %d hits, %s %d", query, k, f, len(got), name, len(want))
			}
			for i := range want {
				if got[i].Chunk != want[i].Chunk || got[i].Score != want[i].Score {
					t.Fatalf("%q k=%d %+v rank %d: %v, %s %v", query, k, f, i, got[i], name, want[i])
				}
			}
		}
	}
	scoreHook = nil
	if skipped < 100 {
		t.Fatalf("pruning scored fewer chunks than the exhaustive search %d times: the test does not exercise it", skipped)
	}
}

// TestPostingsMigrationAndRepair: an index of schema 5 (no postings) gets
// its chunks' postings when opened; postings that disagree with the chunks
// are a problem cite check reports and --repair rebuilds, after which the
// ranking is FTS4's again.
func TestPostingsMigrationAndRepair(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for d := range 20 {
		textDoc(t, st, nil, "s", fmt.Sprintf("/d%d", d), fmt.Sprintf("alpha beta %d gamma", d), strings.Repeat("beta delta ", d+1))
	}
	for _, q := range append(toSchema6(), `DROP TRIGGER chunks_fts_delete`, `CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunks_fts WHERE docid = old.rowid; END`, `DROP TABLE fts_postings`, `DROP TABLE fts_segments`, `DROP TABLE fts_deleted`, `DELETE FROM meta WHERE key = 'fts_gen'`, `PRAGMA user_version = 5`) {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	same := func(when string) {
		t.Helper()
		for _, query := range []string{"beta", "alpha delta", "gamma 7", "delta"} {
			got, err := st.SearchText(ctx, query, Filter{}, 5)
			if err != nil {
				t.Fatal(err)
			}
			live, _ := st.liveTerms(ctx, analysis.QueryTerms(query))
			ts, _ := st.TermStats(ctx, live)
			want, err := st.searchAll(ctx, live, ts, Filter{}, 5)
			if err != nil || len(want) == 0 {
				t.Fatal(want, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %q: %v, FTS4 %v", when, query, got, want)
			}
		}
	}
	same("after the migration")
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check after the migration: %+v %v", rep.Problems, err)
	}
	// One term's postings lost, another's garbled.
	if _, err := st.db.ExecContext(ctx, `DELETE FROM fts_postings WHERE term = 'alpha'; UPDATE fts_postings SET data = x'ff' WHERE term = 'delta'`); err != nil {
		t.Fatal(err)
	}
	rep, err := st.Check(ctx)
	if err != nil || rep.BadPostings == 0 || rep.OK() {
		t.Fatalf("check of damaged postings: %d bad, %+v %v", rep.BadPostings, rep.Problems, err)
	}
	if _, err := st.SearchText(ctx, "delta", Filter{}, 5); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("search of garbled postings: %v, want ErrCorrupt", err)
	}
	if _, err := st.Repair(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check after repair: %+v %v", rep.Problems, err)
	}
	same("after repair")
}

// TestSearchTextWhileWriting: searches running beside writes (new
// segments, merges, tombstones) share the in-memory segments safely and
// always see every chunk of a committed document (run with -race).
func TestSearchTextWhileWriting(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	textDoc(t, st, nil, "s", "/anchor", "anchor text stays")
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for i := range 40 {
			cs := chunksOf(fmt.Sprintf("word%d common text", i))
			if _, err := st.PutDocument(ctx, testDoc("s", fmt.Sprintf("/d%d", i%10), cs), cs); err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				rs, err := st.SearchText(ctx, "anchor common", Filter{}, 20)
				if err == nil && (len(rs) == 0 || len(rs) > 11) {
					err = fmt.Errorf("%d hits", len(rs))
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	<-done
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// TestSearchBesideWriter: a search never waits for a writer. Another
// connection holds the write lock (as cite index does through a
// transaction); searches of a read-write store, two at once, still answer
// at once from the last commit. (A read transaction begun by go-sqlite3's
// BeginTx is IMMEDIATE on a read-write pool and took the write lock: the
// searches waited for busy_timeout and failed with "database is locked".)
func TestSearchBesideWriter(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	textDoc(t, st, nil, "s", "/anchor", "anchor text stays")
	other, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, dbFile)+"?_busy_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			rs, err := st.SearchText(ctx, "anchor", Filter{}, 5)
			if err == nil && len(rs) != 1 {
				err = fmt.Errorf("%d hits, want 1", len(rs))
			}
			if err != nil {
				t.Errorf("search beside a writer: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestManyFilteredSearches: more filtered searches at once than the store
// has connections all answer. (A search held one connection for its
// snapshot and asked the pool for another to read its filter: with every
// connection held by a search, none could get a second, and all waited.)
func TestManyFilteredSearches(t *testing.T) {
	st := openStore(t)
	textDoc(t, st, nil, "s", "/anchor", "anchor text stays")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 5 {
				rs, err := st.SearchText(ctx, "anchor", Filter{Sources: []string{"s"}}, 5)
				if err == nil && len(rs) != 1 {
					err = fmt.Errorf("%d hits, want 1", len(rs))
				}
				if err != nil {
					t.Errorf("filtered search: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestPostingsOfReusedRowid writes, in one batch, a document that loses
// its last chunk (the highest rowid, which SQLite then gives to the next
// chunk inserted) and a new document: the new document's chunk must be
// found, though its rowid is one the batch removed.
func TestPostingsOfReusedRowid(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	textDoc(t, st, nil, "s", "/a", "alpha words", "beta words")
	a := []Chunk{{Chunk: chunk.Chunk{Ordinal: 0, Text: "alpha words", Tokens: 1, End: 11}, SourceEnd: 11}}
	b := []Chunk{{Chunk: chunk.Chunk{Ordinal: 0, Text: "gamma words", Tokens: 1, End: 11}, SourceEnd: 11}}
	doc := func(path string) *Document {
		return &Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: 11}
	}
	if _, err := st.PutDocuments(ctx, []DocumentChunks{{doc("/a"), a}, {doc("/b"), b}}); err != nil {
		t.Fatal(err)
	}
	if rs, err := st.SearchText(ctx, "gamma", Filter{}, 10); err != nil || len(rs) != 1 {
		t.Errorf("gamma: %v, %v; want the chunk of /b", rs, err)
	}
	if rs, err := st.SearchText(ctx, "beta", Filter{}, 10); err != nil || len(rs) != 0 {
		t.Errorf("beta: %v, %v; want nothing", rs, err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep, err)
	}
}
