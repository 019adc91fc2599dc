package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/index"
)

// TestStored finds the stored documents a path names: a file, a folder, a
// pattern, a folder whose files are gone, and one that holds nothing.
func TestStored(t *testing.T) {
	st := newStore(t)
	fsys := fstest.MapFS{
		"docs/a.md":          file("# A\n\nAlpha."),
		"docs/b.txt":         file("Beta."),
		"docs/sub/c.md":      file("# C\n\nGamma."),
		"docs/sub/deep/d.md": file("# D\n\nDelta."),
		"docsx/e.md":         file("# E\n\nA sibling folder whose name starts like docs."),
		"other/f.md":         file("# F\n\nElsewhere."),
	}
	if s, _, err := run(t, st, fsys, Options{}, "docs", "docsx", "other"); err != nil || s.Added != 6 {
		t.Fatalf("index: %+v, %v", s, err)
	}
	ix, err := New(t.Context(), st, Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	delete(fsys, "other/f.md") // stored, gone from disk: still found
	for _, tc := range []struct {
		paths   []string
		want    []string
		missing []string // paths that name nothing stored
	}{
		{[]string{"docs/a.md"}, []string{"docs/a.md"}, nil},
		{[]string{"docs"}, []string{"docs/a.md", "docs/b.txt", "docs/sub/c.md", "docs/sub/deep/d.md"}, nil},
		{[]string{"docs/sub/"}, []string{"docs/sub/c.md", "docs/sub/deep/d.md"}, nil},
		{[]string{"docs/*.md"}, []string{"docs/a.md"}, nil},
		{[]string{"docs/**/*.md"}, []string{"docs/a.md", "docs/sub/c.md", "docs/sub/deep/d.md"}, nil},
		{[]string{"other"}, []string{"other/f.md"}, nil},
		{[]string{"docs/sub", "docs/sub/c.md"}, []string{"docs/sub/c.md", "docs/sub/deep/d.md"}, nil},
		{[]string{"nope", "docs/b.txt", "docs/*.zzz"}, []string{"docs/b.txt"}, []string{"nope", "docs/*.zzz"}},
	} {
		got, err := ix.Stored(t.Context(), tc.paths...)
		var paths []string
		for _, d := range got {
			paths = append(paths, d.Path)
			if d.ID == "" {
				t.Errorf("%q: %s without its id", tc.paths, d.Path)
			}
		}
		if !slices.Equal(paths, tc.want) {
			t.Errorf("Stored(%q) = %q, want %q", tc.paths, paths, tc.want)
		}
		for _, m := range tc.missing {
			var pe *PathError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), m+": ") {
				t.Errorf("Stored(%q): error %v, want a PathError naming %s", tc.paths, err, m)
			}
		}
		if len(tc.missing) == 0 && err != nil {
			t.Errorf("Stored(%q): %v", tc.paths, err)
		}
	}
}

// TestRemoveDocuments removes more documents than a transaction takes: each
// is reported once, in order, with its chunks, and the index is consistent;
// documents already gone are passed over.
func TestRemoveDocuments(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := fstest.MapFS{}
	const n = 25
	for i := range n + 2 {
		fsys[fmt.Sprintf("docs/%02d.md", i)] = file(fmt.Sprintf("# Note %d\n\nWord%d and shared words.", i, i))
	}
	if s, _, err := run(t, st, fsys, Options{}, "docs"); err != nil || s.Added != n+2 {
		t.Fatalf("index: %+v, %v", s, err)
	}
	ix, err := New(ctx, st, Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	all, err := ix.Stored(ctx, "docs")
	if err != nil || len(all) != n+2 {
		t.Fatalf("Stored: %d, %v", len(all), err)
	}
	gone := all[3]
	if _, err := st.DeleteDocument(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = RemoveDocuments(ctx, st, all[:n], 7, func(d index.Stamp, chunks int) {
		if chunks != 1 {
			t.Errorf("%s: %d chunks removed, want 1", d.Path, chunks)
		}
		got = append(got, d.Path)
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range all[:n] {
		if d.ID != gone.ID {
			want = append(want, d.Path)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("removed %q, want %q", got, want)
	}
	docs, err := st.Documents(ctx, "")
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d documents left, want 2: %v", len(docs), err)
	}
	checkIndex(t, st)
}

// TestRemoveDocumentsCancelled stops at a batch and says why: what it
// removed stays removed, the rest stays.
func TestRemoveDocumentsCancelled(t *testing.T) {
	st := newStore(t)
	fsys := fstest.MapFS{}
	for i := range 10 {
		fsys[fmt.Sprintf("docs/%02d.md", i)] = file(fmt.Sprintf("# Note %d\n\nWords.", i))
	}
	if _, _, err := run(t, st, fsys, Options{}, "docs"); err != nil {
		t.Fatal(err)
	}
	ix, err := New(t.Context(), st, Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	all, err := ix.Stored(t.Context(), "docs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	removed := 0
	err = RemoveDocuments(ctx, st, all, 4, func(index.Stamp, int) {
		if removed++; removed == 4 {
			cancel() // after the first batch
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's", err)
	}
	docs, _ := st.Documents(t.Context(), "")
	if removed != 4 || len(docs) != 6 {
		t.Fatalf("removed %d, %d left; want 4 and 6", removed, len(docs))
	}
	checkIndex(t, st)
}
