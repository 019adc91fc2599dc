package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/internal/weaviatetest"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func file(data string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(data), ModTime: t0, Mode: 0o644}
}

// failFS fails to open the named files, as unreadable files do.
type failFS struct {
	fstest.MapFS
	fail map[string]bool
}

func (f failFS) Open(name string) (fs.File, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.Open(name)
}

func newStore(t *testing.T) *index.Store {
	t.Helper()
	st, err := index.Open(t.Context(), t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// run indexes paths of fsys and returns the stats and the events by path.
func run(t *testing.T, st *index.Store, fsys fs.FS, opts Options, paths ...string) (Stats, map[string]Event, error) {
	t.Helper()
	events := map[string]Event{}
	opts.FS = fsys
	opts.OnEvent = func(e Event) { events[e.Path] = e }
	ix, err := New(t.Context(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := ix.Index(t.Context(), paths...)
	return stats, events, err
}

func corpus() fstest.MapFS {
	return fstest.MapFS{
		"docs/a.md":             file("---\ntitle: Alpha\n---\n# Alpha\n\nThe first document. It talks about <b>bold</b> ideas.\n\n## Part\n\nMore text here.\n"),
		"docs/b.html":           file("<html><head><title>Beta page</title><script>var x=1;</script></head><body><p>Beta body&nbsp;text.</p></body></html>"),
		"docs/c.txt":            file("Plain   text\n\n\n\nwith lines."),
		"docs/sub/d.markdown":   file("# Delta\n\nNested file."),
		"docs/notes":            file("A text file without an extension."),
		"docs/.hidden/x.md":     file("# Hidden"),
		"docs/.secret.md":       file("# Secret"),
		"docs/img.png":          file("\x89PNG\r\n\x1a\n\x00\x00"),
		"docs/blob.dat":         file("abc\x00def"),
		"docs/empty.txt":        file(""),
		"docs/blank.md":         file("  \n\n \t\n"),
		"docs/latin1.txt":       file("Our caf\xe9 serves cr\xe8me br\xfbl\xe9e on Sundays."),
		"docs/cyrillic.txt":     file("\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0"), // windows-1251, not Latin-1
		"docs/utf16.txt":        file("\xff\xfeh\x00i\x00"),
		"docs/huge.txt":         file(strings.Repeat("big ", 300)),
		"docs/locked.md":        file("# Locked"),
		"docs/only-script.html": file("<script>alert(1)</script>"),
	}
}

func TestIndexSkipsAndReports(t *testing.T) {
	st := newStore(t)
	fsys := failFS{corpus(), map[string]bool{"docs/locked.md": true}}
	stats, events, err := run(t, st, fsys, Options{MaxSize: 1000}, "docs")
	if err == nil || !strings.Contains(err.Error(), "docs/locked.md") || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v, want the unreadable file named", err)
	}
	want := map[string]struct {
		out    Outcome
		reason string
	}{
		"docs/a.md":             {Added, ""},
		"docs/b.html":           {Added, ""},
		"docs/c.txt":            {Added, ""},
		"docs/sub/d.markdown":   {Added, ""},
		"docs/notes":            {Added, ""},
		"docs/img.png":          {Skipped, "binary file (image)"},
		"docs/blob.dat":         {Skipped, "NUL byte at offset 3"},
		"docs/empty.txt":        {Skipped, "empty file"},
		"docs/blank.md":         {Skipped, "empty file"},
		"docs/latin1.txt":       {Added, ""},
		"docs/cyrillic.txt":     {Skipped, "not valid UTF-8 (first bad byte at offset 0)"},
		"docs/utf16.txt":        {Added, ""},
		"docs/huge.txt":         {Skipped, "too large (1.2 kB, limit 1.0 kB)"},
		"docs/locked.md":        {Failed, ""},
		"docs/only-script.html": {Skipped, "no text after normalization"},
	}
	for p, w := range want {
		e, ok := events[p]
		if !ok {
			t.Errorf("%s: no event", p)
			continue
		}
		if e.Outcome != w.out || !strings.Contains(e.Reason, w.reason) {
			t.Errorf("%s: %v %q, want %v %q", p, e.Outcome, e.Reason, w.out, w.reason)
		}
	}
	for p := range events {
		if strings.Contains(p, "/.") {
			t.Errorf("hidden file %s was walked", p)
		}
	}
	if stats.Seen != len(want) || stats.Added != 7 || stats.Skipped != 7 || stats.Failed != 1 {
		t.Errorf("stats = %+v", stats)
	}
	docs, _ := st.Documents(t.Context(), index.DefaultSource)
	titles := map[string]string{}
	for _, d := range docs {
		titles[d.Path] = d.Title
	}
	for p, title := range map[string]string{"docs/a.md": "Alpha", "docs/b.html": "Beta page", "docs/sub/d.markdown": "Delta", "docs/c.txt": "Plain text", "docs/notes": "notes"} {
		if titles[p] != title {
			t.Errorf("title of %s = %q, want %q", p, titles[p], title)
		}
	}
	checkIndex(t, st)
}

// checkIndex fails the test if the index is inconsistent.
func checkIndex(t *testing.T, st *index.Store) {
	t.Helper()
	rep, err := st.Check(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("index inconsistent: %+v", rep.Problems)
	}
}

func TestIndexIncremental(t *testing.T) { testIndexIncremental(t, newStore(t)) }

// TestIndexIncrementalWeaviate runs TestIndexIncremental with a real
// one-node Weaviate attached as the index's replica: after every step the
// collection holds exactly what the index holds (checkIndex compares them).
func TestIndexIncrementalWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	w, err := weaviate.Open(t.Context(), weaviate.Config{Addr: c.Addr(), Collection: "Incremental"})
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	if err := st.SetReplica(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	testIndexIncremental(t, st)
}

func testIndexIncremental(t *testing.T, st *index.Store) {
	ctx := t.Context()
	fsys := corpus()
	paths := []string{"docs/a.md", "docs/b.html", "docs/c.txt"}
	if s, _, err := run(t, st, fsys, Options{}, paths...); err != nil || s.Added != 3 {
		t.Fatalf("first run: %+v, %v", s, err)
	}
	before, _ := st.Documents(ctx, "")
	chunksBefore, _ := st.Chunks(ctx, before[0].ID)

	t.Run("unchanged", func(t *testing.T) {
		s, _, err := run(t, st, fsys, Options{}, paths...)
		if err != nil || s.Unchanged != 3 || s.Bytes != 0 {
			t.Fatalf("stats = %+v, %v (nothing should even be read)", s, err)
		}
		after, _ := st.Documents(ctx, "")
		for i := range after {
			if !after[i].IndexedAt.Equal(before[i].IndexedAt) {
				t.Errorf("%s was rewritten", after[i].Path)
			}
		}
	})
	t.Run("touched", func(t *testing.T) {
		fsys["docs/c.txt"] = &fstest.MapFile{Data: fsys["docs/c.txt"].Data, ModTime: t0.Add(time.Hour)}
		s, _, err := run(t, st, fsys, Options{}, paths...)
		if err != nil || s.Unchanged != 3 || s.Updated != 0 {
			t.Fatalf("stats = %+v, %v", s, err)
		}
		d, _ := st.Document(ctx, "", "docs/c.txt")
		if !d.ModTime.Equal(t0.Add(time.Hour)) {
			t.Errorf("mtime not recorded: %v", d.ModTime)
		}
		if s, _, _ := run(t, st, fsys, Options{}, paths...); s.Bytes != 0 {
			t.Errorf("touched file read again: %+v", s)
		}
	})
	t.Run("edited", func(t *testing.T) {
		fsys["docs/a.md"] = &fstest.MapFile{Data: []byte("# Alpha\n\nRewritten entirely."), ModTime: t0.Add(2 * time.Hour)}
		s, events, err := run(t, st, fsys, Options{}, paths...)
		if err != nil || s.Updated != 1 || s.Unchanged != 2 || events["docs/a.md"].Outcome != Updated {
			t.Fatalf("stats = %+v, %v", s, err)
		}
		d, _ := st.Document(ctx, "", "docs/a.md")
		cs, _ := st.Chunks(ctx, d.ID)
		if len(cs) != 1 || !strings.Contains(cs[0].Text, "Rewritten entirely.") || cs[0].ID == chunksBefore[0].ID {
			t.Fatalf("chunks not replaced: %+v", cs)
		}
		checkIndex(t, st)
	})
	t.Run("force", func(t *testing.T) {
		s, _, err := run(t, st, fsys, Options{Force: true}, paths...)
		if err != nil || s.Updated != 3 {
			t.Fatalf("stats = %+v, %v", s, err)
		}
		checkIndex(t, st)
	})
	t.Run("became empty", func(t *testing.T) {
		fsys["docs/c.txt"] = &fstest.MapFile{Data: nil, ModTime: t0.Add(3 * time.Hour)}
		_, events, _ := run(t, st, fsys, Options{}, paths...)
		if e := events["docs/c.txt"]; e.Outcome != Skipped || !strings.Contains(e.Reason, "removed its old version") {
			t.Fatalf("event = %+v", e)
		}
		if _, err := st.Document(ctx, "", "docs/c.txt"); !errors.Is(err, index.ErrNotFound) {
			t.Fatalf("stale document kept: %v", err)
		}
		checkIndex(t, st)
	})
	t.Run("deleted and pruned", func(t *testing.T) {
		delete(fsys, "docs/b.html")
		s, _, err := run(t, st, fsys, Options{}, "docs")
		if err != nil || s.Pruned != 0 {
			t.Fatalf("without --prune: %+v, %v", s, err)
		}
		if _, err := st.Document(ctx, "", "docs/b.html"); err != nil {
			t.Fatalf("removed without --prune: %v", err)
		}
		s, events, err := run(t, st, fsys, Options{Prune: true}, "docs")
		if err != nil || s.Pruned != 1 || events["docs/b.html"].Outcome != Pruned {
			t.Fatalf("with --prune: %+v, %v", s, err)
		}
		if _, err := st.Document(ctx, "", "docs/b.html"); !errors.Is(err, index.ErrNotFound) {
			t.Fatalf("pruned document still there: %v", err)
		}
		checkIndex(t, st)
	})
}

func TestPruneOnlyUnderGivenPaths(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := fstest.MapFS{"a/one.md": file("# One"), "b/two.md": file("# Two")}
	if _, _, err := run(t, st, fsys, Options{}, "a", "b"); err != nil {
		t.Fatal(err)
	}
	delete(fsys, "a/one.md")
	delete(fsys, "b/two.md")
	fsys["b/keep.md"] = file("# Keep")
	s, _, _ := run(t, st, fsys, Options{Prune: true}, "b")
	if s.Pruned != 1 {
		t.Fatalf("pruned %d, want only b/two.md", s.Pruned)
	}
	if _, err := st.Document(ctx, "", "a/one.md"); err != nil {
		t.Fatalf("a/one.md pruned though a was not given: %v", err)
	}
	s, _, err := run(t, st, fsys, Options{Prune: true})
	if err != nil || s.Pruned != 1 {
		t.Fatalf("prune with no paths: %+v, %v", s, err)
	}
}

// TestFileBecameFolder: a document whose file was replaced by a folder of
// the same name (notes.md/ holding the notes now) is missing, and --prune
// removes it; it was kept as "still there", never reported and never
// pruned, and answers went on citing the file that was gone.
func TestFileBecameFolder(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := fstest.MapFS{"docs/notes.md": file("# Notes\n\nKrill.")}
	if _, _, err := run(t, st, fsys, Options{}, "docs"); err != nil {
		t.Fatal(err)
	}
	delete(fsys, "docs/notes.md")
	fsys["docs/notes.md/today.md"] = file("# Today\n\nWhales.")
	s, events, err := run(t, st, fsys, Options{}, "docs")
	if err != nil || s.Missing != 1 || events["docs/notes.md"].Outcome != Missing {
		t.Fatalf("without --prune: %+v, %v, %+v", s, err, events["docs/notes.md"])
	}
	s, events, err = run(t, st, fsys, Options{Prune: true}, "docs")
	if err != nil || s.Pruned != 1 || events["docs/notes.md"].Outcome != Pruned {
		t.Fatalf("with --prune: %+v, %v, %+v", s, err, events["docs/notes.md"])
	}
	if _, err := st.Document(ctx, "", "docs/notes.md"); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("the file's document is still there: %v", err)
	}
	if _, err := st.Document(ctx, "", "docs/notes.md/today.md"); err != nil {
		t.Fatalf("the folder's file: %v", err)
	}
}

// TestPruneInBatches removes more documents than one transaction of the
// prune takes: every one is pruned, with its event, and the index is
// consistent.
func TestPruneInBatches(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := fstest.MapFS{}
	const n = pruneBatchSize + pruneBatchSize/2
	for i := range n + 3 {
		fsys[fmt.Sprintf("docs/%04d.md", i)] = file(fmt.Sprintf("# Note %d\n\nWord%d and shared words.", i, i))
	}
	if s, _, err := run(t, st, fsys, Options{}, "docs"); err != nil || s.Added != n+3 {
		t.Fatalf("index: %+v, %v", s, err)
	}
	for i := range n {
		delete(fsys, fmt.Sprintf("docs/%04d.md", i))
	}
	s, events, err := run(t, st, fsys, Options{Prune: true}, "docs")
	if err != nil || s.Pruned != n {
		t.Fatalf("prune: %+v, %v", s, err)
	}
	pruned := 0
	for _, e := range events {
		if e.Outcome == Pruned {
			pruned++
		}
	}
	if pruned != n {
		t.Fatalf("%d pruned events, want %d", pruned, n)
	}
	docs, err := st.Documents(ctx, "")
	if err != nil || len(docs) != 3 {
		t.Fatalf("%d documents left, want 3: %v", len(docs), err)
	}
	checkIndex(t, st)
}

func TestIndexGlobsAndMissingPaths(t *testing.T) {
	st := newStore(t)
	s, events, err := run(t, st, corpus(), Options{}, "docs/**/*.md", "nope/missing.md", "docs/*.zzz")
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "nope/missing.md") || !strings.Contains(err.Error(), "docs/*.zzz: no files match") {
		t.Fatalf("err = %v", err)
	}
	for p := range events {
		if !strings.HasSuffix(p, ".md") {
			t.Errorf("glob matched %s", p)
		}
	}
	// a.md, sub/d.markdown is not *.md, locked.md, blank.md (skipped); hidden ones excluded.
	if s.Added != 2 || events["docs/a.md"].Outcome != Added || events["docs/locked.md"].Outcome != Added {
		t.Fatalf("stats = %+v, events %v", s, events)
	}
}

func TestSourceSpansPointIntoTheFile(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := corpus()
	if _, _, err := run(t, st, fsys, Options{}, "docs/a.md", "docs/b.html"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"docs/a.md", "docs/b.html"} {
		d, err := st.Document(ctx, "", p)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := st.Chunks(ctx, d.ID)
		src := string(fsys[p].Data)
		for _, c := range cs {
			if c.SourceStart < 0 || c.SourceEnd > len(src) || c.SourceStart >= c.SourceEnd {
				t.Fatalf("%s chunk %d source span [%d,%d) out of %d bytes", p, c.Ordinal, c.SourceStart, c.SourceEnd, len(src))
			}
			// Every word of the chunk is in its source span.
			for w := range strings.FieldsSeq(c.Text) {
				w = strings.Trim(w, ".")
				if !strings.Contains(src[c.SourceStart:c.SourceEnd], w) {
					t.Errorf("%s chunk %d: %q not in source span %q", p, c.Ordinal, w, src[c.SourceStart:c.SourceEnd])
				}
			}
		}
	}
}

func TestSeparateSources(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := corpus()
	run(t, st, fsys, Options{Source: "one"}, "docs/a.md")
	run(t, st, fsys, Options{Source: "two"}, "docs/a.md", "docs/c.txt")
	srcs, _ := st.Sources(ctx)
	if len(srcs) != 2 || srcs[0].Documents != 1 || srcs[1].Documents != 2 {
		t.Fatalf("sources = %+v", srcs)
	}
}

// TestIndexOSFiles indexes a real folder: paths are stored absolute.
func TestIndexOSFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nText."), 0o644))
	must(os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("More text."), 0o644))
	must(os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "loop")))
	must(os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "link.md")))
	st := newStore(t)
	ix, err := New(t.Context(), st, Options{})
	must(err)
	wd, _ := os.Getwd()
	must(os.Chdir(dir))
	defer os.Chdir(wd)
	s, err := ix.Index(ctx, ".")
	must(err)
	if s.Added != 3 || s.Skipped != 1 {
		t.Fatalf("stats = %+v (a.md, sub/b.txt, link.md; loop skipped)", s)
	}
	d, err := st.Document(ctx, "", filepath.Join(dir, "sub", "b.txt"))
	if err != nil || !filepath.IsAbs(d.Path) {
		t.Fatalf("document %+v, %v", d, err)
	}
	must(os.Remove(filepath.Join(dir, "sub", "b.txt")))
	s, err = ix.Index(ctx, dir)
	must(err)
	if s.Unchanged != 2 {
		t.Fatalf("second run: %+v", s)
	}
	ixp, _ := New(t.Context(), st, Options{Prune: true})
	if s, err = ixp.Index(ctx, dir); err != nil || s.Pruned != 1 {
		t.Fatalf("prune: %+v, %v", s, err)
	}
}

