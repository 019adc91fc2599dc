package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMergeScanOrIndex: a merge that reads the postings by scanning the
// table and one that reads them through the index on segment write the
// same segments, byte for byte, through merges of every tier, deletes and
// rewrites.
func TestMergeScanOrIndex(t *testing.T) {
	type way struct {
		name string
		scan bool
	}
	dump := map[string][]string{}
	for _, w := range []way{{"index", false}, {"scan", true}} {
		t.Run(w.name, func(t *testing.T) {
			merges := 0
			old := mergeByScan
			mergeByScan = func(int, int) bool { merges++; return w.scan }
			t.Cleanup(func() { mergeByScan = old })
			ctx := t.Context()
			st := openStore(t)
			rng := rand.New(rand.NewPCG(1, 2))
			text := func() string {
				var ws []string
				for range 3 + rng.IntN(30) {
					ws = append(ws, fmt.Sprintf("w%d", rng.IntN(200)))
				}
				return strings.Join(ws, " ")
			}
			for d := range 150 {
				textDoc(t, st, nil, "s", fmt.Sprintf("/d%d", d%110), text(), text())
				if d%7 == 0 {
					if _, err := st.DeleteDocument(ctx, DocumentID("s", fmt.Sprintf("/d%d", d/2))); err != nil {
						t.Fatal(err)
					}
				}
			}
			if merges < 10 {
				t.Fatalf("%d merges: the test does not exercise them", merges)
			}
			if rep, err := st.Check(ctx); err != nil || !rep.OK() {
				t.Fatalf("check: %+v %v", rep.Problems, err)
			}
			rows, err := st.db.QueryContext(ctx, `SELECT 'p', term, segment, hex(data) FROM fts_postings UNION ALL SELECT 's', chunks, id, hex(docs) FROM fts_segments ORDER BY 1, 2, 3`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var kind, key, seg, data string
				if err := rows.Scan(&kind, &key, &seg, &data); err != nil {
					t.Fatal(err)
				}
				dump[w.name] = append(dump[w.name], kind+" "+key+" "+seg+" "+data)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if len(dump["index"]) == 0 || !slices.Equal(dump["index"], dump["scan"]) {
		t.Fatalf("the segments differ: %d rows read through the index, %d by scanning", len(dump["index"]), len(dump["scan"]))
	}
}
