package index

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cite-rag/cite/index/internal/topk"
)

// segRows is the most vectors in one segment of the in-memory index, and
// segBytes the most bytes: vectors of many dimensions get fewer per segment
// (2,048 vectors of 1,048,576 dimensions would take 2 GiB at once).
// firstRows is the capacity the first segment starts with: it grows,
// doubling, so an index of a few vectors holds a few vectors' worth. The
// segments after it are made whole at once: growing one would copy it
// about once over (ingest of the shared corpus spent a fifth of its
// vector work so), and a whole segment is at most one segment more than
// the index needs.
const (
	segRows   = 2048
	segBytes  = 16 << 20
	firstRows = 16
)

// rowsPerSegment is the capacity of a full segment of vectors of dim
// dimensions.
func rowsPerSegment(dim int) int {
	return max(1, min(segRows, segBytes/max(dim, 1)))
}

// vectorRow is a chunk's vector under the chunk's rowid: vec, with q nil,
// or its quantized values made ahead ([PrepareChunks]), q, with their
// scale (quantize(vec, q) gave scale), and vec unused.
type vectorRow struct {
	rowid int64
	vec   []float32
	q     []int8
	scale float32
}

// vectorIndex holds an index's vectors in memory for exhaustive search,
// quantized: each vector is one byte a value (int8) and one float32 scale,
// a quarter of its float32 size. The vectors as stored (float16, or float32
// from older cite: [encodeVector]) stay in the database alone; a search
// ranks every vector by its quantized values, then reads the stored
// vectors of a shortlist of the best and ranks them by their exact scores
// ([Store.SearchVectors]).
//
// The vectors are stored column-major in segments of rows slots: value j
// of the vector in slot i lies at segs[i/rows][j*c+i%rows], where c, the
// segment's capacity, is rows but for the last segment, which may hold
// fewer (the first one grows; one mapped from the vector cache grows). A
// query then costs one pass over a contiguous column per non-zero query
// value: the built-in hash embedder's queries have a few dozen non-zero
// values among thousands, so a search reads a few percent of the vectors
// (chromem-go's row-major scan reads all of them: search's
// BenchmarkChromemQuery; BenchmarkVectorSearch times this scan at 1M).
// A dense query (a model's) would read every byte: it scans the vectors'
// signs instead ([signCodes], BenchmarkDenseSearch).
type vectorIndex struct {
	gen atomic.Int64 // vectors generation it reflects; -1: stale

	mu     sync.RWMutex
	dim    int
	rows   int             // slots of a full segment: rowsPerSegment(dim)
	rowids []int64         // slot -> chunk rowid; 0 for a free slot
	scales []float32       // slot -> scale of its vector ([quantize])
	slots  map[int64]int32 // chunk rowid -> slot
	free   []int32
	segs   [][]int8
	n      int        // vectors held
	signs  *signCodes // the sign codes, once a dense query needed them (vecsign.go)
}

func newVectorIndex(dim int) *vectorIndex {
	return &vectorIndex{dim: dim, rows: rowsPerSegment(dim), slots: make(map[int64]int32)}
}

// quantize writes v as int8 values to dst and returns their scale s: value
// j stands for s*dst[j], within s/2 of v[j] (scalar quantization with a
// scale per vector). The largest magnitude maps to ±127, so nothing is
// clipped. It is deterministic: the same v gives the same bytes in every
// process, which lets [Store.Check] compare a vector cache with the
// database.
//
// It runs on ingest's workers for every chunk; the loops below give the
// bytes of math.Round (TestQuantizeMatchesRound) at a fraction of its cost,
// and with AVX2 (quantizeFloatAVX2) at a fraction of theirs.
func quantize(v []float32, dst []int8) float32 {
	dst = dst[:len(v)]
	// The largest magnitude, compared as bits: for finite float32s, a
	// larger magnitude has larger bits once the sign is cleared.
	var mb uint32
	rest := v
	if n := len(v) &^ 7; useAVX2 && n > 0 {
		mb, rest = maxAbsBitsAVX2(&v[0], n), v[n:]
	}
	for _, f := range rest {
		mb = max(mb, math.Float32bits(f)&0x7fff_ffff)
	}
	if mb >= 0x7f80_0000 {
		return quantizeSlow(v, dst) // Inf or NaN
	}
	m := float64(math.Float32frombits(mb))
	if m == 0 {
		clear(dst)
		return 0
	}
	// x is f*127/m multiplied by the reciprocal of m rather than divided:
	// within a few units in the last place of the quotient, it rounds the
	// same except close to a half, where the quotient is worked out.
	r := 1 / m
	if n := len(v) &^ 7; useAVX2 && n > 0 {
		quantizeFloatAVX2(&dst[0], &v[0], n, m)
		v, dst = v[n:], dst[n:]
	}
	for j, f := range v {
		// |x| <= 127 (and a rounding error): truncate, then round half
		// away from zero as math.Round does; x-float64(t) is exact.
		p := float64(f) * 127
		x := p * r
		t := int(x)
		d := x - float64(t)
		if a := math.Abs(d); a > 0.5-1e-9 && a < 0.5+1e-9 {
			x = p / m
			t = int(x)
			d = x - float64(t)
		}
		if d >= 0.5 {
			t++
		}
		if d <= -0.5 {
			t--
		}
		dst[j] = int8(max(-127, min(127, t)))
	}
	return float32(m / 127)
}

