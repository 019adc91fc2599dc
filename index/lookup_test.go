package index

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestChunkByID(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	cs := chunksOf("first piece. ", "second piece.")
	doc := testDoc("docs", "/p/a.md", cs)
	if _, err := st.PutDocument(ctx, doc, cs); err != nil {
		t.Fatal(err)
	}
	stored, err := st.Chunks(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := stored[1]
	got, err := st.ChunkByID(ctx, want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != want.ID || got.Text != want.Text || got.SourceStart != want.SourceStart || got.SourceEnd != want.SourceEnd ||
		got.Ordinal != 1 || len(got.Headings) != 2 || got.Rowid == 0 {
		t.Errorf("chunk %+v, want %+v", got, want)
	}
	if got.Document.ID != doc.ID || got.Document.Source != "docs" || got.Document.Path != "/p/a.md" || got.Document.Kind != KindFile {
		t.Errorf("document %+v", got.Document)
	}
	byRow, err := st.ChunksByRowid(ctx, []int64{got.Rowid, 12345})
	if err != nil || len(byRow) != 1 || byRow[got.Rowid].ID != want.ID {
		t.Errorf("ChunksByRowid: %v, %v", byRow, err)
	}
	if _, err := st.ChunkByID(ctx, "nosuchchunk"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing chunk: err = %v, want ErrNotFound", err)
	}
}

func TestDocumentKind(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	for _, tc := range []struct {
		path string
		kind Kind
		want Kind
	}{
		{"/p/a.md", "", KindFile},
		{"/p/b.html", KindFile, KindFile},
		{"https://example.com/page", KindWeb, KindWeb},
	} {
		cs := chunksOf("text")
		d := testDoc("s", tc.path, cs)
		d.Kind = tc.kind
		if _, err := st.PutDocument(ctx, d, cs); err != nil {
			t.Fatal(err)
		}
		got, err := st.Document(ctx, "s", tc.path)
		if err != nil || got.Kind != tc.want {
			t.Errorf("%s: kind %q, %v; want %q", tc.path, got.Kind, err, tc.want)
		}
	}
	cs := chunksOf("text")
	d := testDoc("s", "/p/c.md", cs)
	d.Kind = "ftp"
	if _, err := st.PutDocument(ctx, d, cs); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("kind ftp: err = %v, want ErrInvalidInput", err)
	}
}

// TestMigrateDocumentKind: documents stored before schema 3 become files.
func TestMigrateDocumentKind(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := chunksOf("old text")
	if _, err := st.PutDocument(ctx, testDoc("s", "/p/old.md", cs), cs); err != nil {
		t.Fatal(err)
	}
	// Turn it back into a schema 2 index.
	for _, q := range append(toSchema6(), `DROP TRIGGER chunks_fts_delete`, `CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunks_fts WHERE docid = old.rowid; END`, `DROP TABLE fts_postings`, `DROP TABLE fts_segments`, `DROP TABLE fts_deleted`, `ALTER TABLE chunks DROP COLUMN page`, `ALTER TABLE chunks DROP COLUMN page_end`, `ALTER TABLE documents DROP COLUMN layout`, `DROP TABLE session_turns`, `DROP TABLE sessions`, `ALTER TABLE documents DROP COLUMN kind`, `PRAGMA user_version = 2`) {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestSchema(t) {
		t.Fatalf("schema %d, %v", v, err)
	}
	d, err := st.Document(ctx, "s", "/p/old.md")
	if err != nil || d.Kind != KindFile {
		t.Fatalf("kind %q, %v", d.Kind, err)
	}
	var n int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE kind = 'file'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d file documents, %v", n, err)
	}
}

func TestFilterValidate(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"", true},
		{"/docs/*.md", true},
		{"/docs/[abc]*", true},
		{"/docs/[^abc]*", true},
		{"/docs/[]]x", true},
		{"/docs/[^]]x", true},
		{"a]b", true},
		{"[", false},
		{"/docs/[abc", false},
		{"/docs/[]", false},
		{"/ok/[a]/bad/[", false},
		{"/" + strings.Repeat("*[a]", (MaxPathPattern-1)/4), true},
		{"/" + strings.Repeat("*[a]", MaxPathPattern/4), false},
	} {
		err := Filter{Path: tc.path}.Validate()
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%q: %v", tc.path, err)
		}
	}
}
