package index

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/internal/topk"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/normalize"
)

// exactSearch is the oracle of the quantized search: every float32 vector
// scored, the k best kept, best first (ties by rowid).
func exactSearch(floats map[int64][]float32, q []float32, k int) []Scored {
	terms := queryTerms(q)
	top := topk.New(k, scored32First)
	for r, v := range floats {
		top.Push(scored32{exactScore(terms, v), r})
	}
	var out []Scored
	for _, s := range top.Sorted() {
		out = append(out, Scored{Chunk: s.rowid, Score: float64(s.score)})
	}
	return out
}

// recallAt returns how many of want got holds, as a share of want, a hit
// counting when got has it or a chunk of the same exact score (a tie).
func recallAt(got, want []Scored) float64 {
	if len(want) == 0 {
		return 1
	}
	found := 0
	for _, w := range want {
		if slices.ContainsFunc(got, func(g Scored) bool { return g.Chunk == w.Chunk || g.Score == w.Score }) {
			found++
		}
	}
	return float64(found) / float64(len(want))
}

// TestVectorRecall: on the shared Markdown corpus (16,919 chunks of 500
// tokens) with the default hash embedder, the quantized search ranked by
// the shortlist's vectors as stored finds the exact float32 search's 10
// best (Recall@10 ≥ 0.99, ties aside), and its 30 best (the depth hybrid
// search asks for), for 300 queries made of the corpus's headings and 300
// of sentences of its chunks: with the vectors stored as float16, and as
// float32 (as older cite stored them). The scores it returns are the exact
// ones of the vectors as stored, within 1e-3 (relative) of the float32
// vectors' scores.
func TestVectorRecall(t *testing.T) {
	if testenv.Race {
		t.Skip("embeds the shared corpus: runs in the race-free CI step")
	}
	if testing.Short() {
		t.Skip("embeds the shared corpus")
	}
	corpus := testenv.SharedData(t, "markdown")
	ctx := t.Context()
	texts, headings := corpusChunks(t, corpus)
	e := mustEmbedder(t, "hash")
	x, floats, idf := embedCorpus(t, e, texts, nil)
	t.Logf("%d chunks, %d dimensions", len(texts), e.Dim())

	// Queries: headings as in BenchmarkSearch, and a sentence of a chunk.
	var queries []string
	seen := map[string]bool{}
	for i := 50; i < len(headings) && len(queries) < 300; i += 50 {
		if h := headings[i]; h != "" && !seen[h] && len(analysis.QueryTerms(h)) > 0 {
			seen[h] = true
			queries = append(queries, h)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for len(queries) < 600 {
		sentences := strings.Split(texts[rng.IntN(len(texts))], ". ")
		s := strings.Fields(sentences[rng.IntN(len(sentences))])
		s = s[:min(len(s), 12)]
		if q := strings.Join(s, " "); len(s) >= 3 && len(analysis.QueryTerms(q)) > 0 {
			queries = append(queries, q)
		}
	}

	// The vectors as stored as float16, and the in-memory vectors made of
	// them, as loading them from the database makes them.
	x16 := newVectorIndex(e.Dim())
	halves := make(map[int64][]float32, len(floats))
	for r := int64(1); r <= int64(len(floats)); r++ {
		_, h := storedVector(floats[r], nil)
		x16.add(r, h, nil)
		halves[r] = h
	}
	stores := []struct {
		name   string
		x      *vectorIndex
		stored map[int64][]float32
	}{{"float16", x16, halves}, {"float32", x, floats}}

	// Each query is embedded, and its exact 30 best found, once: the 10
	// best are their first 10 (the oracle breaks ties by rowid), and the
	// oracle is the float32 vectors' for both stores.
	qvs := make([][]float32, len(queries))
	wants := make([][]Scored, len(queries))
	for i, q := range queries {
		qv, err := e.EmbedQuery(ctx, q, idf)
		if err != nil {
			t.Fatal(err)
		}
		qvs[i], wants[i] = qv, exactSearch(floats, qv, 30)
	}
	for _, st := range stores {
		for _, k := range []int{10, 30} {
			var sum, maxDiff, maxRel float64
			var perfect, shortlisted, maxList int
			for i, q := range queries {
				qv, want := qvs[i], wants[i][:min(k, len(wants[i]))]
				cands, err := st.x.shortlist(ctx, qv, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				shortlisted += len(cands)
				maxList = max(maxList, len(cands))
				got, err := searchFloats(ctx, st.x, st.stored, qv, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				terms := queryTerms(qv)
				for _, g := range got {
					if exact := float64(exactScore(terms, st.stored[g.Chunk])); g.Score != exact {
						t.Fatalf("%s: query %q: chunk %d scored %v, its exact score is %v", st.name, q, g.Chunk, g.Score, exact)
					}
					f32 := float64(exactScore(terms, floats[g.Chunk]))
					d := math.Abs(g.Score - f32)
					maxDiff = max(maxDiff, d)
					if f32 != 0 {
						maxRel = max(maxRel, d/math.Abs(f32))
					}
				}
				r := recallAt(got, want)
				if r == 1 {
					perfect++
				}
				sum += r
			}
			recall := sum / float64(len(queries))
			t.Logf("%s: Recall@%d %.4f over %d queries (%d all found); vectors read a query: %.1f on average, %d at most (shortlist %d); scores differ from the float32 vectors' by %.2g at most (%.2g relative)",
				st.name, k, recall, len(queries), perfect, float64(shortlisted)/float64(len(queries)), maxList, shortlistSize(k), maxDiff, maxRel)
			if recall < 0.99 {
				t.Errorf("%s: Recall@%d %.4f against the exact float32 search, want at least 0.99", st.name, k, recall)
			}
			if maxRel >= 1e-3 {
				t.Errorf("%s: scores differ from the float32 vectors' by up to %.2g relative, want less than 1e-3", st.name, maxRel)
			}
		}
	}
}

// corpusCache keeps corpusChunks' results by folder: the tests that read
// the shared corpus cut it once (its 16,919 chunks take seconds of a loaded
// machine's CPU to normalize and split).
var corpusCache struct {
	sync.Mutex
	byDir map[string][2][]string
}

// corpusChunks returns the texts of the chunks of the Markdown files under
// dir (as cite index makes them, .github left out) and the innermost
// heading of each ("" for none). Callers share the slices: they must not
// change them.
func corpusChunks(t testing.TB, dir string) (texts, headings []string) {
	corpusCache.Lock()
	defer corpusCache.Unlock()
	if c, ok := corpusCache.byDir[dir]; ok {
		return c[0], c[1]
	}
	texts, headings = cutCorpus(t, dir)
	if corpusCache.byDir == nil {
		corpusCache.byDir = map[string][2][]string{}
	}
	corpusCache.byDir[dir] = [2][]string{texts, headings}
	return texts, headings
}

// cutCorpus is corpusChunks without the cache.
func cutCorpus(t testing.TB, dir string) (texts, headings []string) {
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".github" {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		nd := normalize.Normalize(normalize.Markdown, data)
		hs := make([]chunk.Heading, len(nd.Headings))
		for i, h := range nd.Headings {
			hs[i] = chunk.Heading{Offset: h.Offset, Level: h.Level, Text: h.Text}
		}
		cs, _ := sp.Split(nd.Text, hs)
		for _, c := range cs {
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			texts = append(texts, c.Text)
			h := ""
			if n := len(c.Headings); n > 0 {
				h = c.Headings[n-1]
			}
			headings = append(headings, h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return texts, headings
}

// BenchmarkVectorSearch times the in-memory search (the quantized scan and
// the ranking of its shortlist) on synthetic vectors, 1,000,000 of them
// when VECTORS_1M is set (100,000 otherwise): of 2,048 dimensions with
// queries of 40 non-zero values, as the hash embedder's, and of 768
// dimensions with dense queries, as a model's. The float32 vectors are
// made again from their rowid when the shortlist reads them, as the
// database would give them, so only the quantized ones take memory
// (reported as MB-held).
//
//	VECTORS_1M=1 go test -run '^$' -bench VectorSearch -benchtime 100x ./index
func BenchmarkVectorSearch(b *testing.B) {
	n := 100_000
	if os.Getenv("VECTORS_1M") != "" {
		n = 1_000_000
	}
	for _, c := range []struct {
		name     string
		dim, nnz int // query's non-zero values
	}{{"hash-2048", 2048, 40}, {"dense-768", 768, 768}} {
		b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
			vec := func(rowid int64, v []float32) {
				rng := rand.New(rand.NewPCG(uint64(rowid), 7))
				var s float64
				for j := range v {
					v[j] = 2*rng.Float32() - 1
					s += float64(v[j] * v[j])
				}
				for j := range v {
					v[j] /= float32(math.Sqrt(s))
				}
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			x := newVectorIndex(c.dim)
			v, buf := make([]float32, c.dim), make([]int8, c.dim)
			for r := int64(1); r <= int64(n); r++ {
				vec(r, v)
				x.add(r, v, buf)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			read := func(rowids []int64, fn func(int64, []float32) error) error {
				for _, r := range rowids {
					vec(r, v)
					if err := fn(r, v); err != nil {
						return err
					}
				}
				return nil
			}
			rng := rand.New(rand.NewPCG(9, 9))
			queries := make([][]float32, 50)
			for i := range queries {
				q := make([]float32, c.dim)
				for range c.nnz {
					q[rng.IntN(c.dim)] = float32(rng.NormFloat64())
				}
				queries[i] = q
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				start := time.Now()
				cands, err := x.shortlist(b.Context(), q, 30, nil)
				if err == nil {
					_, err = rank(q, cands, 30, read)
				}
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			at := func(p float64) float64 {
				return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
			}
			b.ReportMetric(at(0.50), "p50-ms")
			b.ReportMetric(at(0.99), "p99-ms")
			b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/1e6, "MB-held")
			b.ReportMetric(0, "ns/op")
			runtime.KeepAlive(x)
		})
	}
}

// embedCorpus embeds texts with e into a new vector index, chunk i at rowid
// i+1, each vector put through transform first when it is set, and returns
// the index, the vectors it holds and the texts' inverse document
// frequencies.
func embedCorpus(t *testing.T, e *embed.Embedder, texts []string, transform func([]float32) []float32) (*vectorIndex, map[int64][]float32, func(string) float64) {
	t.Helper()
	x := newVectorIndex(e.Dim())
	floats := make(map[int64][]float32, len(texts))
	df := map[string]int{}
	for start := 0; start < len(texts); start += 512 {
		batch := texts[start:min(start+512, len(texts))]
		vs, err := e.EmbedDocuments(t.Context(), batch)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if transform != nil {
				v = transform(v)
			}
			r := int64(start + i + 1)
			x.add(r, v, nil)
			floats[r] = v
		}
		for _, text := range batch {
			for _, term := range uniqueTerms(text) {
				df[term]++
			}
		}
	}
	return x, floats, func(term string) float64 { return analysis.IDF(len(texts), df[term]) }
}
