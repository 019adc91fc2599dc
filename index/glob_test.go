package index

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/internal/glob"
)

// globCase is one line of testdata/glob.txt.
type globCase struct {
	line          int
	match         bool
	pattern, name string
}

func readGlobCases(t *testing.T) []globCase {
	t.Helper()
	f, err := os.Open("testdata/glob.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []globCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		c := globCase{line: n}
		if _, err := fmt.Sscanf(line, "%t %q %q", &c.match, &c.pattern, &c.name); err != nil {
			t.Fatalf("testdata/glob.txt:%d: %v", n, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func memDB(t testing.TB) *sql.DB {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func sqliteGlob(t testing.TB, db *sql.DB, pattern, name string) bool {
	t.Helper()
	var m bool
	if err := db.QueryRow(`SELECT ? GLOB ?`, name, pattern).Scan(&m); err != nil {
		t.Fatalf("%q GLOB %q: %v", name, pattern, err)
	}
	return m
}

// TestGlobCases runs the shared table of GLOB cases against SQLite, the
// SQLite store's matcher, and against package glob, the Weaviate store's
// (whose own TestMatch runs the same table): a path filter admits the same
// paths in both stores.
func TestGlobCases(t *testing.T) {
	db := memDB(t)
	for _, c := range readGlobCases(t) {
		if got := sqliteGlob(t, db, c.pattern, c.name); got != c.match {
			t.Errorf("glob.txt:%d: SQLite: %q GLOB %q = %v, want %v", c.line, c.name, c.pattern, got, c.match)
		}
		if got := glob.Compile(c.pattern).Match(c.name); got != c.match {
			t.Errorf("glob.txt:%d: glob: %q matches %q = %v, want %v", c.line, c.pattern, c.name, got, c.match)
		}
	}
}

// FuzzGlob checks that package glob agrees with SQLite's GLOB on any
// pattern and name.
func FuzzGlob(f *testing.F) {
	for _, s := range []struct{ p, n string }{
		{"/docs/*", "/docs/a.md"}, {"*[a]*[a]b", "/aaab"}, {"[]-a]", "-"}, {"[^a-c-e]*", "d"},
		{"a?c*", "abcd"}, {"*\xe9*", "caf\xe9\x80"}, {"[é-ë]", "ê"}, {"*[", "x["},
	} {
		f.Add(s.p, s.n)
	}
	db := memDB(f)
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 64 {
			return
		}
		want := sqliteGlob(t, db, pattern, name)
		if got := glob.Compile(pattern).Match(name); got != want {
			t.Fatalf("%q matches %q = %v, SQLite says %v", pattern, name, got, want)
		}
	})
}
