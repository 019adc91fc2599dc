package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/benchquery"
	"github.com/cite-rag/cite/internal/testenv"
	chromem "github.com/philippgille/chromem-go"
)

// The search benchmarks run on indexes of 10,000 and 100,000 chunks made
// from the shared Markdown corpus (16,919 chunks of 500 tokens, replicated
// under other document paths to reach 100,000), with the default hash
// embedder:
//
//	go test -run '^$' -bench . -benchtime 400x ./search
//
// The indexes are built once and kept in the temporary folder
// (cite-bench-N-*); delete them to rebuild. Queries are the innermost
// headings of every 50th chunk ("Example 4: Delete files in subfolders
// recursively"), 300 of them, asked in turn. Each benchmark reports the p50
// and p99 latency of a whole search (embedding the query, ranking, reading
// the hits), and BenchmarkChromemQuery the same for chromem-go's
// QueryEmbedding on the same vectors and query vectors.

const benchVersion = 3 // bump when the benchmark index's layout changes

var benchIndexes sync.Map // size -> *benchIndex

type benchIndex struct {
	store   *index.Store
	emb     *embed.Embedder
	queries []string
}

// openBenchIndex returns an index of n chunks, building it the first time.
func openBenchIndex(b *testing.B, n int) *benchIndex {
	if bi, ok := benchIndexes.Load(n); ok {
		return bi.(*benchIndex)
	}
	corpus := testenv.SharedData(b, "markdown")
	ctx := context.Background()
	emb, err := embed.New("hash", embed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("cite-bench-%d-v%d-%s", n, benchVersion, strings.ReplaceAll(emb.Name(), ":", "")))
	_, statErr := os.Stat(filepath.Join(dir, "done"))
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	if statErr != nil {
		b.Logf("building a %d-chunk index in %s", n, dir)
		if err := buildBenchIndex(ctx, st, emb, corpus, n); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bi := &benchIndex{store: st, emb: emb, queries: benchQueries(b, st)}
	benchIndexes.Store(n, bi)
	return bi
}

// buildBenchIndex indexes the corpus, then copies its documents under new
// paths until the index has n chunks, and drops what is over.
func buildBenchIndex(ctx context.Context, st *index.Store, emb *embed.Embedder, corpus string, n int) error {
	ix, err := ingest.New(ctx, st, ingest.Options{Embedder: emb})
	if err != nil {
		return err
	}
	if _, err := ix.Index(ctx, corpus); err != nil {
		return err
	}
	docs, err := st.Documents(ctx, "")
	if err != nil {
		return err
	}
	total := 0
	for _, d := range docs {
		total += d.Chunks
	}
	vectors := map[string][]float32{}
	if err := st.Vectors(ctx, func(id string, v []float32) error { vectors[id] = v; return nil }); err != nil {
		return err
	}
	for copyNo := 1; total < n; copyNo++ {
		for _, d := range docs {
			if total >= n {
				break
			}
			cs, err := st.Chunks(ctx, d.ID)
			if err != nil {
				return err
			}
			for i := range cs {
				cs[i].Vector = vectors[cs[i].ID]
			}
			nd := d
			nd.Path = fmt.Sprintf("/copy%d%s", copyNo, d.Path)
			if _, err := st.PutDocument(ctx, &nd, cs); err != nil {
				return err
			}
			total += len(cs)
		}
	}
	// Trim to n chunks: remove whole documents past n, newest first.
	docs, err = st.Documents(ctx, "")
	if err != nil {
		return err
	}
	slices.SortFunc(docs, func(a, b index.Document) int { return b.IndexedAt.Compare(a.IndexedAt) })
	for _, d := range docs {
		if total-d.Chunks < n {
			break
		}
		if _, err := st.DeleteDocument(ctx, d.ID); err != nil {
			return err
		}
		total -= d.Chunks
	}
	return nil
}

// benchQueries returns the benchmark's queries (see [benchquery.Picker]).
func benchQueries(b *testing.B, st *index.Store) []string {
	ctx := context.Background()
	docs, err := st.Documents(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	var p benchquery.Picker
	for _, d := range docs {
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cs {
			if !p.Add(c.Headings) {
				return p.Queries
			}
		}
	}
	return p.Queries
}

var benchSizes = []int{10_000, 100_000}

func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		bi := openBenchIndex(b, n)
		s, err := New(context.Background(), bi.store, bi.emb)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range Modes {
			b.Run(fmt.Sprintf("%d/%s", n, mode), func(b *testing.B) {
				// Warm up: the first vector search loads the vectors.
				if _, err := s.Search(b.Context(), Query{Text: bi.queries[0], Mode: mode}); err != nil {
					b.Fatal(err)
				}
				var lat []time.Duration
				i := 0
				for b.Loop() {
					q := bi.queries[i%len(bi.queries)]
					i++
					start := time.Now()
					if _, err := s.Search(b.Context(), Query{Text: q, Mode: mode}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				benchquery.ReportLatency(b, lat)
			})
		}
	}
}

// BenchmarkChromemQuery runs chromem-go's QueryEmbedding (its exhaustive
// search, on all cores) on the same vectors and the same query vectors as
// BenchmarkSearch's vector mode.
func BenchmarkChromemQuery(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		bi := openBenchIndex(b, n)
		db := chromem.NewDB()
		col, err := db.CreateCollection("bench", nil, chromem.EmbeddingFunc(bi.emb.Func()))
		if err != nil {
			b.Fatal(err)
		}
		var docs []chromem.Document
		err = bi.store.Vectors(ctx, func(id string, v []float32) error {
			docs = append(docs, chromem.Document{ID: id, Embedding: v})
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := col.AddDocuments(ctx, docs, 2); err != nil {
			b.Fatal(err)
		}
		qvs := make([][]float32, len(bi.queries))
		for i, q := range bi.queries {
			ts, err := bi.store.TermStats(ctx, analysis.QueryTerms(q))
			if err != nil {
				b.Fatal(err)
			}
			if qvs[i], err = bi.emb.EmbedQuery(ctx, q, ts.IDF); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := col.QueryEmbedding(ctx, qvs[i%len(qvs)], 10, nil, nil); err != nil {
					b.Fatal(err)
				}
				i++
				lat = append(lat, time.Since(start))
			}
			benchquery.ReportLatency(b, lat)
		})
	}
}

// BenchmarkOpen measures opening an index and loading its vectors for the
// first vector search, as cite search does on every run.
func BenchmarkOpen(b *testing.B) {
	for _, n := range benchSizes {
		bi := openBenchIndex(b, n)
		dir := bi.store.Dir()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				st, err := index.Open(b.Context(), dir, index.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := st.VectorStats(b.Context()); err != nil {
					b.Fatal(err)
				}
				st.Close()
			}
		})
	}
}
