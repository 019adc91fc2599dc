package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Recovery reports what [Recover] did.
type Recovery struct {
	// Damaged is where the damaged database file was moved.
	Damaged string `json:"damaged"`
	// Rows recovered (chunks and vectors: those kept).
	Sources   int `json:"sources"`
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	Vectors   int `json:"vectors"`
	Sessions  int `json:"sessions"` // of cite serve
	Turns     int `json:"turns"`    // of those sessions
	// Rows lost: unreadable, or of no readable parent (the chunks of a
	// lost document). LostDocuments counts documents known only from
	// their chunks, whose paths are gone with them.
	LostRows      int `json:"lost_rows"`
	LostDocuments int `json:"lost_documents"`
	// Restored counts the documents whose rows were lost but whose data
	// source and path were read from SQLite's index of them: they are
	// among Reindex, to be read again from their files.
	Restored int `json:"restored"`
	// DocumentsDamaged says some pages of the documents table could not be
	// read: documents whose records were there, and that neither the index
	// of paths nor their chunks name, are lost without a count.
	DocumentsDamaged bool `json:"documents_damaged"`
	// Damaged ranges of rows skipped.
	Skipped int `json:"skipped"`
	// Reindex are the documents whose chunks were not all readable: they
	// are kept without chunks, with a blank hash and a size of -1, so that
	// cite index reads their files again. [Store.DeleteDocument] them if their files are
	// gone.
	Reindex []Document `json:"reindex"`
	// MetaLost says the index's settings (its embedder) were unreadable;
	// the vectors were dropped with them.
	MetaLost bool `json:"meta_lost"`
	// Unreadable says nothing could be read: the file is not a database,
	// or its first page, which holds the schema, is damaged. The new
	// index is empty; cite index reads the files again.
	Unreadable bool `json:"unreadable"`
}

// Recover rebuilds a damaged index in dir from what SQLite can still read
// of it: it copies the rows of every table it can read, row range by row
// range, skipping the damaged ones, into a new database, recomputes the
// full-text terms and their counts, keeps the vectors it could read (the
// caller makes the missing ones), marks the documents whose chunks are
// incomplete for re-indexing, and moves the damaged file aside, to
// index.db.corrupt-TIME, before putting the new one in its place. No other
// process may use the index meanwhile.
func Recover(ctx context.Context, dir string) (*Recovery, error) {
	file := filepath.Join(dir, dbFile)
	if _, err := os.Stat(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("recover index %s: %w", dir, ErrNoIndex)
		}
		return nil, fmt.Errorf("recover index %s: %w", dir, err)
	}
	if err := checkWritable(dir, file); err != nil {
		return nil, fmt.Errorf("recover index %s: %w", dir, err)
	}
	rec, err := recoverFile(ctx, dir, file)
	if err != nil {
		return nil, fmt.Errorf("recover index %s: %w", dir, err)
	}
	return rec, nil
}

