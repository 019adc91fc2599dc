package index

import (
	"hash/maphash"
	"sync"
	"unicode/utf8"
)

// TermCounts counts a chunk's full-text terms as an analysis of its text
// yields them, for a caller that analyzes the text anyway (ingest's
// workers, in the hash embedder's pass): [PrepareChunks] takes the counts
// as they are instead of counting the terms of Terms, which the caller
// would otherwise join by spaces for it to split again. The counts are
// those of the terms joined in Terms: TestTermCountsMatchTerms.
//
// Get one with [NewTermCounts], [TermCounts.Add] the terms of
// [analysis.Terms] of the chunk's text in order, and hand it to the chunk
// ([Chunk.SetTermCounts]), whose preparation takes them and hands the
// memory back; or give it back unused ([TermCounts.Release]).
type TermCounts struct {
	c    termCounter
	n    uint32
	text string // the text counted, set by SetTermCounts
}

var termCountsPool = sync.Pool{New: func() any { return &TermCounts{c: termCounter{seed: maphash.MakeSeed()}} }}

// NewTermCounts returns an empty TermCounts.
func NewTermCounts() *TermCounts { return termCountsPool.Get().(*TermCounts) }

// Add counts one term. Terms are counted as the fields of the terms
// joined by spaces would be (an empty term is none, and a term with a
// space inside, which analysis does not make, is its fields).
func (t *TermCounts) Add(term string) {
	for i := 0; i < len(term); i++ {
		if b := term[i]; b <= ' ' || b >= utf8.RuneSelf {
			t.n += t.c.addFields(term)
			return
		}
	}
	if term != "" {
		t.c.add(term)
		t.n++
	}
}

// Release empties t and gives its memory back.
func (t *TermCounts) Release() {
	t.c.reset()
	t.n, t.text = 0, ""
	termCountsPool.Put(t)
}

// SetTermCounts hands the chunk the counts of the terms of its Text, made
// by t, for [PrepareChunks] to take in place of Terms, which should be
// empty: a chunk with Terms is prepared from them. The chunk owns t from
// then on; the counts count for its Text as it is now.
func (c *Chunk) SetTermCounts(t *TermCounts) {
	t.text = c.Text
	c.counted = t
}

// takeCounts returns the counts SetTermCounts gave c, appended to dst[:0],
// and their number of terms, if they are there for its Text and Terms is
// empty; it gives their memory back either way.
func (c *Chunk) takeCounts(dst []termCount) ([]termCount, uint32, bool) {
	t := c.counted
	if t == nil {
		return dst, 0, false
	}
	c.counted = nil
	defer t.Release()
	if c.Terms != "" || t.text != c.Text {
		return dst, 0, false
	}
	return append(dst[:0], t.c.counts...), t.n, true
}
