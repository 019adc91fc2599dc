package glob

import (
	"strings"
	"testing"
)

// The shared table of cases, run against SQLite as well, is
// index/testdata/glob.txt (index's TestGlobCases); FuzzGlob there compares
// this package with SQLite on any input.

// pathological is "*[a]" n times then "b", against a path of a's that
// does not end in b: a recursive matcher tries every way to place each *
// (0.84 s for n = 6 on a 66-byte path, over 60 s for n = 8).
func pathological(n int) (pattern, name string) {
	return strings.Repeat("*[a]", n) + "b", "/home/user/docs/" + strings.Repeat("a", 1000)
}

// TestMatchPathological matches patterns that make a backtracking matcher
// exponential; Match's steps are bounded by len(pattern) × len(name), so
// this finishes at once (a recursive matcher would run for ages).
func TestMatchPathological(t *testing.T) {
	for _, n := range []int{6, 8, 30, 200} {
		p, name := pathological(n)
		if Compile(p).Match(name) {
			t.Errorf("%d × *[a] then b matched a path without b", n)
		}
		if !Compile(p).Match(name + "b") {
			t.Errorf("%d × *[a] then b did not match a path ending in b", n)
		}
	}
}

func BenchmarkMatchPathological(b *testing.B) {
	p, name := pathological(200)
	m := Compile(p)
	for b.Loop() {
		m.Match(name)
	}
}

// BenchmarkMatchWorst is the greedy matcher's worst case at the size
// index.Filter allows: a 1024-byte pattern that fails at its last byte at
// every start on a 4096-byte path (PATH_MAX).
func BenchmarkMatchWorst(b *testing.B) {
	m := Compile("*" + strings.Repeat("a", 1022) + "b")
	name := strings.Repeat("a", 4096)
	for b.Loop() {
		m.Match(name)
	}
}

func BenchmarkMatchIssue(b *testing.B) {
	m := Compile(strings.Repeat("*[a]", 6) + "b")
	name := "/home/user/" + strings.Repeat("a", 55)
	for b.Loop() {
		m.Match(name)
	}
}
