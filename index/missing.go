package index

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// ChunksWithoutVectors returns the rowids of the chunks that have no
// vector, in rowid order, for [Store.ChunkTexts] and [Store.PutVectors].
//
// When the store holds the vectors in memory and they are current (cite
// index loads them first, [Store.LoadVectors]), it does not read the
// vectors table: the vectors in memory are the table's (a vector belongs to
// a chunk: deleting the chunk deletes it), so with as many of them as the
// index has chunks (the count the full-text statistics keep) none is
// missing and nothing more is read; otherwise it reads the chunks' rowids
// (from an index of a few dozen bytes a chunk) and keeps those the vectors
// in memory lack. Without them in memory it asks the database, which looks
// up every chunk's vector: a page read each, 17-23 s at 1M chunks.
func (s *Store) ChunksWithoutVectors(ctx context.Context) ([]int64, error) {
	rowids, ok, err := s.missingInMemory(ctx)
	if err != nil || ok {
		return rowids, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.rowid FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk = c.rowid)`)
	if err != nil {
		return nil, fmt.Errorf("list chunks without vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("list chunks without vectors: %w", err)
		}
		rowids = append(rowids, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list chunks without vectors: %w", err)
	}
	slices.Sort(rowids)
	return rowids, nil
}

// missingInMemory finds the chunks without a vector from the vectors held
// in memory, if they are loaded and current (ok); see
// [Store.ChunksWithoutVectors].
func (s *Store) missingInMemory(ctx context.Context) (rowids []int64, ok bool, err error) {
	s.vmu.Lock()
	x := s.vectors
	s.vmu.Unlock()
	if x == nil {
		return nil, false, nil
	}
	// The generation, the dimension and the number of chunks as one
	// snapshot of the database.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return nil, false, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	gen, err := vectorsGen(ctx, conn)
	if err != nil {
		return nil, false, err
	}
	dim, err := vectorDim(ctx, conn)
	if err != nil {
		return nil, false, err
	}
	ts, err := termStats(ctx, conn, nil)
	if err != nil {
		return nil, false, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.gen.Load() != gen || x.dim != dim || dim == 0 {
		return nil, false, nil
	}
	if x.n == ts.Chunks {
		return nil, true, nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT rowid FROM chunks`) // a covering index: chunks_document
	if err != nil {
		return nil, false, fmt.Errorf("list chunks without vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, false, fmt.Errorf("list chunks without vectors: %w", err)
		}
		if _, has := x.slots[r]; !has {
			rowids = append(rowids, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("list chunks without vectors: %w", err)
	}
	slices.Sort(rowids)
	return rowids, true, nil
}

// ChunkTexts returns the identity and text of the chunks of rowids that
// exist, in rowid order: those deleted since the rowids were listed are
// left out.
func (s *Store) ChunkTexts(ctx context.Context, rowids []int64) ([]ChunkText, error) {
	var out []ChunkText
	const most = 500 // parameters a statement
	for len(rowids) > 0 {
		part := rowids[:min(most, len(rowids))]
		rowids = rowids[len(part):]
		args := make([]any, len(part))
		for i, r := range part {
			args[i] = r
		}
		rows, err := s.db.QueryContext(ctx, `SELECT rowid, id, text FROM chunks WHERE rowid IN (?`+strings.Repeat(",?", len(part)-1)+`) ORDER BY rowid`, args...)
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		for rows.Next() {
			var c ChunkText
			if err := rows.Scan(&c.Rowid, &c.ID, &c.Text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read chunks: %w", err)
			}
			out = append(out, c)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
	}
	slices.SortFunc(out, func(a, b ChunkText) int { return cmp.Compare(a.Rowid, b.Rowid) })
	return out, nil
}