// quantizeSlow is [quantize] of a vector that holds an infinity or a NaN,
// as it was first written.
func quantizeSlow(v []float32, dst []int8) float32 {
	var m float64
	for _, f := range v {
		m = max(m, math.Abs(float64(f)))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	for j, f := range v {
		dst[j] = int8(max(-127, min(127, math.Round(float64(f)*127/m))))
	}
	return float32(m / 127)
}

// segment returns the segment of slot, made or grown to hold it, its
// capacity and the slot's place in it.
func (x *vectorIndex) segment(slot int) (seg []int8, capacity, i int) {
	s, i := slot/x.rows, slot%x.rows
	if s == len(x.segs) {
		if s > 0 || i+1 >= x.rows {
			x.segs = append(x.segs, wholeSegment(x.rows*x.dim))
		} else {
			x.segs = append(x.segs, make([]int8, min(x.rows, max(firstRows, i+1))*x.dim))
		}
	}
	seg = x.segs[s]
	c := len(seg) / x.dim
	if i >= c {
		nc := min(x.rows, max(2*c, i+1))
		var grown []int8
		if nc == x.rows {
			grown = wholeSegment(nc * x.dim)
		} else {
			grown = make([]int8, nc*x.dim)
		}
		for j := range x.dim {
			copy(grown[j*nc:], seg[j*c:(j+1)*c])
		}
		seg, c = grown, nc
		x.segs[s] = seg
	}
	return seg, c, i
}

// add stores v, quantized, under rowid, replacing the vector it had. buf,
// of x.dim values, is scratch space (allocated when nil). The caller holds
// x.mu for writing.
func (x *vectorIndex) add(rowid int64, v []float32, buf []int8) {
	if buf == nil {
		buf = make([]int8, x.dim)
	}
	x.put(rowid, buf, quantize(v, buf))
}

// put stores the quantized vector q with its scale under rowid, replacing
// the vector it had. The caller holds x.mu for writing.
func (x *vectorIndex) put(rowid int64, q []int8, scale float32) {
	slot, ok := x.slots[rowid]
	if !ok {
		if n := len(x.free); n > 0 {
			slot = x.free[n-1]
			x.free = x.free[:n-1]
		} else {
			slot = int32(len(x.rowids))
			x.rowids = append(x.rowids, 0)
			x.scales = append(x.scales, 0)
		}
		x.slots[rowid] = slot
		x.rowids[slot] = rowid
		x.n++
	}
	x.scales[slot] = scale
	seg, c, i := x.segment(int(slot))
	for j, v := range q {
		seg[j*c+i] = v
	}
	if x.signs != nil {
		x.signs.setSign(int(slot), q, scale)
	}
}

// vector copies the quantized vector in slot to dst (of x.dim values) and
// returns it with its scale. The caller holds x.mu for reading.
func (x *vectorIndex) vector(slot int, dst []int8) ([]int8, float32) {
	seg := x.segs[slot/x.rows]
	c, i := len(seg)/x.dim, slot%x.rows
	for j := range dst {
		dst[j] = seg[j*c+i]
	}
	return dst, x.scales[slot]
}

// remove drops the vector of rowid, if any. The caller holds x.mu for
// writing.
func (x *vectorIndex) remove(rowid int64) {
	slot, ok := x.slots[rowid]
	if !ok {
		return
	}
	delete(x.slots, rowid)
	x.rowids[slot] = 0
	x.scales[slot] = 0
	seg, c, i := x.segment(int(slot))
	for j := range x.dim {
		seg[j*c+i] = 0
	}
	if x.signs != nil {
		clear(x.signs.bits[int(slot)*x.signs.words : int(slot+1)*x.signs.words])
		x.signs.factor[slot] = 0
		clear(x.signs.nibs[int(slot)*x.signs.half : int(slot+1)*x.signs.half])
		x.signs.nscale[slot] = 0
	}
	x.free = append(x.free, slot)
	x.n--
}

// Scored is a chunk, by rowid, with its score.
type Scored struct {
	Chunk int64   // the chunk's rowid
	Score float64 // higher is better
}

// bitmap is a set of slots.
type bitmap []uint64

func (b bitmap) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitmap) set(i int)      { b[i>>6] |= 1 << (i & 63) }

