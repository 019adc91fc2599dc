package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
)

// toSchema6 returns the statements that turn a schema-9 index back into
// schema 6: no stop reason of session turns (schema 9), the FTS4 table of
// the chunks' terms (left empty) and its trigger. (Schema 8's index is
// created if missing.)
func toSchema6() []string {
	return []string{
		`ALTER TABLE session_turns DROP COLUMN stop_reason`,
		`DROP TRIGGER chunks_delete`,
		`CREATE VIRTUAL TABLE chunks_fts USING fts4(terms, tokenize=simple)`,
		`CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunks_fts WHERE docid = old.rowid; INSERT OR REPLACE INTO fts_deleted SELECT old.rowid, coalesce(max(id), 0) FROM fts_segments; END`,
		`PRAGMA user_version = 6`,
	}
}

// TestMigrateDropsFTS4: an index of schema 6, whose FTS4 table holds every
// chunk's terms, opens as schema 7 without it: the same rankings and
// document frequencies, a clean check, and deletes and edits afterwards
// keep the document frequencies right (their terms are the texts analyzed
// again). Opened read-only before the upgrade it is refused, and opens
// read-only after it.
func TestMigrateDropsFTS4(t *testing.T) {
	ctx := t.Context()
	dir, st, e := createWithEmbedder(t, "hash:64")
	for d := range 12 {
		textDoc(t, st, e, "s", fmt.Sprintf("/d%d", d), fmt.Sprintf("Alpha beta %d gamma.", d), strings.Repeat("beta delta ", d+1), "The café's menus")
	}
	queries := []string{"beta", "alpha delta", "gamma 7", "delta", "cafe menu"}
	results := func(st *Store) map[string][]Scored {
		out := map[string][]Scored{}
		for _, q := range queries {
			rs, err := st.SearchText(ctx, q, Filter{}, 5)
			if err != nil {
				t.Fatal(err)
			}
			out[q] = rs
		}
		return out
	}
	termDF := func(st *Store) map[string]int {
		rows, err := st.db.QueryContext(ctx, `SELECT term, df FROM term_df`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var term string
			var df int
			if err := rows.Scan(&term, &df); err != nil {
				t.Fatal(err)
			}
			out[term] = df
		}
		return out
	}
	before, beforeDF := results(st), termDF(st)

	// Schema 6, as cite wrote it: every chunk's terms in FTS4.
	for _, q := range toSchema6() {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := st.db.QueryContext(ctx, `SELECT rowid, text FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	terms := map[int64]string{}
	for rows.Next() {
		var r int64
		var text string
		if err := rows.Scan(&r, &text); err != nil {
			t.Fatal(err)
		}
		terms[r] = analysis.JoinedTerms(text)
	}
	rows.Close()
	for r, ts := range terms {
		if _, err := st.db.ExecContext(ctx, `INSERT INTO chunks_fts (docid, terms) VALUES (?, ?)`, r, ts); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	if _, err := Open(ctx, dir, Options{ReadOnly: true}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only open of schema 6: %v, want ErrReadOnly (the upgrade writes)", err)
	}
	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestSchema(t) {
		t.Fatalf("schema %d, %v", v, err)
	}
	var fts int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunks_fts%'`).Scan(&fts); err != nil || fts != 0 {
		t.Fatalf("%d FTS4 tables and triggers left, %v", fts, err)
	}
	if after := results(st); !maps.EqualFunc(before, after, slices.Equal) {
		t.Fatalf("rankings changed by the migration:\n%v\n%v", before, after)
	}
	if df := termDF(st); !maps.Equal(beforeDF, df) {
		t.Fatalf("document frequencies changed by the migration")
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check after the migration: %+v %v", rep.Problems, err)
	}
	ro, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open after the upgrade: %v", err)
	}
	if rs, err := ro.SearchText(ctx, "delta", Filter{}, 3); err != nil || len(rs) != 3 {
		t.Fatalf("read-only search: %v, %v", rs, err)
	}
	ro.Close()

	// A document edited (chunks removed and added) and one deleted: the
	// frequencies are those counted from scratch.
	textDoc(t, st, e, "s", "/d3", "Alpha omega.", "The café's menus")
	id := DocumentID("s", "/d4")
	if _, err := st.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	want, err := recountTermDF(ctx, st.db)
	if err != nil {
		t.Fatal(err)
	}
	got := termDF(st)
	maps.DeleteFunc(got, func(_ string, df int) bool { return df == 0 })
	if !maps.Equal(want, got) {
		t.Fatalf("document frequencies after an edit and a delete:\n got %v\nwant %v", got, want)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check after an edit and a delete: %+v %v", rep.Problems, err)
	}
}
