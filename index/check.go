package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
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
	// Counts of inconsistencies between chunks, their full-text index and
	// their vectors; each nonzero count is also one of Problems. (A
	// chunk's terms are made again from its text, schema 7: they cannot
	// be missing.)
	MissingVectors int `json:"missing_vectors"` // chunks without a vector
	OrphanVectors  int `json:"orphan_vectors"`  // vectors of no chunk
	BadVectors     int `json:"bad_vectors"`     // vectors of the wrong size, or not numbers (NaN, ±Inf)
	BadTermCounts  int `json:"bad_term_counts"` // terms whose document frequency is wrong
	BadPostings    int `json:"bad_postings"`    // chunks and terms out of step in the full-text postings
	// BadRows counts the rows (other than vectors) that cannot be read:
	// a value of the wrong type, a NULL where one is required, JSON that
	// does not parse, a span out of range.
	BadRows int `json:"bad_rows"`
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
	r, _, err := s.check(ctx)
	if err != nil || r.Corrupt {
		return r, err
	}
	if err := s.CheckReplica(ctx, &r); err != nil {
		return r, fmt.Errorf("check replica: %w", err)
	}
	return r, nil
}

// check is Check of the local database alone. It also returns the damage
// it found, for repair.
func (s *Store) check(ctx context.Context) (Report, *damage, error) {
	var r Report
	dmg := &damage{rows: map[string][]badRow{}, docs: map[string]bool{}, lostSources: map[int64]bool{}}
	msgs, err := s.integrity(ctx, "integrity_check")
	if err != nil {
		return r, dmg, fmt.Errorf("check index: %w", err)
	}
	if len(msgs) > 0 {
		// Nothing else can be trusted, or even read.
		r.Corrupt = true
		r.Problems = append(r.Problems, Problem{Problem: "the database file is damaged (" + repairHint + "): sqlite integrity_check: " + strings.Join(msgs, "; ")})
		return r, dmg, nil
	}
	if r.Embedder, err = s.Embedder(ctx); decodeFailure(ctx, err) {
		// The meta row is among the unreadable rows below.
		r.Embedder, dmg.meta = EmbedderInfo{}, true
	} else if err != nil {
		return r, dmg, fmt.Errorf("check index: %w", err)
	}
	docs, err := s.readRows(ctx, r.Embedder.Dim, dmg)
	if err != nil {
		return r, dmg, fmt.Errorf("check index: %w", dbError(err))
	}
	if e := r.Embedder; !dmg.meta && (e.Name == "") != (e.Dim == 0) {
		dmg.meta = true
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("the index's settings are damaged: embedder %q of %d dimensions (cite check --repair removes them and the vectors; cite index makes them again)", e.Name, e.Dim)})
	}
	if e := r.Embedder; !dmg.meta && e.Dim > 0 {
		// A dimension no vector has is damaged, not every vector.
		var total, fit int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(vec) IN (4 * ?1, 2 * ?1 + 1)), 0) FROM vectors`, e.Dim).Scan(&total, &fit); err != nil {
			return r, dmg, fmt.Errorf("check index: %w", err)
		}
		if total > 0 && fit == 0 {
			dmg.meta = true
			r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("the index's settings are damaged: none of its %d vectors has the recorded dimension, %d (cite check --repair takes it from the vectors)", total, e.Dim)})
		}
	}
	if dmg.meta {
		// The vectors were judged by a dimension that cannot be trusted.
		r.Embedder = EmbedderInfo{}
		delete(dmg.rows, "vectors")
	}
	r.BadRows = dmg.count() - len(dmg.rows["vectors"])
	r.BadVectors = len(dmg.rows["vectors"])
	if dmg.meta {
		r.BadVectors = 0 // all of them go
	}
	tables := slices.Sorted(maps.Keys(dmg.rows))
	for _, t := range tables {
		rows := dmg.rows[t]
		if t == "vectors" {
			continue
		}
		what := "removes them"
		switch t {
		case "chunks":
			what = "removes them and reads their documents again"
		case "sources":
			what = "renames them"
		case "term_df":
			what = "recounts them"
		case "meta":
			what = "removes them"
			if dmg.meta {
				what = "removes them and makes the vectors again"
			}
		}
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d rows of table %s cannot be read (%s %v: %s) (cite check --repair %s)", len(rows), t, "row", rows[0].key, rows[0].reason, what)})
	}
	if n := len(dmg.docRows); n > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d rows of table documents cannot be read (row %v: %s) (cite check --repair reads their files again)", n, dmg.docRows[0].key, dmg.docRows[0].reason)})
	}
	if n := len(dmg.lostSources); n > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("documents name %d data sources that do not exist (cite check --repair makes stand-ins)", n)})
	}
	var orphans int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)`).Scan(&orphans); err != nil {
		return r, dmg, fmt.Errorf("check index: %w", err)
	}
	if orphans > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks belong to no document (cite check --repair removes them)", orphans)})
	}
	if err := s.checkSearch(ctx, &r, dmg); err != nil {
		return r, dmg, fmt.Errorf("check index: %w", err)
	}
	r.Documents = len(docs) + len(dmg.docRows)
	ids := slices.SortedFunc(maps.Keys(docs), func(a, b string) int { return strings.Compare(docs[a].path, docs[b].path) })
	for _, id := range ids {
		d := docs[id]
		bad := func(format string, args ...any) {
			dmg.docs[d.id] = true
			r.Problems = append(r.Problems, Problem{DocumentID: d.id, Path: d.path, Problem: fmt.Sprintf(format, args...)})
		}
		if dmg.docs[id] {
			// Some of its chunk rows cannot be read.
			bad("some of its chunks cannot be read (cite check --repair reads the file again)")
			continue
		}
		chunks, err := s.Chunks(ctx, id)
		if decodeFailure(ctx, err) {
			bad("its chunks cannot be read: %v (cite check --repair reads the file again)", err)
			continue
		}
		if err != nil {
			return r, dmg, fmt.Errorf("check index: %w", err)
		}
		r.Chunks += len(chunks)
		if len(chunks) != d.chunks {
			bad("has %d chunks, recorded %d", len(chunks), d.chunks)
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
		if n := len(chunks); n > 0 && chunks[n-1].End != d.textBytes {
			bad("chunks end at %d, text is %d bytes", chunks[n-1].End, d.textBytes)
		}
	}
	return r, dmg, nil
}

