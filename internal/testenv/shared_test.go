package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSharedData(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "repo", "pkg", "sub")
	for _, d := range []string{deep, filepath.Join(root, "shared", "data", "squad")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(deep)
	got := SharedData(t, "squad")
	if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
		t.Fatalf("SharedData = %q: %v", got, err)
	}
	if want := filepath.Join(root, "shared", "data", "squad"); filepath.Clean(got) != filepath.Clean(want) && !sameFile(got, want) {
		t.Errorf("SharedData = %q, want %q", got, want)
	}
	if dir, ok := FindSharedData("no-such-set"); ok {
		t.Errorf("FindSharedData found %q for an absent folder", dir)
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
