package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cite-rag/cite/index/analysis"
)

// Problem is one inconsistency found by [Store.Check].
type Problem struct {
	DocumentID string `json:"document_id,omitempty"`
	Path       string `json:"path,omitempty"`
	Problem    string `json:"problem"`
}

// Report is the result of [Store.Check].
type Report struct {
	Documents int          `json:"documents"`
	Chunks    int          `json:"chunks"`
	Vectors   int          `json:"vectors"`
	Embedder  EmbedderInfo `json:"embedder"`
	// Counts of inconsistencies between chunks, their full-text terms and
	// their vectors; each nonzero count is also one of Problems.
	MissingTerms   int `json:"missing_terms"`   // chunks without full-text terms
	OrphanTerms    int `json:"orphan_terms"`    // full-text rows of no chunk
	MissingVectors int `json:"missing_vectors"` // chunks without a vector
	OrphanVectors  int `json:"orphan_vectors"`  // vectors of no chunk
	BadVectors     int `json:"bad_vectors"`     // vectors of the wrong size
	BadTermCounts  int `json:"bad_term_counts"` // terms whose document frequency is wrong
	// BadVectorCache counts the vectors of the vector cache (vectors.cache)
	// that differ from the database's, or 1 if the cache is damaged.
	BadVectorCache int `json:"bad_vector_cache"`
	// Corrupt says SQLite's integrity check found the database file
	// damaged; the other counts are then not computed. [Recover] rebuilds
	// the index.
	Corrupt  bool      `json:"corrupt"`
	Problems []Problem `json:"problems"`
}

// OK reports whether the check found nothing wrong.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Check verifies the index: SQLite's own integrity check (which reads every
// page), no chunk without
// its document, and for every document a complete chunk sequence: ordinals
// 0..n-1 matching the recorded count, spans that start at 0, move forward
// without gaps and end at the text's length, and texts as long as their
// spans.
//
// With a replica attached ([Store.SetReplica]) it also compares the
// replica with the index ([Store.CheckReplica]).
func (s *Store) Check(ctx context.Context) (Report, error) {
	r, err := s.check(ctx)
	if err != nil || r.Corrupt {
		return r, err
	}
	if err := s.CheckReplica(ctx, &r); err != nil {
		return r, fmt.Errorf("check replica: %w", err)
	}
	return r, nil
}