// queryTerm is a non-zero value of a query vector: w at dimension j.
type queryTerm struct {
	j int
	w float32
}

// queryTerms returns the non-zero values of q, in order of dimension.
func queryTerms(q []float32) []queryTerm {
	var terms []queryTerm
	for j, w := range q {
		if w != 0 {
			terms = append(terms, queryTerm{j, w})
		}
	}
	return terms
}

// exactScore is the dot product of a query, by its terms, with a float32
// vector: the score the quantized scan estimates and [Store.SearchVectors]
// returns, summed in the same order (of dimension) for every vector.
func exactScore(terms []queryTerm, v []float32) float32 {
	var sc float32
	for _, t := range terms {
		sc += t.w * v[t.j]
	}
	return sc
}

// shortlistSize is how many vectors the quantized scan keeps, at most,
// for a search of the k best: those whose exact score is read and ranked.
// Measured on the shared corpus with the hash embedder (TestVectorRecall),
// the vectors the bounds cannot rule out are rarely more than k+10.
func shortlistSize(k int) int { return k + max(k, 32) }

// candidate is a vector of the shortlist: its chunk, the score its
// quantized values give, and how far that can be from its exact score.
type candidate struct {
	rowid       int64
	approx, err float32
}

// shortlist returns up to shortlistSize(k) vectors, best first by their
// quantized score, among the slots in allow (all when nil): the vectors
// whose exact dot product with q may be among the k largest. Each one's
// quantized score is within err of its exact score, err being half its
// scale times the sum of the query's magnitudes (plus float rounding): a
// vector whose score plus err falls below the k-th best score minus err
// cannot be among the k best, and is left out. When fewer such vectors
// than the shortlist holds are left out of it, ranking the shortlist by
// exact score gives exactly the exact search's k best; otherwise the
// lowest of them are missed (rarely: TestVectorRecall). The caller holds
// x.mu for reading.
func (x *vectorIndex) shortlist(ctx context.Context, q []float32, k int, allow bitmap) ([]candidate, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("query vector has %d dimensions, the index's %d", len(q), x.dim)
	}
	if k <= 0 || x.n == 0 {
		return nil, nil
	}
	terms := queryTerms(q)
	if len(terms) == 0 {
		return nil, nil
	}
	var l1 float64
	for _, t := range terms {
		l1 += math.Abs(float64(t.w))
	}
	// Half a quantization step a value, plus a generous allowance for the
	// float32 rounding of both sums and of the scale.
	errPerScale := float32(l1 * (0.5 + 1e-3 + 2e-5*float64(len(terms))))
	size := shortlistSize(k)
	var all []scored32
	var err error
	if x.signs != nil && denseQuery(len(terms), x.dim, x.n) {
		all, err = x.signShortlist(ctx, q, terms, size, allow)
	} else {
		all, err = x.columnScan(ctx, terms, size, allow)
	}
	if err != nil {
		return nil, err
	}
	out := make([]candidate, len(all))
	lower := make([]float32, len(all))
	for i, a := range all {
		e := x.scales[x.slots[a.rowid]] * errPerScale
		out[i] = candidate{rowid: a.rowid, approx: a.score, err: e}
		lower[i] = a.score - e
	}
	if len(out) <= k {
		return out, nil
	}
	// The k-th best lower bound: no vector whose upper bound is below it
	// can be among the k best.
	slices.SortFunc(lower, func(a, b float32) int { return cmp.Compare(b, a) })
	kth := lower[k-1]
	return slices.DeleteFunc(out, func(c candidate) bool { return c.approx+c.err < kth }), nil
}

