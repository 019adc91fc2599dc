package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Stamp is what cite index compares a file with to tell whether the
// document stored for it is current: its identity, format, size,
// modification time, content hash and pipeline.
type Stamp struct {
	ID       string
	Path     string
	Type     string // the document's format, as [Document.Type]
	Size     int64
	ModTime  time.Time
	Hash     string
	Pipeline string
}

// Stamps returns the stamps of the documents of source at or under the
// paths given (a path ending in "/", or "", is a prefix: "" means every
// document of source), in no particular order, each once. A path is a
// file's or a folder's: the documents under a folder are those whose path
// starts with it and "/". It reads what it returns and little more: a
// folder of a few files costs as much in an index of a million documents
// as in one of a hundred, and listing every document reads seven of their
// columns (a quarter of the time [Store.Documents] takes at 183,000).
func (s *Store) Stamps(ctx context.Context, source string, paths []string) ([]Stamp, error) {
	var sourceID int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM sources WHERE name = ?`, source).Scan(&sourceID)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil // nothing stored in source yet
		}
		return nil, fmt.Errorf("list documents of %s: %w", source, err)
	}
	const columns = `SELECT id, path, type, size, mtime, hash, pipeline FROM documents WHERE source_id = ?`
	type query struct {
		sql  string
		args []any
	}
	var queries []query
	for _, p := range paths {
		if p == "" {
			queries = []query{{columns, []any{sourceID}}}
			break
		}
		dir := p
		if !strings.HasSuffix(dir, "/") {
			queries = append(queries, query{columns + ` AND path = ?`, []any{sourceID, p}})
			dir += "/"
		}
		// Paths that start with dir: from dir up to dir with its last
		// byte, "/", moved to the next one, "0".
		queries = append(queries, query{columns + ` AND path >= ? AND path < ?`, []any{sourceID, dir, dir[:len(dir)-1] + "0"}})
	}
	var out []Stamp
	if len(queries) == 1 && len(paths) > 0 && queries[0].sql == columns {
		// Every document: sized at once (a count reads an index of a
		// few dozen bytes a document).
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE source_id = ?`, sourceID).Scan(&n); err != nil {
			return nil, fmt.Errorf("list documents of %s: %w", source, err)
		}
		out = make([]Stamp, 0, n)
	}
	seen := map[string]bool{}
	for _, q := range queries {
		rows, err := s.db.QueryContext(ctx, q.sql, q.args...)
		if err != nil {
			return nil, fmt.Errorf("list documents of %s: %w", source, err)
		}
		for rows.Next() {
			var st Stamp
			var mtime int64
			if err := rows.Scan(&st.ID, &st.Path, &st.Type, &st.Size, &mtime, &st.Hash, &st.Pipeline); err != nil {
				rows.Close()
				return nil, fmt.Errorf("list documents of %s: %w", source, err)
			}
			if len(queries) > 1 {
				if seen[st.Path] {
					continue
				}
				seen[st.Path] = true
			}
			st.ModTime = time.Unix(0, mtime)
			out = append(out, st)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("list documents of %s: %w", source, err)
		}
	}
	return out, nil
}