func TestContextCancel(t *testing.T) {
	st := newStore(t)
	fsys := fstest.MapFS{}
	for i := range 200 {
		fsys[fmt.Sprintf("d/%03d.txt", i)] = file(strings.Repeat("word ", 200))
	}
	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	ix, _ := New(t.Context(), st, Options{FS: fsys, OnEvent: func(Event) {
		if n++; n == 10 {
			cancel()
		}
	}})
	_, err := ix.Index(ctx, "d")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	checkIndex(t, st)
}

// TestPruneGonePath: --prune of a folder or file that is gone prunes its
// documents and is no failure; a gone path under which nothing was indexed
// still is (a typo).
func TestPruneGonePath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		paths   []string
		pruned  int
		wantErr bool
	}{
		{"folder", []string{"b"}, 2, false},
		{"file", []string{"a/one.md"}, 1, false},
		{"folder and file", []string{"b", "a/one.md"}, 3, false},
		{"never indexed", []string{"c"}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			fsys := fstest.MapFS{"a/one.md": file("# One"), "a/keep.md": file("# Keep"), "b/two.md": file("# Two"), "b/sub/three.md": file("# Three")}
			if _, _, err := run(t, st, fsys, Options{}, "a", "b"); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"a/one.md", "b/two.md", "b/sub/three.md", "b/sub", "b"} {
				delete(fsys, p)
			}
			s, events, err := run(t, st, fsys, Options{Prune: true}, tc.paths...)
			if (err != nil) != tc.wantErr || s.Pruned != tc.pruned || s.Failed != 0 {
				t.Fatalf("prune %v: %+v, %v; want %d pruned, error %v", tc.paths, s, err, tc.pruned, tc.wantErr)
			}
			for p, e := range events {
				if e.Outcome == Failed {
					t.Errorf("%s failed: %v", p, e.Err)
				}
			}
		})
	}
}