// columnScan returns the (up to) size vectors, among the slots in allow
// (all when nil), whose scores by their int8 values are the largest, best
// first: one pass over a column of every segment per query term, the
// segments shared among the cores. The caller holds x.mu for reading.
func (x *vectorIndex) columnScan(ctx context.Context, terms []queryTerm, size int, allow bitmap) ([]scored32, error) {
	nseg := len(x.segs)
	workers := min(runtime.GOMAXPROCS(0), nseg)
	// A small index is not worth a goroutine per core.
	if x.n*len(terms) < 1<<18 {
		workers = 1
	}
	tops := make([]*topk.Heap[scored32], workers)
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range workers {
		tops[w] = topk.New(size, scored32First)
		wg.Go(func() {
			sums := make([]float32, x.rows)
			top := tops[w]
			floor := float32(math.Inf(-1)) // the worst score kept once full
			for s := int(next.Add(1) - 1); s < nseg; s = int(next.Add(1) - 1) {
				if ctx.Err() != nil {
					return
				}
				seg := x.segs[s]
				c := len(seg) / x.dim
				sums := sums[:c]
				clear(sums)
				for _, t := range terms {
					axpy8(sums, t.w, seg[t.j*c:(t.j+1)*c])
				}
				base := s * x.rows
				end := min(c, len(x.rowids)-base)
				scales := x.scales[base : base+end]
				for i, sum := range sums[:end] {
					sc := sum * scales[i]
					// Most scores lose to the worst kept: skip them
					// before looking at their slot (Push settles ties).
					if sc < floor {
						continue
					}
					rowid := x.rowids[base+i]
					if rowid == 0 || allow != nil && !allow.has(base+i) {
						continue
					}
					top.Push(scored32{sc, rowid})
					if top.Full() {
						floor = top.Worst().score
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	best := tops[0]
	for _, t := range tops[1:] {
		for _, s := range t.Sorted() {
			best.Push(s)
		}
	}
	return best.Sorted(), nil
}

type scored32 struct {
	score float32
	rowid int64
}

// scored32First orders scored32 values best first.
func scored32First(a, b scored32) int { return bestFirst(a.score, b.score, a.rowid, b.rowid) }

// rank returns the k candidates with the largest exact scores, best first
// (ties by rowid), reading their vectors with read; a candidate
// read does not return (its chunk is gone) is left out.
func rank(q []float32, cands []candidate, k int, read func(rowids []int64, fn func(rowid int64, v []float32) error) error) ([]Scored, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	terms := queryTerms(q)
	rowids := make([]int64, len(cands))
	for i, c := range cands {
		rowids[i] = c.rowid
	}
	top := topk.New(k, scored32First)
	err := read(rowids, func(rowid int64, v []float32) error {
		if len(v) != len(q) {
			return fmt.Errorf("vector of chunk %d has %d dimensions, the query %d", rowid, len(v), len(q))
		}
		top.Push(scored32{exactScore(terms, v), rowid})
		return nil
	})
	if err != nil {
		return nil, err
	}
	all := top.Sorted()
	out := make([]Scored, len(all))
	for i, a := range all {
		out[i] = Scored{Chunk: a.rowid, Score: float64(a.score)}
	}
	return out, nil
}

// readVectors calls fn with the vector as stored ([decodeVector]), of dim
// values, of each chunk of rowids that has one, in no particular order.
func (s *Store) readVectors(ctx context.Context, rowids []int64, dim int, fn func(rowid int64, v []float32) error) error {
	var b strings.Builder
	args := make([]any, len(rowids))
	b.WriteString(`SELECT chunk, vec FROM vectors WHERE chunk IN (`)
	for i, r := range rowids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
		args[i] = r
	}
	b.WriteByte(')')
	rows, err := s.db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]float32, dim)
	for rows.Next() {
		var rowid int64
		var raw sql.RawBytes
		if err := rows.Scan(&rowid, &raw); err != nil {
			return err
		}
		if _, err := decodeVector(raw, dim, v); err != nil {
			return fmt.Errorf("vector of chunk %d: %w (cite check --repair re-embeds it)", rowid, err)
		}
		if err := fn(rowid, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// loadVectors reads every vector of the index into memory, in one read
// transaction so that the set matches the generation it records.
func (s *Store) loadVectors(ctx context.Context) (*vectorIndex, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	gen, err := vectorsGen(ctx, conn)
	if err != nil {
		return nil, err
	}
	dim, err := vectorDim(ctx, conn)
	if err != nil {
		return nil, err
	}
	x := newVectorIndex(dim)
	x.gen.Store(gen)
	if dim == 0 {
		return x, nil
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&n); err != nil {
		return nil, err
	}
	x.rowids = make([]int64, 0, n)
	x.scales = make([]float32, 0, n)
	x.slots = make(map[int64]int32, n)
	rows, err := conn.QueryContext(ctx, `SELECT chunk, vec FROM vectors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Vectors are decoded and quantized a block at a time and written into
	// the columns block by block: writing one vector at a time touches dim
	// pages.
	const block = 64
	f := make([]float32, dim)
	buf := make([]int8, block*dim)
	scales := make([]float32, 0, block)
	ids := make([]int64, 0, block)
	for rows.Next() {
		var rowid int64
		var b sql.RawBytes
		if err := rows.Scan(&rowid, &b); err != nil {
			return nil, err
		}
		if _, err := decodeVector(b, dim, f); err != nil {
			return nil, fmt.Errorf("vector of chunk %d: %w (cite check --repair re-embeds it)", rowid, err)
		}
		scales = append(scales, quantize(f, buf[len(ids)*dim:(len(ids)+1)*dim]))
		ids = append(ids, rowid)
		if len(ids) == block {
			x.appendBlock(ids, scales, buf)
			ids, scales = ids[:0], scales[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	x.appendBlock(ids, scales, buf)
	return x, nil
}

// appendBlock adds quantized vectors of new rowids, vs holding them one
// after the other, into fresh slots. The caller holds x.mu for writing (or
// owns x).
func (x *vectorIndex) appendBlock(rowids []int64, scales []float32, vs []int8) {
	for len(rowids) > 0 {
		first := len(x.rowids)
		// As many as fit in the current segment.
		n := min(len(rowids), x.rows-first%x.rows)
		seg, c, base := x.segment(first + n - 1)
		base -= n - 1
		transpose(seg, c, base, vs[:n*x.dim], x.dim)
		for i, r := range rowids[:n] {
			x.slots[r] = int32(first + i)
			x.rowids = append(x.rowids, r)
		}
		x.scales = append(x.scales, scales[:n]...)
		if x.signs != nil {
			for i := range n {
				x.signs.setSign(first+i, vs[i*x.dim:(i+1)*x.dim], scales[i])
			}
		}
		x.n += n
		rowids, scales, vs = rowids[n:], scales[n:], vs[n*x.dim:]
	}
}

// transpose writes the vectors of dim values in vs, one after the other,
// into the columns of seg, of capacity c, from slot base on: value j of
// vector i to seg[j*c+base+i]. With AVX2, 32 values of eight vectors at a
// time.
func transpose(seg []int8, c, base int, vs []int8, dim int) {
	n := len(vs) / dim
	i, cols := n&^7, dim&^31
	if useAVX2 && i > 0 && cols > 0 {
		transposeAVX2(&seg[base], c, &vs[0], dim, i, cols)
	} else {
		i, cols = 0, 0
	}
	transposeGo(seg[base:], c, vs, dim, 0, i, cols, dim)
	transposeGo(seg[base:], c, vs, dim, i, n, 0, dim)
}

// transposeGo is [transpose] of the values j0 <= j < j1 of the vectors
// i0 <= i < i1, into seg from slot 0.
func transposeGo(seg []int8, c int, vs []int8, dim, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		col := seg[j*c+i0 : j*c+i1]
		for i := range col {
			col[i] = vs[(i0+i)*dim+j]
		}
	}
}

// vectorIndex returns the in-memory vectors, loading them the first time
// and again whenever another process changed them.
func (s *Store) vectorIndex(ctx context.Context) (*vectorIndex, error) {
	gen, err := vectorsGen(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if x := s.vectors; x != nil && x.gen.Load() == gen {
		return x, nil
	}
	info, err := s.Embedder(ctx)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	if info.Name != "" {
		if x, release, err := s.readVectorCache(gen, info.Name, info.Dim); err == nil {
			s.vectors, s.cachedGen = x, gen
			s.releases = append(s.releases, release)
			return x, nil
		}
	}
	x, err := s.loadVectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	s.vectors = x
	// Best effort: the next process maps the cache instead of reading the
	// database. A failure (a read-only folder) only costs time.
	if !s.readOnly && info.Name != "" && x.gen.Load() == gen && x.dim == info.Dim && s.cachedGen != gen {
		if s.writeVectorCache(x, info.Name) == nil {
			s.cachedGen = gen
		}
	}
	return x, nil
}

// LoadVectors loads the index's vectors into memory (from the vector cache
// when it is current) unless they are loaded: later writes through this
// Store keep them current, and [Store.SaveVectorCache] can write them out.
// cite index calls it before indexing.
func (s *Store) LoadVectors(ctx context.Context) error {
	_, err := s.vectorIndex(ctx)
	return err
}

// vectorsChanged applies a committed change of vectors, which moved the
// generation to gen, to the in-memory vectors if they are loaded. If they
// missed another change in between, they are marked stale for reloading.
func (s *Store) vectorsChanged(gen int64, gone []int64, added []vectorRow) {
	s.vmu.Lock()
	x := s.vectors
	s.vmu.Unlock()
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.gen.Load() != gen-1 {
		x.gen.Store(-1)
		return
	}
	for _, r := range gone {
		x.remove(r)
	}
	// New rowids, with no free slot to take, are appended a block at a
	// time (one vector at a time writes to dim pages); the others take
	// their slot or a free one.
	const block = 64
	buf := make([]int8, block*x.dim)
	ids := make([]int64, 0, block)
	scales := make([]float32, 0, block)
	flush := func() {
		x.appendBlock(ids, scales, buf)
		ids, scales = ids[:0], scales[:0]
	}
	for _, r := range added {
		if r.q != nil && len(r.q) != x.dim || r.q == nil && len(r.vec) != x.dim {
			x.gen.Store(-1)
			return
		}
		if _, ok := x.slots[r.rowid]; ok || len(x.free) > 0 || slices.Contains(ids, r.rowid) {
			flush()
			if r.q != nil {
				x.put(r.rowid, r.q, r.scale)
			} else {
				x.add(r.rowid, r.vec, buf[:x.dim])
			}
			continue
		}
		q := buf[len(ids)*x.dim : (len(ids)+1)*x.dim]
		scale := r.scale
		if r.q != nil {
			copy(q, r.q)
		} else {
			scale = quantize(r.vec, q)
		}
		ids, scales = append(ids, r.rowid), append(scales, scale)
		if len(ids) == block {
			flush()
		}
	}
	flush()
	x.gen.Store(gen)
}

// SearchVectors returns the k chunks whose vectors have the largest dot
// product (cosine: vectors are unit length) with q, best first, among the
// chunks f admits. q must come from the index's embedder. The first search
// loads the vectors into memory, quantized; later ones reuse them,
// reloading only when another process changed them. The quantized vectors
// give a shortlist; the vectors of the shortlist as stored (float16),
// read from the database, give the scores returned and the order: those of
// the exact search over the stored vectors, whose k best the shortlist
// holds but in rare cases (TestVectorRecall).
func (s *Store) SearchVectors(ctx context.Context, q []float32, f Filter, k int) ([]Scored, error) {
	x, err := s.vectorIndex(ctx)
	if err != nil {
		return nil, err
	}
	var allowed []int64
	if !f.IsZero() {
		if allowed, err = filterChunks(ctx, s.db, f); err != nil {
			return nil, err
		}
		if len(allowed) == 0 {
			return nil, nil
		}
	}
	cands, err := x.searchShortlist(ctx, q, k, allowed)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	res, err := rank(q, cands, k, func(rowids []int64, fn func(int64, []float32) error) error {
		return s.readVectors(ctx, rowids, len(q), fn)
	})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", dbError(err))
	}
	return res, nil
}

// searchShortlist is [vectorIndex.shortlist] among the chunks allowed (all
// when nil), holding x.mu for reading.
func (x *vectorIndex) searchShortlist(ctx context.Context, q []float32, k int, allowed []int64) ([]candidate, error) {
	nnz := 0
	for _, v := range q {
		if v != 0 {
			nnz++
		}
	}
	x.needSigns(nnz)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.dim == 0 {
		return nil, nil
	}
	var allow bitmap
	if allowed != nil {
		allow = make(bitmap, (len(x.rowids)+63)/64)
		for _, r := range allowed {
			if slot, ok := x.slots[r]; ok {
				allow.set(int(slot))
			}
		}
	}
	return x.shortlist(ctx, q, k, allow)
}

// VectorStats reports how many vectors the index holds in memory and their
// dimension, loading them if needed.
func (s *Store) VectorStats(ctx context.Context) (n, dim int, err error) {
	x, err := s.vectorIndex(ctx)
	if err != nil {
		return 0, 0, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n, x.dim, nil
}
