package postings

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPostings returns n postings over documents below docs.
func randomPostings(r *rand.Rand, n int, docs uint32) []Posting {
	set := map[uint32]bool{}
	for len(set) < n {
		set[r.Uint32N(docs)] = true
	}
	var ps []Posting
	for d := range set {
		ps = append(ps, Posting{Doc: d, TF: 1 + r.Uint32N(5)*r.Uint32N(3), DL: r.Uint32N(900)})
	}
	slices.SortFunc(ps, func(a, b Posting) int { return int(a.Doc) - int(b.Doc) })
	return ps
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		docs uint32
	}{
		{"one", 1, 1},
		{"one block", BlockSize, BlockSize},
		{"a block and one", BlockSize + 1, 1000},
		{"sparse", 300, 1 << 30},
		{"dense", 5000, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := randomPostings(r, tc.n, tc.docs)
			l, err := Decode(Encode(nil, ps), tc.docs)
			if err != nil {
				t.Fatal(err)
			}
			if l.N != len(ps) || len(l.Blocks) != (len(ps)+BlockSize-1)/BlockSize {
				t.Fatalf("N %d, %d blocks, for %d postings", l.N, len(l.Blocks), len(ps))
			}
			// Every document, by Next, with a block bound that holds.
			c := l.Cursor()
			for i, p := range ps {
				c.Next()
				if c.Doc != p.Doc || c.TF() != p.TF {
					t.Fatalf("posting %d: %d×%d, want %d×%d", i, c.Doc, c.TF(), p.Doc, p.TF)
				}
				b := l.Blocks[c.Shallow(p.Doc)]
				if b.MaxTF < p.TF || b.MinDL > p.DL {
					t.Fatalf("posting %d (%+v) is not bounded by its block %+v", i, p, b)
				}
			}
			if c.Next(); c.Doc != End || c.Err() != nil {
				t.Fatalf("after the last: %d, %v", c.Doc, c.Err())
			}
			// Advance to random targets lands on the first document ≥ each.
			for range 50 {
				c := l.Cursor()
				target := uint32(0)
				for c.Doc != End {
					target += r.Uint32N(tc.docs/8 + 2)
					c.Advance(target)
					i, _ := slices.BinarySearchFunc(ps, target, func(p Posting, t uint32) int { return int(int64(p.Doc) - int64(t)) })
					want := uint32(End)
					if i < len(ps) {
						want = ps[i].Doc
					}
					if c.Doc != want {
						t.Fatalf("Advance(%d) = %d, want %d", target, c.Doc, want)
					}
				}
			}
		})
	}
}

func TestDocsRoundTrip(t *testing.T) {
	for _, rowids := range [][]int64{nil, {1}, {3, 7, 8, 1 << 40}} {
		lengths := make([]uint32, len(rowids))
		for i := range lengths {
			lengths[i] = uint32(i * 100)
		}
		r, l, err := DecodeDocs(EncodeDocs(nil, rowids, lengths))
		if err != nil || !slices.Equal(r, rowids) || !slices.Equal(l, lengths) {
			t.Errorf("%v: got %v %v %v", rowids, r, l, err)
		}
	}
}

func TestCorrupt(t *testing.T) {
	good := Encode(nil, []Posting{{Doc: 2, TF: 3, DL: 10}, {Doc: 5, TF: 1, DL: 4}})
	for _, tc := range []struct {
		name string
		data []byte
		docs uint32
	}{
		{"empty", nil, 10},
		{"document out of the segment", good, 5},
		{"truncated", good[:len(good)-1], 10},
		{"trailing byte", append(slices.Clone(good), 0), 10},
		{"too many documents", Encode(nil, []Posting{{Doc: 1, TF: 1}}), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Decode(tc.data, tc.docs)
			if err == nil {
				c := l.Cursor()
				for c.Next(); c.Doc != End; c.Next() {
				}
				err = c.Err()
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
		})
	}
}

// FuzzDecode checks that Decode and a Cursor over any bytes end with an
// error or with documents in increasing order below the segment's number
// of documents, each with a frequency within its block's bound; and that
// valid postings re-encode to the same bytes.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	f.Add(Encode(nil, randomPostings(r, 3, 20)), uint32(20))
	f.Add(Encode(nil, randomPostings(r, 200, 1000)), uint32(1000))
	f.Add([]byte{1, 1, 0, 1, 1, 5, 0, 0}, uint32(4))
	f.Fuzz(func(t *testing.T, data []byte, docs uint32) {
		l, err := Decode(data, docs)
		if err != nil {
			return
		}
		var ps []Posting
		c := l.Cursor()
		prev := int64(-1)
		for c.Next(); c.Doc != End; c.Next() {
			if int64(c.Doc) <= prev || c.Doc >= docs {
				t.Fatalf("document %d after %d, of %d", c.Doc, prev, docs)
			}
			b := l.Blocks[c.Shallow(c.Doc)]
			if c.TF() == 0 || c.TF() > b.MaxTF {
				t.Fatalf("frequency %d, block bound %d", c.TF(), b.MaxTF)
			}
			prev = int64(c.Doc)
			ps = append(ps, Posting{Doc: c.Doc, TF: c.TF(), DL: b.MinDL})
		}
		if c.Err() != nil {
			return
		}
		if len(ps) != l.N {
			t.Fatalf("%d postings, the list says %d", len(ps), l.N)
		}
		_ = Encode(nil, ps) // must not panic
	})
}

// FuzzDecodeDocs checks that DecodeDocs never panics and round-trips.
func FuzzDecodeDocs(f *testing.F) {
	f.Add(EncodeDocs(nil, []int64{1, 5, 9}, []uint32{10, 0, 7}))
	f.Add([]byte{2, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		rowids, lengths, err := DecodeDocs(data)
		if err != nil {
			return
		}
		if len(rowids) > 0 && rowids[0] < 0 {
			t.Fatalf("negative rowid %d", rowids[0])
		}
		r2, l2, err := DecodeDocs(EncodeDocs(nil, rowids, lengths))
		if err != nil || !slices.Equal(r2, rowids) || !slices.Equal(l2, lengths) {
			t.Fatalf("round trip: %v %v %v", r2, l2, err)
		}
	})
}
