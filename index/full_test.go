package index

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index/embed"
)

// TestWriteDiskFull: a write SQLite finds no room for (SQLITE_FULL, as on
// a full disk; here the database's page limit) fails with ErrFull, and
// what was written before stays.
func TestWriteDiskFull(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, t.TempDir(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := embed.New("hash:64", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	putTexts(t, st, e, "/bees", "honeybees dance in the hive")
	// One connection, so that the limit holds for the write below.
	st.db.SetMaxOpenConns(1)
	var pages int
	if err := st.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.Itoa(pages)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("wax comb cells capped ", 20000)
	doc := &Document{Source: "s", Path: "/big", Title: "big", Type: "text", Hash: "h2", Pipeline: "p", TextBytes: len(big)}
	_, err = st.PutDocument(ctx, doc, []Chunk{{Chunk: chunk.Chunk{Text: big, Tokens: 1, End: len(big)}, SourceEnd: len(big)}})
	if !errors.Is(err, ErrFull) {
		t.Fatalf("PutDocument into a full database: %v, want ErrFull", err)
	}
	if !strings.Contains(err.Error(), "/big") || !strings.Contains(err.Error(), "the disk is full") {
		t.Errorf("error %q: want the document's path and %q", err, "the disk is full")
	}
	docs, err := st.Documents(ctx, "")
	if err != nil || len(docs) != 1 || docs[0].Path != "/bees" {
		t.Errorf("documents after the failed write: %v, %v; want /bees only", docs, err)
	}
}
