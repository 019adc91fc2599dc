package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cite-rag/cite/index/internal/topk"
)

// segRows is the most vectors in one segment of the in-memory index, and
// segBytes the most bytes: vectors of many dimensions get fewer per segment
// (2,048 vectors of 1,048,576 dimensions would take 8 GiB at once).
// firstRows is the capacity a new segment starts with: the last segment
// grows, doubling, so an index of a few vectors holds a few vectors' worth.
const (
	segRows   = 2048
	segBytes  = 16 << 20
	firstRows = 16
)

// rowsPerSegment is the capacity of a full segment of vectors of dim
// dimensions.
func rowsPerSegment(dim int) int {
	return max(1, min(segRows, segBytes/(4*max(dim, 1))))
}

// vectorRow is a chunk's vector under the chunk's rowid.
type vectorRow struct {
	rowid int64
	vec   []float32
}

// vectorIndex holds an index's vectors in memory for exhaustive search.
//
// The vectors are stored column-major in segments of rows slots: value j
// of the vector in slot i lies at segs[i/rows][j*c+i%rows], where c, the
// segment's capacity, is rows but for the last segment, which grows. A
// query then costs one pass over a contiguous column per non-zero query
// value: the built-in hash embedder's queries have a few dozen non-zero
// values among thousands, so a search reads a few percent of the vectors
// (chromem-go's row-major scan reads all of them; BenchmarkVectorSearch
// compares the two). Results are exact: the same dot products, summed in
// another order.
type vectorIndex struct {
	gen atomic.Int64 // vectors generation it reflects; -1: stale

	mu     sync.RWMutex
	dim    int
	rows   int             // slots of a full segment: rowsPerSegment(dim)
	rowids []int64         // slot -> chunk rowid; 0 for a free slot
	slots  map[int64]int32 // chunk rowid -> slot
	free   []int32
	segs   [][]float32
	n      int // vectors held
}

func newVectorIndex(dim int) *vectorIndex {
	return &vectorIndex{dim: dim, rows: rowsPerSegment(dim), slots: make(map[int64]int32)}
}

// segment returns the segment of slot, made or grown to hold it, its
// capacity and the slot's place in it.
func (x *vectorIndex) segment(slot int) (seg []float32, capacity, i int) {
	s, i := slot/x.rows, slot%x.rows
	if s == len(x.segs) {
		x.segs = append(x.segs, make([]float32, min(x.rows, firstRows)*x.dim))
	}
	seg = x.segs[s]
	c := len(seg) / x.dim
	if i >= c {
		nc := min(x.rows, max(2*c, i+1))
		grown := make([]float32, nc*x.dim)
		for j := range x.dim {
			copy(grown[j*nc:], seg[j*c:(j+1)*c])
		}
		seg, c = grown, nc
		x.segs[s] = seg
	}
	return seg, c, i
}

// add stores v under rowid, replacing the vector it had. The caller holds
// x.mu for writing.
func (x *vectorIndex) add(rowid int64, v []float32) {
	slot, ok := x.slots[rowid]
	if !ok {
		if n := len(x.free); n > 0 {
			slot = x.free[n-1]
			x.free = x.free[:n-1]
		} else {
			slot = int32(len(x.rowids))
			x.rowids = append(x.rowids, 0)
		}
		x.slots[rowid] = slot
		x.rowids[slot] = rowid
		x.n++
	}
	seg, c, i := x.segment(int(slot))
	for j, f := range v {
		seg[j*c+i] = f
	}
}