// checkSearch counts the inconsistencies between chunks, full-text rows and
// vectors.
func (s *Store) checkSearch(ctx context.Context, r *Report, dmg *damage) error {
	counts := []struct {
		n    *int
		sql  string
		what string
	}{
		{&r.Vectors, `SELECT count(*) FROM vectors`, ""},
	}
	for _, c := range counts {
		if err := s.db.QueryRowContext(ctx, c.sql).Scan(c.n); err != nil {
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
	if r.BadPostings, err = checkPostings(ctx, s.db, df); err != nil {
		return err
	}
	if r.BadPostings > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks or terms are out of step in the full-text postings (cite check --repair rebuilds them)", r.BadPostings)})
	}
	rows, err := s.db.QueryContext(ctx, `SELECT term, df FROM term_df WHERE df != 0`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t, n any
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return err
		}
		term, ok1 := t.(string)
		count, ok2 := n.(int64)
		if !ok1 || !ok2 || int64(df[term]) != count {
			r.BadTermCounts++
		}
		if ok1 {
			delete(df, term)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	r.BadTermCounts += len(df)
	if r.BadTermCounts > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d terms have a wrong document frequency (cite check --repair recounts them)", r.BadTermCounts)})
	}
	return s.checkVectors(ctx, r, dmg)
}

// checkVectors counts the vectors that are missing, of no chunk, or
// unusable, and compares the vector cache with the database.
func (s *Store) checkVectors(ctx context.Context, r *Report, dmg *damage) error {
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&r.Vectors); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.rowid = v.chunk)`).Scan(&r.OrphanVectors); err != nil {
		return err
	}
	if r.OrphanVectors > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d vectors belong to no chunk (cite check --repair removes them)", r.OrphanVectors)})
	}
	if r.BadVectors > 0 {
		v := dmg.rows["vectors"][0]
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d vectors do not have the embedder's dimension or hold values that are not numbers (chunk %v: %s) (cite check --repair makes them again)", r.BadVectors, v.key, v.reason)})
	}
	if dmg.meta {
		return nil
	}
	if r.Embedder.Name != "" {
		var err error
		if r.MissingVectors, err = s.CountMissingVectors(ctx); err != nil {
			return err
		}
		if r.MissingVectors > 0 {
			r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks have no vector (cite index or cite check --repair makes them)", r.MissingVectors)})
		}
		if r.BadVectors > 0 {
			return nil // the database's vectors cannot be read to compare
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
// one transaction: it removes the rows that cannot be read (their
// documents are read again), adds missing full-text rows, removes orphaned
// ones, removes vectors of no chunk, of the wrong size or that are not
// numbers (they become missing vectors, which the caller makes with the
// embedder), and removes the chunks of documents whose chunks are damaged,
// marking them for re-reading: a blank hash, no chunks and a size of -1,
// as [Recover] leaves them (the caller reads their files again; cite
// index does). It returns what it did, one line per kind of repair.
func (s *Store) Repair(ctx context.Context) ([]string, error) {
	did, err := s.repair(ctx, true)
	if err != nil {
		return did, err
	}
	more, err := s.RepairReplica(ctx)
	return append(did, more...), err
}

// repair is Repair of the local database; withCache also rebuilds a vector
// cache that differs from the database.
func (s *Store) repair(ctx context.Context, withCache bool) ([]string, error) {
	did, again, err := s.repairPass(ctx, withCache)
	if err != nil || !again {
		return did, err
	}
	// The vectors are judged again, by the dimension restored.
	more, _, err := s.repairPass(ctx, withCache)
	return append(did, more...), err
}

// repairPass is one check and repair of the local database. again says
// the index's settings were mended, and its vectors are to be checked
// again.
func (s *Store) repairPass(ctx context.Context, withCache bool) (did []string, again bool, err error) {
	rep, dmg, err := s.check(ctx)
	if err != nil {
		return nil, false, err
	}
	if rep.Corrupt {
		return nil, false, fmt.Errorf("repair index: %w: the database file needs rebuilding (Recover)", ErrCorrupt)
	}
	for _, p := range rep.Problems {
		if p.DocumentID != "" {
			dmg.docs[p.DocumentID] = true
		}
	}
	var gen int64
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		did, gen, again = nil, 0, false
		var err error
		if did, err = repairRows(ctx, tx, dmg); err != nil {
			return err
		}
		if len(dmg.docs) > 0 {
			n, err := markReread(ctx, tx, dmg.docs)
			if err != nil {
				return err
			}
			if n > 0 {
				did = append(did, fmt.Sprintf("removed the chunks of %d damaged documents and marked them to be read again from their files", n))
			}
		}
		if len(dmg.docs) > 0 || rep.BadTermCounts > 0 || dmg.count() > 0 {
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
		if len(dmg.docs) > 0 || rep.BadPostings > 0 || dmg.count() > 0 {
			if err := rebuildPostings(ctx, tx); err != nil {
				return err
			}
			if rep.BadPostings > 0 {
				did = append(did, "rebuilt the full-text postings")
			}
		}
		if rep.OrphanVectors > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE chunk NOT IN (SELECT rowid FROM chunks)`); err != nil {
				return err
			}
			did = append(did, fmt.Sprintf("removed %d orphaned vectors", rep.OrphanVectors))
		}
		if rep.BadVectors > 0 {
			did = append(did, fmt.Sprintf("removed %d vectors of the wrong size or with values that are not numbers", rep.BadVectors))
		}
		if dmg.meta {
			// With the embedder's name, its dimension is that of most of
			// its vectors, float16 or float32 alike ([vectorFormatDim]; the
			// rows repairRows removed are gone, a damaged name among
			// them); without it, the vectors cannot be used.
			name, _ := getMeta(ctx, tx, metaEmbedder)
			dim := 0
			if name != "" {
				err := tx.QueryRowContext(ctx, `
					SELECT CASE length(vec) % 2 WHEN 1 THEN length(vec) / 2 ELSE length(vec) / 4 END
					FROM vectors WHERE typeof(vec) = 'blob' AND length(vec) > 1 AND (length(vec) % 2 = 1 OR length(vec) % 4 = 0)
					GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`).Scan(&dim)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
			}
			if dim > 0 {
				if err := setMeta(ctx, tx, metaDim, strconv.Itoa(dim)); err != nil {
					return err
				}
				did = append(did, fmt.Sprintf("restored the embedder's damaged dimension from its vectors: %s, %d dimensions", name, dim))
				again = true
			} else {
				if _, err := tx.ExecContext(ctx, `DELETE FROM vectors`); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN (?, ?)`, metaEmbedder, metaDim); err != nil {
					return err
				}
				did = append(did, "removed the damaged embedder settings and all vectors: vector search needs them made again (cite index makes them with the embedder it is given)")
			}
		}
		if rep.OrphanVectors > 0 || rep.BadVectors > 0 || dmg.meta || len(dmg.docs) > 0 || dmg.count() > 0 {
			if gen, err = bumpVectorsGen(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("repair index: %w", err)
	}
	if gen > 0 {
		s.vmu.Lock()
		s.vectors = nil
		s.vmu.Unlock()
	}
	if withCache && rep.BadVectorCache > 0 {
		// Read the vectors from the database again, and write them out.
		if err := s.deleteVectorCache(); err != nil {
			return did, false, fmt.Errorf("repair index: delete vector cache: %w", err)
		}
		if err := s.LoadVectors(ctx); err != nil {
			return did, false, fmt.Errorf("repair index: %w", err)
		}
		did = append(did, "rebuilt the vector cache ("+cacheFile+") from the database")
	}
	return did, again, nil
}

// repairRows removes the rows of the damage that cannot be read, renames
// data sources whose names cannot be read, makes stand-ins for the data
// sources documents name that are gone, resets the document rows of which
// only the identity can be read, and removes the chunks of no document.
func repairRows(ctx context.Context, tx *sql.Tx, dmg *damage) ([]string, error) {
	var did []string
	now := time.Now().UnixNano()
	removed := 0
	tables, err := dataTables(ctx, tx)
	if err != nil {
		return nil, err
	}
	for t, rows := range dmg.rows {
		key := "rowid"
		if i := slices.IndexFunc(tables, func(x table) bool { return x.name == t }); i >= 0 {
			key = tables[i].key()
		}
		for _, r := range rows {
			var err error
			if t == "sources" {
				// Removing it would remove its documents.
				_, err = tx.ExecContext(ctx, `UPDATE sources SET name = 'recovered-' || rowid, created_at = ? WHERE rowid = ?`, now, r.key)
			} else {
				_, err = tx.ExecContext(ctx, `DELETE FROM "`+t+`" WHERE "`+key+`" = ?`, r.key)
			}
			if err != nil {
				return did, fmt.Errorf("remove row %v of %s: %w", r.key, t, err)
			}
			removed++
		}
	}
	if removed > 0 {
		did = append(did, fmt.Sprintf("removed or renamed %d rows that could not be read", removed))
	}
	if n := len(dmg.rows["documents"]); n > 0 {
		did = append(did, fmt.Sprintf("lost %d documents whose records could not be read, their paths with them (cite index their folders again to add them back)", n))
	}
	for id := range dmg.lostSources {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sources (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, id, fmt.Sprintf("recovered-%d", id), now); err != nil {
			return did, fmt.Errorf("make a stand-in data source: %w", err)
		}
	}
	if n := len(dmg.lostSources); n > 0 {
		did = append(did, fmt.Sprintf("made %d stand-in data sources (recovered-ID) for documents whose data source was lost", n))
	}
	for _, r := range dmg.docRows {
		// Everything but the identity is read again from the file.
		_, err := tx.ExecContext(ctx, `
			UPDATE documents SET title = '', type = '', size = -1, mtime = 0, hash = '',
				pipeline = CASE WHEN typeof(pipeline) = 'text' THEN pipeline ELSE '' END,
				kind = CASE WHEN kind IN ('file', 'web') THEN kind ELSE 'file' END,
				text_bytes = 0, chunks = 0, tokens = 0, indexed_at = 0
			WHERE rowid = ?`, r.key)
		if err != nil {
			return did, fmt.Errorf("reset document row %v: %w", r.key, err)
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)`)
	if err != nil {
		return did, err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		did = append(did, fmt.Sprintf("removed %d chunks of no document", n))
	}
	return did, nil
}

// markReread removes the chunks of documents and marks them to be read
// again: a blank hash, no chunks, a size of -1. It returns how many of
// them exist. The caller counts the terms' document frequencies again.
func markReread(ctx context.Context, tx *sql.Tx, ids map[string]bool) (int, error) {
	n := 0
	for id := range ids {
		// The trigger chunks_delete leaves tombstones in the postings,
		// the foreign key removes their vectors.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id = ?`, id); err != nil {
			return n, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE documents SET hash = '', size = -1, chunks = 0, tokens = 0, text_bytes = 0 WHERE id = ?`, id)
		if err != nil {
			return n, err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	return n, nil
}