func recoverFile(ctx context.Context, dir, file string) (*Recovery, error) {
	// Read a copy, made readable: the original is kept as it is.
	scratch := file + ".recovering"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(scratch + suffix) // a killed repair's
	}
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(scratch + suffix)
		}
	}()
	if err := readableCopy(file, scratch); err != nil {
		return nil, err
	}
	rec := &Recovery{}
	oldDB, err := sql.Open("sqlite3", dsn(scratch, "_busy_timeout=10000"))
	if err != nil {
		return nil, err
	}
	defer oldDB.Close()
	old, err := oldDB.Conn(ctx)
	if err == nil {
		defer old.Close()
		// The schema, on page 1, names every table and where it starts:
		// if it is unreadable, nothing is.
		var n int
		err = old.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n)
		if err == nil && n == 0 {
			// An empty file, or one whose schema lists no table.
			rec.Unreadable, rec.MetaLost = true, true
		}
	}
	if err != nil {
		if !isCorrupt(err) {
			return nil, err
		}
		old = nil
		rec.Unreadable, rec.MetaLost = true, true
	}
	var version int
	if old != nil {
		if err := old.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err == nil && version > len(migrationNames()) {
			return nil, fmt.Errorf("%w: schema %d; recover it with that cite", ErrNewerSchema, version)
		}
	}

	tmp := file + ".rebuild"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suffix)
	}
	st, err := openFile(ctx, dir, tmp, Options{Create: true}, false)
	if err != nil {
		return nil, fmt.Errorf("create new database: %w", err)
	}
	if old != nil {
		err = st.inTx(ctx, func(tx *sql.Tx) error { return copyReadable(ctx, old, tx, rec) })
		if err != nil {
			err = fmt.Errorf("copy what is readable: %w", err)
		}
	}
	if err == nil {
		if err = st.markIncomplete(ctx, rec); err != nil {
			err = fmt.Errorf("find incomplete documents: %w", err)
		}
	}
	if err == nil {
		// What is left after the incomplete documents' chunks went.
		// Documents whose rows could not be read at all are gone too.
		docs := rec.Documents + rec.Restored
		err = st.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors)`).Scan(&rec.Documents, &rec.Chunks, &rec.Vectors)
		rec.LostRows += max(docs-rec.Documents, 0)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if old != nil {
		old.Close()
	}
	oldDB.Close()

	// Swap the files: the damaged one (and its log) aside, the new one in.
	rec.Damaged = file + ".corrupt-" + time.Now().Format("20060102-150405")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(file+suffix, rec.Damaged+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("move the damaged file aside: %w", err)
		}
	}
	if err := os.Rename(tmp, file); err != nil {
		return nil, fmt.Errorf("put the new database in place (it is %s): %w", tmp, err)
	}
	os.Remove(filepath.Join(dir, cacheFile))
	return rec, nil
}

// readableCopy copies a damaged database file, and its write-ahead log, to
// scratch, and makes the copy one SQLite opens: a file shorter than its
// header says is padded with zero pages (SQLite refuses to open it
// otherwise; the missing pages read as damaged), and a header that is not
// SQLite's is replaced by a plausible one, so that the schema on the rest of
// page 1 can be read.
func readableCopy(file, scratch string) error {
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(file + suffix)
		if err != nil {
			if suffix != "" && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		if suffix == "" {
			data = readableHeader(data)
		}
		if err := os.WriteFile(scratch+suffix, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// readableHeader returns a database file's bytes with a header SQLite
// accepts and a length of whole pages, at least as many as the header
// says.
func readableHeader(data []byte) []byte {
	be := binary.BigEndian
	pageSize := guessPageSize(data)
	if len(data) >= 100 && string(data[:16]) == "SQLite format 3\x00" {
		if p := int(be.Uint16(data[16:])); p >= 512 && p <= 32768 && p&(p-1) == 0 {
			pageSize = p
		} else if p == 1 {
			pageSize = 65536
		}
	} else {
		if len(data) < 100 {
			data = append(data, make([]byte, 100-len(data))...)
		}
		h := data[:100]
		clear(h)
		copy(h, "SQLite format 3\x00")
		if pageSize == 65536 {
			be.PutUint16(h[16:], 1)
		} else {
			be.PutUint16(h[16:], uint16(pageSize))
		}
		h[18], h[19] = 1, 1 // legacy journal: the log, if any, is not needed
		h[21], h[22], h[23] = 64, 32, 32
		be.PutUint32(h[44:], 4) // schema format
		be.PutUint32(h[56:], 1) // UTF-8
		be.PutUint32(h[60:], uint32(len(migrationNames())))
	}
	pages := (len(data) + pageSize - 1) / pageSize
	if be.Uint32(data[24:]) == be.Uint32(data[92:]) {
		pages = max(pages, int(be.Uint32(data[28:])))
	}
	if n := pages * pageSize; n > len(data) {
		data = append(data, make([]byte, n-len(data))...)
	}
	// The free-page list is not needed to read and may be damaged.
	clear(data[32:40])
	return data
}

// guessPageSize returns the page size of a database file whose header is
// unreadable, from the b-tree page that follows the header on page 1 (the
// schema): the least power of two above every offset into the page that
// it holds, the starts of its cells and of its free blocks. The schema's
// cells are packed from the page's end and each is far smaller than half a
// page. It returns the size of cite's new databases if page 1 is no
// b-tree page.
func guessPageSize(data []byte) int {
	be := binary.BigEndian
	if len(data) < 108 || data[100] != 0x0d && data[100] != 0x05 {
		return pageSize
	}
	ptrs := 108
	if data[100] == 0x05 {
		ptrs = 112 // an interior page's right child comes first
	}
	top := int(be.Uint16(data[105:])) // the start of the cell content
	if top == 0 {
		top = 65535
	}
	for i := range int(be.Uint16(data[103:])) {
		if at := ptrs + 2*i; at+2 <= len(data) {
			top = max(top, int(be.Uint16(data[at:])))
		}
	}
	for free := int(be.Uint16(data[101:])); free > top && free+2 <= len(data); {
		// Free blocks are in ascending order.
		top, free = free, int(be.Uint16(data[free:]))
	}
	size := 512
	for size <= top && size < 65536 {
		size *= 2
	}
	return size
}

func migrationNames() []string {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	return names
}

// copyReadable copies the readable rows of the damaged database old into
// the new one, in tx.
func copyReadable(ctx context.Context, old *sql.Conn, tx *sql.Tx, rec *Recovery) error {
	// Settings: the embedder and its dimension.
	meta := map[string]string{}
	metaErr := scanMeta(ctx, old, meta)
	oldGen, _ := strconv.ParseInt(meta[metaVectorsGen], 10, 64)
	dim, _ := strconv.Atoi(meta[metaDim])
	keepVectors := metaErr == nil && meta[metaEmbedder] != "" && dim > 0
	if metaErr != nil {
		rec.MetaLost = true
	}
	for _, k := range []string{metaEmbedder, metaDim} {
		if v, ok := meta[k]; ok && keepVectors {
			if err := setMeta(ctx, tx, k, v); err != nil {
				return err
			}
		}
	}

	sources := map[int64]bool{}
	n, lost, skipped, err := copyTable(ctx, old, tx, "sources", nil, func(rowid int64, row map[string]any) bool {
		sources[rowid] = true
		return true
	})
	if err != nil {
		return err
	}
	rec.Sources, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped

	docs := map[string]bool{}
	n, lost, skipped, err = copyTable(ctx, old, tx, "documents", func(row map[string]any) error {
		// A document of a lost source goes to a stand-in source.
		id, ok := row["source_id"].(int64)
		if !ok || sources[id] {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sources (id, name, created_at) VALUES (?, ?, ?)`, id, fmt.Sprintf("recovered-%d", id), time.Now().UnixNano()); err != nil {
			return err
		}
		sources[id] = true
		rec.Sources++
		return nil
	}, func(rowid int64, row map[string]any) bool {
		id, _ := row["id"].(string)
		docs[id] = true
		return true
	})
	if err != nil {
		return err
	}
	rec.Documents, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped
	rec.DocumentsDamaged = skipped > 0
	if err := restoreFromIndexes(ctx, old, tx, rec, docs, sources); err != nil {
		return fmt.Errorf("read the documents' paths from their index: %w", err)
	}

	chunks := map[int64]bool{}
	orphans := map[string]bool{}
	n, lost, skipped, err = copyTable(ctx, old, tx, "chunks", nil, func(rowid int64, row map[string]any) bool {
		doc, _ := row["document_id"].(string)
		if !docs[doc] {
			orphans[doc] = true
			return false
		}
		chunks[rowid] = true
		return true
	})
	if err != nil {
		return err
	}
	rec.Chunks, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped
	// Documents known by their id alone (from the index of ids, or from
	// their chunks) are lost: their paths went with their rows.
	for _, id := range indexedValues(ctx, old, "documents", []string{"id"}) {
		if s, ok := id[0].(string); ok && !docs[s] {
			orphans[s] = true
		}
	}
	for _, id := range indexedValues(ctx, old, "chunks", []string{"document_id"}) {
		if s, ok := id[0].(string); ok && !docs[s] {
			orphans[s] = true
		}
	}
	delete(orphans, "")
	rec.LostDocuments = len(orphans)

	if keepVectors {
		n, lost, skipped, err = copyTable(ctx, old, tx, "vectors", nil, func(rowid int64, row map[string]any) bool {
			b, ok := row["vec"].([]byte)
			if !ok || !chunks[rowid] {
				return false
			}
			_, err := decodeVector(b, dim, nil) // float16 or float32
			return err == nil
		})
		if err != nil {
			return err
		}
		rec.Vectors, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped
	}

	// Sessions of cite serve, and the turns of those recovered.
	sessions := map[string]bool{}
	n, lost, skipped, err = copyTable(ctx, old, tx, "sessions", nil, func(rowid int64, row map[string]any) bool {
		id, _ := row["id"].(string)
		sessions[id] = true
		return id != ""
	})
	if err != nil {
		return err
	}
	rec.Sessions, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped
	n, lost, skipped, err = copyTable(ctx, old, tx, "session_turns", nil, func(rowid int64, row map[string]any) bool {
		id, _ := row["session_id"].(string)
		return sessions[id]
	})
	if err != nil {
		return err
	}
	rec.Turns, rec.LostRows, rec.Skipped = n, rec.LostRows+lost, rec.Skipped+skipped

	if err := rebuildFullText(ctx, tx); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	// A generation the damaged index never had: no process holding its
	// vectors in memory, and no vector cache, takes them for these.
	return setMeta(ctx, tx, metaVectorsGen, strconv.FormatInt(max(oldGen, time.Now().UnixNano())+1, 10))
}