// vector copies the vector in slot to dst (of x.dim values) and returns
// it. The caller holds x.mu for reading.
func (x *vectorIndex) vector(slot int, dst []float32) []float32 {
	seg := x.segs[slot/x.rows]
	c, i := len(seg)/x.dim, slot%x.rows
	for j := range dst {
		dst[j] = seg[j*c+i]
	}
	return dst
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
	seg, c, i := x.segment(int(slot))
	for j := range x.dim {
		seg[j*c+i] = 0
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

// search returns the k vectors with the largest dot product with q, best
// first (ties by rowid), among the slots in allow (all when nil). The caller
// holds x.mu for reading.
func (x *vectorIndex) search(ctx context.Context, q []float32, k int, allow bitmap) ([]Scored, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("query vector has %d dimensions, the index's %d", len(q), x.dim)
	}
	if k <= 0 || x.n == 0 {
		return nil, nil
	}
	type term struct {
		j int
		w float32
	}
	var terms []term
	for j, w := range q {
		if w != 0 {
			terms = append(terms, term{j, w})
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
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
		tops[w] = topk.New(k, scored32First)
		wg.Go(func() {
			scores := make([]float32, x.rows)
			top := tops[w]
			floor := float32(math.Inf(-1)) // the worst score kept once full
			for s := int(next.Add(1) - 1); s < nseg; s = int(next.Add(1) - 1) {
				if ctx.Err() != nil {
					return
				}
				seg := x.segs[s]
				c := len(seg) / x.dim
				scores := scores[:c]
				clear(scores)
				for _, t := range terms {
					axpy(scores, t.w, seg[t.j*c:(t.j+1)*c])
				}
				base := s * x.rows
				end := min(c, len(x.rowids)-base)
				for i, sc := range scores[:end] {
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
	all := best.Sorted()
	out := make([]Scored, len(all))
	for i, a := range all {
		out[i] = Scored{Chunk: a.rowid, Score: float64(a.score)}
	}
	return out, nil
}

// axpy adds a*x to y; len(x) >= len(y).
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

type scored32 struct {
	score float32
	rowid int64
}

// scored32First orders scored32 values best first.
func scored32First(a, b scored32) int { return bestFirst(a.score, b.score, a.rowid, b.rowid) }

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
	x.slots = make(map[int64]int32, n)
	rows, err := conn.QueryContext(ctx, `SELECT chunk, vec FROM vectors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Vectors are decoded a block at a time and written into the columns
	// block by block: writing one vector at a time touches dim pages.
	const block = 64
	buf := make([]float32, block*dim)
	ids := make([]int64, 0, block)
	for rows.Next() {
		var rowid int64
		var b sql.RawBytes
		if err := rows.Scan(&rowid, &b); err != nil {
			return nil, err
		}
		if _, err := decodeVector(b, dim, buf[len(ids)*dim:(len(ids)+1)*dim]); err != nil {
			return nil, fmt.Errorf("vector of chunk %d: %w (cite check --repair re-embeds it)", rowid, err)
		}
		ids = append(ids, rowid)
		if len(ids) == block {
			x.appendBlock(ids, buf)
			ids = ids[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	x.appendBlock(ids, buf)
	return x, nil
}

// appendBlock adds vectors of new rowids, vs holding them one after the
// other, into fresh slots. The caller holds x.mu for writing (or owns x).
func (x *vectorIndex) appendBlock(rowids []int64, vs []float32) {
	for len(rowids) > 0 {
		first := len(x.rowids)
		// As many as fit in the current segment.
		n := min(len(rowids), x.rows-first%x.rows)
		seg, c, base := x.segment(first + n - 1)
		base -= n - 1
		for j := range x.dim {
			col := seg[j*c+base : j*c+base+n]
			for i := range col {
				col[i] = vs[i*x.dim+j]
			}
		}
		for i, r := range rowids[:n] {
			x.slots[r] = int32(first + i)
			x.rowids = append(x.rowids, r)
		}
		x.n += n
		rowids, vs = rowids[n:], vs[n*x.dim:]
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
	for _, r := range added {
		if len(r.vec) != x.dim {
			x.gen.Store(-1)
			return
		}
		x.add(r.rowid, r.vec)
	}
	x.gen.Store(gen)
}

// SearchVectors returns the k chunks whose vectors have the largest dot
// product (cosine: vectors are unit length) with q, best first, among the
// chunks f admits. q must come from the index's embedder. The first search
// loads the vectors into memory; later ones reuse them, reloading only when
// another process changed them.
func (s *Store) SearchVectors(ctx context.Context, q []float32, f Filter, k int) ([]Scored, error) {
	x, err := s.vectorIndex(ctx)
	if err != nil {
		return nil, err
	}
	var allowed []int64
	if !f.IsZero() {
		if allowed, err = s.filterChunks(ctx, f); err != nil {
			return nil, err
		}
		if len(allowed) == 0 {
			return nil, nil
		}
	}
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
	res, err := x.search(ctx, q, k, allow)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	return res, nil
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
