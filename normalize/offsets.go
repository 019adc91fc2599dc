package normalize

import (
	"encoding/binary"
	"sort"
	"unsafe"
)

// maxSource is the largest source read: the offset map stores 32-bit offsets,
// and normalized text can be a few times longer than its source (U+FFFD for
// a NUL byte). Longer sources are read up to this length.
const maxSource = 1 << 29

// segment is one entry of the offset map: the normalized text from
// its start up to the next segment's start came from the source at src.
//
// A copied segment (the normalized bytes are the source bytes, one for one)
// covers as many source bytes as text bytes. The only bytes that may differ
// are single whitespace bytes replaced by ' ' or '\n' (a source "\n" that
// became a space): the mapping is the same.
//
// A synthesized segment (a decoded entity, a collapsed whitespace run, a
// newline for a block tag, a list marker, U+FFFD) covers the source from src
// up to the next segment's src: its construct and any markup dropped after it.
type segment struct {
	text uint32 // start in the normalized text; synthBit marks synthesized text
	src  uint32 // start in the source
}

const synthBit = 1 << 31

func (s segment) start() int    { return int(s.text &^ synthBit) }
func (s segment) isSynth() bool { return s.text&synthBit != 0 }

// offsetMap maps normalized offsets back to source offsets. Segments are
// sorted by text and by src, their source ranges are disjoint, and together
// they cover the whole normalized text. Mapping is a binary search.
type offsetMap struct {
	segs    segList
	textLen int
	end     int // source end of the last segment
}

// segList is a list of segments, compressed: markup-dense sources (a nest
// of <div>s, an entity bomb, backslash escapes) have a segment every few
// bytes, which at 8 bytes each would take several times the source. Each
// segment after the first of a group of segGroup is stored as the
// differences from the one before, as two varints (the text delta shifted
// left with the synthesized bit, then the source delta; both modulo 2^32),
// typically 2 bytes in all; each group starts with a checkpoint holding its
// first segment whole. Reading segment i decodes at most segGroup-1
// deltas. The bytes are kept in blocks that grow without copying what they
// hold, and a group never straddles two blocks.
type segList struct {
	cps    []checkpoint
	blocks [][]byte
	n      int
	last   segment // segment n-1
	hint   int     // segments expected, to size the first block
}

// checkpoint is the first segment of a group, and where the deltas of the
// group's other segments start: block pos>>16, offset pos&0xFFFF.
type checkpoint struct {
	seg segment
	pos uint32
}

const (
	segGroup     = 16
	segBlockSize = 1 << 16
	maxDeltaSize = 2 * binary.MaxVarintLen32 // bytes of one encoded segment, at most
)

func (l *segList) len() int { return l.n }

// size returns the bytes the segments take.
func (l *segList) size() int {
	n := len(l.cps) * int(unsafe.Sizeof(checkpoint{}))
	for _, b := range l.blocks {
		n += len(b)
	}
	return n
}

func (l *segList) push(sg segment) {
	if l.n%segGroup == 0 {
		need := (segGroup - 1) * maxDeltaSize
		if k := len(l.blocks); k == 0 || cap(l.blocks[k-1])-len(l.blocks[k-1]) < need {
			c := 2 * l.hint // about 2 bytes a segment
			if k > 0 {
				c = 2 * cap(l.blocks[k-1])
			}
			c = min(max(c, 2*need), segBlockSize)
			l.blocks = append(l.blocks, make([]byte, 0, c))
		}
		k := len(l.blocks) - 1
		l.cps = append(l.cps, checkpoint{seg: sg, pos: uint32(k)<<16 | uint32(len(l.blocks[k]))})
	} else {
		b := &l.blocks[len(l.blocks)-1]
		dt := uint64(uint32(sg.start()-l.last.start())) << 1
		if sg.isSynth() {
			dt |= 1
		}
		*b = binary.AppendUvarint(*b, dt)
		*b = binary.AppendUvarint(*b, uint64(sg.src-l.last.src))
	}
	l.last = sg
	l.n++
}

