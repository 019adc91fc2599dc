package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
)

// TestIndexOddFileNames indexes real files whose names are not UTF-8, or
// hold a newline or a backslash: each is indexed under its raw name, read
// again by it, and named escaped in errors and fallback titles.
func TestIndexOddFileNames(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	names := []string{"caf\xe9.txt", "line\nbreak.txt", `back\slash.txt`, "\xff\xfe.md"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("Some text about file "+string(rune('a'+i))+"."), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", n, err)
		}
	}
	st := newStore(t)
	ix, err := New(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{dir, filepath.Join(dir, "*.txt")} {
		s, err := ix.Index(ctx, arg)
		if err != nil {
			t.Fatalf("index %q: %v", arg, err)
		}
		if s.Failed != 0 || s.Added+s.Unchanged != s.Seen {
			t.Fatalf("index %q: %+v", arg, s)
		}
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		d, err := st.Document(ctx, "", p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if d.Path != p {
			t.Errorf("stored %q, want the raw bytes %q", d.Path, p)
		}
		if strings.HasSuffix(n, ".md") && d.Title != index.EscapePath(n) {
			t.Errorf("title %q, want the escaped name", d.Title)
		}
	}
	// Unchanged on the next run: the raw names are stat'ed again, and
	// --prune keeps them.
	ixp, _ := New(ctx, st, Options{Prune: true})
	s, err := ixp.Index(ctx, dir)
	if err != nil || s.Unchanged != len(names) || s.Pruned != 0 {
		t.Fatalf("second run: %+v, %v", s, err)
	}
	// Errors name the path escaped.
	bad := filepath.Join(dir, "gone\xe9.md")
	_, err = ix.Index(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), `gone\xe9.md`) {
		t.Fatalf("err = %v", err)
	}
}
