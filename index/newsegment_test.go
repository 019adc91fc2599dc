package index

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/internal/postings"
)

// refBuild is newSegment.build as it was before terms were numbered: a
// map of each term's postings, filled chunk by chunk in order of rowid.
func refBuild(added []refChunk, gone map[int64]int) (rowids []int64, lengths []uint32, terms map[string][]postings.Posting) {
	var es []refChunk
	for i, c := range added {
		if at, ok := gone[c.rowid]; !ok || i >= at {
			es = append(es, c)
		}
	}
	slices.SortStableFunc(es, func(a, b refChunk) int { return cmp.Compare(a.rowid, b.rowid) })
	for i := 0; i+1 < len(es); {
		if es[i].rowid == es[i+1].rowid {
			es = slices.Delete(es, i, i+1)
		} else {
			i++
		}
	}
	terms = map[string][]postings.Posting{}
	for _, e := range es {
		doc := uint32(len(rowids))
		rowids, lengths = append(rowids, e.rowid), append(lengths, e.length)
		for _, c := range e.counts {
			terms[c.term] = append(terms[c.term], postings.Posting{Doc: doc, TF: c.tf, DL: e.length})
		}
	}
	return rowids, lengths, terms
}

type refChunk struct {
	rowid  int64
	counts []termCount
	length uint32
}

// TestNewSegmentBuild: the segment built from numbered terms holds the
// chunks, terms and postings of the map it replaced, with removals and
// rowids used again, and addDF counts what countTerms counts for each
// chunk added.
func TestNewSegmentBuild(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "café", "a", "zeta", "eta"}
	type op struct {
		remove bool
		rowid  int64
		text   string
	}
	cases := map[string][]op{
		"empty":    nil,
		"one":      {{rowid: 1, text: "alpha beta alpha"}},
		"removed":  {{rowid: 1, text: "alpha"}, {remove: true, rowid: 1}},
		"reused":   {{rowid: 5, text: "alpha beta"}, {remove: true, rowid: 5}, {rowid: 5, text: "gamma gamma"}},
		"unsorted": {{rowid: 9, text: "beta"}, {rowid: 2, text: "beta alpha"}, {rowid: 4, text: "alpha alpha alpha"}},
		"no terms": {{rowid: 3, text: ""}, {rowid: 4, text: "delta"}},
		"old gone": {{remove: true, rowid: 7}, {rowid: 8, text: "eta zeta"}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 20 {
		var ops []op
		for range 1 + rng.IntN(300) {
			if rng.IntN(6) == 0 {
				ops = append(ops, op{remove: true, rowid: 1 + rng.Int64N(60)})
				continue
			}
			var ws []string
			for range rng.IntN(12) {
				ws = append(ws, words[rng.IntN(len(words))])
			}
			ops = append(ops, op{rowid: 1 + rng.Int64N(60), text: strings.Join(ws, " ")})
		}
		cases[fmt.Sprint("random ", n)] = ops
	}
	for name, ops := range cases {
		t.Run(name, func(t *testing.T) {
			seg := &newSegment{}
			var added []refChunk
			gone := map[int64]int{}
			wantDF := map[string]int{}
			for _, o := range ops {
				if o.remove {
					seg.remove(o.rowid)
					gone[o.rowid] = len(added)
					continue
				}
				counts, n := termCounts(nil, o.text)
				seg.addCounted(o.rowid, counts, n)
				added = append(added, refChunk{o.rowid, counts, n})
				countTerms(wantDF, o.text, +1)
			}
			d := seg.build()
			rowids, lengths, terms := refBuild(added, gone)
			if !slices.Equal(d.rowids, rowids) || !slices.Equal(d.lengths, lengths) {
				t.Fatalf("chunks %v %v, want %v %v", d.rowids, d.lengths, rowids, lengths)
			}
			if want := slices.Sorted(maps.Keys(terms)); !slices.Equal(d.terms, want) {
				t.Fatalf("terms %q, want %q", d.terms, want)
			}
			for i, term := range d.terms {
				if !slices.Equal(d.postings[i], terms[term]) {
					t.Fatalf("postings of %q: %v, want %v", term, d.postings[i], terms[term])
				}
			}
			df := map[string]int{}
			seg.addDF(df)
			if !maps.Equal(df, wantDF) {
				t.Fatalf("document frequencies %v, want %v", df, wantDF)
			}
		})
	}
}
