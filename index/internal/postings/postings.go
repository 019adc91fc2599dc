// Package postings encodes the full-text postings of package index: for
// each term of a segment, the segment's documents that hold it, in
// increasing order, with the term's frequency in each; and for each
// segment, its documents' rowids and lengths in terms.
//
// A term's postings are cut in blocks of [BlockSize] documents. A block
// is summed up ahead of the data by its last document, its size in bytes,
// its largest term frequency and its shortest document, so that a scorer
// can bound the BM25 score of any document in it (the score rises with
// the frequency and falls with the length) and skip the block without
// decoding it, as block-max WAND and MaxScore do.
//
// Layout of a term's postings (all numbers unsigned varints):
//
//	n nblocks
//	nblocks × (lastDelta bytes maxTF minDL)   the skip list
//	nblocks × block                           the data
//	block: count × docDelta, then count × (tf-1)
//
// lastDelta is the block's last document minus the previous block's last
// plus one (the first block: its last plus one), docDelta a document minus
// the previous one minus one (the first of the list: minus -1). Every
// block but the last holds BlockSize documents.
//
// Decoding checks everything it reads: corrupt data is an error, never a
// panic or a document out of order.
package postings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// BlockSize is the number of documents of every block but a list's last.
const BlockSize = 128

// ErrCorrupt is wrapped by the errors of corrupt data.
var ErrCorrupt = errors.New("corrupt postings")

// Posting is one document of a term's postings.
type Posting struct {
	Doc uint32 // the document's number in its segment
	TF  uint32 // occurrences of the term in it, at least 1
	DL  uint32 // its length in terms (only the skip list keeps it)
}

// Encode appends the encoding of ps to dst. ps must be in increasing order
// of Doc, each with TF ≥ 1; Encode panics otherwise.
func Encode(dst []byte, ps []Posting) []byte {
	nblocks := (len(ps) + BlockSize - 1) / BlockSize
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	dst = binary.AppendUvarint(dst, uint64(nblocks))
	// The skip list, which comes first, with each block's size counted
	// ahead; then the blocks, written after it: no memory but dst's.
	prevLast := int64(-1)
	for b := range nblocks {
		block := ps[b*BlockSize : min((b+1)*BlockSize, len(ps))]
		size := 0
		maxTF, minDL := uint32(0), uint32(math.MaxUint32)
		prev := prevLast
		for _, p := range block {
			if int64(p.Doc) <= prev || p.TF == 0 {
				panic("postings: documents out of order or without the term")
			}
			size += uvarintLen(uint64(int64(p.Doc)-prev-1)) + uvarintLen(uint64(p.TF-1))
			prev = int64(p.Doc)
			maxTF, minDL = max(maxTF, p.TF), min(minDL, p.DL)
		}
		last := int64(block[len(block)-1].Doc)
		dst = binary.AppendUvarint(dst, uint64(last-prevLast-1))
		dst = binary.AppendUvarint(dst, uint64(size))
		dst = binary.AppendUvarint(dst, uint64(maxTF))
		dst = binary.AppendUvarint(dst, uint64(minDL))
		prevLast = last
	}
	prevLast = -1
	for b := range nblocks {
		block := ps[b*BlockSize : min((b+1)*BlockSize, len(ps))]
		prev := prevLast
		for _, p := range block {
			dst = binary.AppendUvarint(dst, uint64(int64(p.Doc)-prev-1))
			prev = int64(p.Doc)
		}
		for _, p := range block {
			dst = binary.AppendUvarint(dst, uint64(p.TF-1))
		}
		prevLast = prev
	}
	return dst
}

// uvarintLen returns the length of x's encoding by [binary.AppendUvarint].
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// Block is the summary of one block of a list.
type Block struct {
	Last  uint32 // its last document
	MaxTF uint32 // its largest term frequency
	MinDL uint32 // its shortest document's length
	first int64  // the previous block's last, or -1
	start int    // its data, in List.data
	end   int
	count int
}

// List is a term's decoded skip list over its still encoded blocks.
type List struct {
	N      int     // number of documents
	Blocks []Block // the skip list
	MaxTF  uint32  // largest term frequency of the list
	MinDL  uint32  // shortest document of the list
	data   []byte
}

