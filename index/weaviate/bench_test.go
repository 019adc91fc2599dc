package weaviate_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/search"
)

// BenchmarkStores indexes the shared Markdown corpus (33 MB, 3,096 files)
// into the embedded index, a one-node Weaviate and a three-node Weaviate
// (3 shards, 2 replicas), in one run, and then asks each the same hybrid
// queries:
//
//	go test -run '^$' -bench Stores -benchtime 1x ./index/weaviate
//
// It reports ingest-MB/s (the whole cite index run: reading, chunking,
// embedding with the default hash embedder, writing and, for Weaviate,
// pushing, over gRPC) and the p50 and p99 of a hybrid search (k 10, hits
// read back), over 400 queries. Then it indexes the shared SQuAD half
// into another collection of the same store and reports the Recall@5 of
// hybrid search (cite's default fusion) on 300 of its questions (every
// 18th, mixed as in TestSQuADRecall) asked at once, with Weaviate's default flush settings, as a user
// would ask right after cite index.
func BenchmarkStores(b *testing.B) {
	md := testenv.SharedData(b, "markdown")
	set, err := eval.Load(testenv.SharedData(b, "squad"))
	if err != nil {
		b.Fatal(err)
	}
	set.Questions = mixed(every(set.Questions, 18))
	for _, store := range []struct {
		name  string
		nodes int
	}{{"embedded", 0}, {"weaviate-1-node", 1}, {"weaviate-3-nodes", 3}} {
		b.Run(store.name, func(b *testing.B) {
			for b.Loop() {
				var c *weaviatetest.Cluster
				if store.nodes > 0 {
					c = weaviatetest.Start(b, store.nodes)
				}
				ingestMBs, p50, p99 := benchStore(b, md, c)
				b.ReportMetric(ingestMBs, "ingest-MB/s")
				b.ReportMetric(float64(p50)/1e6, "p50-ms")
				b.ReportMetric(float64(p99)/1e6, "p99-ms")
				b.ReportMetric(benchRecall(b, set, c), "recall@5")
			}
		})
	}
}

// open opens an index in a temporary folder, replicated to a collection
// of c when c is not nil, and returns it, the reader searches use and the
// embedder.
func open(b *testing.B, c *weaviatetest.Cluster, collection string) (*index.Store, index.Reader, *embed.Embedder) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "cite-bench-store")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	local, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { local.Close() })
	emb, err := embed.New("hash", embed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := local.UseEmbedder(ctx, emb); err != nil {
		b.Fatal(err)
	}
	if c == nil {
		return local, local, emb
	}
	nodes := len(c.Nodes)
	remote, err := weaviate.Open(ctx, weaviate.Config{Addr: c.Addr(), GRPC: c.Nodes[0].GRPC, Collection: collection, Shards: nodes, Replicas: min(nodes, 2)})
	if err != nil {
		b.Fatal(err)
	}
	if err := local.SetReplica(ctx, remote); err != nil {
		b.Fatal(err)
	}
	remote.SetTermStats(local.TermStats) // as cite does
	return local, remote, emb
}

func benchStore(b *testing.B, md string, c *weaviatetest.Cluster) (float64, time.Duration, time.Duration) {
	ctx := context.Background()
	local, reader, emb := open(b, c, "Bench")
	ix, err := ingest.New(ctx, local, ingest.Options{Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	st, err := ix.Index(ctx, md)
	if err != nil || st.Failed > 0 {
		b.Fatalf("index: %v %+v", err, st)
	}
	mbs := st.MBPerSecond()
	s, err := search.New(ctx, reader, emb)
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for i := range 400 {
		q := clusterQueries[i%len(clusterQueries)]
		if i >= len(clusterQueries) {
			q = fmt.Sprintf("%s %d", q, i) // not a repeat a cache could answer
		}
		start := time.Now()
		res, err := s.Search(ctx, search.Query{Text: q, K: 10})
		lat = append(lat, time.Since(start))
		if err != nil || len(res.Hits) == 0 {
			b.Fatalf("query %q: %v", q, err)
		}
	}
	slices.Sort(lat)
	return mbs, lat[len(lat)/2], lat[len(lat)*99/100]
}

// benchRecall indexes set into a new index (replicated to c when not nil)
// and returns hybrid search's Recall@5 on its questions, asked at once.
func benchRecall(b *testing.B, set *eval.Set, c *weaviatetest.Cluster) float64 {
	ctx := context.Background()
	local, reader, emb := open(b, c, "BenchSquad")
	if _, err := set.Index(ctx, local, emb, nil); err != nil {
		b.Fatal(err)
	}
	s, err := search.New(ctx, reader, emb)
	if err != nil {
		b.Fatal(err)
	}
	ms, err := eval.Run(ctx, set, local, s, eval.Options{Modes: []search.Mode{search.Hybrid}})
	if err != nil {
		b.Fatal(err)
	}
	return ms[0].Recall5
}
