package normalize

import "sort"

// maxSource is the largest source read: the offset map stores 32-bit offsets,
// and normalized text can be a few times longer than its source (U+FFFD for
// a NUL byte). Longer sources are read up to this length.
const maxSource = 1 << 29

// segment is one entry of the offset map, 8 bytes: the normalized text from
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

// segList is a list of segments kept in blocks of segBlock, so that it
// grows without copying what it holds: markup-dense pages (a nest of
// <div>s, an entity bomb) have a segment every few source bytes, and a
// slice grown by appending would hold the old and the new array at once.
type segList struct {
	blocks [][]segment
	n      int
	hint   int // capacity of the first block
}

const (
	segBlockBits = 15
	segBlock     = 1 << segBlockBits // 256 KB of segments
)

func (l *segList) len() int { return l.n }

func (l *segList) at(i int) segment { return l.blocks[i>>segBlockBits][i&(segBlock-1)] }

func (l *segList) push(sg segment) {
	if l.n&(segBlock-1) == 0 && l.n>>segBlockBits == len(l.blocks) {
		c := segBlock
		if l.n == 0 {
			c = min(max(l.hint, 4), segBlock)
		}
		l.blocks = append(l.blocks, make([]segment, 0, c))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, sg)
	l.n++
}

// add appends a segment for normalized text from t on, from source [s, e).
// A copy that continues the previous copy extends it instead.
func (m *offsetMap) add(t, s, e int, synth bool) {
	if n := m.segs.len(); n > 0 && !synth {
		l := m.segs.at(n - 1)
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
	sg := m.segs.at(i)
	t, s = sg.start(), int(sg.src)
	tEnd = m.textLen
	if i+1 < m.segs.len() {
		tEnd = m.segs.at(i + 1).start()
	}
	switch {
	case !sg.isSynth():
		sEnd = s + tEnd - t
	case i+1 < m.segs.len():
		sEnd = int(m.segs.at(i + 1).src)
	default:
		sEnd = m.end
	}
	return t, tEnd, s, sEnd
}

// at returns the index of the segment holding normalized byte p.
func (m *offsetMap) at(p int) int {
	return sort.Search(m.segs.len(), func(i int) bool { return m.segs.at(i).start() > p }) - 1
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
	i := m.at(p)
	sg := m.segs.at(i)
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
	i := m.at(p - 1)
	sg := m.segs.at(i)
	if sg.isSynth() {
		_, _, _, e := m.span(i)
		return e
	}
	return int(sg.src) + p - sg.start()
}
