package index

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/internal/topk"
	"github.com/cite-rag/cite/internal/testenv"
)

// rotation is a fixed random orthogonal map of vectors of dim values:
// rounds of random sign flips, a random permutation and Walsh-Hadamard
// transforms over blocks of a power of two, each step orthogonal. It keeps
// every dot product (but for float rounding) and turns sparse vectors,
// such as the hash embedder's, into dense ones, as a model's are: the
// exact ranking of the rotated vectors is the known ranking of the
// originals.
type rotation struct {
	dim, block int
	signs      [][]float32
	perms      [][]int
}

func newRotation(dim int, seed uint64) *rotation {
	block := 1
	for dim%(2*block) == 0 && block < 1024 {
		block *= 2
	}
	r := &rotation{dim: dim, block: block}
	rng := rand.New(rand.NewPCG(seed, 11))
	for range 3 {
		s := make([]float32, dim)
		for j := range s {
			s[j] = float32(1 - 2*rng.IntN(2))
		}
		r.signs = append(r.signs, s)
		r.perms = append(r.perms, rng.Perm(dim))
	}
	return r
}

// apply writes the rotation of v to dst; tmp is scratch of dim values.
func (r *rotation) apply(dst, v, tmp []float32) {
	copy(dst, v)
	norm := float32(1 / math.Sqrt(float64(r.block)))
	for round := range r.signs {
		for j, p := range r.perms[round] {
			tmp[j] = dst[p] * r.signs[round][p]
		}
		for b := 0; b < r.dim; b += r.block {
			h := tmp[b : b+r.block]
			for n := 1; n < len(h); n *= 2 {
				for i := 0; i < len(h); i += 2 * n {
					for j := i; j < i+n; j++ {
						h[j], h[j+n] = h[j]+h[j+n], h[j]-h[j+n]
					}
				}
			}
			for j := range h {
				h[j] *= norm
			}
		}
		copy(dst, tmp)
	}
}

