package index

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/cite-rag/cite/index/embed"
)

// pageSizeOf returns the page size of the store's database.
func pageSizeOf(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	if err := st.db.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNewIndexPageSize: a new index's database has pages of pageSize
// bytes, whatever the open that creates it, and says so in its header.
func TestNewIndexPageSize(t *testing.T) {
	if pageSize == 4096 {
		t.Fatal("pageSize is SQLite's default: this test would not see it ignored")
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"create", Options{Create: true}},
		{"create and verify", Options{Create: true, Verify: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idx")
			st, err := Open(t.Context(), dir, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := pageSizeOf(t, st); got != pageSize {
				t.Errorf("page size %d, want %d", got, pageSize)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, dbFile))
			if err != nil {
				t.Fatal(err)
			}
			if got := int(binary.BigEndian.Uint16(data[16:])); got != pageSize%65536 || len(data)%pageSize != 0 {
				t.Errorf("header says pages of %d, file is %d bytes; want pages of %d", got, len(data), pageSize)
			}
		})
	}
}

// TestOldPageSizeKept: an index made with SQLite's default pages of 4 KB,
// as cite made them before, keeps them, and opens, takes writes, answers
// searches and passes its check, for writers and readers.
func TestOldPageSizeKept(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := embed.New("hash:256", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func(was int) { pageSize = was }(pageSize)
		pageSize = 4096
		st, err := Open(ctx, dir, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.UseEmbedder(ctx, e); err != nil {
			t.Fatal(err)
		}
		putTexts(t, st, e, "/old.txt", "honeybee colony written by an older cite")
	}()

	st, err := Open(ctx, dir, Options{Create: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := pageSizeOf(t, st); got != 4096 {
		t.Errorf("page size %d after reopening, want 4096 kept", got)
	}
	putTexts(t, st, e, "/new.txt", "forager dance written by this cite")
	for _, q := range []string{"honeybee", "forager"} {
		if rs, err := st.SearchText(ctx, q, Filter{}, 3); err != nil || len(rs) != 1 {
			t.Errorf("search %q: %v, %v", q, rs, err)
		}
	}
	v, err := e.EmbedQuery(ctx, "forager dance", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := st.SearchVectors(ctx, v, Filter{}, 2); err != nil || len(rs) != 2 {
		t.Errorf("vector search: %v, %v", rs, err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Errorf("check: %+v, %v", rep, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if rs, err := ro.SearchText(ctx, "forager", Filter{}, 3); err != nil || len(rs) != 1 {
		t.Errorf("read-only search: %v, %v", rs, err)
	}
	if got := pageSizeOf(t, ro); got != 4096 {
		t.Errorf("page size %d, want 4096", got)
	}
}
