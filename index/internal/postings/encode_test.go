package postings

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// refEncode is Encode as first written: each block's data and the skip
// list in buffers of their own, joined at the end.
func refEncode(dst []byte, ps []Posting) []byte {
	nblocks := (len(ps) + BlockSize - 1) / BlockSize
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	dst = binary.AppendUvarint(dst, uint64(nblocks))
	var data []byte
	prevLast := int64(-1)
	skip := make([]byte, 0, nblocks*8)
	for b := range nblocks {
		block := ps[b*BlockSize : min((b+1)*BlockSize, len(ps))]
		start := len(data)
		maxTF, minDL := uint32(0), uint32(math.MaxUint32)
		prev := prevLast
		for _, p := range block {
			data = binary.AppendUvarint(data, uint64(int64(p.Doc)-prev-1))
			prev = int64(p.Doc)
			maxTF, minDL = max(maxTF, p.TF), min(minDL, p.DL)
		}
		for _, p := range block {
			data = binary.AppendUvarint(data, uint64(p.TF-1))
		}
		last := int64(block[len(block)-1].Doc)
		skip = binary.AppendUvarint(skip, uint64(last-prevLast-1))
		skip = binary.AppendUvarint(skip, uint64(len(data)-start))
		skip = binary.AppendUvarint(skip, uint64(maxTF))
		skip = binary.AppendUvarint(skip, uint64(minDL))
		prevLast = last
	}
	return append(append(dst, skip...), data...)
}

func checkEncode(t *testing.T, ps []Posting) {
	t.Helper()
	prefix := []byte("kept")
	got := Encode(bytes.Clone(prefix), ps)
	if want := refEncode(bytes.Clone(prefix), ps); !bytes.Equal(got, want) {
		t.Fatalf("%d postings: % x, want % x", len(ps), got[:min(len(got), 32)], want[:min(len(want), 32)])
	}
}

// TestEncodeAsFirstWritten checks Encode's bytes against Encode as first
// written, on lists of every size around the block size, and on gaps and
// frequencies whose varints take from one to five bytes (the block sizes
// Encode counts ahead).
func TestEncodeAsFirstWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	checkEncode(t, nil)
	for _, n := range []int{1, 2, 127, BlockSize - 1, BlockSize, BlockSize + 1, 2*BlockSize + 5, 1000} {
		for _, docs := range []uint32{uint32(n), 4 * uint32(n), 1 << 20, math.MaxUint32} {
			checkEncode(t, randomPostings(r, n, docs))
		}
	}
	var ps []Posting
	for i, d := range []uint32{0, 127, 128, 16511, 16512, 1 << 21, 1 << 28, math.MaxUint32 - 1, math.MaxUint32} {
		tf := []uint32{1, 128, 129, 1 << 14, 1 << 21, 1 << 28, math.MaxUint32, 2, 1}[i]
		ps = append(ps, Posting{Doc: d, TF: tf, DL: uint32(i)})
	}
	checkEncode(t, ps)
}

func FuzzEncode(f *testing.F) {
	f.Add([]byte{0, 1, 5, 0, 0, 3, 7, 200, 200, 1}, uint8(3))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 200), uint8(0))
	f.Fuzz(func(t *testing.T, gaps []byte, shift uint8) {
		// Postings from the bytes: gaps between documents, and
		// frequencies, scaled up by shift to reach long varints.
		var ps []Posting
		doc := int64(-1)
		for i := 0; i+1 < len(gaps); i += 2 {
			doc += 1 + int64(gaps[i])<<(shift%25)
			if doc > math.MaxUint32 {
				break
			}
			ps = append(ps, Posting{Doc: uint32(doc), TF: 1 + uint32(gaps[i+1])<<(shift%24), DL: uint32(gaps[i])})
		}
		checkEncode(t, ps)
	})
}
