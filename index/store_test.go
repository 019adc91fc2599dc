package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/chunk"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "idx"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// chunksOf makes contiguous, overlapping chunks of text from the given
// pieces (each chunk is one piece plus the first byte of the next).
func chunksOf(pieces ...string) []Chunk {
	var out []Chunk
	text := strings.Join(pieces, "")
	off := 0
	for i, p := range pieces {
		start := max(off-1, 0)
		end := off + len(p)
		out = append(out, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text[start:end], Tokens: 1, Start: start, End: end, Headings: []string{"H", fmt.Sprint(i)}}, SourceStart: start, SourceEnd: end})
		off = end
	}
	return out
}

func testDoc(source, path string, chunks []Chunk) *Document {
	return &Document{Source: source, Path: path, Title: "T " + path, Type: "text", Size: 10, ModTime: time.Unix(100, 5), Hash: "h", Pipeline: "p", TextBytes: chunks[len(chunks)-1].End, IndexedAt: time.Unix(200, 0)}
}

func TestOpenRequiresIndexUnlessCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	if _, err := Open(t.Context(), dir, Options{}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("err = %v, want ErrNoIndex", err)
	}
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.SchemaVersion(t.Context())
	if err != nil || v < 1 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	st.Close()
	st, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	st.Close()
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := Open(t.Context(), dir, Options{}); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
}

