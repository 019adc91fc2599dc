package weaviate_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/search"
)

// pair is a local index replicated to a Weaviate collection.
type pair struct {
	local  *index.Store
	remote *weaviate.Store
	emb    *embed.Embedder
	dir    string
}

func newPair(t *testing.T, cfg weaviate.Config) *pair {
	t.Helper()
	return newPairWith(t, cfg, "hash")
}

func newPairWith(t *testing.T, cfg weaviate.Config, embedder string) *pair {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	local, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	remote, err := weaviate.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := local.SetReplica(ctx, remote); err != nil {
		t.Fatal(err)
	}
	emb, err := embed.New(embedder, embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := local.UseEmbedder(ctx, emb); err != nil {
		t.Fatal(err)
	}
	return &pair{local: local, remote: remote, emb: emb, dir: dir}
}

func (p *pair) index(t *testing.T, opts ingest.Options, paths ...string) ingest.Stats {
	t.Helper()
	opts.Embedder = p.emb
	ix, err := ingest.New(t.Context(), p.local, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Index(t.Context(), paths...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (p *pair) check(t *testing.T) {
	t.Helper()
	var r index.Report
	if err := p.local.CheckReplica(t.Context(), &r); err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("replica differs from the index: %+v", r.Problems)
	}
}

func ids(t *testing.T, s *search.Searcher, q search.Query) []string {
	t.Helper()
	res, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ChunkID)
	}
	return out
}

var queries = []string{"what is WAL mode in SQLite", "honey bees waggle dance", "tokenizer", "how do I configure the embedder", "checkpoint"}

// TestSameResults indexes the sample corpus into a local index replicated
// to a 1-node Weaviate and runs the same searches on both: BM25 and
// vector searches return the same chunks, and a file edited and one
// deleted are the same on both sides after the next run.
func TestSameResults(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Same"})
	corpus := copyCorpus(t)
	st := p.index(t, ingest.Options{Prune: true}, corpus)
	if st.Added == 0 {
		t.Fatalf("nothing indexed: %+v", st)
	}
	p.check(t)
	compare(t, p)

	// Edit one file, delete another: the next run pushes both.
	var files []string
	filepath.Walk(corpus, func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".md" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 2 {
		t.Fatalf("corpus has %d Markdown files", len(files))
	}
	if err := os.WriteFile(files[0], []byte("# Replaced\n\nThe zebra quagga paragraph is new.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	st = p.index(t, ingest.Options{Prune: true}, corpus)
	if st.Updated != 1 || st.Pruned != 1 {
		t.Fatalf("second run: %+v", st)
	}
	p.check(t)
	compare(t, p)
	s, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(t, s, search.Query{Text: "zebra quagga", Mode: search.BM25})
	if len(got) != 1 {
		t.Fatalf("the edited file's new text: %d hits, want 1", len(got))
	}
}

func compare(t *testing.T, p *pair) {
	t.Helper()
	ctx := t.Context()
	ls, err := search.New(ctx, p.local, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []search.Mode{search.BM25, search.Vector, search.Hybrid} {
		for _, q := range queries {
			query := search.Query{Text: q, Mode: mode, K: 5}
			want, got := ids(t, ls, query), ids(t, rs, query)
			if !slices.Equal(got, want) {
				t.Errorf("%s %q: weaviate %v, embedded %v", mode, q, got, want)
			}
		}
	}
}

func copyCorpus(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "corpus")
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var _ = context.Background

// TestCheckRepair damages the collection behind cite's back (a listed chunk
// deleted, a document deleted, a document the index does not have added)
// and checks that cite check finds each, and cite check --repair mends
// them all.
func TestCheckRepair(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Repair"})
	p.index(t, ingest.Options{}, copyCorpus(t))
	p.check(t)
	inv, err := p.remote.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for d := range inv.Documents {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	if err := p.remote.RemoveChunks(ctx, inv.Documents[docs[0]][:1]); err != nil {
		t.Fatal(err)
	}
	if err := p.remote.Remove(ctx, docs[1:2]); err != nil {
		t.Fatal(err)
	}
	fake := index.Document{ID: "00000000feedface", Source: "default", Path: "/nowhere/gone.md", Title: "Gone", Type: "markdown", Kind: index.KindFile, Hash: "x"}
	fc := index.Chunk{ID: "00000000feedface00000000", DocumentID: fake.ID, Terms: "gone"}
	fc.Text = "gone"
	if err := p.remote.Push(ctx, []index.ReplicaDocument{{Document: fake, Chunks: []index.Chunk{fc}}}); err != nil {
		t.Fatal(err)
	}
	rep, err := p.local.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, pr := range rep.Problems {
		found = append(found, pr.DocumentID+": "+pr.Problem)
	}
	for _, want := range []string{docs[0] + ": weaviate://" + c.Addr() + "/Repair lacks some of its chunks", docs[1] + ": missing from", fake.ID + ": deleted here but still in"} {
		if !slices.ContainsFunc(found, func(f string) bool { return strings.HasPrefix(f, want) }) {
			t.Errorf("check did not report %q; it found %q", want, found)
		}
	}
	did, err := p.local.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("repaired: %q", did)
	p.check(t)
	if rep, err := p.local.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("after repair: %v %+v", err, rep.Problems)
	}
}

// TestClusterDown: with no cluster at the address, opening the store is an
// error naming it; with the cluster stopped after cite attached it, a run
// stores its changes locally, reports the documents it could not push and
// keeps them pending, and the run after the cluster is back pushes them.
func TestClusterDown(t *testing.T) {
	ctx := t.Context()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	_, err = weaviate.Open(ctx, weaviate.Config{Addr: dead, Retries: 1})
	if err == nil || !strings.Contains(err.Error(), "weaviate at "+dead) || !strings.Contains(err.Error(), "is the cluster up?") {
		t.Fatalf("open with no cluster: %v", err)
	}

	c := weaviatetest.Start(t, 1)
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Down"})
	corpus := copyCorpus(t)
	p.index(t, ingest.Options{}, corpus)
	c.Nodes[0].Stop()
	edited := filepath.Join(corpus, "honeybees.md")
	if err := os.WriteFile(edited, []byte("# Bees\n\nThe okapi paragraph is new.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.New(ctx, p.local, ingest.Options{Embedder: p.emb})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Index(ctx, corpus)
	if err == nil || st.Failed != 1 || !strings.Contains(err.Error(), "weaviate at "+c.Addr()) {
		t.Fatalf("run with the cluster down: %+v, %v", st, err)
	}
	pending, _ := p.local.PendingReplica(ctx)
	d, derr := p.local.Document(ctx, "", edited)
	if derr != nil || len(pending) != 1 || pending[0] != d.ID || d.Title != "Bees" {
		t.Fatalf("after the failed push: pending %v, local document %+v %v", pending, d, derr)
	}
	restart(t, c, 0)
	st = p.index(t, ingest.Options{}, corpus)
	if st.Failed != 0 {
		t.Fatalf("run with the cluster back: %+v", st)
	}
	p.check(t)
}
