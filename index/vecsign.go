package index

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cite-rag/cite/index/internal/topk"
)

// A dense query (a model's embedding: every value non-zero) makes the
// column scan of [vectorIndex.shortlist] read every byte of every vector:
// at 1M vectors of 768 dimensions, 768 M multiply-adds a search. For such
// queries the index keeps a second, much smaller code of each vector: its
// signs, one bit a dimension (96 bytes at 768 dimensions, an eighth of the
// int8 values), row by row. A search scans the signs with popcounts to
// estimate every vector's score, keeps the best signShortlistSize of them,
// scores those by their int8 values (exact but for the quantization,
// within the same bounds as the column scan's) and hands the best on to
// the float32 ranking as the column scan does.
//
// The estimate is the asymmetric one of RaBitQ (Gao and Long, SIGMOD
// 2024): with s the vector's signs (±1) and the query q kept in 4 bits a
// value, q·v ≈ (q·s)·|v|²/|v|₁, where |v|²/|v|₁ is v's projection on its
// own signs, stored per vector. The query's 4 bits are 4 bit planes, so
// q·s costs 5 popcounts a 64-bit word of signs.
//
// The codes are built from the int8 values when the first dense query
// comes (a second or two at 1M vectors), kept current by every change
// after, and not stored: an index only searched with sparse queries (the
// hash embedder's) never holds them.

// signPlanes is how many bits a query value keeps in the sign scan.
const signPlanes = 4

// signCodes are the vectors' signs, row-major: slot i's bits are
// bits[i*words:(i+1)*words] (words a multiple of 4, the padding 0), bit
// j%64 of word j/64 set when value j is positive; factor[i] is |v|²/|v|₁ of slot i's vector (its int8 values
// times its scale), 0 for a free slot or a zero vector.
//
// nibs holds the same vectors in 4 bits a value, row-major too, for
// ranking the sign scan's shortlist: value j of slot i is
// nscale[i]*(n-8), n the 4 bits of byte i*half+j/2 (the low ones for an
// even j). A vector's values lie together, a few cache lines, where the
// column-major int8 values of one vector lie on dim cache lines.
type signCodes struct {
	words  int
	bits   []uint64
	factor []float32
	half   int
	nibs   []byte
	nscale []float32
}

func newSignCodes(dim, slots int) *signCodes {
	c := &signCodes{words: (dim + 255) / 256 * 4, half: (dim + 1) / 2}
	c.bits = make([]uint64, slots*c.words)
	c.factor = make([]float32, slots)
	c.nibs = make([]byte, slots*c.half)
	c.nscale = make([]float32, slots)
	return c
}

// nibMul is the multiplier of [nib] for a vector whose largest
// magnitude is m: 7/m in 16.16 fixed point.
func nibMul(m int) int {
	if m == 0 {
		return 0
	}
	return (7<<16 + m/2) / m
}

// nib returns int8 value a in 4 bits, a*7/m rounded (mul = nibMul(m)),
// offset by 8; 0 for a zero vector (mul 0, whose 4-bit scale is 0), as
// a free slot has.
func nib(a, mul int) byte {
	if mul == 0 {
		return 0
	}
	u := (max(a, -a)*mul + 1<<15) >> 16
	if a < 0 {
		u = -u
	}
	return byte(u + 8)
}

// denseQuery reports whether a query of nnz non-zero values is dense
// enough, in an index of n vectors of dim dimensions, for the sign scan to
// beat the column scan: it reads dim/8 bytes a vector where the column
// scan reads nnz. Below signMinVectors vectors the column scan is fast
// anyway, and exact.
func denseQuery(nnz, dim, n int) bool {
	return n >= signMinVectors && 2*nnz >= dim && dim >= 64
}

// signMinVectors is the fewest vectors for which a dense query uses the
// sign scan; a variable so that tests can lower it.
var signMinVectors = 50_000

// signShortlistSize is how many vectors the sign scan keeps, at most, to
// be scored by their int8 values, for a shortlist of size
// ([shortlistSize]).
func signShortlistSize(size int) int { return signOversample * size }

