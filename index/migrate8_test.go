package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// toSchema7 returns the statements that turn a schema-8 index back into
// schema 7: the postings in the order of their term, then segment, with
// an index by segment.
func toSchema7() []string {
	return []string{
		`CREATE TABLE fts_postings_by_term (term TEXT NOT NULL, segment INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, segment)) WITHOUT ROWID`,
		`INSERT INTO fts_postings_by_term (term, segment, data) SELECT term, segment, data FROM fts_postings`,
		`DROP TABLE fts_postings`,
		`ALTER TABLE fts_postings_by_term RENAME TO fts_postings`,
		`CREATE INDEX fts_postings_segment ON fts_postings (segment)`,
		`PRAGMA user_version = 7`,
	}
}

// TestMigratePostingsBySegment: an index of schema 7, whose postings are
// in the order of their term, opens as schema 8 with them in the order of
// their segment: the same rankings, filtered or not, a clean check, and
// writes, deletes and merges afterwards keep them right. Opened read-only
// before the upgrade it is refused, and opens read-only after it.
func TestMigratePostingsBySegment(t *testing.T) {
	ctx := t.Context()
	dir, st, e := createWithEmbedder(t, "hash:64")
	for d := range 20 {
		textDoc(t, st, e, "s", fmt.Sprintf("/d%d", d), fmt.Sprintf("Alpha beta %d gamma.", d), strings.Repeat("beta delta ", d+1), "The café's menus")
	}
	if _, err := st.DeleteDocument(ctx, DocumentID("s", "/d3")); err != nil {
		t.Fatal(err)
	}
	queries := []string{"beta", "alpha delta", "gamma 7", "delta", "cafe menu", "nothing"}
	filters := []Filter{{}, {Path: "/d1*"}}
	results := func(st *Store) map[string][]Scored {
		out := map[string][]Scored{}
		for _, q := range queries {
			for i, f := range filters {
				rs, err := st.SearchText(ctx, q, f, 5)
				if err != nil {
					t.Fatal(err)
				}
				out[fmt.Sprint(q, i)] = rs
			}
		}
		return out
	}
	segments := func(st *Store) int {
		var n int
		if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM fts_segments`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := segments(st); n < 2 {
		t.Fatalf("%d segments, want several", n)
	}
	before := results(st)

	for _, q := range toSchema7() {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if _, err := Open(ctx, dir, Options{ReadOnly: true}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only open of schema 7: %v, want ErrReadOnly (the upgrade writes)", err)
	}
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != 8 {
		t.Fatalf("schema %d, %v", v, err)
	}
	var key string
	if err := st.db.QueryRowContext(ctx, `SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('fts_postings') WHERE pk > 0 ORDER BY pk)`).Scan(&key); err != nil || key != "segment,term" {
		t.Fatalf("postings keyed by %q, %v; want segment,term", key, err)
	}
	var indexes int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fts_postings' AND sql IS NOT NULL`).Scan(&indexes); err != nil || indexes != 0 {
		t.Fatalf("%d indexes on the postings, %v", indexes, err)
	}
	if after := results(st); !maps.EqualFunc(before, after, slices.Equal) {
		t.Fatalf("rankings changed by the migration:\n%v\n%v", before, after)
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

	// Writes after the upgrade, enough to merge segments: the rankings
	// are those of the same documents written from scratch.
	for d := 20; d < 40; d++ {
		textDoc(t, st, e, "s", fmt.Sprintf("/d%d", d), fmt.Sprintf("Alpha beta %d gamma.", d), strings.Repeat("beta delta ", d+1), "The café's menus")
	}
	if _, err := st.DeleteDocument(ctx, DocumentID("s", "/d30")); err != nil {
		t.Fatal(err)
	}
	_, fresh, _ := createWithEmbedder(t, "hash:64")
	for d := range 40 {
		textDoc(t, fresh, e, "s", fmt.Sprintf("/d%d", d), fmt.Sprintf("Alpha beta %d gamma.", d), strings.Repeat("beta delta ", d+1), "The café's menus")
	}
	for _, id := range []string{"/d3", "/d30"} {
		if _, err := fresh.DeleteDocument(ctx, DocumentID("s", id)); err != nil {
			t.Fatal(err)
		}
	}
	defer fresh.Close()
	got, want := results(st), results(fresh)
	for q, rs := range want {
		if len(rs) != len(got[q]) {
			t.Fatalf("%s: %d results after the upgrade, %d from scratch", q, len(got[q]), len(rs))
		}
		for i := range rs {
			if rs[i].Score != got[q][i].Score {
				t.Fatalf("%s: result %d scores %v after the upgrade, %v from scratch", q, i, got[q][i].Score, rs[i].Score)
			}
		}
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check after writes: %+v %v", rep.Problems, err)
	}
}
