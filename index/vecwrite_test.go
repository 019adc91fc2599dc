package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cite-rag/cite/chunk"
)

// TestVectorsChangedMatchLoad: the in-memory vectors that writes keep
// current (new chunks appended a block at a time, quantized ahead by
// PrepareChunks or not; replaced chunks taking freed slots) hold what
// loading them from the database gives.
func TestVectorsChangedMatchLoad(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e := mustEmbedder(t, "hash:64")
			if err := st.UseEmbedder(ctx, e); err != nil {
				t.Fatal(err)
			}
			if err := st.LoadVectors(ctx); err != nil {
				t.Fatal(err)
			}
			doc := func(path string, n, version int) DocumentChunks {
				var cs []Chunk
				off := 0
				for i := range n {
					text := fmt.Sprintf("chunk %d of %s, version %d, about topic%d", i, path, version, (i*7+version)%13)
					cs = append(cs, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text)})
					off += len(text)
				}
				texts := make([]string, n)
				for i := range cs {
					texts[i] = cs[i].Text
				}
				for i, v := range embedDocs(t, e, texts...) {
					cs[i].Vector = v
				}
				if prepared {
					PrepareChunks(cs)
				}
				return DocumentChunks{&Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}, cs}
			}
			put := func(batch ...DocumentChunks) {
				t.Helper()
				if _, err := st.PutDocuments(ctx, batch); err != nil {
					t.Fatal(err)
				}
			}
			// More than a block of new chunks in one write, then a
			// document replaced (its old chunks' slots freed and taken
			// again), one removed, and more new ones.
			put(doc("/a", 150, 1), doc("/b", 3, 1), doc("/c", 70, 1))
			put(doc("/b", 5, 2), doc("/d", 200, 1))
			if _, err := st.DeleteDocument(ctx, DocumentID("s", "/c")); err != nil {
				t.Fatal(err)
			}
			put(doc("/e", 90, 1), doc("/a", 150, 1))

			st.vmu.Lock()
			got := st.vectors
			st.vmu.Unlock()
			want, err := st.loadVectors(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || got.gen.Load() != want.gen.Load() {
				t.Fatalf("in-memory vectors not current: %v", got)
			}
			if got.n != want.n || got.n != 150+5+200+90 {
				t.Fatalf("%d vectors in memory, %d loaded", got.n, want.n)
			}
			g, w := make([]int8, got.dim), make([]int8, want.dim)
			for rowid, ws := range want.slots {
				gs, ok := got.slots[rowid]
				if !ok {
					t.Fatalf("chunk %d missing in memory", rowid)
				}
				gq, gscale := got.vector(int(gs), g)
				wq, wscale := want.vector(int(ws), w)
				if gscale != wscale || !slices.Equal(gq, wq) {
					t.Fatalf("chunk %d: %v × %v in memory, %v × %v loaded", rowid, gq, gscale, wq, wscale)
				}
			}
		})
	}
}

// TestWholeSegments: the first segment grows from a few slots, the later
// ones are made whole (no copy when they fill), and the vector cache
// holds a last segment's slots alone: read back, every slot's vector and
// scale are what was stored, and the file is no larger than the slots
// take.
func TestWholeSegments(t *testing.T) {
	const dim = 8
	rows := rowsPerSegment(dim)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 40, rows, rows + 1, 2*rows + 37} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := newVectorIndex(dim)
			x.gen.Store(1)
			buf := make([]int8, dim)
			want := make(map[int64][]int8)
			for i := range n {
				v := make([]float32, dim)
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				x.add(int64(i+1), v, buf)
				want[int64(i+1)] = slices.Clone(buf)
			}
			if first := len(x.segs[0]) / dim; n < rows && first >= 2*max(n, firstRows) {
				t.Errorf("first segment of %d slots for %d vectors", first, n)
			}
			for s, seg := range x.segs[1:] {
				if len(seg) != rows*dim {
					t.Errorf("segment %d of %d slots, want %d", s+1, len(seg)/dim, rows)
				}
			}
			st := &Store{dir: t.TempDir()}
			if err := st.writeVectorCache(x, "test"); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(filepath.Join(st.dir, cacheFile)); err != nil || fi.Size() > int64(cacheHeader+8+12*n+4+n*dim) {
				t.Errorf("cache of %d vectors: %v bytes, %v", n, fi.Size(), err)
			}
			y, release, err := st.readVectorCache(1, "test", dim)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			for _, z := range []*vectorIndex{x, y} {
				if z.n != n || len(z.slots) != n {
					t.Fatalf("%d vectors, want %d", z.n, n)
				}
				for r, q := range want {
					slot := int(z.slots[r])
					got, scale := z.vector(slot, make([]int8, dim))
					if !slices.Equal(got, q) || scale != x.scales[slot] {
						t.Fatalf("vector of %d: %v × %v, want %v × %v", r, got, scale, q, x.scales[slot])
					}
				}
			}
			// The mapped last segment grows when filled.
			v := make([]float32, dim)
			v[0] = 1
			y.add(int64(n+1), v, buf)
			if got, _ := y.vector(int(y.slots[int64(n+1)]), make([]int8, dim)); got[0] != 127 {
				t.Errorf("added after reading: %v", got)
			}
		})
	}
}