// signOversample is signShortlistSize's factor; a variable so that
// BenchmarkDenseSearch can try others.
var signOversample = 30

// nibKeep*size vectors of the sign scan's shortlist, the best by their
// 4-bit values, are scored by their int8 values (BenchmarkDenseSearch:
// keeping size of them lost 1.4% of the 10 best at 1M, 4*size 0.1%).
const nibKeep = 4

// setSign writes the code of slot, whose int8 values are q and scale
// scale, growing the codes to hold it.
func (c *signCodes) setSign(slot int, q []int8, scale float32) {
	if need := (slot + 1) * c.words; need > len(c.bits) {
		c.bits = slices.Grow(c.bits, need-len(c.bits))[:need]
		c.factor = slices.Grow(c.factor, slot+1-len(c.factor))[:slot+1]
		c.nibs = slices.Grow(c.nibs, (slot+1)*c.half-len(c.nibs))[:(slot+1)*c.half]
		c.nscale = slices.Grow(c.nscale, slot+1-len(c.nscale))[:slot+1]
	}
	code := c.bits[slot*c.words : (slot+1)*c.words]
	clear(code)
	var l1, l2 int64
	m := 0
	for j, v := range q {
		if v > 0 {
			code[j>>6] |= 1 << (j & 63)
		}
		a := int64(v)
		l1 += max(a, -a)
		l2 += a * a
		m = max(m, int(max(a, -a)))
	}
	c.factor[slot] = 0
	if l1 > 0 {
		c.factor[slot] = scale * float32(float64(l2)/float64(l1))
	}
	nibs := c.nibs[slot*c.half : (slot+1)*c.half]
	clear(nibs)
	mul := nibMul(m)
	for j, v := range q {
		nibs[j>>1] |= nib(int(v), mul) << (4 * (j & 1))
	}
	c.nscale[slot] = scale * float32(m) / 7
}

// buildSigns makes x.signs from the int8 values, a segment at a time on
// every core. The caller holds x.mu for writing.
func (x *vectorIndex) buildSigns() {
	c := newSignCodes(x.dim, len(x.rowids))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(x.segs)) {
		wg.Go(func() {
			l1 := make([]int64, x.rows)
			l2 := make([]int64, x.rows)
			mags := make([]int, x.rows)
			for s := int(next.Add(1) - 1); s < len(x.segs); s = int(next.Add(1) - 1) {
				seg := x.segs[s]
				capacity := len(seg) / x.dim
				base := s * x.rows
				n := min(capacity, len(x.rowids)-base)
				l1, l2, mags := l1[:n], l2[:n], mags[:n]
				clear(l1)
				clear(l2)
				clear(mags)
				codes := c.bits[base*c.words : (base+n)*c.words]
				for j := range x.dim {
					col := seg[j*capacity : j*capacity+n]
					w, bit := j>>6, uint64(1)<<(j&63)
					for i, v := range col {
						if v > 0 {
							codes[i*c.words+w] |= bit
						}
						a := int64(v)
						l1[i] += max(a, -a)
						l2[i] += a * a
						mags[i] = max(mags[i], int(max(a, -a)))
					}
				}
				nibs := c.nibs[base*c.half : (base+n)*c.half]
				for i, m := range mags {
					c.nscale[base+i] = x.scales[base+i] * float32(m) / 7
					mags[i] = nibMul(m) // from here on, the multipliers
				}
				for j := range x.dim {
					col := seg[j*capacity : j*capacity+n]
					shift := 4 * (j & 1)
					for i, v := range col {
						nibs[i*c.half+j>>1] |= nib(int(v), mags[i]) << shift
					}
				}
				for i := range n {
					if l1[i] > 0 {
						c.factor[base+i] = x.scales[base+i] * float32(float64(l2[i])/float64(l1[i]))
					}
				}
			}
		})
	}
	wg.Wait()
	x.signs = c
}