func TestRotationKeepsDotProducts(t *testing.T) {
	for _, dim := range []int{768, 96, 2048} {
		r := newRotation(dim, 1)
		rng := rand.New(rand.NewPCG(3, 4))
		a, b := make([]float32, dim), make([]float32, dim)
		for j := range a {
			a[j], b[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		ra, rb, tmp := make([]float32, dim), make([]float32, dim), make([]float32, dim)
		r.apply(ra, a, tmp)
		r.apply(rb, b, tmp)
		var d0, d1 float64
		for j := range a {
			d0 += float64(a[j] * b[j])
			d1 += float64(ra[j] * rb[j])
		}
		if math.Abs(d0-d1) > 1e-3*math.Sqrt(float64(dim)) {
			t.Errorf("dim %d: dot product %v, rotated %v", dim, d0, d1)
		}
	}
}

// denseQueries returns query vectors for the shared corpus's headings and
// for sentences of its chunks, as TestVectorRecall makes them, with idf
// from idf.
func denseQueries(tb testing.TB, e *embed.Embedder, texts, headings []string, idf func(query string) func(string) float64, n int) [][]float32 {
	var queries []string
	seen := map[string]bool{}
	for i := 50; i < len(headings) && len(queries) < n/2; i += 50 {
		if h := headings[i]; h != "" && !seen[h] && len(analysis.QueryTerms(h)) > 0 {
			seen[h] = true
			queries = append(queries, h)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for len(queries) < n {
		sentences := strings.Split(texts[rng.IntN(len(texts))], ". ")
		s := strings.Fields(sentences[rng.IntN(len(sentences))])
		s = s[:min(len(s), 12)]
		if q := strings.Join(s, " "); len(s) >= 3 && len(analysis.QueryTerms(q)) > 0 {
			queries = append(queries, q)
		}
	}
	out := make([][]float32, len(queries))
	for i, q := range queries {
		v, err := e.EmbedQuery(tb.Context(), q, idf(q))
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// TestSignShortlistRecall: for dense queries (the hash embedder's vectors
// of the shared corpus rotated, see rotation), the sign scan followed by
// the int8 and float32 rankings finds the exact search's 10 and 30 best
// (Recall@10 and @30 ≥ 0.99, ties aside), and the scores it returns are
// the exact ones.
func TestSignShortlistRecall(t *testing.T) {
	if testenv.Race {
		t.Skip("embeds the shared corpus: runs in the race-free CI step")
	}
	if testing.Short() {
		t.Skip("embeds the shared corpus")
	}
	defer func(n int) { signMinVectors = n }(signMinVectors)
	signMinVectors = 1000
	ctx := t.Context()
	texts, headings := corpusChunks(t, testenv.SharedData(t, "markdown"))
	e := mustEmbedder(t, "hash:768")
	rot := newRotation(e.Dim(), 5)
	tmp := make([]float32, e.Dim())
	x, floats, idf := embedCorpus(t, e, texts, func(v []float32) []float32 {
		rv := make([]float32, len(v))
		rot.apply(rv, v, tmp)
		return rv
	})
	queries := denseQueries(t, e, texts, headings, func(string) func(string) float64 { return idf }, 300)
	rotated := make([][]float32, len(queries))
	wants := make([][]Scored, len(queries))
	for i, q := range queries {
		rotated[i] = make([]float32, len(q))
		rot.apply(rotated[i], q, tmp)
		wants[i] = exactSearch(floats, rotated[i], 30)
	}
	for _, k := range []int{10, 30} {
		var sum float64
		for i, rq := range rotated {
			want := wants[i][:min(k, len(wants[i]))]
			x.needSigns(len(queryTerms(rq)))
			if x.signs == nil {
				t.Fatalf("query with %d non-zero values of %d: no sign codes", len(queryTerms(rq)), len(rq))
			}
			got, err := searchFloats(ctx, x, floats, rq, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range got {
				if exact := float64(exactScore(queryTerms(rq), floats[g.Chunk])); g.Score != exact {
					t.Fatalf("chunk %d scored %v, its exact score is %v", g.Chunk, g.Score, exact)
				}
			}
			sum += recallAt(got, want)
		}
		recall := sum / float64(len(queries))
		t.Logf("Recall@%d %.4f over %d dense queries, %d vectors", k, recall, len(queries), len(texts))
		if recall < 0.99 {
			t.Errorf("Recall@%d %.4f against the exact search, want at least 0.99", k, recall)
		}
	}
}

func uniqueTerms(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, term := range analysis.Analyze(text) {
		if !seen[term] {
			seen[term] = true
			out = append(out, term)
		}
	}
	return out
}

// BenchmarkDenseSearch measures dense queries at the size of a kept index
// (cite bench --keep; CITE_DENSE_INDEX names its folder, which must hold a
// current vectors.cache and is only read): its vectors, rotated (see
// rotation) so that they and the queries are dense, are searched with the
// sign scan and with the column scan, and the first's results compared
// with the exact ranking of the originals (Recall@10 and @30); the
// hash embedder's sparse queries are timed on the originals beside them.
// The float32 vectors are made again from the int8 ones when the
// shortlist reads them, so the exact ranking is of the dequantized vectors.
//
//	CITE_DENSE_INDEX=DIR go test -run '^$' -bench DenseSearch -benchtime 1x -timeout 1h ./index
func BenchmarkDenseSearch(b *testing.B) {
	dir := os.Getenv("CITE_DENSE_INDEX")
	if dir == "" {
		b.Skip("CITE_DENSE_INDEX is not set")
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	nq := 100
	if s := os.Getenv("CITE_DENSE_QUERIES"); s != "" {
		fmt.Sscan(s, &nq)
	}
	ctx := b.Context()
	st, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	info, err := st.Embedder(ctx)
	if err != nil {
		b.Fatal(err)
	}
	gen, err := vectorsGen(ctx, st.db)
	if err != nil {
		b.Fatal(err)
	}
	orig, release, err := st.readVectorCache(gen, info.Name, info.Dim)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	dim := orig.dim
	rot := newRotation(dim, 5)
	// dequant writes the float32 vector of slot, as the benchmark takes it.
	dequant := func(slot int, dst []float32) {
		seg := orig.segs[slot/orig.rows]
		c, i := len(seg)/dim, slot%orig.rows
		s := orig.scales[slot]
		for j := range dst {
			dst[j] = s * float32(seg[j*c+i])
		}
	}
	start := time.Now()
	x := newVectorIndex(dim)
	{
		f, r, tmp := make([]float32, dim), make([]float32, dim), make([]float32, dim)
		const block = 64
		buf := make([]int8, block*dim)
		var ids []int64
		var scales []float32
		for slot, rowid := range orig.rowids {
			if rowid == 0 {
				continue
			}
			dequant(slot, f)
			rot.apply(r, f, tmp)
			scales = append(scales, quantize(r, buf[len(ids)*dim:(len(ids)+1)*dim]))
			ids = append(ids, rowid)
			if len(ids) == block {
				x.appendBlock(ids, scales, buf)
				ids, scales = ids[:0], scales[:0]
			}
		}
		x.appendBlock(ids, scales, buf)
	}
	logf("%d vectors of %d dimensions rotated in %v", x.n, dim, time.Since(start).Round(time.Millisecond))

	e := mustEmbedder(b, info.Name)
	texts, headings := corpusChunks(b, testenv.SharedData(b, "markdown"))
	logf("%d corpus chunks for the queries", len(texts))
	// idf from the index, as a search gets it.
	queries := denseQueries(b, e, texts, headings, func(q string) func(string) float64 {
		ts, err := st.TermStats(ctx, analysis.QueryTerms(q))
		if err != nil {
			b.Fatal(err)
		}
		return ts.IDF
	}, nq)
	logf("%d queries, %.1f non-zero values on average, load %s", len(queries), avgNNZ(queries), loadavg())

	// The exact top k of the originals: every score, by a column scan in
	// float32.
	oracle := func(q []float32, k int) []Scored {
		terms := queryTerms(q)
		top := topk.New(k, scored32First)
		sums := make([]float32, orig.rows)
		for s, seg := range orig.segs {
			c := len(seg) / dim
			base := s * orig.rows
			n := min(c, len(orig.rowids)-base)
			sums := sums[:n]
			clear(sums)
			for _, t := range terms {
				col := seg[t.j*c : t.j*c+n]
				sc := orig.scales[base : base+n]
				for i, a := range col {
					sums[i] += t.w * (sc[i] * float32(a))
				}
			}
			for i, sum := range sums {
				if r := orig.rowids[base+i]; r != 0 {
					top.Push(scored32{sum, r})
				}
			}
		}
		var out []Scored
		for _, s := range top.Sorted() {
			out = append(out, Scored{Chunk: s.rowid, Score: float64(s.score)})
		}
		return out
	}
	rotated := make([][]float32, len(queries))
	tmp := make([]float32, dim)
	for i, q := range queries {
		rotated[i] = make([]float32, dim)
		rot.apply(rotated[i], q, tmp)
	}
	read := func(rowids []int64, fn func(int64, []float32) error) error {
		f, r, tmp := make([]float32, dim), make([]float32, dim), make([]float32, dim)
		for _, id := range rowids {
			dequant(int(orig.slots[id]), f)
			rot.apply(r, f, tmp)
			if err := fn(id, r); err != nil {
				return err
			}
		}
		return nil
	}
	search := func(x *vectorIndex, q []float32, k int) ([]Scored, time.Duration) {
		start := time.Now()
		cands, err := x.searchShortlist(ctx, q, k, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := rank(q, cands, k, read)
		if err != nil {
			b.Fatal(err)
		}
		return res, time.Since(start)
	}
	report := func(name string, lat []time.Duration) {
		slices.Sort(lat)
		at := func(p float64) float64 {
			return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
		}
		logf("%-40s p50 %8.1f ms  p99 %8.1f ms  (%d queries)", name, at(0.5), at(0.99), len(lat))
	}
	start = time.Now()
	x.needSigns(dim)
	logf("sign codes built in %v (%d MB), load %s", time.Since(start).Round(time.Millisecond), 8*len(x.signs.bits)/1e6, loadavg())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	logf("heap in use %d MB", ms.HeapInuse>>20)

	oversamples := []int{signOversample}
	if s := os.Getenv("CITE_DENSE_OVERSAMPLE"); s != "" {
		oversamples = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			fmt.Sscan(f, &n)
			oversamples = append(oversamples, n)
		}
	}
	for b.Loop() {
		wants := map[int][][]Scored{}
		start := time.Now()
		for _, q := range queries {
			w := oracle(q, 30)
			wants[30] = append(wants[30], w)
			wants[10] = append(wants[10], w[:min(10, len(w))])
		}
		logf("exact rankings in %v", time.Since(start).Round(time.Millisecond))
		defer func(n int) { signOversample = n }(signOversample)
		for _, over := range oversamples {
			signOversample = over
			for _, k := range []int{10, 30} {
				var lat []time.Duration
				var sum float64
				for i, q := range rotated {
					got, d := search(x, q, k)
					lat = append(lat, d)
					sum += recallTol(got, wants[k][i], 1e-5)
				}
				report(fmt.Sprintf("dense k=%d signs ×%d (%d), load %s", k, over, signShortlistSize(shortlistSize(k)), loadavg()), lat)
				logf("  Recall@%d %.4f", k, sum/float64(len(rotated)))
			}
		}
		// Where a dense search's time goes.
		var scan, int8s time.Duration
		for _, q := range rotated[:min(20, len(rotated))] {
			x.mu.RLock()
			start := time.Now()
			slots, _ := x.signScan(ctx, q, signShortlistSize(shortlistSize(10)), nil)
			mid := time.Now()
			x.signShortlist(ctx, q, queryTerms(q), shortlistSize(10), nil)
			int8s += time.Since(mid) - mid.Sub(start) // the whole, less a scan
			_ = slots
			scan += mid.Sub(start)
			x.mu.RUnlock()
		}
		logf("k=10: sign scan %v, 4-bit and int8 scores of the %d kept %v a query (mean of 20), load %s", scan/20, signShortlistSize(shortlistSize(10)), int8s/20, loadavg())
		var lat []time.Duration
		for _, q := range queries {
			_, d := search(orig, q, 10)
			lat = append(lat, d)
		}
		report("sparse (originals) k=10, load "+loadavg(), lat)
		if os.Getenv("CITE_DENSE_COLUMN") != "" {
			lat = lat[:0]
			signs := x.signs
			x.signs = nil
			for _, q := range rotated[:min(10, len(rotated))] {
				x.mu.RLock()
				start := time.Now()
				cands, err := x.shortlist(ctx, q, 10, nil)
				x.mu.RUnlock()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rank(q, cands, 10, read); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			x.signs = signs
			report("dense k=10 column scan, load "+loadavg(), lat)
		}
	}
}

// recallTol is recallAt with scores within tol (relative) of a wanted one
// counting as ties: the rotated vectors' float32 scores differ from the
// originals' in the last bits.
func recallTol(got, want []Scored, tol float64) float64 {
	if len(want) == 0 {
		return 1
	}
	found := 0
	for _, w := range want {
		if slices.ContainsFunc(got, func(g Scored) bool {
			return g.Chunk == w.Chunk || math.Abs(g.Score-w.Score) <= tol*math.Max(math.Abs(w.Score), 1e-3)
		}) {
			found++
		}
	}
	return float64(found) / float64(len(want))
}

// TestSignCodesFollowChanges: once built, the sign codes stay those a
// fresh build gives through adds (new and replacing), removals, slot reuse
// and appended blocks.
func TestSignCodesFollowChanges(t *testing.T) {
	const dim = 100 // two words, the second partly used
	rng := rand.New(rand.NewPCG(7, 8))
	vec := func() []float32 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		return v
	}
	x := newVectorIndex(dim)
	for r := range int64(300) {
		x.add(r+1, vec(), nil)
	}
	x.buildSigns()
	for r := range int64(100) {
		x.add(r+500, vec(), nil) // new slots, growing the last segment
		x.add(3*r+1, vec(), nil) // replaced
	}
	for r := int64(2); r < 300; r += 7 {
		x.remove(r)
	}
	for r := range int64(20) {
		x.add(r+1000, vec(), nil) // reuses freed slots
	}
	buf := make([]int8, 64*dim)
	var ids []int64
	var scales []float32
	for i := range 64 {
		ids = append(ids, int64(2000+i))
		scales = append(scales, quantize(vec(), buf[i*dim:(i+1)*dim]))
	}
	x.appendBlock(ids, scales, buf)

	got := x.signs
	x.buildSigns()
	want := x.signs
	if got.words != want.words || !slices.Equal(got.bits, want.bits) {
		t.Fatalf("sign bits differ from a fresh build (%d and %d words)", len(got.bits), len(want.bits))
	}
	if !slices.Equal(got.nibs, want.nibs) || !slices.Equal(got.nscale, want.nscale) {
		t.Fatalf("4-bit values differ from a fresh build")
	}
	if len(got.factor) != len(want.factor) {
		t.Fatalf("%d factors, a fresh build has %d", len(got.factor), len(want.factor))
	}
	for i := range got.factor {
		if math.Abs(float64(got.factor[i]-want.factor[i])) > 1e-6*math.Abs(float64(want.factor[i])) {
			t.Fatalf("slot %d: factor %v, a fresh build gives %v", i, got.factor[i], want.factor[i])
		}
	}
}

// TestSignEstimate: the sign scan's estimate of a dot product is close to
// it, and exact for a query that is constant (every value the same, where
// 4 bits lose nothing) against a vector of ±1 values.
func TestSignEstimate(t *testing.T) {
	const dim = 768
	x := newVectorIndex(dim)
	rng := rand.New(rand.NewPCG(1, 1))
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(1 - 2*rng.IntN(2))
	}
	x.add(1, v, nil)
	x.buildSigns()
	q := make([]float32, dim)
	for j := range q {
		q[j] = 0.5
	}
	est := signEstimate(x, q)
	if exact := exactScore(queryTerms(q), v); math.Abs(float64(est-exact)) > 1e-3 {
		t.Errorf("constant query: estimate %v, exact %v", est, exact)
	}
	var sumErr float64
	for range 100 {
		for j := range q {
			q[j] = float32(rng.NormFloat64())
			v[j] = float32(rng.NormFloat64())
		}
		x.add(1, v, nil)
		est := signEstimate(x, q)
		exact := exactScore(queryTerms(q), v)
		sumErr += math.Abs(float64(est - exact))
	}
	// |q||v| ≈ dim; the estimate's error is about that over √dim.
	if mean := sumErr / 100; mean > 2*math.Sqrt(dim) {
		t.Errorf("mean error %.1f of dot products of norm %d", mean, dim)
	}
}

// TestSignScanConcurrent: dense searches, the first of which builds the
// sign codes, run while vectors are added and removed (run with -race);
// each returns k vectors, best first.
func TestSignScanConcurrent(t *testing.T) {
	defer func(n int) { signMinVectors = n }(signMinVectors)
	signMinVectors = 100
	const dim, k = 128, 10
	vec := func(rng *rand.Rand) []float32 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		return v
	}
	x := newVectorIndex(dim)
	rng := rand.New(rand.NewPCG(1, 2))
	for r := range int64(5000) {
		x.add(r+1, vec(rng), nil)
	}
	ctx := t.Context()
	done := make(chan struct{})
	var writer, wg sync.WaitGroup
	writer.Go(func() {
		rng := rand.New(rand.NewPCG(3, 4))
		buf := make([]int8, dim)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			x.mu.Lock()
			x.add(int64(6000+i), vec(rng), buf)
			x.remove(int64(1 + rng.IntN(5000)))
			x.mu.Unlock()
		}
	})
	for w := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for range 50 {
				cands, err := x.searchShortlist(ctx, vec(rng), k, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if len(cands) < k || !slices.IsSortedFunc(cands, func(a, b candidate) int { return cmp.Compare(b.approx, a.approx) }) {
					t.Errorf("%d candidates, want %d or more, best first", len(cands), k)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	writer.Wait()
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func avgNNZ(qs [][]float32) float64 {
	n := 0
	for _, q := range qs {
		n += len(queryTerms(q))
	}
	return float64(n) / float64(max(len(qs), 1))
}

// BenchmarkSignScan times the sign scan alone over 200,000 random
// vectors of 768 dimensions, beside the column scan of the same dense
// queries.
func BenchmarkSignScan(b *testing.B) {
	const dim, n = 768, 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	x := newVectorIndex(dim)
	v := make([]float32, dim)
	buf := make([]int8, dim)
	for r := range int64(n) {
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		x.add(r+1, v, buf)
	}
	x.buildSigns()
	q := make([]float32, dim)
	for j := range q {
		q[j] = float32(rng.NormFloat64())
	}
	terms := queryTerms(q)
	for _, c := range []struct {
		name string
		fn   func(b *testing.B)
	}{
		{"signs", func(b *testing.B) { x.signScan(b.Context(), q, 2000, nil) }},
		{"signs+4bit+int8", func(b *testing.B) { x.signShortlist(b.Context(), q, terms, 62, nil) }},
		{"columns", func(b *testing.B) { x.columnScan(b.Context(), terms, 62, nil) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			before := cpuTime()
			for b.Loop() {
				c.fn(b)
			}
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// signEstimate is the sign scan's estimate of q's score with slot 0.
func signEstimate(x *vectorIndex, q []float32) float32 {
	sq := newSignQuery(q, x.signs.words)
	pcs, sums := make([]uint32, 1), make([]uint32, 1)
	signCounts(x.signs.bits[:x.signs.words], sq.planes, x.signs.words, pcs, sums)
	return sq.estimate(pcs[0], sums[0], x.signs.factor[0])
}

// TestSignCounts: the AVX-512 counts are the Go ones.
func TestSignCounts(t *testing.T) {
	if !useVPOPCNT {
		t.Skip("no AVX-512 popcount")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, words := range []int{4, 12, 32} {
		for _, n := range []int{1, 3, 100} {
			codes := make([]uint64, n*words)
			planes := make([]uint64, words*signPlanes)
			for i := range codes {
				codes[i] = rng.Uint64()
			}
			for i := range planes {
				planes[i] = rng.Uint64()
			}
			pa, sa := make([]uint32, n), make([]uint32, n)
			pb, sb := make([]uint32, n), make([]uint32, n)
			signCounts(codes, planes, words, pa, sa)
			signCountsGeneric(codes, planes, words, pb, sb)
			if !slices.Equal(pa, pb) || !slices.Equal(sa, sb) {
				t.Errorf("words %d, %d vectors: AVX-512 %v %v, Go %v %v", words, n, pa[:1], sa[:1], pb[:1], sb[:1])
			}
		}
	}
}
