package weaviate_test

import (
	"math"
	"testing"
	"time"

	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/eval/evaltest"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/index/weaviate/weaviatetest"
	"github.com/cite-rag/cite/search"
)

// TestSQuADRecall indexes the shared SQuAD half into a local index
// replicated to a one-node Weaviate, with the same embedder, and compares
// retrieval: Weaviate's own hybrid fusion (relative score, vector weight
// 0.25) is within 1 point of Recall@5 of the embedded index's hybrid, and
// BM25 through Weaviate within 1 point of the embedded BM25. The two BM25s
// rank the same terms (cite's analysis) with the same k1 and b; they
// differ only where Weaviate's statistics are per shard or its float
// rounding breaks a tie another way.
func TestSQuADRecall(t *testing.T) {
	if raceEnabled {
		t.Skip("5,397 questions: runs in the race-free CI step")
	}
	dir := evaltest.SharedData(t, "squad")
	set, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Every fifth question (1,080): each search is a few round trips to
	// Weaviate. On all 5,397 the figures were the same to the third
	// decimal (Recall@5 0.959 embedded, 0.959 Weaviate's hybrid).
	var qs []eval.Question
	for i, q := range set.Questions {
		if i%5 == 0 {
			qs = append(qs, q)
		}
	}
	set.Questions = qs
	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Squad"})
	if _, err := set.Index(ctx, p.local, p.emb, nil); err != nil {
		t.Fatal(err)
	}
	p.check(t)
	// Let Weaviate flush its memtables (the cluster flushes after a
	// second idle): v1.35.2's BM25 misranks objects not yet flushed.
	time.Sleep(3 * time.Second)
	local, err := search.New(ctx, p.local, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	native, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	native.Fusion = search.Fusion{Method: "backend", BM25Weight: search.DefaultFusion.BM25Weight, VectorWeight: search.DefaultFusion.VectorWeight}
	run := func(name string, s *search.Searcher, modes ...search.Mode) map[search.Mode]eval.Metrics {
		ms, err := eval.Run(ctx, set, p.local, s, eval.Options{Modes: modes})
		if err != nil {
			t.Fatal(err)
		}
		out := map[search.Mode]eval.Metrics{}
		for i, m := range ms {
			out[modes[i]] = m
			t.Logf("%-28s %-6s R@1 %.3f R@5 %.3f R@20 %.3f MRR@10 %.3f p50 %v p99 %v", name, modes[i], m.Recall1, m.Recall5, m.Recall20, m.MRR10, m.P50, m.P99)
		}
		return out
	}
	emb := run("embedded", local, search.BM25, search.Hybrid)
	wv := run("weaviate, cite's fusion", remote, search.BM25, search.Hybrid)
	nat := run("weaviate, Weaviate's fusion", native, search.Hybrid)
	for _, c := range []struct {
		name      string
		got, want eval.Metrics
	}{
		{"BM25 through Weaviate", wv[search.BM25], emb[search.BM25]},
		{"hybrid with cite's fusion over Weaviate", wv[search.Hybrid], emb[search.Hybrid]},
		{"Weaviate's hybrid", nat[search.Hybrid], emb[search.Hybrid]},
	} {
		if d := math.Abs(c.got.Recall5 - c.want.Recall5); d > 0.01 {
			t.Errorf("%s: Recall@5 %.3f, embedded %.3f: %.1f points apart (want at most 1)", c.name, c.got.Recall5, c.want.Recall5, 100*d)
		}
	}
}