// check is Check of the local database alone.
func (s *Store) check(ctx context.Context) (Report, error) {
	var r Report
	msgs, err := s.integrity(ctx, "integrity_check")
	if err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	if len(msgs) > 0 {
		// Nothing else can be trusted, or even read.
		r.Corrupt = true
		r.Problems = append(r.Problems, Problem{Problem: "the database file is damaged (" + repairHint + "): sqlite integrity_check: " + strings.Join(msgs, "; ")})
		return r, nil
	}
	var orphans int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)`).Scan(&orphans); err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	if orphans > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks belong to no document", orphans)})
	}
	if err := s.checkSearch(ctx, &r); err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	docs, err := s.Documents(ctx, "")
	if err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	r.Documents = len(docs)
	for _, d := range docs {
		chunks, err := s.Chunks(ctx, d.ID)
		if err != nil {
			return r, fmt.Errorf("check index: %w", err)
		}
		r.Chunks += len(chunks)
		bad := func(format string, args ...any) {
			r.Problems = append(r.Problems, Problem{DocumentID: d.ID, Path: d.Path, Problem: fmt.Sprintf(format, args...)})
		}
		if len(chunks) != d.Chunks {
			bad("has %d chunks, recorded %d", len(chunks), d.Chunks)
			continue
		}
		for i, c := range chunks {
			switch {
			case c.Ordinal != i:
				bad("chunk %d has ordinal %d", i, c.Ordinal)
			case len(c.Text) != c.End-c.Start:
				bad("chunk %d text is %d bytes, span [%d,%d)", i, len(c.Text), c.Start, c.End)
			case i == 0 && c.Start != 0:
				bad("first chunk starts at %d", c.Start)
			case i > 0 && (c.Start <= chunks[i-1].Start || c.Start > chunks[i-1].End || c.End <= chunks[i-1].End):
				bad("chunk %d span [%d,%d) does not follow [%d,%d)", i, c.Start, c.End, chunks[i-1].Start, chunks[i-1].End)
			default:
				continue
			}
			break
		}
		if n := len(chunks); n > 0 && chunks[n-1].End != d.TextBytes {
			bad("chunks end at %d, text is %d bytes", chunks[n-1].End, d.TextBytes)
		}
	}
	return r, nil
}

// checkSearch counts the inconsistencies between chunks, full-text rows and
// vectors.
func (s *Store) checkSearch(ctx context.Context, r *Report) error {
	var err error
	if r.Embedder, err = s.Embedder(ctx); err != nil {
		return err
	}
	counts := []struct {
		n    *int
		sql  string
		what string
	}{
		{&r.Vectors, `SELECT count(*) FROM vectors`, ""},
		{&r.MissingTerms, `SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts f WHERE f.docid = c.rowid)`,
			"%d chunks have no full-text terms (cite check --repair adds them)"},
		{&r.OrphanTerms, `SELECT count(*) FROM chunks_fts f WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.rowid = f.docid)`,
			"%d full-text rows belong to no chunk (cite check --repair removes them)"},
		{&r.OrphanVectors, `SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.rowid = v.chunk)`,
			"%d vectors belong to no chunk (cite check --repair removes them)"},
		{&r.BadVectors, `SELECT count(*) FROM vectors WHERE length(vec) != 4 * ?`,
			"%d vectors do not have the embedder's dimension (cite check --repair makes them again)"},
	}
	for _, c := range counts {
		var args []any
		if c.n == &r.BadVectors {
			args = append(args, r.Embedder.Dim)
		}
		if err := s.db.QueryRowContext(ctx, c.sql, args...).Scan(c.n); err != nil {
			return err
		}
		if *c.n > 0 && c.what != "" {
			r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf(c.what, *c.n)})
		}
	}
	df, err := recountTermDF(ctx, s.db)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT term, df FROM term_df WHERE df != 0`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return err
		}
		if df[t] != n {
			r.BadTermCounts++
		}
		delete(df, t)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	r.BadTermCounts += len(df)
	if r.BadTermCounts > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d terms have a wrong document frequency (cite check --repair recounts them)", r.BadTermCounts)})
	}
	if r.Embedder.Name != "" {
		if r.MissingVectors, err = s.CountMissingVectors(ctx); err != nil {
			return err
		}
		if r.MissingVectors > 0 {
			r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks have no vector (cite index or cite check --repair makes them)", r.MissingVectors)})
		}
		differ, damaged, err := s.checkVectorCache(ctx, r.Embedder)
		if err != nil {
			return fmt.Errorf("check vector cache: %w", err)
		}
		switch {
		case damaged:
			r.BadVectorCache = 1
			r.Problems = append(r.Problems, Problem{Problem: "the vector cache (" + cacheFile + ") is damaged (cite check --repair rebuilds it)"})
		case differ > 0:
			r.BadVectorCache = differ
			r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d vectors of the vector cache (%s) differ from the database's (cite check --repair rebuilds it)", differ, cacheFile)})
		}
	}
	return nil
}

// Repair fixes what [Store.Check] finds that the index can fix alone, in
// one transaction: it adds missing full-text rows, removes orphaned ones,
// removes vectors of no chunk or of the wrong size (they become missing
// vectors, which the caller makes with the embedder), and marks documents
// whose chunks are damaged as changed, so that the next cite index
// re-reads their files. It returns what it did, one line per kind of
// repair.
func (s *Store) Repair(ctx context.Context) ([]string, error) {
	did, err := s.repair(ctx)
	if err != nil {
		return did, err
	}
	more, err := s.RepairReplica(ctx)
	return append(did, more...), err
}

