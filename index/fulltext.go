package index

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BM25 parameters: Lucene's and Elasticsearch's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxQueryTerms caps the distinct terms of a full-text query; a longer query
// (a pasted paragraph) keeps its first maxQueryTerms terms.
const maxQueryTerms = 64

// Filter restricts a search to some chunks; its zero value admits all.
type Filter struct {
	Source   string // data source name
	Document string // document id
	// Path is a pattern over documents' stored paths (absolute paths or
	// URIs) in SQLite's GLOB syntax: * matches any run of characters,
	// slashes included, ? one character, [...] one of a set.
	Path string
}

// IsZero reports whether f admits every chunk.
func (f Filter) IsZero() bool { return f == Filter{} }

// where returns the conditions of f on documents d joined with sources s.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Source != "" {
		conds = append(conds, "s.name = ?")
		args = append(args, f.Source)
	}
	if f.Document != "" {
		conds = append(conds, "d.id = ?")
		args = append(args, f.Document)
	}
	if f.Path != "" {
		conds = append(conds, "d.path GLOB ?")
		args = append(args, f.Path)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

const filterJoin = `chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`

// filterChunks returns the rowids of the chunks f admits.
func (s *Store) filterChunks(ctx context.Context, f Filter) ([]int64, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT c.rowid FROM `+filterJoin+` WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("filter chunks: %w", err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// QueryTerms returns the distinct full-text terms of a query, in order:
// [AnalyzeQuery]'s terms, at most 64.
func QueryTerms(query string) []string {
	var terms []string
	for _, t := range AnalyzeQuery(query) {
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
			if len(terms) == maxQueryTerms {
				break
			}
		}
	}
	return terms
}

// TermStats are the full-text statistics of some terms: how many chunks the
// index has, and in how many of them each term occurs.
type TermStats struct {
	Chunks int
	DF     map[string]int
}

// IDF returns the inverse document frequency of term ([IDF]).
func (ts TermStats) IDF(term string) float64 { return IDF(ts.Chunks, ts.DF[term]) }

// TermStats looks up the document frequencies of terms.
func (s *Store) TermStats(ctx context.Context, terms []string) (TermStats, error) {
	ts := TermStats{DF: make(map[string]int, len(terms))}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&ts.Chunks); err != nil {
		return ts, fmt.Errorf("term statistics: %w", err)
	}
	if len(terms) == 0 {
		return ts, nil
	}
	stmt, err := s.db.PrepareContext(ctx, `SELECT documents FROM chunks_terms WHERE term = ? AND col = '*'`)
	if err != nil {
		return ts, fmt.Errorf("term statistics: %w", err)
	}
	defer stmt.Close()
	for _, t := range terms {
		var df int
		err := stmt.QueryRowContext(ctx, t).Scan(&df)
		if err != nil && err != sql.ErrNoRows {
			return ts, fmt.Errorf("term statistics of %q: %w", t, err)
		}
		ts.DF[t] = df
	}
	return ts, nil
}

// SearchText ranks the chunks f admits by Okapi BM25 (k1 1.2, b 0.75) over
// the query's terms ([QueryTerms]) and returns the k best, best first. A
// chunk matches when it has any of the terms. The statistics (number of
// chunks, average length, document frequencies) are those of the whole
// index, so a filter does not change a chunk's score.
func (s *Store) SearchText(ctx context.Context, query string, f Filter, k int) ([]Scored, error) {
	terms := QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + t + `"`
	}
	q := `SELECT docid, matchinfo(chunks_fts, 'naly') FROM chunks_fts WHERE chunks_fts MATCH ?`
	args := []any{strings.Join(quoted, " OR ")}
	if !f.IsZero() {
		where, wargs := f.where()
		q += ` AND docid IN (SELECT c.rowid FROM ` + filterJoin + ` WHERE ` + where + `)`
		args = append(args, wargs...)
	}
	ts, err := s.TermStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var (
		idf   []float64
		avgdl float64
		top   = topK64{k: k}
		mi    []byte
	)
	for rows.Next() {
		var docid int64
		if err := rows.Scan(&docid, &mi); err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
		// n, a, l, then y: one hit count per term.
		if len(mi) != 4*(3+len(terms)) {
			return nil, fmt.Errorf("full-text search: matchinfo of %d bytes, want %d", len(mi), 4*(3+len(terms)))
		}
		if idf == nil {
			n := int(binary.NativeEndian.Uint32(mi[0:]))
			avgdl = max(float64(binary.NativeEndian.Uint32(mi[4:])), 1)
			idf = make([]float64, len(terms))
			for i, t := range terms {
				idf[i] = IDF(max(n, ts.Chunks), ts.DF[t])
			}
		}
		dl := float64(binary.NativeEndian.Uint32(mi[8:]))
		norm := bm25K1 * (1 - bm25B + bm25B*dl/avgdl)
		var score float64
		for i := range terms {
			tf := float64(binary.NativeEndian.Uint32(mi[12+4*i:]))
			if tf > 0 {
				score += idf[i] * tf * (bm25K1 + 1) / (tf + norm)
			}
		}
		top.push(Scored{Chunk: docid, Score: score})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return top.sorted(), nil
}

// topK64 keeps the k best Scored values: a min-heap whose root is the worst
// kept; ties go to the lower rowid.
type topK64 struct {
	k int
	h scoredHeap
}

func (t *topK64) push(s Scored) {
	if len(t.h) < t.k {
		heap.Push(&t.h, s)
		return
	}
	if w := t.h[0]; s.Score > w.Score || s.Score == w.Score && s.Chunk < w.Chunk {
		t.h[0] = s
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept values, best first.
func (t *topK64) sorted() []Scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Scored) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if a.Chunk < b.Chunk {
			return -1
		}
		return 1
	})
	return out
}

