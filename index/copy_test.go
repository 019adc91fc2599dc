package index

import (
	"io/fs"
	"reflect"
	"testing"
)

// TestFindCopy: FindCopy finds a document by its content hash among those
// accept takes, the preferred source's first, and returns its layout,
// chunks and vectors (with the embedder that made them) as stored; a
// document whose chunks do not add up is passed over, and a hash no
// document has finds nothing.
func TestFindCopy(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:64")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	put := func(source, path, hash, pipeline string, vectors bool) *Document {
		t.Helper()
		cs := chunksOf("alpha first page ", "beta crosses the break ", "gamma last page")
		cs[2].Page, cs[2].PageEnd = 2, 3
		if vectors {
			for i := range cs {
				cs[i].Vector = embedDocs(t, e, cs[i].Text)[0]
			}
		}
		d := testDoc(source, path, cs)
		d.Hash, d.Pipeline, d.Type = hash, pipeline, "pdf"
		d.Layout = &Layout{Pages: []Page{{1, 0}, {2, 20}}, Notes: []string{"read by OCR (tesseract): pages 1–2"}}
		if _, err := st.PutDocument(ctx, d, cs); err != nil {
			t.Fatal(err)
		}
		return d
	}
	put("a", "/a/old.pdf", "h1", "p1", true)
	put("b", "/b/old.pdf", "h1", "p1", false)
	put("a", "/a/other.pdf", "h1", "p2", true)
	damaged := put("a", "/a/damaged.pdf", "h2", "p1", true)
	if _, err := st.db.ExecContext(ctx, `DELETE FROM chunks WHERE document_id = ? AND ordinal = 1`, damaged.ID); err != nil {
		t.Fatal(err)
	}
	pipeline := func(p string) func(Document) bool { return func(d Document) bool { return d.Pipeline == p } }
	for _, tc := range []struct {
		name     string
		hash     string
		prefer   string
		accept   func(Document) bool
		vectors  bool
		wantPath string // "": none
	}{
		{"preferred source", "h1", "b", pipeline("p1"), true, "/b/old.pdf"},
		{"other source", "h1", "a", pipeline("p1"), true, "/a/old.pdf"},
		{"pipeline", "h1", "b", pipeline("p2"), true, "/a/other.pdf"},
		{"without vectors", "h1", "a", pipeline("p1"), false, "/a/old.pdf"},
		{"none accepted", "h1", "a", pipeline("p3"), true, ""},
		{"damaged", "h2", "a", pipeline("p1"), true, ""},
		{"no such hash", "h3", "a", pipeline("p1"), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := st.FindCopy(ctx, tc.hash, tc.prefer, tc.accept, tc.vectors)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantPath == "" {
				if cp != nil {
					t.Fatalf("found %s", cp.From.Path)
				}
				return
			}
			if cp == nil || cp.From.Path != tc.wantPath {
				t.Fatalf("found %+v, want %s", cp, tc.wantPath)
			}
			stored, err := st.Chunks(ctx, cp.From.ID)
			if err != nil {
				t.Fatal(err)
			}
			l, err := st.Layout(ctx, cp.From.ID)
			if err != nil || cp.From.Layout == nil || !reflect.DeepEqual(*cp.From.Layout, l) {
				t.Errorf("layout %+v, stored %+v (%v)", cp.From.Layout, l, err)
			}
			vecs := map[string][]float32{}
			st.Vectors(ctx, func(id string, v []float32) error { vecs[id] = v; return nil })
			for i, c := range cp.Chunks {
				s := stored[i]
				if c.ID != "" || c.Chunk.Text != s.Text || !reflect.DeepEqual(c.Chunk, s.Chunk) || c.SourceStart != s.SourceStart || c.SourceEnd != s.SourceEnd || c.Page != s.Page || c.PageEnd != s.PageEnd {
					t.Errorf("chunk %d: %+v, stored %+v", i, c, s)
				}
				if want := vecs[s.ID]; tc.vectors && !reflect.DeepEqual(c.Vector, want) || !tc.vectors && c.Vector != nil {
					t.Errorf("chunk %d: vector %v, stored %v", i, c.Vector, want)
				}
			}
			if want := (EmbedderInfo{}); tc.vectors {
				want = EmbedderInfo{e.Name(), 64}
				if cp.Embedder != want {
					t.Errorf("embedder %+v, want %+v", cp.Embedder, want)
				}
			} else if cp.Embedder != want {
				t.Errorf("embedder %+v without vectors", cp.Embedder)
			}
		})
	}
}

// latestSchema is the schema version a new or migrated index has: the
// number of migrations.
func latestSchema(t *testing.T) int {
	t.Helper()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("migrations: %v, %v", names, err)
	}
	return len(names)
}