// signQuery is a query kept in signPlanes bits a value: value j is about
// lo + delta*u_j, u_j's bit p being bit j of plane p. planes holds the
// planes by 4 words (256 values), the 4 planes of the first 4 words, then
// of the next: word w of plane p at ((w/4)*signPlanes+p)*4+w%4. sum is
// the sum of the values.
type signQuery struct {
	planes         []uint64
	lo, delta, sum float32
}

func newSignQuery(q []float32, words int) signQuery {
	lo, hi := q[0], q[0]
	for _, v := range q {
		lo, hi = min(lo, v), max(hi, v)
	}
	sq := signQuery{planes: make([]uint64, words*signPlanes), lo: lo}
	const levels = 1<<signPlanes - 1
	if hi > lo {
		sq.delta = (hi - lo) / levels
	}
	var sum float64
	for j, v := range q {
		var u int
		if sq.delta > 0 {
			u = int(math.Round(float64((v - lo) / sq.delta)))
			u = max(0, min(levels, u))
		}
		w := j >> 6
		for p := range signPlanes {
			if u>>p&1 != 0 {
				sq.planes[((w>>2)*signPlanes+p)*4+w&3] |= 1 << (j & 63)
			}
		}
		sum += float64(lo) + float64(sq.delta)*float64(u)
	}
	sq.sum = float32(sum)
	return sq
}

// estimate is the sign scan's estimate of the score of a vector whose
// signs have pc bits set, sum of the query's planes' counts (weighted by
// 1, 2, 4, 8) s and factor f: (q·s)·f, with q·s = 2·Σ_{j positive} q_j −
// Σ_j q_j.
func (sq *signQuery) estimate(pc, s uint32, f float32) float32 {
	pos := sq.lo*float32(pc) + sq.delta*float32(s)
	return f * (2*pos - sq.sum)
}

// signCounts writes, for each of the len(pcs) vectors of signs codes
// (words each), the bits it has set to pcs and the counts of its bits
// set in the query's planes, weighted, to sums.
func signCounts(codes, planes []uint64, words int, pcs, sums []uint32) {
	n := len(pcs)
	codes, sums = codes[:n*words], sums[:n]
	if useVPOPCNT && n > 0 && words > 0 {
		signCountsAVX512(&codes[0], &planes[0], words/4, n, &pcs[0], &sums[0])
		return
	}
	signCountsGeneric(codes, planes, words, pcs, sums)
}

// signCountsGeneric is signCounts in Go.
func signCountsGeneric(codes, planes []uint64, words int, pcs, sums []uint32) {
	for i := range pcs {
		code := codes[i*words : (i+1)*words]
		var pc, s int
		for c := 0; c < words; c += 4 {
			p := planes[c*signPlanes : (c+4)*signPlanes]
			for o, b := range code[c : c+4] {
				pc += bits.OnesCount64(b)
				s += bits.OnesCount64(b&p[o]) + 2*bits.OnesCount64(b&p[4+o]) +
					4*bits.OnesCount64(b&p[8+o]) + 8*bits.OnesCount64(b&p[12+o])
			}
		}
		pcs[i], sums[i] = uint32(pc), uint32(s)
	}
}

// signBlock is how many slots a worker of the sign scan takes at a time.
const signBlock = 4096

