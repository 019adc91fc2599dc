package weaviate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/search"
)

// flushed lists the segments (files *.db) the cluster's nodes have
// written for the full-text terms of the collection's chunks: none while
// every object is still in memtables, which Weaviate flushes by default
// 60 s after the first write into an empty one.
func flushed(t *testing.T, c *weaviatetest.Cluster, collection string) []string {
	t.Helper()
	var segs []string
	for _, nd := range c.Nodes {
		class := filepath.Join(nd.DataDir(), strings.ToLower(collection+"Chunk"))
		if _, err := os.Stat(class); err != nil {
			t.Fatalf("%s holds no collection %sChunk: %v (has Weaviate's layout changed?)", nd.Name, collection, err)
		}
		found, err := filepath.Glob(filepath.Join(class, "*", "lsm", "property_terms_searchable", "*.db"))
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, found...)
	}
	return segs
}

// fusions are the hybrid searches compared: cite's fusion over Weaviate's
// BM25 and vector rankings, and Weaviate's own (backend) fusion, which is
// cite's minmax fusion with the same weights.
var fusions = []struct {
	name          string
	local, remote search.Fusion
}{
	{"cite's fusion", search.DefaultFusion, search.DefaultFusion},
	{"Weaviate's fusion",
		search.Fusion{Method: "minmax", BM25Weight: search.DefaultFusion.BM25Weight, VectorWeight: search.DefaultFusion.VectorWeight},
		search.Fusion{Method: "backend", BM25Weight: search.DefaultFusion.BM25Weight, VectorWeight: search.DefaultFusion.VectorWeight}},
}

// TestFreshIndex indexes the sample corpus into a one-node Weaviate that
// runs with Weaviate's default flush settings and searches at once, while
// every object is still in its memtables: BM25, vector search and hybrid
// search with either fusion return the same top 5 as the embedded index
// (Weaviate's fusion: the hits of cite's minmax fusion with the same
// weights, in the same order, then chunks under the hash embedder's noise
// floor, which cite leaves out).
// (weaviate-server v1.35.2 misranked BM25 until it flushed, 60 s later.)
func TestFreshIndex(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Fresh"})
	if st := p.index(t, ingest.Options{}, copyCorpus(t)); st.Added == 0 {
		t.Fatalf("nothing indexed: %+v", st)
	}
	if v := p.remote.Version(); strings.TrimPrefix(weaviatetest.Version, "v") != v {
		t.Logf("weaviate-server %s, not %s", v, weaviatetest.Version)
	}
	searchers := func(lf, rf search.Fusion) (*search.Searcher, *search.Searcher) {
		ls, err := search.New(ctx, p.local, p.emb)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := search.New(ctx, p.remote, p.emb)
		if err != nil {
			t.Fatal(err)
		}
		ls.Fusion, rs.Fusion = lf, rf
		return ls, rs
	}
	qs := append(slices.Clone(queries), "honey bee colony queen workers", "SQLite checkpoint write-ahead log pages", "chunk size overlap tokens")
	ls, rs := searchers(search.DefaultFusion, search.DefaultFusion)
	for _, mode := range []search.Mode{search.BM25, search.Vector} {
		for _, q := range qs {
			query := search.Query{Text: q, Mode: mode, K: 5}
			if want, got := ids(t, ls, query), ids(t, rs, query); !slices.Equal(got, want) {
				t.Errorf("%s %q: weaviate %v, embedded %v", mode, q, got, want)
			}
		}
	}
	for _, f := range fusions {
		ls, rs := searchers(f.local, f.remote)
		for _, q := range qs {
			query := search.Query{Text: q, Mode: search.Hybrid, K: 5}
			want, got := ids(t, ls, query), ids(t, rs, query)
			// cite cuts a vector ranking at the embedder's noise floor
			// before it fuses; Weaviate's fusion does not, and returns
			// chunks under the floor after the others.
			gotIDs := got
			if f.remote.Method == "backend" && len(got) > len(want) {
				gotIDs = got[:len(want)]
			}
			if !slices.Equal(gotIDs, want) {
				t.Errorf("hybrid, %s, %q: weaviate %v, embedded %v", f.name, q, gotIDs, want)
			}
		}
	}
	// Checked last: no segment now means none during the searches.
	if segs := flushed(t, c, "Fresh"); len(segs) > 0 {
		t.Fatalf("Weaviate flushed before the searches ended (%s): they did not all search its memtables", segs)
	}
}

