package index

import (
	"fmt"
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
