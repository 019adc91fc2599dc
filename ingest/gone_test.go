package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/index"
)

// goneFS is a file system whose files and folders are deleted while they
// are walked: those in open are listed by their folder but gone when
// opened, those in info gone when their folder's entry is asked for its
// details (lstat), and the folders in list gone when listed themselves.
type goneFS struct {
	fstest.MapFS
	open, info, list map[string]bool
}

var errGone = &fs.PathError{Op: "open", Err: fs.ErrNotExist}

func (g goneFS) Open(name string) (fs.File, error) {
	if g.open[name] || g.info[name] {
		return nil, errGone
	}
	return g.MapFS.Open(name)
}

func (g goneFS) Stat(name string) (fs.FileInfo, error) {
	if g.open[name] || g.info[name] || g.list[name] {
		return nil, errGone
	}
	return g.MapFS.Stat(name)
}

func (g goneFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if g.list[name] {
		return nil, errGone
	}
	es, err := g.MapFS.ReadDir(name)
	for i, e := range es {
		if g.info[name+"/"+e.Name()] {
			es[i] = goneEntry{e}
		}
	}
	return es, err
}

// goneEntry is a folder entry whose file is gone.
type goneEntry struct{ fs.DirEntry }

func (goneEntry) Info() (fs.FileInfo, error) { return nil, errGone }

// TestGoneDuringWalk: a file or folder deleted after its folder was listed
// is "gone", not "failed", and does not fail the run (issue 20, item 12).
// Its version indexed before is kept, unless the run prunes.
func TestGoneDuringWalk(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/a.md":       file("# A\n\nStays."),
		"docs/b.md":       file("# B\n\nDeleted before it is read."),
		"docs/c.md":       file("# C\n\nDeleted before its details are read."),
		"docs/sub/d.md":   file("# D\n\nIts folder is deleted before it is listed."),
		"docs/other/e.md": file("# E\n\nStays too."),
	}
	gone := goneFS{MapFS: fsys, open: map[string]bool{"docs/b.md": true}, info: map[string]bool{"docs/c.md": true}, list: map[string]bool{"docs/sub": true}}
	for _, prune := range []bool{false, true} {
		name := "keep"
		if prune {
			name = "prune"
		}
		t.Run(name, func(t *testing.T) {
			st := newStore(t)
			if _, _, err := run(t, st, fsys, Options{}, "docs"); err != nil {
				t.Fatal(err)
			}
			stats, events, err := run(t, st, gone, Options{Force: true, Prune: prune}, "docs")
			if err != nil {
				t.Fatalf("the run failed: %v", err)
			}
			if stats.Gone != 3 || stats.Failed != 0 || stats.Updated != 2 {
				t.Errorf("stats %+v, want 3 gone, 0 failed, 2 updated", stats)
			}
			for _, p := range []string{"docs/b.md", "docs/c.md", "docs/sub"} {
				if ev := events[p]; ev.Outcome != Gone || ev.Err != nil || !strings.Contains(ev.Reason, "deleted during the run") {
					t.Errorf("%s: %v %q %v, want gone", p, ev.Outcome, ev.Reason, ev.Err)
				}
			}
			_, err = st.Document(t.Context(), "", "docs/b.md")
			if prune && !errors.Is(err, index.ErrNotFound) {
				t.Errorf("b.md, gone, after a pruning run: %v, want it removed", err)
			}
			if !prune && err != nil {
				t.Errorf("b.md, gone, after a run that does not prune: %v, want it kept", err)
			}
		})
	}
}

// TestSymlinkLoop: a symbolic link that leads back to itself, directly or
// through another, is skipped as a "symlink loop" in a folder, and named so
// when it is given as a path (issue 20, item 12).
func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	for _, l := range [][2]string{{"self", "self"}, {"a", "b"}, {"b", "a"}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("# OK\n\nText."), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	events := map[string]Event{}
	ix, err := New(t.Context(), st, Options{OnEvent: func(e Event) { events[e.Path] = e }})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := ix.Index(t.Context(), dir)
	if err != nil || stats.Added != 1 || stats.Skipped != 3 {
		t.Fatalf("stats %+v, %v", stats, err)
	}
	for _, l := range []string{"self", "a", "b"} {
		if ev := events[filepath.Join(dir, l)]; ev.Outcome != Skipped || !strings.HasPrefix(ev.Reason, "symlink loop") {
			t.Errorf("%s: %v %q, want skipped as a symlink loop", l, ev.Outcome, ev.Reason)
		}
	}
	_, err = ix.Index(t.Context(), filepath.Join(dir, "self"))
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "self: symlink loop") {
		t.Errorf("indexing the loop itself: %v, want a PathError saying symlink loop", err)
	}
}

// TestReplacedByFolder: a file replaced by a folder of its name, or a
// folder by a file (a branch checked out, a watcher's changes), is gone
// as the document it was: missing, or pruned with Prune. Before, a
// folder at a document's path kept it indexed, as a file still there.
func TestReplacedByFolder(t *testing.T) {
	for _, prune := range []bool{false, true} {
		t.Run(map[bool]string{false: "kept", true: "pruned"}[prune], func(t *testing.T) {
			dir := t.TempDir()
			p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
			put := func(rel, text string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(p(rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p(rel), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			put("swap", "a file named swap.\n")
			put("box/x.md", "# X\n\nin a folder named box.\n")
			put("a.md", "# A\n")
			st := newStore(t)
			index := func() map[string]Event {
				t.Helper()
				events := map[string]Event{}
				ix, err := New(t.Context(), st, Options{Prune: prune, OnEvent: func(e Event) { events[e.Path] = e }})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ix.Index(t.Context(), dir); err != nil {
					t.Fatal(err)
				}
				return events
			}
			index()
			for _, rel := range []string{"swap", "box"} {
				if err := os.RemoveAll(p(rel)); err != nil {
					t.Fatal(err)
				}
			}
			put("swap/y.md", "# Y\n\nin a folder named swap.\n")
			put("box", "a file named box.\n")
			events := index()
			want := Missing
			if prune {
				want = Pruned
			}
			for rel, want := range map[string]Outcome{"swap": want, "box/x.md": want, "swap/y.md": Added, "box": Added} {
				if e, ok := events[p(rel)]; !ok || e.Outcome != want {
					t.Errorf("%s: %v (an event: %v), want %v", rel, e.Outcome, ok, want)
				}
			}
		})
	}
}
