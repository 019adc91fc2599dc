// Package evaltest finds the shared data the quality tests and benchmarks
// read: the folder shared/data beside the repository (see its README),
// which CI places beside the clone and which is never copied into it.
package evaltest

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedData returns the folder shared/data/sub found beside the working
// directory or beside any folder above it (a package folder sits below the
// module root, and a git worktree deeper still), or skips the test or
// benchmark when there is none.
func SharedData(tb testing.TB, sub string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "..", "shared", "data", sub)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skipf("shared data %s absent (expected at ../shared/data beside the repository, as in CI)", sub)
		}
		dir = parent
	}
}