// TestSearchWhileWriting indexes half of the shared SQuAD articles, then
// keeps writing the other half (added, then edited, over and over) while
// it asks the first half's questions of the embedded index and of a
// one-node Weaviate, one after the other: Weaviate's memtables are never
// idle, and its Recall@5 (BM25, and hybrid with cite's fusion) must be no
// more than 1 point below the embedded index's on the same questions.
// (Weaviate's own fusion is left out: cite's nearest, minmax, cuts the
// vector ranking at the embedder's noise floor and Weaviate's does not,
// see TestFreshIndex; measured 0.966 and 0.969 against minmax's 0.976, 3
// and 2 of 293 questions. Passing the floor as Weaviate's
// maxVectorDistance was tried: it then also left out a BM25-only match
// minmax keeps, on one of TestFreshIndex's queries.)
func TestSearchWhileWriting(t *testing.T) {
	if testenv.Race {
		t.Skip("indexes 24 articles while asking 270 questions: runs in the race-free CI step")
	}
	set, err := eval.Load(testenv.SharedData(t, "squad"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(set.Articles)
	if err != nil {
		t.Fatal(err)
	}
	var first, second []string
	for i, e := range entries {
		path := filepath.Join(set.Articles, e.Name())
		if i%2 == 0 {
			first = append(first, path)
		} else {
			second = append(second, path)
		}
	}
	var qs []eval.Question
	for _, q := range set.Questions {
		if slices.Contains(first, q.Doc) {
			qs = append(qs, q)
		}
	}
	qs = every(qs, 10)

	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Writing"})
	p.index(t, ingest.Options{}, first...)

	// The writer: the second half, copied, indexed a file at a time, then
	// each copy edited and indexed again, until the questions are done.
	dir := t.TempDir()
	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ix, err := ingest.New(ctx, p.local, ingest.Options{Embedder: p.emb, Source: "writer"})
		if err != nil {
			werr = err
			return
		}
		for round := 0; ; round++ {
			for _, src := range second {
				select {
				case <-stop:
					return
				default:
				}
				b, err := os.ReadFile(src)
				if err != nil {
					werr = err
					return
				}
				b = fmt.Appendf(b, "\n\nRevision %d of this copy.\n", round)
				dst := filepath.Join(dir, filepath.Base(src))
				if err := os.WriteFile(dst, b, 0o644); err != nil {
					werr = err
					return
				}
				st, err := ix.Index(context.WithoutCancel(ctx), dst)
				if err != nil || st.Failed > 0 {
					werr = fmt.Errorf("write %s: %+v, %v", dst, st, err)
					return
				}
				writes.Add(1)
			}
		}
	}()
	finish := func() {
		close(stop)
		wg.Wait()
		if werr != nil {
			t.Fatal(werr)
		}
	}
	defer func() {
		select {
		case <-stop:
		default:
			finish()
		}
	}()

	type run struct {
		name          string
		mode          search.Mode
		local, remote *search.Searcher
		hits          [2]int // embedded, Weaviate
	}
	var runs []*run
	for _, f := range append([]struct {
		name          string
		local, remote search.Fusion
	}{{"BM25", search.DefaultFusion, search.DefaultFusion}}, fusions[0]) {
		r := &run{name: f.name, mode: search.Hybrid}
		if f.name == "BM25" {
			r.mode = search.BM25
		} else {
			r.name = "hybrid, " + f.name
		}
		var err error
		if r.local, err = search.New(ctx, p.local, p.emb); err != nil {
			t.Fatal(err)
		}
		if r.remote, err = search.New(ctx, p.remote, p.emb); err != nil {
			t.Fatal(err)
		}
		r.local.Fusion, r.remote.Fusion = f.local, f.remote
		runs = append(runs, r)
	}
	before := writes.Load()
	for _, q := range qs {
		for _, r := range runs {
			for i, s := range []*search.Searcher{r.local, r.remote} {
				res, err := s.Search(ctx, search.Query{Text: q.Text, Mode: r.mode, K: 5})
				if err != nil {
					t.Fatalf("%s %q: %v", r.name, q.Text, err)
				}
				for _, h := range res.Hits {
					if h.Document.Path == q.Doc && h.SourceSpan.Start < q.End && q.Start < h.SourceSpan.End {
						r.hits[i]++
						break
					}
				}
			}
		}
	}
	during := writes.Load() - before
	finish()
	t.Logf("%d questions asked while %d files were written (%d in all)", len(qs), during, writes.Load())
	if during < 2 {
		t.Fatalf("only %d writes while the questions were asked: the writer did not keep writing", during)
	}
	for _, r := range runs {
		emb, wv := float64(r.hits[0])/float64(len(qs)), float64(r.hits[1])/float64(len(qs))
		t.Logf("%-28s Recall@5 embedded %.3f, Weaviate %.3f", r.name, emb, wv)
		if wv < emb-0.01 {
			t.Errorf("%s while writing: Recall@5 %.3f through Weaviate, %.3f embedded: more than 1 point worse", r.name, wv, emb)
		}
	}
}

// every returns every nth of qs.
func every(qs []eval.Question, n int) []eval.Question {
	var out []eval.Question
	for i, q := range qs {
		if i%n == 0 {
			out = append(out, q)
		}
	}
	return out
}
