package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/embed"
)

// TestRepairUndecodableRows gives one value of the index a value SQLite
// accepts but cite cannot read (the wrong type, JSON that does not parse,
// a span out of range, a vector of NaN or infinite values, a name of
// bytes), and checks that Check reports it as a problem instead of failing,
// and that Repair mends it: the rows that cannot be read go, their
// documents are marked to be read again from their files, and the index is
// then sound and searchable.
func TestRepairUndecodableRows(t *testing.T) {
	vec := func(x float32) string {
		b := make([]byte, 4*64)
		binary.LittleEndian.PutUint32(b[4*5:], math.Float32bits(x))
		return fmt.Sprintf("x'%x'", b)
	}
	vec16 := func(h uint16) string { // float16
		b := make([]byte, 2*64+1)
		binary.LittleEndian.PutUint16(b[2*5:], h)
		b[2*64] = vecFloat16
		return fmt.Sprintf("x'%x'", b)
	}
	const firstA = `(SELECT min(c.rowid) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = '/a.txt')`
	cases := []struct {
		name, sql string
		want      string // in the problems
		reread    bool   // /a.txt is marked to be read again
		gone      bool   // /a.txt is removed (its identity is lost)
	}{
		{"headings not JSON", `UPDATE chunks SET headings = 'xx' WHERE rowid = ` + firstA, "invalid character 'x'", true, false},
		{"ordinal a text", `UPDATE chunks SET ordinal = 'abc' WHERE rowid = ` + firstA, "ordinal is a text, want integer", true, false},
		{"span a real", `UPDATE chunks SET start_byte = 1.5 WHERE rowid = ` + firstA, "start_byte is a real number", true, false},
		{"source span out of range", `UPDATE chunks SET src_end = -5 WHERE rowid = ` + firstA, "source span [0,-5) is out of range", true, false},
		{"text a blob", `UPDATE chunks SET text = x'ff00' WHERE rowid = ` + firstA, "text is a blob, want text", true, false},
		{"chunk of no document", `UPDATE chunks SET document_id = 'nope' WHERE rowid = ` + firstA, "chunks belong to no document", true, false},
		{"document title a blob", `UPDATE documents SET title = x'01' WHERE path = '/a.txt'`, "title is a blob", true, false},
		{"document chunks a text", `UPDATE documents SET chunks = 'many' WHERE path = '/a.txt'`, "chunks is a text", true, false},
		{"document kind unknown", `UPDATE documents SET kind = 'ftp' WHERE path = '/a.txt'`, `document kind "ftp"`, true, false},
		{"document path empty", `UPDATE documents SET path = '' WHERE path = '/a.txt'`, "path is empty", false, true},
		{"document of no source", `UPDATE documents SET source_id = 99 WHERE path = '/a.txt'`, "data sources that do not exist", false, false},
		{"source name a blob", `UPDATE sources SET name = x'00ff'`, "name is a blob", false, false},
		{"NaN vector", `UPDATE vectors SET vec = ` + vec(float32(math.NaN())) + ` WHERE chunk = ` + firstA, "value 5 is NaN, not a number", false, false},
		{"infinite vector", `UPDATE vectors SET vec = ` + vec(float32(math.Inf(-1))) + ` WHERE chunk = ` + firstA, "value 5 is -Inf", false, false},
		{"float16 NaN vector", `UPDATE vectors SET vec = ` + vec16(0x7e00) + ` WHERE chunk = ` + firstA, "value 5 is NaN, not a number", false, false},
		{"float16 infinite vector", `UPDATE vectors SET vec = ` + vec16(0x7c00) + ` WHERE chunk = ` + firstA, "value 5 is +Inf", false, false},
		{"float16 format byte", `UPDATE vectors SET vec = CAST(substr(vec, 1, 128) || x'11' AS BLOB) WHERE chunk = ` + firstA, "ends in format byte 0x11", false, false},
		{"float16 vector cut short", `UPDATE vectors SET vec = substr(vec, 1, 128) WHERE chunk = ` + firstA, "vector of 128 bytes, want 129 (float16) or 256 (float32) for 64 dimensions", false, false},
		{"vector a text", `UPDATE vectors SET vec = 'abc' WHERE chunk = ` + firstA, "vec is a text", false, false},
		{"document frequency a text", `UPDATE term_df SET df = 'x' WHERE term = (SELECT max(term) FROM term_df)`, "df is a text", false, false},
		{"dimension a text", `UPDATE meta SET value = 'abc' WHERE key = 'dim'`, "not a positive number", false, false},
		{"dimension negative", `UPDATE meta SET value = -7 WHERE key = 'dim'`, "not a positive number", false, false},
		{"dimension of no vector", `UPDATE meta SET value = 65 WHERE key = 'dim'`, "none of its 5 vectors has the recorded dimension, 65", false, false},
		// Half the dimensions as float32 would take the bytes of the
		// float16 vectors but for their format byte.
		{"dimension halved", `UPDATE meta SET value = 32 WHERE key = 'dim'`, "none of its 5 vectors has the recorded dimension, 32", false, false},
		{"dimension doubled", `UPDATE meta SET value = 128 WHERE key = 'dim'`, "none of its 5 vectors has the recorded dimension, 128", false, false},
		{"embedder's name empty", `UPDATE meta SET value = '' WHERE key = 'embedder'`, "name is empty", false, false},
		{"turn references not JSON", `UPDATE session_turns SET refs = 'nope'`, "refs are not JSON", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e, err := embed.New("hash:64", embed.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.UseEmbedder(ctx, e); err != nil {
				t.Fatal(err)
			}
			putTexts(t, st, e, "/a.txt", "honeybee colony ", "queen and workers ", "waggle dance")
			putTexts(t, st, e, "/b.txt", "honeybee comb ", "of wax")
			if _, err := st.db.ExecContext(ctx, `INSERT INTO sessions VALUES ('s1', 1); INSERT INTO session_turns (session_id, seq, question, answer, refs, created_at) VALUES ('s1', 1, 'q', 'a', '[]', 1)`); err != nil {
				t.Fatal(err)
			}
			conn, err := st.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, c.sql); err != nil {
				t.Fatal(err)
			}
			conn.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
			conn.Close()

			rep, err := st.Check(ctx)
			if err != nil {
				t.Fatalf("check: %v, want the damage reported", err)
			}
			if rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), c.want) {
				t.Fatalf("problems %+v, want %q", rep.Problems, c.want)
			}
			did, err := st.Repair(ctx)
			if err != nil {
				t.Fatalf("repair: %v", err)
			}
			t.Log(did)
			rep, err = st.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				// Vectors removed are made by the caller, with the embedder.
				if !strings.Contains(p.Problem, "have no vector") {
					t.Errorf("after repair: %s", p.Problem)
				}
			}
			docs, err := st.Documents(ctx, "")
			if err != nil {
				t.Fatalf("documents after repair: %v", err)
			}
			var a *Document
			for i, d := range docs {
				if _, err := st.Chunks(ctx, d.ID); err != nil {
					t.Errorf("chunks of %s after repair: %v", d.Path, err)
				}
				if d.Path == "/a.txt" {
					a = &docs[i]
				}
			}
			switch {
			case c.gone && a != nil:
				t.Errorf("/a.txt kept: %+v", *a)
			case !c.gone && a == nil:
				t.Errorf("/a.txt lost: %+v", docs)
			case a != nil && c.reread != (a.Hash == "" && a.Chunks == 0 && a.Size == -1):
				t.Errorf("/a.txt marked to be read again: %v, want %v: %+v", !c.reread, c.reread, *a)
			}
			if len(docs) != 2-btoi(c.gone) {
				t.Errorf("%d documents after repair", len(docs))
			}
			if hits, err := st.SearchText(ctx, "honeybee", Filter{}, 5); err != nil || len(hits) == 0 {
				t.Errorf("search after repair: %v %v", hits, err)
			}
			if info, err := st.Embedder(ctx); err != nil || c.name != "embedder's name empty" && info != (EmbedderInfo{Name: e.Name(), Dim: 64}) {
				t.Errorf("embedder after repair: %+v %v", info, err)
			}
			var sessions int
			if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = 's1'`).Scan(&sessions); err != nil || sessions != 1 {
				t.Errorf("session after repair: %d %v", sessions, err)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRefuseNonFiniteVectors: a NaN or infinite value in a vector (an
// embedder's bug, a model server's) made every score it entered +Inf or
// NaN. The store refuses it, naming the document and the embedder, and
// stores nothing of the write.
func TestRefuseNonFiniteVectors(t *testing.T) {
	for _, x := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for _, via := range []string{"PutDocument", "PutVectors"} {
			t.Run(fmt.Sprint(via, " ", x), func(t *testing.T) {
				ctx := t.Context()
				st := openStore(t)
				e, err := embed.New("hash:64", embed.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if err := st.UseEmbedder(ctx, e); err != nil {
					t.Fatal(err)
				}
				putTexts(t, st, e, "/a.txt", "honeybee colony")
				v := make([]float32, 64)
				v[0], v[7] = 1, x
				cs := chunksOf("bad ", "vector")
				for i := range cs {
					cs[i].Vector = v
				}
				doc := testDoc("s", "/bad.txt", cs)
				switch via {
				case "PutDocument":
					_, err = st.PutDocument(ctx, doc, cs)
				case "PutVectors":
					for i := range cs {
						cs[i].Vector = nil
					}
					if _, err := st.PutDocument(ctx, doc, cs); err != nil {
						t.Fatal(err)
					}
					_, err = st.PutVectors(ctx, map[string][]float32{cs[1].ID: v})
				}
				if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "/bad.txt") || !strings.Contains(err.Error(), "hash:64") || !strings.Contains(err.Error(), "value 7") {
					t.Fatalf("err = %v, want ErrInvalidInput naming the document, the embedder and the value", err)
				}
				var n int
				if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&n); err != nil || n != 1 {
					t.Errorf("%d vectors stored, want 1 (%v)", n, err)
				}
				if rep, err := st.Check(ctx); err != nil || rep.BadVectors != 0 {
					t.Errorf("check: %+v %v", rep, err)
				}
			})
		}
	}
}
