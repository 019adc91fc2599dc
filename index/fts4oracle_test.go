package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/cite-rag/cite/index/internal/topk"
)

// The FTS4 ranking SearchText had before the postings, kept as a test
// oracle. Since schema 7 the index stores no FTS4 table: the oracle holds
// the chunks' terms (their texts analyzed again) in an FTS4 table of an
// in-memory database of its own, made again whenever the index's postings
// or chunks change (metaFTSGen, their number, the last rowid), and applies
// filters by the chunks' rowids.

// fts4Oracle is the in-memory FTS4 copy of one store's terms.
type fts4Oracle struct {
	db  *sql.DB
	gen string
}

var (
	oraclesMu sync.Mutex
	oracles   = map[*Store]*fts4Oracle{}
)

// oracle returns s's FTS4 copy of its chunks' terms, made again if the
// postings changed since it was made.
func (s *Store) oracle(ctx context.Context) (*sql.DB, error) {
	oraclesMu.Lock()
	defer oraclesMu.Unlock()
	var gen string
	err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = ?), '') || '/' || count(*) || '/' || coalesce(max(rowid), 0) FROM chunks`, metaFTSGen).Scan(&gen)
	if err != nil {
		return nil, err
	}
	o := oracles[s]
	if o != nil && o.gen == gen {
		return o.db, nil
	}
	if o != nil {
		o.db.Close()
		delete(oracles, s)
	}
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE chunks_fts USING fts4(terms, tokenize=simple)`); err != nil {
		db.Close()
		return nil, err
	}
	err = eachChunkTerms(ctx, s.db, `SELECT rowid, text FROM chunks`, nil, func(rowid int64, terms string) error {
		_, err := db.ExecContext(ctx, `INSERT INTO chunks_fts (docid, terms) VALUES (?, ?)`, rowid, terms)
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	oracles[s] = &fts4Oracle{db: db, gen: gen}
	return db, nil
}

// bm25 scores one chunk: tf[i] occurrences of term i of idf[i], in a chunk
// of dl terms.
func bm25(idf []float64, tf []int, dl, avgdl float64) float64 {
	norm := bm25Norm(dl, avgdl)
	var score float64
	for i, n := range tf {
		if n > 0 {
			score += termScore(idf[i], uint32(n), norm)
		}
	}
	return score
}

// scanMatches runs an FTS4 query matching any of terms and calls fn with
// each chunk f admits: its rowid, term counts (one per term, in order),
// length in terms, and the index's average chunk length.
func (s *Store) scanMatches(ctx context.Context, terms []string, f Filter, fn func(docid int64, tf []int, dl, avgdl float64)) error {
	db, err := s.oracle(ctx)
	if err != nil {
		return fmt.Errorf("full-text search: %w", err)
	}
	var admit map[int64]bool
	if !f.IsZero() {
		rowids, err := filterChunks(ctx, s.db, f)
		if err != nil {
			return err
		}
		admit = make(map[int64]bool, len(rowids))
		for _, r := range rowids {
			admit[r] = true
		}
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + t + `"`
	}
	rows, err := db.QueryContext(ctx, `SELECT docid, matchinfo(chunks_fts, 'naly') FROM chunks_fts WHERE chunks_fts MATCH ?`, strings.Join(quoted, " OR "))
	if err != nil {
		return fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var mi []byte
	tf := make([]int, len(terms))
	ne := binary.NativeEndian
	for rows.Next() {
		var docid int64
		if err := rows.Scan(&docid, &mi); err != nil {
			return fmt.Errorf("full-text search: %w", err)
		}
		if admit != nil && !admit[docid] {
			continue
		}
		// n, a, l, then y: one hit count per term.
		if len(mi) != 4*(3+len(terms)) {
			return fmt.Errorf("full-text search: matchinfo of %d bytes, want %d", len(mi), 4*(3+len(terms)))
		}
		for i := range tf {
			tf[i] = int(ne.Uint32(mi[12+4*i:]))
		}
		fn(docid, tf, float64(ne.Uint32(mi[8:])), max(float64(ne.Uint32(mi[4:])), 1))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("full-text search: %w", err)
	}
	return nil
}

// searchAll scores every chunk matching any of terms with FTS4: the
// exhaustive ranking SearchText must equal (TestPostingsMatchExhaustive
// compares them).
func (s *Store) searchAll(ctx context.Context, terms []string, ts TermStats, f Filter, k int) ([]Scored, error) {
	idf := idfs(terms, ts)
	top := topk.New(k, scoredFirst)
	err := s.scanMatches(ctx, terms, f, func(docid int64, tf []int, dl, avgdl float64) {
		top.Push(Scored{Chunk: docid, Score: bm25(idf, tf, dl, avgdl)})
	})
	if err != nil {
		return nil, err
	}
	return top.Sorted(), nil
}

// chunkTerms reads the analyzed terms of chunks by rowid from the oracle.
func (s *Store) chunkTerms(ctx context.Context, rowids []int64) (map[int64]string, error) {
	db, err := s.oracle(ctx)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(rowids))
	for i, r := range rowids {
		args[i] = r
	}
	rows, err := db.QueryContext(ctx, `SELECT docid, terms FROM chunks_fts WHERE docid IN (?`+strings.Repeat(",?", len(rowids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]string, len(rowids))
	for rows.Next() {
		var r int64
		var t string
		if err := rows.Scan(&r, &t); err != nil {
			return nil, err
		}
		out[r] = t
	}
	return out, rows.Err()
}
