package index

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestRemoveStaleVectorCacheTemps: a process killed while writing the
// vector cache leaves a vectors.cache.tmp* file; opening the index for
// writing (cite index, cite check --repair) removes it, but not one another
// process is writing (it holds it locked) nor one written a moment ago.
func TestRemoveStaleVectorCacheTemps(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	old := time.Now().Add(-time.Hour)
	put := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial cache"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := put("vectors.cache.tmp1111", old)
	young := put("vectors.cache.tmp2222", time.Now())
	held := put("vectors.cache.tmp3333", old)
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatal(ok, err)
	}
	other := put("notes.tmp", old)

	// A reader removes nothing: it may not write the folder.
	st, err = Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("a read-only open removed %s: %v", stale, err)
	}

	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		path string
		kept bool
	}{{stale, false}, {young, true}, {held, runtime.GOOS != "windows" && runtime.GOOS != "plan9"}, {other, true}} {
		_, err := os.Stat(c.path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s kept: %v, want %v", filepath.Base(c.path), kept, c.kept)
		}
	}
}