// TestIndexCancelled: files under way when the run is cancelled are counted
// as interrupted, not failed, and not reported as events.
// heldFS lets the first file it opens be read and holds every later open
// until ctx ends, which then fails as the read of a cancelled run does: the
// files under way when the run is interrupted.
type heldFS struct {
	fstest.MapFS
	ctx   context.Context
	opens atomic.Int64
}

func (h *heldFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".md") && h.opens.Add(1) > 1 {
		<-h.ctx.Done()
		return nil, h.ctx.Err()
	}
	return h.MapFS.Open(name)
}

func TestIndexCancelled(t *testing.T) {
	st := newStore(t)
	fsys := fstest.MapFS{}
	for i := range 300 {
		fsys[fmt.Sprintf("d/%03d.md", i)] = file(fmt.Sprintf("# Doc %d\n\nSome text about bees and hives, number %d.\n", i, i))
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var failed []string
	ix, err := New(ctx, st, Options{FS: &heldFS{MapFS: fsys, ctx: ctx}, Workers: 4, OnEvent: func(e Event) {
		if e.Outcome == Failed {
			failed = append(failed, fmt.Sprintf("%s: %v", e.Path, e.Err))
		}
		cancel()
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ix.Index(ctx, "d")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(failed) > 0 || s.Failed != 0 {
		t.Errorf("%d failed: %v", s.Failed, failed)
	}
	if s.Interrupted == 0 || s.Seen+s.Interrupted > 300 {
		t.Errorf("stats %+v: want some interrupted", s)
	}
}

// TestLongHeadingBounded indexes a file whose heading is 120 KB, into the
// index alone and with a Weaviate replica (skipped without weaviate-server):
// every chunk, in each store, carries the heading clipped to
// chunk.MaxHeadingBytes, and the title is clipped alike. Then it makes the
// document what cite wrote before the bound (pipeline version 1, the whole
// heading on every chunk) and checks that the next run redoes it, bounding
// the paths of the chunks it keeps too.
func TestLongHeadingBounded(t *testing.T) {
	t.Run("index", func(t *testing.T) { testLongHeadingBounded(t, newStore(t), nil) })
	t.Run("weaviate", func(t *testing.T) {
		c := weaviatetest.Start(t, 1)
		w, err := weaviate.Open(t.Context(), weaviate.Config{Addr: c.Addr(), Collection: "LongHeading"})
		if err != nil {
			t.Fatal(err)
		}
		st := newStore(t)
		if err := st.SetReplica(t.Context(), w); err != nil {
			t.Fatal(err)
		}
		testLongHeadingBounded(t, st, w)
	})
}

func testLongHeadingBounded(t *testing.T, st *index.Store, w *weaviate.Store) {
	ctx := t.Context()
	long := strings.TrimSpace(strings.Repeat("lorem ", 20000))
	clipped := chunk.Clip(long, chunk.MaxHeadingBytes)
	fsys := fstest.MapFS{"a.md": file("# " + long + "\n\nbody\n")}
	check := func(when string) {
		t.Helper()
		d, err := st.Document(ctx, "", "a.md")
		if err != nil {
			t.Fatal(err)
		}
		if d.Title != clipped {
			t.Errorf("%s: title of %d bytes, want %d", when, len(d.Title), len(clipped))
		}
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) < 10 {
			t.Fatalf("%s: %d chunks", when, len(cs))
		}
		for _, c := range cs {
			if len(c.Headings) != 1 || c.Headings[0] != clipped {
				t.Fatalf("%s: chunk %d has a path of %d headings, the first of %d bytes", when, c.Ordinal, len(c.Headings), len(c.Headings[0]))
			}
			if w == nil {
				continue
			}
			r, err := w.ChunkByID(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Headings) != 1 || r.Headings[0] != clipped || r.Document.Title != clipped {
				t.Fatalf("%s: in Weaviate, chunk %d has a path of %d headings and a title of %d bytes", when, c.Ordinal, len(r.Headings), len(r.Document.Title))
			}
		}
	}
	if s, _, err := run(t, st, fsys, Options{}, "a.md"); err != nil || s.Added != 1 {
		t.Fatalf("first run: %+v, %v", s, err)
	}
	check("indexed")

	d, _ := st.Document(ctx, "", "a.md")
	cs, _ := st.Chunks(ctx, d.ID)
	d.Pipeline = strings.Replace(d.Pipeline, fmt.Sprintf("v%d/", pipelineVersion), "v1/", 1)
	d.Title = long
	for i := range cs {
		cs[i].Headings = []string{long}
	}
	if _, err := st.PutDocument(ctx, &d, cs); err != nil {
		t.Fatal(err)
	}
	if cs, _ := st.Chunks(ctx, d.ID); len(cs) == 0 || cs[0].Headings[0] != long {
		t.Fatal("the whole heading was not stored as version 1 stored it")
	}
	if s, _, err := run(t, st, fsys, Options{}, "a.md"); err != nil || s.Updated != 1 {
		t.Fatalf("run after version 1: %+v, %v", s, err)
	}
	check("redone")
}

// TestWriterBatches: the writer commits added documents in batches that
// fill up to a limit of documents, chunks or text, not whenever no
// finished file is waiting (which, with the workers a file behind the
// writer, made batches of 2 or 3 files); files with nothing to write
// (skipped ones here) do not end a batch.
func TestWriterBatches(t *testing.T) {
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	para := strings.Repeat("Words of a paragraph that fills a chunk of text here. ", 30) + "\n\n"
	for _, tc := range []struct {
		name  string
		files int
		text  string // of each file
	}{
		{"small files", 150, "# A file\n\nOne short paragraph.\n"},
		// Tens of chunks a file: the chunk limit ends batches first.
		{"large files", 120, strings.Repeat(para, 40)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The batches expected: files until one of the limits is
			// reached, the rest in the last.
			cs, _ := sp.Split(tc.text, nil)
			var want []int
			var docs, chunks int
			for range tc.files {
				docs++
				chunks += len(cs)
				if docs >= batchLimits.docs || chunks >= batchLimits.chunks {
					want = append(want, docs)
					docs, chunks = 0, 0
				}
			}
			if docs > 0 {
				want = append(want, docs)
			}
			fsys := fstest.MapFS{}
			for i := range tc.files {
				fsys[fmt.Sprintf("d/f%03d.md", i)] = file(tc.text)
				if i%10 == 0 {
					fsys[fmt.Sprintf("d/f%03d-empty.md", i)] = file("") // skipped
				}
			}
			st := newStore(t)
			ix, err := New(t.Context(), st, Options{FS: fsys, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			ix.batchDelay = time.Hour // batches end by their limits alone
			var got []int
			ix.onBatch = func(b batchSize) { got = append(got, b.docs) }
			stats, err := ix.Index(t.Context(), "d")
			if err != nil || stats.Added != tc.files {
				t.Fatalf("%+v, %v", stats, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("batches of %v documents (files of %d chunks), want %v", got, len(cs), want)
			}
		})
	}
}

// TestStampPaths: the stored paths whose documents a run compares files
// with: each name's, a pattern's folder before its first wildcard, every
// path for the root, a pattern without a folder or no name at all.
func TestStampPaths(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		names  []string
		want   []string
	}{
		{"", []string{"."}, []string{""}},
		{"/", []string{"."}, []string{"/"}},
		{"", []string{"docs", "notes/a.md"}, []string{"docs", "notes/a.md"}},
		{"/", []string{"home/me/docs"}, []string{"/home/me/docs"}},
		{"/", []string{"home/me/**/*.md", "home/me/d?/x.md"}, []string{"/home/me/", "/home/me/"}},
		{"", []string{"*.md"}, []string{""}},
		{"", []string{"docs/a[bc]/*.md"}, []string{"docs/"}},
		{"/", nil, []string{""}},
	} {
		ix := &Indexer{prefix: tc.prefix}
		if got := ix.stampPaths(tc.names); !slices.Equal(got, tc.want) {
			t.Errorf("prefix %q, names %q: got %q, want %q", tc.prefix, tc.names, got, tc.want)
		}
	}
}

// TestMissing: without --prune, documents whose files are gone are kept
// and reported as Missing, only under the paths given; a path given that
// is gone, with documents under it, is an error that says how many are kept
// (its documents are not listed one by one); with --prune none is missing.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		paths      []string
		prune      bool
		missing    []string
		failed     string // the path that fails, if any
		failReason string
	}{
		{"files gone", []string{"a", "b"}, false, []string{"a/one.md", "b/sub/three.md"}, "", ""},
		{"only under the paths", []string{"a"}, false, []string{"a/one.md"}, "", ""},
		{"a glob", []string{"b/**/*.md"}, false, []string{"b/sub/three.md"}, "", ""},
		{"all, no paths", nil, false, []string{"a/one.md", "b/sub/three.md", "c/four.md"}, "", ""},
		{"a folder gone", []string{"a", "c"}, false, []string{"a/one.md"}, "c", "1 document indexed from it is kept (cite index --prune removes it)"},
		{"a file gone", []string{"a/one.md"}, false, nil, "a/one.md", "1 document indexed from it is kept"},
		{"pruned", []string{"a", "b"}, true, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := newStore(t)
			fsys := fstest.MapFS{"a/one.md": file("# One"), "a/keep.md": file("# Keep"), "b/two.md": file("# Two"),
				"b/sub/three.md": file("# Three"), "c/four.md": file("# Four")}
			if _, _, err := run(t, st, fsys, Options{}, "a", "b", "c"); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"a/one.md", "b/sub/three.md", "c/four.md", "c"} {
				delete(fsys, p)
			}
			s, events, err := run(t, st, fsys, Options{Prune: tc.prune}, tc.paths...)
			var missing []string
			for p, e := range events {
				switch e.Outcome {
				case Missing:
					missing = append(missing, p)
					if e.Reason != missingReason {
						t.Errorf("%s: reason %q", p, e.Reason)
					}
				case Failed:
					t.Errorf("%s failed: %v", p, e.Err)
				}
			}
			slices.Sort(missing)
			if !slices.Equal(missing, tc.missing) || s.Missing != len(tc.missing) {
				t.Errorf("missing %v (stats %d), want %v", missing, s.Missing, tc.missing)
			}
			if (tc.failed != "") != (err != nil) {
				t.Errorf("error %v, want a failure of %q", err, tc.failed)
			}
			if tc.failed != "" && !strings.Contains(fmt.Sprint(err), tc.failed+": file does not exist; "+tc.failReason) {
				t.Errorf("error %v, want %s's to say %q", err, tc.failed, tc.failReason)
			}
			// Kept: only --prune removes them.
			for _, p := range tc.missing {
				if _, err := st.Document(ctx, "", p); err != nil {
					t.Errorf("%s removed: %v", p, err)
				}
			}
		})
	}
}

