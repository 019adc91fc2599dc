package index

import (
	"errors"
	"fmt"
	"github.com/cite-rag/cite/index/embed"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedFixture makes an index of 40 documents of 5 chunks with vectors,
// closed cleanly, and returns its folder.
func damagedFixture(t *testing.T) string {
	t.Helper()
	return damagedFixturePages(t, 4096)
}

// damagedFixturePages is damagedFixture with pages of the given size. Its
// texts and vectors grow with the pages (hash:256 and 300 bytes at 4 KB),
// so that its tables span as many pages at every size: damage at the same
// place hits as many rows.
func damagedFixturePages(t *testing.T, size int) string {
	t.Helper()
	defer func(was int) { pageSize = was }(pageSize)
	pageSize = size
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := embed.New(fixtureEmbedder(size), embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("honeybee colony queen worker comb wax nectar dance sun angle forager hive larva brood pollen swarm drone sqlite log page commit reader writer checkpoint")
	rng := rand.New(rand.NewPCG(1, 2))
	for d := range 40 {
		var texts []string
		for range 5 {
			var b strings.Builder
			for b.Len() < 300*size/4096 {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			texts = append(texts, b.String())
		}
		putTexts(t, st, e, fmt.Sprintf("/doc%02d.txt", d), texts...)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRecover damages the database file in the ways disks and people do,
// and checks that opening says so and names the fix, that Check finds it,
// and that Recover rebuilds a consistent index from what is readable,
// keeping the damaged file aside and reporting what it lost.
func TestRecover(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, file string, size, page int64)
		// what opening for writing does: ErrCorrupt at once, or only with
		// Verify
		atOpen bool
		// least documents recovered whole
		minDocs int
	}{
		{"truncated at half", func(t *testing.T, file string, size, page int64) {
			os.Truncate(file, size/2/page*page)
		}, true, 1},
		{"truncated mid-page", func(t *testing.T, file string, size, page int64) {
			os.Truncate(file, size*2/3+100)
		}, true, 1},
		{"4 KB of garbage in the middle", func(t *testing.T, file string, size, page int64) {
			garbage := make([]byte, 4096)
			rng := rand.New(rand.NewPCG(3, 4))
			for i := range garbage {
				garbage[i] = byte(rng.Uint32())
			}
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(garbage, size/2/page*page); err != nil {
				t.Fatal(err)
			}
		}, false, 30},
		{"header overwritten", func(t *testing.T, file string, size, page int64) {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteAt([]byte(strings.Repeat("x", 100)), 0)
		}, true, 40},
		// Page 1 holds the schema: without it no table can be found.
		{"first page overwritten", func(t *testing.T, file string, size, page int64) {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteAt(randomBytes(4000, 5), 100)
		}, true, 0},
		{"random bytes", func(t *testing.T, file string, size, page int64) {
			os.WriteFile(file, randomBytes(8192, 6), 0o644)
		}, true, 0},
		{"a line of text", func(t *testing.T, file string, size, page int64) {
			os.WriteFile(file, []byte("garbage\n"), 0o644)
		}, true, 0},
	}
	// Indexes made by older cite have pages of 4 KB.
	for _, page := range []int{4096, pageSize} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%dKB/%s", page/1024, c.name), func(t *testing.T) {
				testRecover(t, page, c.damage, c.atOpen, c.minDocs)
			})
		}
	}
}

func testRecover(t *testing.T, page int, damage func(t *testing.T, file string, size, page int64), atOpen bool, minDocs int) {
	ctx := t.Context()
	dir := damagedFixturePages(t, page)
	file := filepath.Join(dir, dbFile)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	damage(t, file, fi.Size(), int64(page))

	st, err := Open(ctx, dir, Options{})
	if atOpen {
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "cite check --repair") {
			t.Fatalf("open: %v, want ErrCorrupt naming the fix", err)
		}
	} else {
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		rep, err := st.Check(ctx)
		st.Close()
		if err != nil || !rep.Corrupt || rep.OK() {
			t.Fatalf("check: %v %+v, want the damage found", err, rep)
		}
		if _, err := Open(ctx, dir, Options{Verify: true}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("open with Verify: %v, want ErrCorrupt", err)
		}
	}
	if _, err := Open(ctx, dir, Options{ReadOnly: true, Verify: true}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("read-only open with Verify: %v, want ErrCorrupt", err)
	}

	rec, err := Recover(ctx, dir)
	if err != nil {
		t.Fatalf("recover: %v", err)
	}
	t.Logf("recovered %d sources, %d documents (%d to re-index), %d chunks, %d vectors; lost %d rows, %d documents; skipped %d damaged ranges",
		rec.Sources, rec.Documents, len(rec.Reindex), rec.Chunks, rec.Vectors, rec.LostRows, rec.LostDocuments, rec.Skipped)
	if _, err := os.Stat(rec.Damaged); err != nil || !strings.HasPrefix(filepath.Base(rec.Damaged), "index.db.corrupt-") {
		t.Errorf("damaged file not kept: %q %v", rec.Damaged, err)
	}
	st, err = Open(ctx, dir, Options{Verify: true})
	if err != nil {
		t.Fatalf("open after recovery: %v", err)
	}
	defer st.Close()
	rep, err := st.Check(ctx)
	if err != nil || rep.Corrupt || rep.OrphanVectors+rep.BadVectors+rep.BadTermCounts > 0 {
		t.Fatalf("check after recovery: %v %+v", err, rep)
	}
	whole := rep.Documents - len(rec.Reindex)
	if rep.Documents != rec.Documents || rep.Chunks != rec.Chunks || rep.Vectors != rec.Vectors || whole < minDocs || rep.Documents > 40 {
		t.Errorf("%d documents (%d whole), recovered %d; want at least %d whole", rep.Documents, whole, rec.Documents, minDocs)
	}
	if rep.Documents < 40 && rec.LostRows+rec.Skipped == 0 && !rec.MetaLost && rec.LostDocuments == 0 {
		t.Errorf("documents lost but none reported: %+v", rec)
	}
	if rec.Chunks > 0 && !rec.MetaLost && rec.Vectors == 0 {
		t.Errorf("%d chunks recovered and none of their vectors", rec.Chunks)
	}
	if rep.MissingVectors != 0 && !rec.MetaLost {
		// The chunks whose vectors were lost are found by full-text
		// search until the caller makes them.
		t.Logf("%d vectors to make", rep.MissingVectors)
	}
	for _, d := range rec.Reindex {
		if d.Hash != "" || d.Chunks != 0 || d.Size != -1 {
			t.Errorf("document to re-index %s: %+v", d.Path, d)
		}
	}
	// The recovered index takes writes and searches.
	if rs, err := st.SearchText(ctx, "honeybee", Filter{}, 3); err != nil || (whole > 0 && len(rs) == 0) {
		t.Errorf("search after recovery: %v %v", rs, err)
	}
	e, _ := embed.New(fixtureEmbedder(page), embed.Config{})
	if !rec.MetaLost {
		putTexts(t, st, e, "/new.txt", "a new document after recovery")
	}
	// The rebuilt database is new: it has the pages of new ones.
	if got := pageSizeOf(t, st); got != pageSize {
		t.Errorf("recovered index has pages of %d bytes, want %d", got, pageSize)
	}
}

// fixtureEmbedder is the embedder of damagedFixturePages.
func fixtureEmbedder(pageSize int) string { return fmt.Sprintf("hash:%d", 256*pageSize/4096) }

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
