package index

import (
	"slices"
	"testing"
)

// TestChunksWithoutVectors: with the vectors in memory and current, a run
// with none missing reads neither the vectors table nor the chunks (a chunk
// slipped in behind the store's back, which either read would find, goes
// unseen); with fewer vectors than chunks it finds the chunks without one
// from their rowids; without the vectors in memory, or with stale ones, it
// asks the database.
func TestChunksWithoutVectors(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	e := mustEmbedder(t, "hash:64")
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	doc := textDoc(t, st, e, "s", "/a", "alpha beta", "gamma delta")
	textDoc(t, st, e, "s", "/b", "epsilon")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := st.db.ExecContext(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	missing := func(st *Store) []int64 {
		t.Helper()
		rowids, err := st.ChunksWithoutVectors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rowids
	}
	if err := st.LoadVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if got := missing(st); len(got) != 0 {
		t.Fatalf("none missing: got %v", got)
	}

	// A chunk without a vector written by other hands than the store's,
	// the chunk count of the full-text statistics left as it was.
	exec(`INSERT INTO chunks (id, document_id, ordinal, text, tokens, start_byte, end_byte, src_start, src_end, headings) VALUES ('extra', ?, 9, 'zeta', 1, 0, 4, 0, 4, '')`, doc)
	var extra int64
	if err := st.db.QueryRowContext(ctx, `SELECT rowid FROM chunks WHERE id = 'extra'`).Scan(&extra); err != nil {
		t.Fatal(err)
	}
	if got := missing(st); len(got) != 0 {
		t.Fatalf("as many vectors in memory as chunks counted: read %v", got)
	}
	// Without the vectors in memory the database says.
	other, err := Open(ctx, st.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got := missing(other); !slices.Equal(got, []int64{extra}) {
		t.Fatalf("from the database: %v, want [%d]", got, extra)
	}
	// Counted: the rowids, less those with a vector in memory.
	exec(`UPDATE term_df SET df = df + 1 WHERE term = ''`)
	if got := missing(st); !slices.Equal(got, []int64{extra}) {
		t.Fatalf("from the rowids: %v, want [%d]", got, extra)
	}

	// Vectors changed by another process: the ones in memory are stale,
	// and the database says (the deleted vector too).
	var first int64
	if err := st.db.QueryRowContext(ctx, `SELECT min(rowid) FROM chunks`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	exec(`DELETE FROM vectors WHERE chunk = ?`, first)
	exec(`UPDATE meta SET value = value + 1 WHERE key = ?`, metaVectorsGen)
	if got := missing(st); !slices.Equal(got, []int64{first, extra}) {
		t.Fatalf("stale vectors in memory: %v, want [%d %d]", got, first, extra)
	}

	cs, err := st.ChunkTexts(ctx, []int64{extra, 999999, first})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Rowid != first || cs[0].Text != "alpha beta" || cs[1].ID != "extra" || cs[1].Text != "zeta" {
		t.Fatalf("chunk texts: %+v", cs)
	}
}