// TestLowerMaxSize: a lower --max-size skips large files that are new or
// changed (a changed one loses its old version), and leaves those indexed
// before and unchanged as they are.
func TestLowerMaxSize(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	big := strings.Repeat("Albatross wingspan notes. ", 100)
	fsys := fstest.MapFS{"docs/big.md": file(big), "docs/grows.md": file("# Grows\n\nSmall at first.")}
	if _, _, err := run(t, st, fsys, Options{}, "docs"); err != nil {
		t.Fatal(err)
	}
	fsys["docs/grows.md"] = &fstest.MapFile{Data: []byte(big + big), ModTime: t0.Add(time.Hour)}
	fsys["docs/new.md"] = file(big)
	s, events, _ := run(t, st, fsys, Options{MaxSize: 1000}, "docs")
	if e := events["docs/big.md"]; e.Outcome != Unchanged {
		t.Errorf("unchanged big.md: %v %s", e.Outcome, e.Reason)
	}
	if e := events["docs/grows.md"]; e.Outcome != Skipped || !strings.Contains(e.Reason, "too large") || !strings.Contains(e.Reason, "removed its old version") {
		t.Errorf("grown grows.md: %v %s", e.Outcome, e.Reason)
	}
	if e := events["docs/new.md"]; e.Outcome != Skipped || !strings.HasPrefix(e.Reason, "too large") {
		t.Errorf("new new.md: %v %s", e.Outcome, e.Reason)
	}
	if s.Unchanged != 1 || s.Skipped != 2 {
		t.Errorf("stats %+v", s)
	}
	if _, err := st.Document(ctx, "", "docs/big.md"); err != nil {
		t.Errorf("big.md removed: %v", err)
	}
	checkIndex(t, st)
}

// TestFolderBecameFile: the documents of a folder replaced by a file of the
// same name are missing, and --prune removes them; their stat fails with
// "not a directory", not "no such file", and they were kept as still
// there, unreadable, for good.
func TestFolderBecameFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "d.md"), []byte("# D\n\nSquid."), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	if _, _, err := run(t, st, nil, Options{}, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sub, []byte("Octopus."), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(sub, "d.md")
	s, events, err := run(t, st, nil, Options{}, dir)
	if err != nil || s.Missing != 1 || events[gone].Outcome != Missing {
		t.Fatalf("without --prune: %+v, %v, %+v", s, err, events[gone])
	}
	s, events, err = run(t, st, nil, Options{Prune: true}, dir)
	if err != nil || s.Pruned != 1 || events[gone].Outcome != Pruned {
		t.Fatalf("with --prune: %+v, %v, %+v", s, err, events[gone])
	}
	if _, err := st.Document(ctx, "", gone); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("the folder's document is still there: %v", err)
	}
}