// signScan returns the slots of the (up to) n vectors, among the slots in
// allow (all when nil), whose estimated scores are the largest, on every
// core. The caller holds x.mu for reading and has built x.signs.
func (x *vectorIndex) signScan(ctx context.Context, q []float32, n int, allow bitmap) ([]int32, error) {
	c := x.signs
	sq := newSignQuery(q, c.words)
	slots := len(x.rowids)
	workers := min(runtime.GOMAXPROCS(0), (slots+signBlock-1)/signBlock)
	tops := make([]*topk.Heap[scored32], workers)
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range workers {
		tops[w] = topk.New(n, scored32First)
		wg.Go(func() {
			top := tops[w]
			floor := float32(math.Inf(-1))
			pcs, sums := make([]uint32, signBlock), make([]uint32, signBlock)
			for b := int(next.Add(1) - 1); b*signBlock < slots; b = int(next.Add(1) - 1) {
				if ctx.Err() != nil {
					return
				}
				start, end := b*signBlock, min(slots, (b+1)*signBlock)
				pcs, sums := pcs[:end-start], sums[:end-start]
				signCounts(c.bits[start*c.words:end*c.words], sq.planes, c.words, pcs, sums)
				for i := start; i < end; i++ {
					sc := sq.estimate(pcs[i-start], sums[i-start], c.factor[i])
					if sc < floor || x.rowids[i] == 0 || allow != nil && !allow.has(i) {
						continue
					}
					// The slot stands in for the rowid: ties go to the
					// lower slot.
					top.Push(scored32{sc, int64(i)})
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
	var out []int32
	for _, t := range tops {
		for _, s := range t.Sorted() {
			out = append(out, int32(s.rowid))
		}
	}
	return out, nil
}

// int8Scores returns the scores of the vectors in slots by their int8
// values (as the column scan computes them), in the order of slots,
// which it sorts. Reading a vector costs a cache line a dimension in the
// column-major segments; going a segment at a time, column by column,
// reads each line once for all the slots it holds. The caller holds x.mu
// for reading.
func (x *vectorIndex) int8Scores(terms []queryTerm, slots []int32) []float32 {
	slices.Sort(slots)
	out := make([]float32, len(slots))
	for start := 0; start < len(slots); {
		s := int(slots[start]) / x.rows
		end := start + 1
		for end < len(slots) && int(slots[end])/x.rows == s {
			end++
		}
		seg := x.segs[s]
		capacity := len(seg) / x.dim
		group, sums := slots[start:end], out[start:end]
		for _, t := range terms {
			col := seg[t.j*capacity : (t.j+1)*capacity]
			for i, slot := range group {
				sums[i] += t.w * float32(col[int(slot)%x.rows])
			}
		}
		for i, slot := range group {
			sums[i] *= x.scales[slot]
		}
		start = end
	}
	return out
}

// signShortlist is what [vectorIndex.columnScan] returns, for a dense
// query: the (up to) size vectors whose scores by their int8 values are
// the largest among the signShortlistSize(size) whose sign estimates are.
// The caller holds x.mu for reading and has built x.signs.
func (x *vectorIndex) signShortlist(ctx context.Context, q []float32, terms []queryTerm, size int, allow bitmap) ([]scored32, error) {
	slots, err := x.signScan(ctx, q, signShortlistSize(size), allow)
	if err != nil {
		return nil, err
	}
	// The best nibKeep*size by their 4-bit values, then the best size of
	// those by their int8 ones.
	c := x.signs
	nt := topk.New(nibKeep*size, scored32First)
	for _, slot := range slots {
		nt.Push(scored32{c.nibScore(q, int(slot)), int64(slot)})
	}
	best := nt.Sorted()
	slots = slots[:0]
	for _, b := range best {
		slots = append(slots, int32(b.rowid))
	}
	scores := x.int8Scores(terms, slots)
	top := topk.New(size, scored32First)
	for i, slot := range slots {
		top.Push(scored32{scores[i], x.rowids[slot]})
	}
	return top.Sorted(), nil
}

// needSigns builds the sign codes if a query of nnz non-zero values would
// use them and they are not built yet.
func (x *vectorIndex) needSigns(nnz int) {
	x.mu.RLock()
	built := x.signs != nil || !denseQuery(nnz, x.dim, x.n)
	x.mu.RUnlock()
	if built {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.signs == nil {
		x.buildSigns()
	}
}

// nibScore is the score of slot's vector by its 4-bit values.
func (c *signCodes) nibScore(q []float32, slot int) float32 {
	nibs := c.nibs[slot*c.half : (slot+1)*c.half]
	var sum float32
	j := 0
	for ; j+1 < len(q); j += 2 {
		b := nibs[j>>1]
		sum += q[j]*float32(int(b&15)-8) + q[j+1]*float32(int(b>>4)-8)
	}
	if j < len(q) {
		sum += q[j] * float32(int(nibs[j>>1]&15)-8)
	}
	return sum * c.nscale[slot]
}