// Size returns about how many bytes the list holds: its encoded blocks
// and its skip list.
func (l *List) Size() int {
	return cap(l.data) + cap(l.Blocks)*int(unsafe.Sizeof(Block{}))
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// uvarint reads an unsigned varint of at most limit from b at *at.
func uvarint(b []byte, at *int, limit uint64, what string) (uint64, error) {
	v, n := binary.Uvarint(b[*at:])
	if n <= 0 {
		return 0, corrupt("%s at byte %d: bad varint", what, *at)
	}
	if v > limit {
		return 0, corrupt("%s at byte %d: %d is over %d", what, *at, v, limit)
	}
	*at += n
	return v, nil
}

// Decode reads a term's postings: the skip list, not the blocks, which a
// [Cursor] decodes as it reaches them. docs is the number of documents of
// the segment: every document must be below it. The List keeps b.
func Decode(b []byte, docs uint32) (*List, error) {
	at := 0
	n, err := uvarint(b, &at, uint64(docs), "count")
	if err != nil {
		return nil, err
	}
	nb, err := uvarint(b, &at, uint64(len(b)), "blocks")
	if err != nil {
		return nil, err
	}
	if nb != (n+BlockSize-1)/BlockSize {
		return nil, corrupt("%d blocks for %d documents", nb, n)
	}
	l := &List{N: int(n), Blocks: make([]Block, nb), MinDL: math.MaxUint32}
	prevLast := int64(-1)
	data := 0
	for i := range l.Blocks {
		count := BlockSize
		if i == len(l.Blocks)-1 {
			count = int(n) - i*BlockSize
		}
		d, err := uvarint(b, &at, uint64(docs), "block end")
		if err != nil {
			return nil, err
		}
		last := prevLast + 1 + int64(d)
		if last >= int64(docs) || last-prevLast < int64(count) {
			return nil, corrupt("block %d ends at document %d: out of range", i, last)
		}
		size, err := uvarint(b, &at, uint64(len(b)), "block size")
		if err != nil {
			return nil, err
		}
		maxTF, err := uvarint(b, &at, math.MaxUint32, "block frequency")
		if err != nil {
			return nil, err
		}
		minDL, err := uvarint(b, &at, math.MaxUint32, "block length")
		if err != nil {
			return nil, err
		}
		if maxTF == 0 {
			return nil, corrupt("block %d has no occurrence", i)
		}
		l.Blocks[i] = Block{Last: uint32(last), MaxTF: uint32(maxTF), MinDL: uint32(minDL), first: prevLast, start: data, end: data + int(size), count: count}
		data += int(size)
		prevLast = last
		l.MaxTF, l.MinDL = max(l.MaxTF, uint32(maxTF)), min(l.MinDL, uint32(minDL))
	}
	if len(b)-at != data {
		return nil, corrupt("%d bytes of blocks, want %d", len(b)-at, data)
	}
	l.data = b[at:]
	return l, nil
}

// decodeBlock decodes block i into docs and tfs, which must hold
// BlockSize values, and returns its count.
func (l *List) decodeBlock(i int, docs, tfs []uint32) (int, error) {
	bl := l.Blocks[i]
	b := l.data[bl.start:bl.end]
	at := 0
	prev := bl.first
	for j := range bl.count {
		d, err := uvarint(b, &at, uint64(bl.Last), "document")
		if err != nil {
			return 0, err
		}
		doc := prev + 1 + int64(d)
		if doc > int64(bl.Last) {
			return 0, corrupt("block %d: document %d after its last, %d", i, doc, bl.Last)
		}
		docs[j] = uint32(doc)
		prev = doc
	}
	if prev != int64(bl.Last) {
		return 0, corrupt("block %d ends at document %d, its summary says %d", i, prev, bl.Last)
	}
	for j := range bl.count {
		tf, err := uvarint(b, &at, uint64(bl.MaxTF-1), "frequency")
		if err != nil {
			return 0, err
		}
		tfs[j] = uint32(tf) + 1
	}
	if at != len(b) {
		return 0, corrupt("block %d: %d bytes left over", i, len(b)-at)
	}
	return bl.count, nil
}

// End is the document of a [Cursor] past its list's last.
const End = math.MaxUint32

// Cursor walks a List in increasing order of documents. Its zero value is
// not usable; see [List.Cursor].
type Cursor struct {
	l     *List
	block int // the block of docs and tfs, or -1
	next  int // the block [Cursor.Shallow] is on
	n     int
	at    int
	docs  [BlockSize]uint32
	tfs   [BlockSize]uint32
	err   error
	// Doc is the current document, or End.
	Doc uint32
}

// Cursor returns a cursor before the list's first document: call
// [Cursor.Advance] (or Next) to reach it.
func (l *List) Cursor() *Cursor {
	return &Cursor{l: l, block: -1}
}

// Err returns the error that ended the cursor early, if any.
func (c *Cursor) Err() error { return c.err }

// TF returns the term's frequency in the current document.
func (c *Cursor) TF() uint32 { return c.tfs[c.at] }

func (c *Cursor) fail(err error) {
	c.err, c.Doc, c.next = err, End, len(c.l.Blocks)
}

// load decodes block i and puts the cursor on its first document ≥ target.
func (c *Cursor) load(i int, target uint32) {
	if c.block != i {
		n, err := c.l.decodeBlock(i, c.docs[:], c.tfs[:])
		if err != nil {
			c.fail(err)
			return
		}
		c.block, c.n, c.at = i, n, 0
	}
	for c.at < c.n && c.docs[c.at] < target {
		c.at++
	}
	c.Doc = c.docs[c.at] // the block's last is ≥ target
}

// Next moves to the next document.
func (c *Cursor) Next() {
	if c.Doc == End && c.block >= 0 {
		return
	}
	if c.block >= 0 && c.at+1 < c.n {
		c.at++
		c.Doc = c.docs[c.at]
		return
	}
	c.Advance(c.nextDoc())
}

func (c *Cursor) nextDoc() uint32 {
	if c.block < 0 {
		return 0
	}
	return c.l.Blocks[c.block].Last + 1
}

// Advance moves to the first document ≥ target (staying put if the
// current one is), skipping whole blocks without decoding them.
func (c *Cursor) Advance(target uint32) {
	if c.block >= 0 && c.Doc >= target {
		return
	}
	i := c.Shallow(target)
	if i >= len(c.l.Blocks) {
		c.Doc = End
		c.block = max(c.block, 0)
		return
	}
	c.load(i, target)
}

// Shallow returns the index of the block that would hold target (the
// first whose last document is ≥ target), or len(Blocks), without
// decoding it. It only moves forward.
func (c *Cursor) Shallow(target uint32) int {
	bs := c.l.Blocks
	for c.next < len(bs) && bs[c.next].Last < target {
		c.next++
	}
	return c.next
}

// DocsEncoded appends the encoding of a segment's documents: their rowids,
// in increasing order, and their lengths in terms. It panics if rowids are
// not increasing or the slices differ in length.
func EncodeDocs(dst []byte, rowids []int64, lengths []uint32) []byte {
	if len(rowids) != len(lengths) {
		panic("postings: rowids and lengths differ in number")
	}
	dst = binary.AppendUvarint(dst, uint64(len(rowids)))
	prev := int64(0)
	for i, r := range rowids {
		if i > 0 && r <= prev {
			panic("postings: rowids out of order")
		}
		dst = binary.AppendUvarint(dst, uint64(r-prev))
		prev = r
	}
	for _, l := range lengths {
		dst = binary.AppendUvarint(dst, uint64(l))
	}
	return dst
}

// DecodeDocs reads what [EncodeDocs] wrote.
func DecodeDocs(b []byte) (rowids []int64, lengths []uint32, err error) {
	at := 0
	n, err := uvarint(b, &at, uint64(len(b)), "documents")
	if err != nil {
		return nil, nil, err
	}
	rowids, lengths = make([]int64, n), make([]uint32, n)
	prev := int64(0)
	for i := range rowids {
		d, err := uvarint(b, &at, math.MaxInt64, "rowid")
		if err != nil {
			return nil, nil, err
		}
		if (i > 0 && d == 0) || int64(d) > math.MaxInt64-prev {
			return nil, nil, corrupt("rowid %d out of order", i)
		}
		prev += int64(d)
		rowids[i] = prev
	}
	for i := range lengths {
		l, err := uvarint(b, &at, math.MaxUint32, "length")
		if err != nil {
			return nil, nil, err
		}
		lengths[i] = uint32(l)
	}
	if at != len(b) {
		return nil, nil, corrupt("%d bytes after the documents", len(b)-at)
	}
	return rowids, lengths, nil
}
