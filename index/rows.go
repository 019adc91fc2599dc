package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// A damaged index can hold rows SQLite reads without complaint whose values
// are not what the schema says: a NULL or a text where an integer belongs,
// JSON that does not parse, a vector of the wrong size or of NaN values, a
// span that ends before it starts. The store's ordinary reads decode every
// value into Go types and stop at the first such row; [Store.Check] and
// [Store.Repair] read every row as SQLite holds it instead, and judge it
// against the schema and the rules below, so that a damaged row is a
// problem to report and repair, never an error that stops them.

// column is a column as the schema declares it.
type column struct {
	name    string
	typ     string // declared type, upper case: INTEGER, TEXT, BLOB or another
	notNull bool
	pk      bool
}

// table is a table of the index whose rows the check reads.
type table struct {
	name string
	cols []column
	// withoutRowid tables are keyed by their first primary key column.
	withoutRowid bool
}

// key returns the column that identifies a row: "rowid", or the primary
// key of a table without rowids.
func (t table) key() string {
	if !t.withoutRowid {
		return "rowid"
	}
	for _, c := range t.cols {
		if c.pk {
			return c.name
		}
	}
	return t.cols[0].name
}

// badRow is a row that cannot be read as the schema says.
type badRow struct {
	key    any    // its rowid, or its primary key in a table without rowids
	reason string // what is wrong, naming the column
}

// damage is what [Store.readRows] finds, for [Store.repair] to mend.
type damage struct {
	// rows that cannot be read, by table: removed by repair.
	rows map[string][]badRow
	// docRows are document rows of which only the identity (id, data
	// source and path) can be read: repair keeps the identity and resets
	// the rest, for the document to be read again from its file.
	docRows []badRow
	// docs are the ids of documents whose chunks are damaged or
	// incomplete: repair removes their chunks and marks them for
	// re-reading.
	docs map[string]bool
	// lostSources are the ids of data sources that documents name but
	// that do not exist: repair makes a stand-in for each.
	lostSources map[int64]bool
	// meta says the index's settings (embedder, dimension) are damaged:
	// the vectors cannot be trusted.
	meta bool
}

func (d *damage) addRow(table string, key any, reason string) {
	d.rows[table] = append(d.rows[table], badRow{key, reason})
}

// count returns the number of unreadable rows.
func (d *damage) count() int {
	n := len(d.docRows)
	for _, rs := range d.rows {
		n += len(rs)
	}
	return n
}

// dataTables returns the tables of the index that hold its rows: not
// SQLite's own, not virtual tables nor their shadow tables.
func dataTables(ctx context.Context, q queryer) ([]table, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	type def struct{ name, sql string }
	var defs []def
	for rows.Next() {
		var d def
		if err := rows.Scan(&d.name, &d.sql); err != nil {
			rows.Close()
			return nil, err
		}
		defs = append(defs, d)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	var virtual []string
	for _, d := range defs {
		if strings.HasPrefix(strings.ToUpper(d.sql), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, d.name+"_")
		}
	}
	var out []table
	for _, d := range defs {
		upper := strings.ToUpper(d.sql)
		if strings.HasPrefix(d.name, "sqlite_") || strings.HasPrefix(upper, "CREATE VIRTUAL TABLE") ||
			slices.ContainsFunc(virtual, func(p string) bool { return strings.HasPrefix(d.name, p) }) {
			continue
		}
		t := table{name: d.name, withoutRowid: strings.Contains(upper, "WITHOUT ROWID")}
		if t.cols, err = tableColumns(ctx, q, d.name); err != nil {
			return nil, err
		}
		if len(t.cols) > 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

type queryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// tableColumns returns the columns of a table as the schema declares them.
func tableColumns(ctx context.Context, q queryer, name string) ([]column, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		var pk int
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &pk); err != nil {
			return nil, err
		}
		c.typ, c.pk = strings.ToUpper(c.typ), pk > 0
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// scanTable calls fn with every row of t, keyed by its rowid (or primary
// key), with the values SQLite holds, unconverted.
func scanTable(ctx context.Context, q queryer, t table, fn func(key any, row map[string]any)) error {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = `"` + strings.ReplaceAll(c.name, `"`, `""`) + `"`
	}
	sel := `SELECT ` + strings.Join(names, ", ")
	if !t.withoutRowid {
		sel = `SELECT rowid, ` + strings.Join(names, ", ")
	}
	rows, err := q.QueryContext(ctx, sel+` FROM "`+strings.ReplaceAll(t.name, `"`, `""`)+`"`)
	if err != nil {
		return err
	}
	defer rows.Close()
	key := t.key()
	for rows.Next() {
		vals := make([]any, len(names)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if t.withoutRowid {
			ptrs = ptrs[1:]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make(map[string]any, len(t.cols)+1)
		row["rowid"] = vals[0]
		for i, c := range t.cols {
			row[c.name] = vals[i+1]
		}
		fn(row[key], row)
	}
	return rows.Err()
}

// checkTypes returns what is wrong with a row's values for the column
// types of its table, "" if nothing.
func checkTypes(t table, row map[string]any) string {
	for _, c := range t.cols {
		v := row[c.name]
		var ok bool
		switch {
		case v == nil:
			ok = !c.notNull && !c.pk
		case c.typ == "INTEGER":
			_, ok = v.(int64)
		case c.typ == "TEXT":
			_, ok = v.(string)
		case c.typ == "BLOB":
			_, ok = v.([]byte)
		default:
			ok = true
		}
		if !ok {
			return fmt.Sprintf("%s is %s, want %s", c.name, describeValue(v), strings.ToLower(c.typ))
		}
	}
	return ""
}

func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "an integer"
	case float64:
		return "a real number"
	case string:
		return "a text"
	case []byte:
		return "a blob"
	}
	return fmt.Sprintf("a %T", v)
}

// rowRules are the checks of a table's rows beyond their column types, for
// the tables whose values have rules: each returns what is wrong, "" if
// nothing. Columns are those of the schema, with the types checkTypes
// checked, or absent if the schema has no such column (then rowInt and
// rowText return zero values).
var rowRules = map[string]func(row map[string]any, dim int) string{
	"sources": func(row map[string]any, _ int) string {
		if rowText(row, "name") == "" {
			return "name is empty"
		}
		return ""
	},
	"documents": func(row map[string]any, _ int) string {
		switch {
		case rowText(row, "id") == "":
			return "id is empty"
		case rowText(row, "path") == "":
			return "path is empty"
		case rowInt(row, "chunks") < 0, rowInt(row, "text_bytes") < 0, rowInt(row, "tokens") < 0:
			return "a count is negative"
		case rowInt(row, "size") < -1:
			return "size is negative"
		}
		if k, ok := row["kind"].(string); ok {
			if err := Kind(k).check(); err != nil {
				return err.Error()
			}
		}
		return ""
	},
	"chunks": func(row map[string]any, _ int) string {
		start, end := rowInt(row, "start_byte"), rowInt(row, "end_byte")
		srcStart, srcEnd := rowInt(row, "src_start"), rowInt(row, "src_end")
		switch {
		case rowText(row, "id") == "":
			return "id is empty"
		case rowInt(row, "ordinal") < 0, rowInt(row, "tokens") < 0:
			return "ordinal or tokens negative"
		case start < 0 || end < start:
			return fmt.Sprintf("span [%d,%d) is out of range", start, end)
		case srcStart < 0 || srcEnd < srcStart:
			return fmt.Sprintf("source span [%d,%d) is out of range", srcStart, srcEnd)
		}
		// Its headings are decoded by [Store.Chunks], which the check
		// calls for every document.
		return ""
	},
	"vectors": func(row map[string]any, dim int) string {
		b, _ := row["vec"].([]byte)
		if _, err := decodeVector(b, dim, nil); err != nil {
			return err.Error()
		}
		return ""
	},
	"meta": func(row map[string]any, _ int) string {
		switch v := rowText(row, "value"); rowText(row, "key") {
		case metaEmbedder:
			if v == "" {
				return "the embedder's name is empty"
			}
		case metaDim:
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				return "the dimension is not a positive number"
			}
		case metaVectorsGen:
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return "value is not a number"
			}
		}
		return ""
	},
	"session_turns": func(row map[string]any, _ int) string {
		if !json.Valid([]byte(rowText(row, "refs"))) {
			return "refs are not JSON"
		}
		return ""
	},
}

