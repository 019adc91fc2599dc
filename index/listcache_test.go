package index

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cite-rag/cite/index/internal/postings"
)

// TestListCache: lists are found by segment as loaded, term and encoded
// size; the least recently used go first past the budget; a segment gone
// or read again takes its lists with it.
func TestListCache(t *testing.T) {
	list := func(n int) (*postings.List, int) {
		var ps []postings.Posting
		for d := range n {
			ps = append(ps, postings.Posting{Doc: uint32(d), TF: 1, DL: 10})
		}
		b := postings.Encode(nil, ps)
		l, err := postings.Decode(b, uint32(n))
		if err != nil {
			t.Fatal(err)
		}
		return l, len(b)
	}
	newSeg := func(id int64) *loadedSegment {
		s := &loadedSegment{id: id}
		s.stored = s
		return s
	}
	segA, segB := newSeg(1), newSeg(2)
	la, encA := list(1000)
	entry := entryOverhead + len("t0") + la.Size()
	c := &listCache{max: 8*entry + entry/2} // room for eight
	for i := range 8 {
		c.put(segA, fmt.Sprint("t", i), encA, la)
	}
	if got := c.get(segA, "t0", encA); got != la {
		t.Fatalf("get t0: %p, want %p", got, la)
	}
	if got := c.get(segA, "t0", encA+1); got != nil {
		t.Fatal("a list of another encoded size was found")
	}
	if got := c.get(segB, "t0", encA); got != nil {
		t.Fatal("another segment's list was found")
	}
	withTombs := segA.withTombstones([]tombstone{{chunk: 5, upto: 1}})
	if got := c.get(withTombs, "t1", encA); got != la {
		t.Fatal("the segment with its tombstones does not find its lists")
	}
	// All but t2 were used since t2 was put: a ninth list pushes t2 out.
	for _, term := range []string{"t3", "t4", "t5", "t6", "t7"} {
		c.get(segA, term, encA)
	}
	c.put(segB, "t0", encA, la)
	var gone []string
	for i := range 8 {
		if c.get(segA, fmt.Sprint("t", i), encA) == nil {
			gone = append(gone, fmt.Sprint("t", i))
		}
	}
	if !slices.Equal(gone, []string{"t2"}) || c.get(segB, "t0", encA) == nil {
		t.Fatalf("gone %v, want [t2], and segment 2's t0 kept", gone)
	}
	if c.bytes != 8*entry {
		t.Fatalf("%d bytes counted, want %d", c.bytes, 8*entry)
	}
	// Segment 1 read again, segment 2 gone.
	c.keep(map[int64]*loadedSegment{1: newSeg(1)})
	if len(c.byKey) != 0 || c.lru.Len() != 0 || c.bytes != 0 {
		t.Fatalf("after keep: %d keys, %d entries, %d bytes; want none", len(c.byKey), c.lru.Len(), c.bytes)
	}
	// A list over an eighth of the budget is not kept.
	big, encBig := list(20000)
	c.put(segA, "big", encBig, big)
	if c.get(segA, "big", encBig) != nil {
		t.Fatal("a list over an eighth of the budget was kept")
	}
}

// TestSearchTextListCache: a search takes the lists an earlier one read
// from memory, and ranks as a search of a newly opened index (which reads
// every list) as new segments, merges and deletions come.
func TestSearchTextListCache(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	var read int
	listsReadHook = func(n int) { read += n }
	t.Cleanup(func() { listsReadHook = nil })
	queries := []string{"common", "alpha common", "word3 word17 common"}
	check := func(when string) {
		t.Helper()
		fresh, err := Open(ctx, st.Dir(), Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		for _, q := range queries {
			want, err := fresh.SearchText(ctx, q, Filter{}, 5)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := st.SearchText(ctx, q, Filter{}, 5)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %q: %v, newly opened %v", when, q, got, want)
				}
			}
		}
		// The same searches again: every list from memory.
		read = 0
		for _, q := range queries {
			if _, err := st.SearchText(ctx, q, Filter{}, 5); err != nil {
				t.Fatal(err)
			}
		}
		if read != 0 {
			t.Fatalf("%s: searches done before read %d lists again", when, read)
		}
	}
	var ids []string
	for i := range 40 {
		ids = append(ids, textDoc(t, st, nil, "s", fmt.Sprintf("/d%d", i), fmt.Sprintf("word%d common text alpha", i), "common again"))
		if i%7 == 0 {
			check(fmt.Sprintf("after %d documents", i+1))
		}
	}
	for i := range 20 {
		if _, err := st.DeleteDocument(ctx, ids[2*i]); err != nil {
			t.Fatal(err)
		}
	}
	check("after deletions")
	// Every list kept is of a segment the index has, as loaded.
	for e := st.fts.lists.lru.Front(); e != nil; e = e.Next() {
		seg := e.Value.(*listEntry).key.seg
		if st.fts.segs[seg.id] != seg {
			t.Errorf("a list of segment %d, which is gone or was read again, is kept", seg.id)
		}
	}
}