// next decodes the segment after sg from p, returning it and the rest of p.
func nextSeg(sg segment, p []byte) (segment, []byte) {
	dt, n := binary.Uvarint(p)
	ds, m := binary.Uvarint(p[n:])
	t := uint32(sg.start()) + uint32(dt>>1)
	if dt&1 != 0 {
		t |= synthBit
	}
	return segment{text: t, src: sg.src + uint32(ds)}, p[n+m:]
}

// group returns the checkpoint of group g and its encoded deltas.
func (l *segList) group(g int) (segment, []byte) {
	cp := l.cps[g]
	return cp.seg, l.blocks[cp.pos>>16][cp.pos&0xFFFF:]
}

func (l *segList) at(i int) segment {
	sg, _, _ := l.pair(i)
	return sg
}

// pair returns segment i and, when there is one (ok), segment i+1.
func (l *segList) pair(i int) (sg, next segment, ok bool) {
	if i == l.n-1 {
		return l.last, segment{}, false
	}
	sg, p := l.group(i / segGroup)
	for range i % segGroup {
		sg, p = nextSeg(sg, p)
	}
	if i+1 == l.n-1 {
		return sg, l.last, true
	}
	if (i+1)%segGroup == 0 {
		next, _ = l.group(i/segGroup + 1)
		return sg, next, true
	}
	next, _ = nextSeg(sg, p)
	return sg, next, true
}

// find returns the index of the last segment that starts at or before
// normalized byte p (the first starts at 0), with pair's results for it.
func (l *segList) find(p int) (i int, sg, next segment, ok bool) {
	g := sort.Search(len(l.cps), func(g int) bool { return l.cps[g].seg.start() > p }) - 1
	g = max(g, 0)
	i = g * segGroup
	sg, q := l.group(g)
	for i+1 < l.n {
		if (i+1)%segGroup == 0 {
			next, _ = l.group(g + 1)
		} else if i+1 == l.n-1 {
			next = l.last
		} else {
			next, q = nextSeg(sg, q)
		}
		if next.start() > p {
			return i, sg, next, true
		}
		sg = next
		i++
	}
	return i, sg, segment{}, false
}

// add appends a segment for normalized text from t on, from source [s, e).
// A copy that continues the previous copy extends it instead.
func (m *offsetMap) add(t, s, e int, synth bool) {
	if n := m.segs.len(); n > 0 && !synth {
		l := m.segs.last
		if !l.isSynth() && int(l.src)+t-l.start() == s {
			m.end = e
			return
		}
	}
	v := uint32(t)
	if synth {
		v |= synthBit
	}
	m.segs.push(segment{text: v, src: uint32(s)})
	m.end = e
}

// span returns segment i's normalized range and source range.
func (m *offsetMap) span(i int) (t, tEnd, s, sEnd int) {
	sg, next, ok := m.segs.pair(i)
	return m.spanOf(sg, next, ok)
}

// spanOf returns the ranges of segment sg, followed by next if ok.
func (m *offsetMap) spanOf(sg, next segment, ok bool) (t, tEnd, s, sEnd int) {
	t, s = sg.start(), int(sg.src)
	tEnd = m.textLen
	if ok {
		tEnd = next.start()
	}
	switch {
	case !sg.isSynth():
		sEnd = s + tEnd - t
	case ok:
		sEnd = int(next.src)
	default:
		sEnd = m.end
	}
	return t, tEnd, s, sEnd
}

// startOf maps a start offset: the source offset of normalized byte p, or
// the source end for p == textLen.
func (m *offsetMap) startOf(p int) int {
	if m.segs.len() == 0 {
		return 0
	}
	if p >= m.textLen {
		return m.end
	}
	_, sg, _, _ := m.segs.find(p)
	if sg.isSynth() {
		return int(sg.src)
	}
	return int(sg.src) + p - sg.start()
}

// endOf maps an end offset p > 0: the source offset just after the source of
// normalized byte p-1.
func (m *offsetMap) endOf(p int) int {
	if m.segs.len() == 0 {
		return 0
	}
	_, sg, next, ok := m.segs.find(p - 1)
	if sg.isSynth() {
		_, _, _, e := m.spanOf(sg, next, ok)
		return e
	}
	return int(sg.src) + p - sg.start()
}
