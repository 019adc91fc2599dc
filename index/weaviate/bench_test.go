package weaviate_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cite-rag/cite/eval/evaltest"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/index/weaviate/weaviatetest"
	"github.com/cite-rag/cite/ingest"
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
// pushing, over gRPC) and the p50 and p99 of a hybrid search (k 10, hits read back),
// over 400 queries.
func BenchmarkStores(b *testing.B) {
	md := evaltest.SharedData(b, "markdown")
	for _, store := range []struct {
		name  string
		nodes int
	}{{"embedded", 0}, {"weaviate-1-node", 1}, {"weaviate-3-nodes", 3}} {
		b.Run(store.name, func(b *testing.B) {
			for b.Loop() {
				ingestMBs, p50, p99 := benchStore(b, md, store.nodes)
				b.ReportMetric(ingestMBs, "ingest-MB/s")
				b.ReportMetric(float64(p50)/1e6, "p50-ms")
				b.ReportMetric(float64(p99)/1e6, "p99-ms")
			}
		})
	}
}

func benchStore(b *testing.B, md string, nodes int) (float64, time.Duration, time.Duration) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "cite-bench-store")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	local, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	emb, err := embed.New("hash", embed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := local.UseEmbedder(ctx, emb); err != nil {
		b.Fatal(err)
	}
	var reader index.Reader = local
	if nodes > 0 {
		c := weaviatetest.Start(b, nodes)
		remote, err := weaviate.Open(ctx, weaviate.Config{Addr: c.Addr(), GRPC: c.Nodes[0].GRPC, Collection: "Bench", Shards: nodes, Replicas: min(nodes, 2)})
		if err != nil {
			b.Fatal(err)
		}
		if err := local.SetReplica(ctx, remote); err != nil {
			b.Fatal(err)
		}
		remote.SetTermStats(local.TermStats) // as cite does
		reader = remote
	}
	ix, err := ingest.New(ctx, local, ingest.Options{Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	st, err := ix.Index(ctx, md)
	if err != nil || st.Failed > 0 {
		b.Fatalf("index: %v %+v", err, st)
	}
	mbs := st.MBPerSecond()
	if nodes > 0 {
		time.Sleep(3 * time.Second) // memtables flushed (see TestSQuADRecall)
	}
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
