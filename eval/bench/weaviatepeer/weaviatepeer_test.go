package weaviatepeer_test

import (
	"testing"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/eval/bench/weaviatepeer"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/internal/weaviatetest"
)

// TestPeer runs cite bench at 300 chunks with Weaviate on one node, a
// weaviate-server started by the peer: the push, and every mode answers.
func TestPeer(t *testing.T) {
	if testenv.Race {
		t.Skip("starts a Weaviate node and indexes 300 chunks: slow under the race detector")
	}
	weaviatetest.Require(t) // skips without a weaviate-server (fails under CI)
	bin := weaviatepeer.Binary()
	corpus := testenv.SharedData(t, "markdown")
	rep, err := bench.Run(t.Context(), bench.Config{
		Corpus:  corpus,
		Work:    t.TempDir(),
		Sizes:   []int{300},
		Queries: 5,
		Peers:   []bench.NewPeer{weaviatepeer.New(bin, "")},
	})
	if err != nil {
		t.Fatal(err)
	}
	ss := rep.Sizes[0].Systems
	if len(ss) != 2 || ss[1].Skipped {
		t.Fatalf("systems %+v", ss)
	}
	w := ss[1]
	if w.RSSBytes <= 0 || w.DiskBytes <= 0 {
		t.Errorf("%s: RSS %d, disk %d", w.Name, w.RSSBytes, w.DiskBytes)
	}
	for _, m := range bench.Modes {
		if l, ok := w.Latency[m]; !ok || l.P50 <= 0 {
			t.Errorf("%s %s: %+v", w.Name, m, l)
		}
	}
}
