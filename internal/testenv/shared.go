package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// FindSharedData returns the folder shared/data/sub found beside the
// working directory or beside any folder above it (a package folder sits
// below the module root, and a git worktree deeper still): the shared data
// the quality tests and benchmarks read (see its README), which CI places
// beside the clone and which is never copied into it. ok is false when
// there is none.
func FindSharedData(sub string) (dir string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(wd, "..", "shared", "data", sub)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return "", false
		}
		wd = parent
	}
}

// SharedData returns the folder shared/data/sub ([FindSharedData]), or
// skips the test or benchmark, saying so, when there is none.
func SharedData(tb testing.TB, sub string) string {
	tb.Helper()
	dir, ok := FindSharedData(sub)
	if !ok {
		tb.Skipf("shared data %s absent (expected at ../shared/data beside the repository, as in CI)", sub)
	}
	return dir
}