type scoredHeap []Scored

func (h scoredHeap) Len() int { return len(h) }
func (h scoredHeap) Less(a, b int) bool {
	if h[a].Score != h[b].Score {
		return h[a].Score < h[b].Score
	}
	return h[a].Chunk > h[b].Chunk
}
func (h scoredHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(Scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rebuildFullText re-analyzes every chunk into chunks_fts and records the
// analyzer version.
func rebuildFullText(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts`); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT rowid, text FROM chunks`)
	if err != nil {
		return err
	}
	type row struct {
		rowid int64
		terms string
	}
	var all []row
	for rows.Next() {
		var r row
		var text string
		if err := rows.Scan(&r.rowid, &text); err != nil {
			rows.Close()
			return err
		}
		r.terms = strings.Join(Analyze(text), " ")
		all = append(all, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO chunks_fts (docid, terms) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, r := range all {
		if _, err := ins.ExecContext(ctx, r.rowid, r.terms); err != nil {
			return err
		}
	}
	return setMeta(ctx, tx, metaAnalyzer, strconv.Itoa(AnalyzerVersion))
}

// checkAnalyzer rebuilds the full-text terms of an index written with
// another version of [Analyze], and drops vectors of the hash embedder,
// whose features come from the same analysis (cite index makes them
// again).
func (s *Store) checkAnalyzer(ctx context.Context) error {
	v, err := getMeta(ctx, s.db, metaAnalyzer)
	if err != nil {
		return err
	}
	if v == strconv.Itoa(AnalyzerVersion) {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := rebuildFullText(ctx, tx); err != nil {
			return fmt.Errorf("rebuild full-text index: %w", err)
		}
		name, err := getMeta(ctx, tx, metaEmbedder)
		if err != nil || !strings.HasPrefix(name, "hash") {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors`); err != nil {
			return err
		}
		_, err = bumpVectorsGen(ctx, tx)
		return err
	})
}

// ChunkRecord is a stored chunk with its document, as search results show
// it.
type ChunkRecord struct {
	Chunk
	Rowid    int64
	Document Document
}

// ChunksByRowid reads the chunks with the given rowids, with their
// documents. Rowids that no longer exist are left out of the map.
func (s *Store) ChunksByRowid(ctx context.Context, rowids []int64) (map[int64]ChunkRecord, error) {
	out := make(map[int64]ChunkRecord, len(rowids))
	for len(rowids) > 0 {
		batch := rowids[:min(len(rowids), 500)]
		rowids = rowids[len(batch):]
		args := make([]any, len(batch))
		for i, r := range batch {
			args[i] = r
		}
		rows, err := s.db.QueryContext(ctx, `
			SELECT c.rowid, c.id, c.document_id, c.ordinal, c.text, c.tokens, c.start_byte, c.end_byte, c.src_start, c.src_end, c.headings, `+documentColumns+`
			FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
			WHERE c.rowid IN (?`+strings.Repeat(",?", len(batch)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		for rows.Next() {
			var r ChunkRecord
			var headings string
			var d Document
			var mtime, indexed int64
			err := rows.Scan(&r.Rowid, &r.ID, &r.DocumentID, &r.Ordinal, &r.Text, &r.Tokens, &r.Start, &r.End, &r.SourceStart, &r.SourceEnd, &headings,
				&d.ID, &d.Source, &d.Path, &d.Title, &d.Type, &d.Size, &mtime, &d.Hash, &d.Pipeline, &d.TextBytes, &d.Chunks, &d.Tokens, &indexed)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("read chunks: %w", err)
			}
			if err := json.Unmarshal([]byte(headings), &r.Headings); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read chunk %s: headings: %w", r.ID, err)
			}
			if len(r.Headings) == 0 {
				r.Headings = nil
			}
			d.ModTime, d.IndexedAt = unixNano(mtime), unixNano(indexed)
			r.Document = d
			out[r.Rowid] = r
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
	}
	return out, nil
}
