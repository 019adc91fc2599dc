package weaviate_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/search"
)

// TestSQuADRecall indexes the shared SQuAD half into a local index
// replicated to Weaviate (one node; three nodes with 3 shards and 2
// replicas), with the same embedder, and asks 300 of its questions
// (every 18th) at once, as a user would right after cite index, with
// Weaviate's default flush settings: Recall@5 of BM25 through Weaviate, of
// cite's hybrid over Weaviate and (on one node) of Weaviate's own hybrid
// fusion (relative score, vector weight 0.25) are each within 1 point of
// the embedded index's; over 3 shards cite's hybrid is held to 1 point
// and the other two to 2 (see below). The two BM25s rank the same terms (cite's analysis)
// with the same k1 and b; they differ only where Weaviate's statistics
// are per shard or its float rounding breaks a tie another way.
func TestSQuADRecall(t *testing.T) {
	if testenv.Race {
		t.Skip("indexes 24 articles into 1 and 3 nodes: runs in the race-free CI step")
	}
	for _, nodes := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d-nodes", nodes), func(t *testing.T) { testSQuADRecall(t, nodes) })
	}
}

func testSQuADRecall(t *testing.T, nodes int) {
	set, err := eval.Load(testenv.SharedData(t, "squad"))
	if err != nil {
		t.Fatal(err)
	}
	set.Questions = every(set.Questions, 18)
	c := weaviatetest.Start(t, nodes)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Squad", Shards: nodes, Replicas: min(nodes, 2)})
	if _, err := set.Index(ctx, p.local, p.emb, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("weaviate-server %s", p.remote.Version())
	remote, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	native, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	native.Fusion = search.Fusion{Method: "backend", BM25Weight: search.DefaultFusion.BM25Weight, VectorWeight: search.DefaultFusion.VectorWeight}
	local, err := search.New(ctx, p.local, p.emb)
	if err != nil {
		t.Fatal(err)
	}
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
	// Weaviate first, while what was just written is in its memtables.
	wv := run("weaviate, cite's fusion", remote, search.BM25, search.Hybrid)
	nat := run("weaviate, Weaviate's fusion", native, search.Hybrid)
	if segs := flushed(t, c, "Squad"); len(segs) > 0 {
		t.Logf("Weaviate flushed %d segments before its questions ended", len(segs))
	} else {
		t.Logf("every Weaviate question came before its first flush")
	}
	emb := run("embedded", local, search.BM25, search.Hybrid)
	for _, c := range []struct {
		name      string
		got, want eval.Metrics
	}{
		{"BM25 through Weaviate", wv[search.BM25], emb[search.BM25]},
		{"hybrid with cite's fusion over Weaviate", wv[search.Hybrid], emb[search.Hybrid]},
		{"Weaviate's hybrid", nat[search.Hybrid], emb[search.Hybrid]},
	} {
		d := math.Abs(c.got.Recall5 - c.want.Recall5)
		limit := 0.01
		if nodes > 1 && c.name != "hybrid with cite's fusion over Weaviate" {
			// Over shards Weaviate computes BM25's statistics (document
			// frequencies, average length) per shard, and which chunks
			// share a shard follows their ids, hashes of the documents'
			// paths and text (the data's folder differs from machine to
			// machine): BM25 through Weaviate measured 0.913 and 0.927
			// in two runs against the embedded 0.913, and
			// Weaviate's hybrid 0.920 and 0.933 against 0.933. Those two
			// are held to 2 points; the misranking of unflushed segments
			// this test guards against cost 30. cite's hybrid, the
			// default search, stays within 1.
			limit = 0.02
			t.Logf("%s over %d shards: Recall@5 %.3f, embedded %.3f: %.1f points apart", c.name, nodes, c.got.Recall5, c.want.Recall5, 100*d)
		}
		if d > limit+1e-9 {
			t.Errorf("%s: Recall@5 %.3f, embedded %.3f: %.1f points apart (want at most %.0f)", c.name, c.got.Recall5, c.want.Recall5, 100*d, 100*limit)
		}
	}
}