// restoreFromIndexes adds, for re-reading, the documents whose rows were
// lost but whose data source and path can be read from the index SQLite
// keeps of them (the unique index on source_id and path): it is a copy of
// those columns in other pages of the file, often readable where the
// table's are not (a truncation takes the last pages written, which hold
// a table's newest rows more often than the index's). They are added as
// [Recover] leaves documents to re-index: a blank hash, no chunks, a size
// of -1.
func restoreFromIndexes(ctx context.Context, old *sql.Conn, tx *sql.Tx, rec *Recovery, docs map[string]bool, sources map[int64]bool) error {
	names := map[int64]string{}
	rows, err := tx.QueryContext(ctx, `SELECT id, name FROM sources`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return err
		}
		names[id] = name
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, v := range indexedValues(ctx, old, "sources", []string{"name"}) {
		id, ok1 := v[1].(int64)
		name, ok2 := v[0].(string)
		if _, known := names[id]; ok1 && ok2 && name != "" && !known {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sources (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, id, name, time.Now().UnixNano()); err != nil {
				return err
			}
			names[id], sources[id] = name, true
			rec.Sources++
		}
	}
	now := time.Now().UnixNano()
	for _, v := range indexedValues(ctx, old, "documents", []string{"source_id", "path"}) {
		src, ok1 := v[0].(int64)
		path, ok2 := v[1].(string)
		if !ok1 || !ok2 || path == "" {
			continue
		}
		name, ok := names[src]
		if !ok {
			name = fmt.Sprintf("recovered-%d", src)
			if _, err := tx.ExecContext(ctx, `INSERT INTO sources (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, src, name, now); err != nil {
				return err
			}
			names[src], sources[src] = name, true
			rec.Sources++
		}
		id := DocumentID(name, path)
		if docs[id] {
			continue
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO documents (id, source_id, path, title, type, kind, size, mtime, hash, pipeline, text_bytes, chunks, tokens, indexed_at)
			VALUES (?, ?, ?, '', '', 'file', -1, 0, '', '', 0, 0, 0, 0) ON CONFLICT DO NOTHING`, id, src, path)
		if err != nil {
			return err
		}
		docs[id] = true
		rec.Restored++
	}
	return nil
}

// indexedValues reads the values of cols, and the rowid, of table from an
// index of old that holds those columns first, without the table's own
// pages: from both ends, as far as it can read, so that damage in the
// middle of the index leaves what is before and after it. It returns nil
// if there is no such index or nothing can be read.
func indexedValues(ctx context.Context, old *sql.Conn, table string, cols []string) [][]any {
	name := indexOf(ctx, old, table, cols)
	if name == "" {
		return nil
	}
	list := `"` + strings.Join(cols, `", "`) + `"`
	var out [][]any
	seen := map[string]bool{}
	for _, order := range []string{"ASC", "DESC"} {
		var keys []string
		for _, c := range cols {
			keys = append(keys, `"`+c+`" `+order)
		}
		rows, err := old.QueryContext(ctx, `SELECT `+list+`, rowid FROM "`+table+`" INDEXED BY "`+name+`" ORDER BY `+strings.Join(keys, ", "))
		if err != nil {
			continue
		}
		for rows.Next() {
			v := make([]any, len(cols)+1)
			ptrs := make([]any, len(v))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if rows.Scan(ptrs...) != nil {
				break
			}
			if k := fmt.Sprint(v...); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
		rows.Close()
	}
	return out
}

// indexOf returns the name of an index of table whose first columns are
// cols, in order, or "".
func indexOf(ctx context.Context, old *sql.Conn, table string, cols []string) string {
	rows, err := old.QueryContext(ctx, `SELECT name FROM pragma_index_list(?)`, table)
	if err != nil {
		return ""
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, n := range names {
		rows, err := old.QueryContext(ctx, `SELECT coalesce(name, '') FROM pragma_index_info(?) ORDER BY seqno`, n)
		if err != nil {
			continue
		}
		var have []string
		for rows.Next() {
			var c string
			if rows.Scan(&c) == nil {
				have = append(have, c)
			}
		}
		rows.Close()
		if len(have) >= len(cols) && slices.Equal(have[:len(cols)], cols) {
			return n
		}
	}
	return ""
}

// scanMeta reads the settings of the damaged database.
func scanMeta(ctx context.Context, old *sql.Conn, meta map[string]string) error {
	rows, err := old.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		meta[k] = v
	}
	return rows.Err()
}

// copyTable copies the readable rows of a rowid table from old into tx,
// with their rowids and the columns both tables have. before runs before
// each insert; keep decides whether a row is copied (false counts it
// lost). Damaged parts of the table are skipped: when reading from a rowid
// fails, the first rowid after it that can be read is searched for. It
// returns how many rows it copied, lost, and the number of damaged ranges
// it skipped.
func copyTable(ctx context.Context, old *sql.Conn, tx *sql.Tx, table string, before func(map[string]any) error, keep func(int64, map[string]any) bool) (copied, lost, skipped int, err error) {
	cols, err := commonColumns(ctx, old, tx, table)
	if err != nil || len(cols) == 0 {
		// The table is unreadable or did not exist in that schema.
		return 0, 0, 0, nil
	}
	list := `"` + strings.Join(cols, `", "`) + `"`
	sel := `SELECT rowid, ` + list + ` FROM ` + table + ` WHERE rowid >= ? ORDER BY rowid LIMIT 500`
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+table+` (rowid, `+list+`) VALUES (?`+strings.Repeat(", ?", len(cols))+`)`)
	if err != nil {
		return 0, 0, 0, err
	}
	defer ins.Close()
	// readable reports whether the first row from a rowid on can be read,
	// all its columns.
	readable := func(from int64) bool {
		vals := make([]any, len(cols)+1)
		for i := range vals {
			vals[i] = new(any)
		}
		err := old.QueryRowContext(ctx, `SELECT rowid, `+list+` FROM `+table+` WHERE rowid >= ? ORDER BY rowid LIMIT 1`, from).Scan(vals...)
		return err == nil || errors.Is(err, sql.ErrNoRows)
	}
	next := int64(math.MinInt64)
	for {
		if err := ctx.Err(); err != nil {
			return copied, lost, skipped, err
		}
		rows, err := old.QueryContext(ctx, sel, next)
		n := 0
		if err == nil {
			for rows.Next() {
				vals := make([]any, len(cols)+1)
				ptrs := make([]any, len(vals))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err = rows.Scan(ptrs...); err != nil {
					break
				}
				rowid, _ := vals[0].(int64)
				if rowid < next {
					// A damaged page can yield rowids out of order:
					// reading on from one would loop forever.
					lost++
					continue
				}
				next, n = rowid+1, n+1
				row := make(map[string]any, len(cols))
				for i, c := range cols {
					row[c] = vals[i+1]
				}
				if !keep(rowid, row) {
					lost++
					continue
				}
				if before != nil {
					if err := before(row); err != nil {
						rows.Close()
						return copied, lost, skipped, err
					}
				}
				if _, err := ins.ExecContext(ctx, vals...); err != nil {
					lost++ // garbage that breaks a constraint
					continue
				}
				copied++
			}
			if err == nil {
				err = rows.Err()
			}
			rows.Close()
		}
		if err == nil {
			if n == 0 {
				return copied, lost, skipped, nil
			}
			continue
		}
		if ctx.Err() != nil {
			return copied, lost, skipped, ctx.Err()
		}
		// Reading from next fails: find the first rowid after it from
		// which reading works, by doubling steps, then bisection.
		skipped++
		step := int64(1)
		for !readable(next + step) {
			if step > (math.MaxInt64-next)/2 { // nothing readable after next
				return copied, lost, skipped, nil
			}
			step *= 2
		}
		lo, hi := next, next+step
		for hi-lo > 1 {
			if mid := lo + (hi-lo)/2; readable(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		next = hi
	}
}

// commonColumns returns the columns, other than rowid, that table has in
// both databases.
func commonColumns(ctx context.Context, old *sql.Conn, tx *sql.Tx, table string) ([]string, error) {
	columns := func(q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}) ([]string, error) {
		rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				return nil, err
			}
			if c != "rowid" {
				out = append(out, c)
			}
		}
		return out, rows.Err()
	}
	have, err := columns(old)
	if err != nil {
		return nil, err
	}
	want, err := columns(tx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range want {
		if slices.Contains(have, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// markIncomplete repairs a rebuilt index ([Store.repair]): the rows
// copied that cannot be read go, and the documents whose chunks are not all
// there, or not consistent, lose their chunks and are marked for
// re-reading; it lists those in rec.Reindex.
func (s *Store) markIncomplete(ctx context.Context, rec *Recovery) error {
	if _, err := s.repair(ctx, false); err != nil {
		return err
	}
	docs, err := s.Documents(ctx, "")
	if err != nil {
		return err
	}
	for _, d := range docs {
		if d.Hash == "" && d.Chunks == 0 && d.Size == -1 {
			rec.Reindex = append(rec.Reindex, d)
		}
	}
	slices.SortFunc(rec.Reindex, func(a, b Document) int { return strings.Compare(a.Path, b.Path) })
	return nil
}
