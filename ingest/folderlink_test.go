package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFolderLinkBelowRoot: a symbolic link to a folder below a root
// (Options.Roots: a watcher's PATH), given as a changed path, is skipped
// as the root's walk skips it, not followed (before, a watcher indexed
// the folder's files through it, which neither cite index nor the
// watcher's later changes saw); a root, or a PATH, that is one is
// followed.
func TestFolderLinkBelowRoot(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "docs")
	ext := filepath.Join(top, "elsewhere")
	for p, text := range map[string]string{filepath.Join(dir, "a.md"): "# A\n", filepath.Join(ext, "e.md"): "# E\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ext, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		roots []string
		paths []string
		want  map[string]Outcome // by path under top
	}{
		{"the root walked", []string{dir}, []string{dir}, map[string]Outcome{"docs/a.md": Added, "docs/link": Skipped}},
		{"the link, below the root", []string{dir}, []string{link}, map[string]Outcome{"docs/link": Skipped}},
		{"the link, a PATH", nil, []string{link}, map[string]Outcome{"docs/link/e.md": Added}},
		{"the link, a root", []string{link}, []string{link}, map[string]Outcome{"docs/link/e.md": Added}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]Outcome{}
			ix, err := New(t.Context(), newStore(t), Options{Roots: tc.roots, OnEvent: func(e Event) {
				rel, _ := filepath.Rel(top, e.Path)
				got[filepath.ToSlash(rel)] = e.Outcome
				if e.Outcome == Skipped && e.Reason != folderLinkSkip {
					t.Errorf("%s skipped: %q", rel, e.Reason)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Index(t.Context(), tc.paths...); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("events %v, want %v", got, tc.want)
			}
			for p, o := range tc.want {
				if got[p] != o {
					t.Errorf("%s: %v, want %v (events %v)", p, got[p], o, got)
				}
			}
		})
	}
}
