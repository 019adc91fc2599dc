package index

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
)

// TestReleaseVector: a chunk whose vector was released after
// PrepareChunks, its memory then overwritten (as a caller writing the next
// vector there does), is stored with the vector as prepared: the vector
// stored and the one in memory are those of the same chunk never
// released. ReleaseVector gives nothing for a chunk not prepared, or whose
// Vector changed since; a chunk whose Terms change after its vector was
// released is stored without one. PutDocuments refuses a vector that is
// not finite or of another dimension, released or not.
func TestReleaseVector(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:64")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := st.LoadVectors(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 90
	doc := func(path string) DocumentChunks {
		var cs []Chunk
		off := 0
		for i := range n {
			text := fmt.Sprintf("chunk %d about topic%d and word%d", i, i%13, i%7)
			cs = append(cs, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text)})
			off += len(text)
		}
		for i := range cs {
			cs[i].Vector = embedDocs(t, e, cs[i].Text)[0]
		}
		return DocumentChunks{&Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}, cs}
	}
	put := func(batch ...DocumentChunks) ([]Changes, error) {
		t.Helper()
		return st.PutDocuments(ctx, batch)
	}
	poison := func(v []float32) {
		for i := range v {
			v[i] = float32(math.NaN())
		}
	}

	kept, released := doc("/kept"), doc("/released")
	want := make([][]float32, n)
	for i, c := range kept.Chunks {
		want[i] = RoundVector(c.Vector)
	}
	PrepareChunks(kept.Chunks)
	PrepareChunks(released.Chunks)
	for i := range released.Chunks {
		c := &released.Chunks[i]
		v := c.ReleaseVector()
		if v == nil || c.Vector != nil {
			t.Fatalf("chunk %d: released %v, left %v", i, v, c.Vector)
		}
		if again := c.ReleaseVector(); again != nil {
			t.Fatalf("chunk %d: released twice", i)
		}
		poison(v)
	}
	chs, err := put(kept, released)
	if err != nil {
		t.Fatal(err)
	}
	if chs[0].Vectors != n || chs[1].Vectors != n {
		t.Fatalf("stored %d and %d vectors, want %d each", chs[0].Vectors, chs[1].Vectors, n)
	}
	stored := map[string][]float32{}
	if err := st.Vectors(ctx, func(id string, v []float32) error {
		stored[id] = slices.Clone(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st.vmu.Lock()
	x := st.vectors
	st.vmu.Unlock()
	rowid := func(id string) int64 {
		var r int64
		if err := st.db.QueryRowContext(ctx, `SELECT rowid FROM chunks WHERE id = ?`, id).Scan(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	qk, qr := make([]int8, 64), make([]int8, 64)
	for i := range n {
		k, r := kept.Chunks[i].ID, released.Chunks[i].ID
		if !slices.Equal(stored[k], want[i]) || !slices.Equal(stored[r], want[i]) {
			t.Fatalf("chunk %d: stored %v (kept) and %v (released), want %v", i, stored[k][:4], stored[r][:4], want[i][:4])
		}
		ks, kok := x.slots[rowid(k)]
		rs, rok := x.slots[rowid(r)]
		if !kok || !rok {
			t.Fatalf("chunk %d: not in memory (%v, %v)", i, kok, rok)
		}
		a, as := x.vector(int(ks), qk)
		b, bs := x.vector(int(rs), qr)
		if as != bs || !slices.Equal(a, b) {
			t.Fatalf("chunk %d: in memory %v × %v (kept), %v × %v (released)", i, a, as, b, bs)
		}
	}

	// Nothing to release: a chunk not prepared, or whose vector changed
	// since.
	fresh := doc("/fresh")
	c := &fresh.Chunks[0]
	if v := c.ReleaseVector(); v != nil || c.Vector == nil {
		t.Fatalf("not prepared: released %v, left %v", v, c.Vector)
	}
	PrepareChunks(fresh.Chunks)
	other := slices.Clone(c.Vector)
	c.Vector = other
	if v := c.ReleaseVector(); v != nil || &c.Vector[0] != &other[0] {
		t.Fatalf("vector changed: released %v", v)
	}
	// Terms changed after the release: prepared again, without a vector.
	d := &fresh.Chunks[1]
	d.ReleaseVector()
	d.Terms += " more"
	chs, err = put(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if chs[0].Vectors != n-1 {
		t.Fatalf("stored %d vectors, want %d", chs[0].Vectors, n-1)
	}

	// Vectors refused, whether released or not.
	for _, tc := range []struct {
		name    string
		vector  []float32
		release bool
		err     string
	}{
		{"NaN", []float32{float32(math.NaN())}, false, "has value 63 NaN, not a number"},
		{"NaN released", []float32{float32(math.NaN()), 1}, true, "has value 62 NaN, not a number"},
		{"infinite released", []float32{float32(math.Inf(-1))}, true, "has value 63 -Inf, not a number"},
		{"short released", make([]float32, 3), true, "has a vector of 3 dimensions"},
		{"short", make([]float32, 3), false, "has a vector of 3 dimensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := doc("/bad")
			v := tc.vector
			if !strings.Contains(tc.err, "dimensions") {
				// The last values of a vector of the index's dimension.
				v = append(make([]float32, 64-len(v)), v...)
			}
			bad.Chunks[5].Vector = v
			if tc.release {
				PrepareChunks(bad.Chunks)
				poison(bad.Chunks[5].ReleaseVector())
			}
			if _, err := put(bad); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("stored: %v, want %q", err, tc.err)
			}
		})
	}
}

// TestPrepMemoryReused: the memory of the preparations of chunks stored is
// used again for the next chunks prepared, and a copy of a chunk made
// before it was stored (it shares the spent preparation) prepares itself
// again: documents prepared, their vectors released, and stored one after
// another give the index that the same documents stored unprepared give
// (vectors, full-text and vector search scores).

func TestPrepMemoryReused(t *testing.T) {
	ctx := t.Context()
	e := mustEmbedder(t, "hash:64")
	open := func() *Store {
		st := openStore(t)
		if err := st.UseEmbedder(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := st.LoadVectors(ctx); err != nil {
			t.Fatal(err)
		}
		return st
	}
	doc := func(path string, n int) DocumentChunks {
		var cs []Chunk
		off := 0
		for i := range n {
			// Texts of a few to many terms: term counts of every size.
			text := fmt.Sprintf("%s chunk %d about topic%d ", path, i, i%5) + strings.Repeat(fmt.Sprintf("word%d ", i), i%40)
			cs = append(cs, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text)})
			off += len(text)
		}
		for i := range cs {
			cs[i].Vector = embedDocs(t, e, cs[i].Text)[0]
		}
		return DocumentChunks{&Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}, cs}
	}
	prepared, plain := open(), open()
	var stale []Chunk
	for k := range 6 {
		path := fmt.Sprintf("/d%d", k)
		d, p := doc(path, 10+17*k), doc(path, 10+17*k)
		if k == 0 {
			// Without vectors: nothing tells a copy of its chunks
			// from what was prepared of them but that it was spent.
			for i := range d.Chunks {
				d.Chunks[i].Vector, p.Chunks[i].Vector = nil, nil
			}
		}
		if _, err := plain.PutDocuments(ctx, []DocumentChunks{p}); err != nil {
			t.Fatal(err)
		}
		PrepareChunks(d.Chunks)
		if k == 0 {
			stale = slices.Clone(d.Chunks)
		}
		for i := range d.Chunks {
			v := d.Chunks[i].ReleaseVector()
			for j := range v {
				v[j] = float32(math.NaN())
			}
		}
		if _, err := prepared.PutDocuments(ctx, []DocumentChunks{d}); err != nil {
			t.Fatal(err)
		}
		if d.Chunks[0].prep != nil {
			t.Fatalf("%s: preparation not spent", path)
		}
	}
	// The copy made before /d0 was stored, under another path.
	for _, st := range []*Store{prepared, plain} {
		d := doc("/d0", 10)
		d.Doc.Path = "/stale"
		for i := range d.Chunks {
			d.Chunks[i].Vector = nil
		}
		if st == prepared {
			d.Chunks = stale
		}
		if _, err := st.PutDocuments(ctx, []DocumentChunks{d}); err != nil {
			t.Fatal(err)
		}
	}
	vectors := func(st *Store) map[string][]float32 {
		m := map[string][]float32{}
		if err := st.Vectors(ctx, func(id string, v []float32) error {
			m[id] = slices.Clone(v)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	got, want := vectors(prepared), vectors(plain)
	if len(got) != len(want) || len(want) != 27+44+61+78+95 {
		t.Fatalf("%d vectors stored, %d unprepared", len(got), len(want))
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Fatalf("chunk %s: vector %v, %v unprepared", id, got[id], w)
		}
	}
	for _, q := range []string{"topic1", "word3 word7", "d2 chunk", "d5 word30", "d0 topic4 word9"} {
		a, err := prepared.SearchText(ctx, q, Filter{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		b, err := plain.SearchText(ctx, q, Filter{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || !slices.Equal(a, b) {
			t.Fatalf("%q: %v, unprepared %v", q, a, b)
		}
		qv, err := e.EmbedQuery(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err = prepared.SearchVectors(ctx, qv, Filter{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		b, err = plain.SearchVectors(ctx, qv, Filter{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || !slices.Equal(a, b) {
			t.Fatalf("%q: vectors %v, unprepared %v", q, a, b)
		}
	}
}