func (s *Store) repair(ctx context.Context) ([]string, error) {
	rep, err := s.check(ctx)
	if err != nil {
		return nil, err
	}
	if rep.Corrupt {
		return nil, fmt.Errorf("repair index: %w: the database file needs rebuilding (Recover)", ErrCorrupt)
	}
	damaged := map[string]bool{}
	for _, p := range rep.Problems {
		if p.DocumentID != "" {
			damaged[p.DocumentID] = true
		}
	}
	var did []string
	var gen int64
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		did, gen = nil, 0
		if rep.OrphanTerms > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts WHERE docid NOT IN (SELECT rowid FROM chunks)`); err != nil {
				return err
			}
			did = append(did, fmt.Sprintf("removed %d orphaned full-text rows", rep.OrphanTerms))
		}
		if rep.MissingTerms > 0 {
			rows, err := tx.QueryContext(ctx, `SELECT rowid, text FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts f WHERE f.docid = c.rowid)`)
			if err != nil {
				return err
			}
			type row struct {
				rowid int64
				text  string
			}
			var missing []row
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.rowid, &r.text); err != nil {
					rows.Close()
					return err
				}
				missing = append(missing, r)
			}
			if err := rows.Close(); err != nil {
				return err
			}
			for _, r := range missing {
				if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts (docid, terms) VALUES (?, ?)`, r.rowid, analysis.JoinedTerms(r.text)); err != nil {
					return err
				}
			}
			did = append(did, fmt.Sprintf("added full-text terms of %d chunks", len(missing)))
		}
		if rep.OrphanTerms > 0 || rep.MissingTerms > 0 || rep.BadTermCounts > 0 {
			df, err := recountTermDF(ctx, tx)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM term_df`); err != nil {
				return err
			}
			if err := addTermDF(ctx, tx, df); err != nil {
				return err
			}
			if rep.BadTermCounts > 0 {
				did = append(did, fmt.Sprintf("recounted the document frequencies of %d terms", rep.BadTermCounts))
			}
		}
		if rep.OrphanVectors > 0 || rep.BadVectors > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE chunk NOT IN (SELECT rowid FROM chunks) OR length(vec) != 4 * ?`, rep.Embedder.Dim); err != nil {
				return err
			}
			if rep.OrphanVectors > 0 {
				did = append(did, fmt.Sprintf("removed %d orphaned vectors", rep.OrphanVectors))
			}
			if rep.BadVectors > 0 {
				did = append(did, fmt.Sprintf("removed %d vectors of the wrong size", rep.BadVectors))
			}
			var err error
			if gen, err = bumpVectorsGen(ctx, tx); err != nil {
				return err
			}
		}
		for id := range damaged {
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET hash = '', pipeline = '' WHERE id = ?`, id); err != nil {
				return err
			}
		}
		if len(damaged) > 0 {
			did = append(did, fmt.Sprintf("marked %d damaged documents for re-indexing (run cite index on their files)", len(damaged)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repair index: %w", err)
	}
	if gen > 0 {
		s.vmu.Lock()
		s.vectors = nil
		s.vmu.Unlock()
	}
	if rep.BadVectorCache > 0 {
		// Read the vectors from the database again, and write them out.
		if err := s.deleteVectorCache(); err != nil {
			return did, fmt.Errorf("repair index: delete vector cache: %w", err)
		}
		if err := s.LoadVectors(ctx); err != nil {
			return did, fmt.Errorf("repair index: %w", err)
		}
		did = append(did, "rebuilt the vector cache ("+cacheFile+") from the database")
	}
	return did, nil
}

// recountTermDF counts the document frequency of every term, and under the
// empty term the chunks, from the full-text rows.
func recountTermDF(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT terms FROM chunks_fts`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	df := map[string]int{}
	for rows.Next() {
		var terms string
		if err := rows.Scan(&terms); err != nil {
			return nil, err
		}
		countTerms(df, terms, +1)
	}
	return df, rows.Err()
}