func rowInt(row map[string]any, col string) int64 {
	n, _ := row[col].(int64)
	return n
}

func rowText(row map[string]any, col string) string {
	s, _ := row[col].(string)
	return s
}

// docRow is what the check needs of a readable document row.
type docRow struct {
	id, path  string
	source    int64
	chunks    int
	textBytes int
}

// readRows reads every row of the index's tables as SQLite holds it and
// judges it ([checkTypes], [rowRules]): the rows that cannot be read go into
// the damage, with the documents they belong to. It returns the readable
// documents, by id.
func (s *Store) readRows(ctx context.Context, dim int, dmg *damage) (map[string]docRow, error) {
	tables, err := dataTables(ctx, s.db)
	if err != nil {
		return nil, err
	}
	sources := map[int64]bool{}
	docs := map[string]docRow{}
	for _, t := range tables {
		rule := rowRules[t.name]
		err := scanTable(ctx, s.db, t, func(key any, row map[string]any) {
			reason := checkTypes(t, row)
			if reason == "" && rule != nil {
				reason = rule(row, dim)
			}
			switch t.name {
			case "sources":
				if id, ok := row["id"].(int64); ok {
					sources[id] = true
				}
			case "documents":
				if reason == "" {
					d := docRow{id: rowText(row, "id"), path: rowText(row, "path"), source: rowInt(row, "source_id"),
						chunks: int(rowInt(row, "chunks")), textBytes: int(rowInt(row, "text_bytes"))}
					docs[d.id] = d
					return
				}
				_, okSource := row["source_id"].(int64)
				if rowText(row, "id") != "" && rowText(row, "path") != "" && okSource {
					// Its identity is readable: read it again from its file.
					dmg.docRows = append(dmg.docRows, badRow{key, reason})
					dmg.docs[rowText(row, "id")] = true
					return
				}
			case "chunks":
				if id := rowText(row, "document_id"); reason != "" && id != "" {
					dmg.docs[id] = true
				}
			case "meta":
				if k := rowText(row, "key"); reason != "" && (k == metaEmbedder || k == metaDim) {
					dmg.meta = true
				}
			}
			if reason != "" {
				dmg.addRow(t.name, key, reason)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("read table %s: %w", t.name, err)
		}
	}
	for _, d := range docs {
		if !sources[d.source] {
			dmg.lostSources[d.source] = true
		}
	}
	for _, r := range dmg.docRows {
		var src int64
		if err := s.db.QueryRowContext(ctx, `SELECT source_id FROM documents WHERE rowid = ?`, r.key).Scan(&src); err == nil && !sources[src] {
			dmg.lostSources[src] = true
		}
	}
	return docs, nil
}

// decodeFailure reports whether err, from reading rows, is a value that
// does not decode (a damaged row) rather than SQLite failing or the
// context ending.
func decodeFailure(ctx context.Context, err error) bool {
	var se sqlite3.Error
	return err != nil && ctx.Err() == nil && !errors.As(err, &se)
}