func TestPutDocumentReplacesChunks(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	doc := testDoc("src", "/a.txt", chunksOf("alpha ", "beta ", "gamma"))
	ch, err := st.PutDocument(ctx, doc, chunksOf("alpha ", "beta ", "gamma"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Added) != 3 || len(ch.Removed) != 0 || ch.Kept != 0 {
		t.Fatalf("first put: %+v", ch)
	}
	first, _ := st.Chunks(ctx, doc.ID)

	// Edit the middle: the other chunks' texts are unchanged (the last one
	// starts with the space it shares with the middle) and keep their ids.
	next := chunksOf("alpha ", "BETA ", "gamma")
	ch, err = st.PutDocument(ctx, testDoc("src", "/a.txt", next), next)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Kept != 2 || len(ch.Added) != 1 || len(ch.Removed) != 1 {
		t.Fatalf("edit: %+v", ch)
	}
	got, err := st.Chunks(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != first[0].ID || got[1].ID == first[1].ID || got[2].ID != first[2].ID || ch.Added[0] != got[1].ID {
		t.Fatalf("chunks after edit: %+v", got)
	}
	if Text(got) != "alpha BETA gamma" {
		t.Fatalf("Text = %q", Text(got))
	}
	if !slices.Equal(got[1].Headings, []string{"H", "1"}) {
		t.Fatalf("headings = %q", got[1].Headings)
	}

	// Fewer chunks: the extra rows go.
	short := chunksOf("alpha ", "end")
	ch, err = st.PutDocument(ctx, testDoc("src", "/a.txt", short), short)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Chunks(ctx, doc.ID); len(got) != 2 || ch.Kept != 1 {
		t.Fatalf("after shrink: %d chunks, %+v", len(got), ch)
	}
	rep, err := st.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %+v, %v", rep, err)
	}
}

func TestRepeatedChunkTextGetsDistinctIDs(t *testing.T) {
	st := openStore(t)
	cs := []Chunk{
		{Chunk: chunk.Chunk{Ordinal: 0, Text: "same", Start: 0, End: 4}},
		{Chunk: chunk.Chunk{Ordinal: 1, Text: "same", Start: 4, End: 8}},
	}
	doc := &Document{Source: "s", Path: "/r", TextBytes: 8}
	if _, err := st.PutDocument(t.Context(), doc, cs); err != nil {
		t.Fatal(err)
	}
	if cs[0].ID == cs[1].ID {
		t.Fatal("repeated text got the same chunk id")
	}
}

func TestSameContentInTwoDocuments(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	for _, p := range []string{"/x/a.md", "/y/a.md"} {
		cs := chunksOf("identical ", "content")
		if _, err := st.PutDocument(ctx, testDoc("s", p, cs), cs); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := st.Documents(ctx, "s")
	if err != nil || len(docs) != 2 {
		t.Fatalf("docs = %v, %v", docs, err)
	}
}

func TestDocumentLookup(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	for _, d := range []struct{ src, path string }{{"one", "/p/a.md"}, {"two", "/p/a.md"}, {"one", "/p/b.md"}} {
		cs := chunksOf("text ", d.src)
		if _, err := st.PutDocument(ctx, testDoc(d.src, d.path, cs), cs); err != nil {
			t.Fatal(err)
		}
	}
	b := DocumentID("one", "/p/b.md")
	for _, tc := range []struct {
		source, ref string
		wantID      string
		wantErr     error
	}{
		{"", "/p/b.md", b, nil},
		{"", b, b, nil},
		{"", b[:6], b, nil},
		{"", "/p/a.md", "", ErrAmbiguous},
		{"two", "/p/a.md", DocumentID("two", "/p/a.md"), nil},
		{"", "/p/missing.md", "", ErrNotFound},
		{"", "abc", "", ErrNotFound},
		{"", "*", "", ErrNotFound},
	} {
		t.Run(tc.source+":"+tc.ref, func(t *testing.T) {
			d, err := st.Document(ctx, tc.source, tc.ref)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || d.ID != tc.wantID {
				t.Fatalf("got %s, %v; want %s", d.ID, err, tc.wantID)
			}
		})
	}
	srcs, err := st.Sources(ctx)
	if err != nil || len(srcs) != 2 || srcs[0].Name != "one" || srcs[0].Documents != 2 || srcs[0].Chunks != 4 {
		t.Fatalf("sources = %+v, %v", srcs, err)
	}
}

// TestDocumentsEndingIn: the documents a file name or a path relative to
// the folder indexed may mean, whole path components only, wildcards of
// SQL's LIKE taken as they are.
func TestDocumentsEndingIn(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	for _, d := range []struct{ src, path string }{{"one", "/p/a.md"}, {"two", "/q/p/a.md"}, {"one", "/p/xa.md"}, {"one", "/p/100%.md"}, {"one", "/p/1000.md"}, {"one", "/é/ü.md"}} {
		cs := chunksOf("text ", d.src+d.path)
		if _, err := st.PutDocument(ctx, testDoc(d.src, d.path, cs), cs); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		source, tail string
		want         []string
	}{
		{"", "a.md", []string{"/p/a.md", "/q/p/a.md"}},
		{"two", "a.md", []string{"/q/p/a.md"}},
		{"", "p/a.md", []string{"/p/a.md", "/q/p/a.md"}},
		{"", "./p/a.md", []string{"/p/a.md", "/q/p/a.md"}},
		{"", "q/p/a.md", []string{"/q/p/a.md"}},
		{"", "/p/a.md", []string{"/p/a.md", "/q/p/a.md"}},
		{"", "100%.md", []string{"/p/100%.md"}},
		{"", "10_0.md", nil},
		{"", "ü.md", []string{"/é/ü.md"}},
		{"", "/p/a.md/", []string{"/p/a.md", "/q/p/a.md"}},
		{"", "md", nil},
		{"", "", nil},
		{"", ".", nil},
		{"", "../a.md", nil},
	} {
		docs, err := st.DocumentsEndingIn(ctx, tc.source, tc.tail, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.source, tc.tail, got, tc.want)
		}
	}
}

func TestDeleteDocument(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	cs := chunksOf("a ", "b")
	doc := testDoc("only", "/d.txt", cs)
	if _, err := st.PutDocument(ctx, doc, cs); err != nil {
		t.Fatal(err)
	}
	removed, err := st.DeleteDocument(ctx, doc.ID)
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if got, _ := st.Chunks(ctx, doc.ID); len(got) != 0 {
		t.Fatalf("%d chunks left", len(got))
	}
	if srcs, _ := st.Sources(ctx); len(srcs) != 0 {
		t.Fatalf("empty source kept: %+v", srcs)
	}
	if _, err := st.DeleteDocument(ctx, doc.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestCheckFindsDamage(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	cs := chunksOf("one ", "two ", "three")
	doc := testDoc("s", "/c.txt", cs)
	if _, err := st.PutDocument(ctx, doc, cs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, sql, want string }{
		{"missing chunk", `DELETE FROM chunks WHERE ordinal = 1`, "has 2 chunks, recorded 3"},
		{"gap", `UPDATE chunks SET start_byte = start_byte + 2, text = substr(text, 3) WHERE ordinal = 1`, "does not follow"},
		{"short text", `UPDATE chunks SET text = 'x' WHERE ordinal = 2`, "text is 1 bytes"},
		{"wrong end", `UPDATE documents SET text_bytes = 99`, "text is 99 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.DeleteDocument(ctx, doc.ID)
			cs := chunksOf("one ", "two ", "three")
			if _, err := st.PutDocument(ctx, testDoc("s", "/c.txt", cs), cs); err != nil {
				t.Fatal(err)
			}
			if _, err := st.db.ExecContext(ctx, tc.sql); err != nil {
				t.Fatal(err)
			}
			rep, err := st.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), tc.want) {
				t.Fatalf("problems = %+v, want %q", rep.Problems, tc.want)
			}
		})
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	errs := make(chan error, 2)
	for i, st := range []*Store{a, b} {
		go func() {
			for j := range 50 {
				cs := chunksOf("x ", fmt.Sprint(j))
				if _, err := st.PutDocument(context.Background(), testDoc("s", fmt.Sprintf("/%d/%d", i, j), cs), cs); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if docs, _ := a.Documents(ctx, ""); len(docs) != 100 {
		t.Fatalf("%d documents", len(docs))
	}
}

// TestOpenConcurrently opens a new index from many goroutines at once, as
// cite serve and cite index (or two cite index runs) do: each must see
// either no schema or all of it, never migrate what another just did.
func TestOpenConcurrently(t *testing.T) {
	const rounds, openers = 10, 40
	for round := range rounds {
		dir := filepath.Join(t.TempDir(), "idx")
		errs := make(chan error, openers)
		var start sync.WaitGroup
		start.Add(1)
		for range openers {
			go func() {
				start.Wait()
				st, err := Open(t.Context(), dir, Options{Create: true})
				if err == nil {
					_, err = st.Documents(t.Context(), "")
					st.Close()
				}
				errs <- err
			}()
		}
		start.Done()
		for range openers {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// TestDeleteDocuments removes several documents in one transaction, one of
// them not in the index: the others' chunks, vectors and empty sources go,
// and the document frequencies and search are those of an index that never
// had them.
func TestDeleteDocuments(t *testing.T) {
	ctx := t.Context()
	docs := []struct{ src, path, text string }{
		{"a", "/1.md", "apples and oranges "},
		{"a", "/2.md", "bananas and oranges "},
		{"a", "/3.md", "cherries "},
		{"b", "/4.md", "apples only "},
	}
	put := func(st *Store, keep func(i int) bool) []string {
		var ids []string
		for i, d := range docs {
			if !keep(i) {
				continue
			}
			cs := chunksOf(d.text, d.text+"again")
			doc := testDoc(d.src, d.path, cs)
			if _, err := st.PutDocument(ctx, doc, cs); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, doc.ID)
		}
		return ids
	}
	st := openStore(t)
	ids := put(st, func(int) bool { return true })
	removed, err := st.DeleteDocuments(ctx, []string{ids[0], DocumentID("a", "/missing.md"), ids[3]})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 3 || len(removed[0]) != 2 || removed[1] != nil || len(removed[2]) != 2 {
		t.Fatalf("removed %v", removed)
	}
	if srcs, _ := st.Sources(ctx); len(srcs) != 1 || srcs[0].Name != "a" || srcs[0].Documents != 2 {
		t.Fatalf("sources %+v", srcs)
	}
	if hits, err := st.SearchText(ctx, "apples", Filter{}, 10); err != nil || len(hits) != 0 {
		t.Fatalf("apples: %v, %v", hits, err)
	}
	if hits, err := st.SearchText(ctx, "oranges", Filter{}, 10); err != nil || len(hits) != 2 {
		t.Fatalf("oranges: %v, %v", hits, err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v, %v", rep, err)
	}
	fresh := openStore(t)
	put(fresh, func(i int) bool { return i == 1 || i == 2 })
	df := func(st *Store) string {
		rows, err := st.db.QueryContext(ctx, `SELECT term, df FROM term_df WHERE df != 0 ORDER BY term`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var term string
			var n int
			rows.Scan(&term, &n)
			fmt.Fprintf(&b, "%s=%d ", term, n)
		}
		return b.String()
	}
	if got, want := df(st), df(fresh); got != want {
		t.Fatalf("document frequencies\n%s\nwant\n%s", got, want)
	}
	// None of them there: nothing to do, no error.
	removed, err = st.DeleteDocuments(ctx, []string{ids[0], ids[3]})
	if err != nil || removed[0] != nil || removed[1] != nil {
		t.Fatalf("again: %v, %v", removed, err)
	}
}
