package index

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestPagesRoundTrip stores a document with pages: the chunks' pages come
// back from Chunks, ChunkByID and the full-text search, its layout from
// Layout, and a document without pages has an empty layout.
func TestPagesRoundTrip(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, t.TempDir(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := chunksOf("alpha first page ", "beta crosses the break ", "gamma last page")
	cs[0].Page, cs[0].PageEnd = 1, 1
	cs[1].Page, cs[1].PageEnd = 1, 2
	cs[2].Page, cs[2].PageEnd = 2, 2
	doc := testDoc("s", "/p/report.pdf", cs)
	doc.Type = "pdf"
	doc.Layout = &Layout{Pages: []Page{{1, 0}, {2, 30}}, Notes: []string{"page 2: left out the running header \"ACME\""}}
	if _, err := st.PutDocument(ctx, doc, cs); err != nil {
		t.Fatal(err)
	}
	plain := testDoc("s", "/p/notes.md", chunksOf("no pages here"))
	if _, err := st.PutDocument(ctx, plain, chunksOf("no pages here")); err != nil {
		t.Fatal(err)
	}
	got, err := st.Chunks(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c.Page != cs[i].Page || c.PageEnd != cs[i].PageEnd {
			t.Errorf("chunk %d: pages %d-%d, want %d-%d", i, c.Page, c.PageEnd, cs[i].Page, cs[i].PageEnd)
		}
	}
	r, err := st.ChunkByID(ctx, got[1].ID)
	if err != nil || r.Page != 1 || r.PageEnd != 2 {
		t.Errorf("ChunkByID: %d-%d, %v", r.Page, r.PageEnd, err)
	}
	rs, err := st.SearchText(ctx, "gamma", Filter{}, 5)
	if err != nil || len(rs) != 1 {
		t.Fatalf("search: %v, %v", rs, err)
	}
	if recs, err := st.ChunksByRowid(ctx, []int64{rs[0].Chunk}); err != nil || recs[rs[0].Chunk].Page != 2 {
		t.Errorf("ChunksByRowid: %+v, %v", recs, err)
	}
	l, err := st.Layout(ctx, doc.ID)
	if err != nil || !reflect.DeepEqual(l, *doc.Layout) {
		t.Errorf("layout = %+v, %v; want %+v", l, err, *doc.Layout)
	}
	if l, err := st.Layout(ctx, plain.ID); err != nil || len(l.Pages) != 0 || len(l.Notes) != 0 {
		t.Errorf("layout of a Markdown file = %+v, %v", l, err)
	}
}

// TestSchemaOnFirstPage: a new index's whole schema is on the database's
// first page, where cite check --repair reads it when the rest of the file
// is damaged or cut short; a migration that pushes it past that page fails
// here.
func TestSchemaOnFirstPage(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	data, err := os.ReadFile(filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 101 || data[100] != 0x0d {
		t.Fatalf("page 1 is not a leaf table page (type %#x): the schema spills onto other pages", data[100])
	}
}

func TestWithoutComments(t *testing.T) {
	in := "CREATE TABLE t ( -- a table\n\tid  TEXT, -- the id\n\tv TEXT DEFAULT '--  kept'\n);\n-- done\n"
	want := "CREATE TABLE t (\nid TEXT,\nv TEXT DEFAULT '--  kept'\n);\n"
	if got := withoutComments(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
