package index

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/internal/le"
)

// BM25 parameters: Lucene's and Elasticsearch's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Filter restricts a search to some chunks; its zero value admits all.
// Its conditions combine with AND.
type Filter struct {
	// Sources are data source names: a chunk of any of them is admitted.
	// A search over several sources is one search, whose scores compare
	// across them, not one search per source.
	Sources  []string
	Document string // document id
	// Path is a pattern over documents' stored paths (absolute paths or
	// URIs) in SQLite's GLOB syntax: * matches any run of characters,
	// slashes included, ? one character, [...] one of a set.
	Path string
}

// IsZero reports whether f admits every chunk.
func (f Filter) IsZero() bool { return len(f.Sources) == 0 && f.Document == "" && f.Path == "" }

// MaxPathPattern is the longest [Filter.Path] accepted, in bytes: a
// store that matches paths itself (the Weaviate store) takes up to
// len(pattern) × len(path) steps a path.
const MaxPathPattern = 1024

// Validate returns an error wrapping [ErrInvalidInput] when f's Path is not
// a pattern: a "[" that no "]" closes (SQLite would accept such a pattern
// and silently match nothing), or more than [MaxPathPattern] bytes.
func (f Filter) Validate() error {
	p := f.Path
	if len(p) > MaxPathPattern {
		return fmt.Errorf("%w: path pattern of %d bytes: the limit is %d", ErrInvalidInput, len(p), MaxPathPattern)
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '[' {
			continue
		}
		j := i + 1
		if j < len(p) && p[j] == '^' {
			j++
		}
		if j < len(p) && p[j] == ']' { // a "]" first in a set is a member
			j++
		}
		end := strings.IndexByte(p[j:], ']')
		if end < 0 {
			return fmt.Errorf("%w: path pattern %q: the \"[\" at byte %d is never closed by \"]\"", ErrInvalidInput, p, i)
		}
		i = j + end
	}
	return nil
}

// where returns the conditions of f on documents d joined with sources s.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if len(f.Sources) > 0 {
		conds = append(conds, "s.name IN (?"+strings.Repeat(",?", len(f.Sources)-1)+")")
		for _, src := range f.Sources {
			args = append(args, src)
		}
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

// filterChunks returns the rowids of the chunks f admits, read through q
// (a search's snapshot reads them on its own connection: asking the pool
// for a second one while holding one deadlocks once every connection is
// held by a search).
func filterChunks(ctx context.Context, q readQuerier, f Filter) ([]int64, error) {
	where, args := f.where()
	rows, err := q.QueryContext(ctx, `SELECT c.rowid FROM `+filterJoin+` WHERE `+where, args...)
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

// TermStats are the full-text statistics of some terms: how many chunks the
// index has, and in how many of them each term occurs.
type TermStats struct {
	Chunks int
	DF     map[string]int
}

// IDF returns the inverse document frequency of term ([analysis.IDF]).
func (ts TermStats) IDF(term string) float64 { return analysis.IDF(ts.Chunks, ts.DF[term]) }

// TermStats looks up the document frequencies of terms.
func (s *Store) TermStats(ctx context.Context, terms []string) (TermStats, error) {
	return termStats(ctx, s.db, terms)
}

func termStats(ctx context.Context, q readQuerier, terms []string) (TermStats, error) {
	ts := TermStats{DF: make(map[string]int, len(terms))}
	args := make([]any, 0, len(terms)+1)
	args = append(args, "") // the number of chunks
	for _, t := range terms {
		args = append(args, t)
	}
	rows, err := q.QueryContext(ctx, `SELECT term, df FROM term_df WHERE term IN (?`+strings.Repeat(",?", len(terms))+`)`, args...)
	if err != nil {
		return ts, fmt.Errorf("term statistics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var df int
		if err := rows.Scan(&t, &df); err != nil {
			return ts, fmt.Errorf("term statistics: %w", err)
		}
		if t == "" {
			ts.Chunks = df
		} else {
			ts.DF[t] = df
		}
	}
	return ts, rows.Err()
}

// termCounts returns the distinct terms of an analyzed text (terms joined
// by spaces) with their frequencies, in no particular order, appended to
// dst[:0], and the number of terms. The terms are the fields of
// [strings.Fields].
func termCounts(dst []termCount, terms string) ([]termCount, uint32) {
	c := termCounters.Get().(*termCounter)
	defer termCounters.Put(c)
	var n uint32
	if plainASCII(terms) {
		n = c.addSpaced(terms)
	} else {
		n = c.addFields(terms)
	}
	out := append(dst[:0], c.counts...)
	c.reset()
	return out, n
}

// plainASCII reports whether s has only ASCII bytes from ' ' up: then its
// fields are the runs of bytes between its spaces. The terms of an
// analyzed text, ASCII or not, have no other space (analysis.Analyze).
func plainASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// A byte from 0x80 up, or below 0x20: the first of those
		// is flagged exactly, and none is flagged without one.
		if x := le.Uint64(s[i:]); (x|(x-0x20*ones)&^x)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < ' ' || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// addSpaced counts the fields of s, a [plainASCII] text, and returns their
// number: it finds the spaces of 8 bytes at once.
func (c *termCounter) addSpaced(s string) uint32 {
	const ones, lows = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	var n uint32
	start, i := 0, 0
	for ; i+8 <= len(s); i += 8 {
		y := le.Uint64(s[i:]) ^ 0x20*ones // spaces are 0
		// The high bit of each zero byte, exactly.
		m := ^((y&lows + lows) | y | lows)
		for ; m != 0; m &= m - 1 {
			end := i + bits.TrailingZeros64(m)>>3
			if end > start {
				c.add(s[start:end])
				n++
			}
			start = end + 1
		}
	}
	for ; i < len(s); i++ {
		if s[i] == ' ' {
			if i > start {
				c.add(s[start:i])
				n++
			}
			start = i + 1
		}
	}
	if len(s) > start {
		c.add(s[start:])
		n++
	}
	return n
}

// addFields counts the fields of s, as [strings.Fields] gives them, and
// returns their number.
func (c *termCounter) addFields(s string) uint32 {
	var n uint32
	for f := range strings.FieldsSeq(s) {
		c.add(f)
		n++
	}
	return n
}

// termCounters are the scratch tables of termCounts.
var termCounters = sync.Pool{New: func() any { return &termCounter{seed: maphash.MakeSeed()} }}

// termCounter counts the terms of a text: an open-addressing hash table
// with linear probing over the distinct terms, in the order they came. A
// term of up to 16 bytes is told apart by its key (termKey) alone, which
// also gives its hash: a Go map keyed by the terms costs three times as
// much here, most of it hashing them.
type termCounter struct {
	seed   maphash.Seed
	slots  []int32 // 1 + index in counts; 0 empty
	keys   []termKey
	counts []termCount
}

// termKey identifies a term: up to 16 bytes, its first and last 8 bytes
// (overlapping when it is shorter than 16), or its first and last 4, or,
// below 4 bytes, its first, middle and last, and its length; beyond, a
// hash of it, which only narrows the search.
type termKey struct {
	lo, hi uint64
	n      int
}

func keyOf(t string, seed maphash.Seed) termKey {
	n := len(t)
	switch {
	case n > 16:
		return termKey{maphash.String(seed, t), 0, n}
	case n >= 8:
		return termKey{le.Uint64(t), le.Uint64(t[n-8:]), n}
	case n >= 4:
		return termKey{uint64(le.Uint32(t)) | uint64(le.Uint32(t[n-4:]))<<32, 0, n}
	case n > 0:
		return termKey{uint64(t[0]) | uint64(t[n/2])<<8 | uint64(t[n-1])<<16, 0, n}
	}
	return termKey{}
}

// add counts an occurrence of term t.
func (c *termCounter) add(t string) { c.counts[c.number(t)].tf++ }

// number returns the index in counts of term t, which it adds, with a
// count of 0, if it is new (newSegment numbers its terms with it).
func (c *termCounter) number(t string) int32 {
	if 2*(len(c.counts)+1) > len(c.slots) {
		c.grow()
	}
	key := keyOf(t, c.seed)
	mask := uint64(len(c.slots) - 1)
	for i := key.hash() & mask; ; i = (i + 1) & mask {
		k := c.slots[i]
		if k == 0 {
			c.keys = append(c.keys, key)
			c.counts = append(c.counts, termCount{term: t})
			c.slots[i] = int32(len(c.counts))
			return int32(len(c.counts) - 1)
		}
		if c.keys[k-1] == key && (key.n <= 16 || c.counts[k-1].term == t) {
			return k - 1
		}
	}
}

func (k termKey) hash() uint64 {
	h := (k.lo ^ bits.RotateLeft64(k.hi, 29) ^ uint64(k.n)) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

func (c *termCounter) grow() {
	n := max(2*len(c.slots), 256)
	c.slots = make([]int32, n)
	mask := uint64(n - 1)
	for k, key := range c.keys {
		i := key.hash() & mask
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = int32(k + 1)
	}
}

// reset empties the table, keeping its memory, unless it grew large (a
// huge text).
func (c *termCounter) reset() {
	if len(c.slots) > 1<<16 {
		*c = termCounter{seed: c.seed}
		return
	}
	clear(c.slots)
	clear(c.counts) // hold no text
	c.keys = c.keys[:0]
	c.counts = c.counts[:0]
}

// addTermDF applies document-frequency changes, termDFRows terms a
// statement.
func addTermDF(ctx context.Context, tx *sql.Tx, delta map[string]int) error {
	w := &rowInserter{ctx: ctx, tx: tx, query: termDFQuery, cols: 2, max: termDFRows}
	defer w.close()
	// In the order of the table's key (see writeSegment).
	for _, t := range slices.Sorted(maps.Keys(delta)) {
		if d := delta[t]; d != 0 {
			if err := w.add(t, d); err != nil {
				return fmt.Errorf("update document frequencies: %w", err)
			}
		}
	}
	if err := w.flush(); err != nil {
		return fmt.Errorf("update document frequencies: %w", err)
	}
	return nil
}

// termDFRows is how many terms one statement of addTermDF updates.
const termDFRows = 256

// termDFQuery returns the statement adding n document-frequency changes.
func termDFQuery(n int) string {
	return `INSERT INTO term_df (term, df) VALUES (?, ?)` + strings.Repeat(`, (?, ?)`, n-1) +
		` ON CONFLICT (term) DO UPDATE SET df = df + excluded.df`
}

// countTerms adds +1 (or -1) for each distinct term of an analyzed text,
// and for the chunk itself under the empty term.
func countTerms(delta map[string]int, terms string, sign int) {
	delta[""] += sign
	counts, _ := termCounts(nil, terms)
	for _, c := range counts {
		delta[c.term] += sign
	}
}

// SearchText ranks the chunks f admits by Okapi BM25 (k1 1.2, b 0.75) over
// the query's terms ([analysis.QueryTerms]) and returns the k best, best first (ties
// by rowid). A chunk matches when it has any of the terms. The statistics
// (number of chunks, average length, document frequencies) are those of
// the whole index, so a filter does not change a chunk's score.
//
// It reads the terms' postings (postings.go), which carry each chunk's
// frequency of the term and, by block of 128 chunks, the most a block can
// add to a score, and skips what cannot enter the top k (block-max
// MaxScore): its cost follows k and the postings that can still make the
// top k, not the number of matches. The ranking is the exhaustive one
// (TestPostingsMatchExhaustive).
func (s *Store) SearchText(ctx context.Context, query string, f Filter, k int) ([]Scored, error) {
	terms := analysis.QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	return s.searchPostings(ctx, terms, f, k, false)
}

// liveTerms returns the terms found in some chunk, rarest first (the
// order scores are summed in).
func (s *Store) liveTerms(ctx context.Context, terms []string) ([]string, error) {
	ts, err := s.TermStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	return liveIn(terms, ts), nil
}

// liveIn returns the distinct terms ts finds in some chunk, rarest first.
func liveIn(terms []string, ts TermStats) []string {
	var live []string
	for _, t := range terms {
		if ts.DF[t] > 0 && !slices.Contains(live, t) {
			live = append(live, t)
		}
	}
	slices.SortStableFunc(live, func(a, b string) int { return ts.DF[a] - ts.DF[b] })
	return live
}

func idfs(terms []string, ts TermStats) []float64 {
	out := make([]float64, len(terms))
	for i, t := range terms {
		out[i] = ts.IDF(t)
	}
	return out
}

// scoredFirst orders Scored values best first.
func scoredFirst(a, b Scored) int { return bestFirst(a.Score, b.Score, a.Chunk, b.Chunk) }

// bestFirst orders results by score, highest first, then by rowid, lowest
// first: the order of every ranking in this package.
func bestFirst[F float32 | float64](as, bs F, ar, br int64) int {
	if c := cmp.Compare(bs, as); c != 0 {
		return c
	}
	return cmp.Compare(ar, br)
}

// rebuildFullText counts the document frequencies of the chunks' terms
// again, writes their postings again and records the analyzer version: the
// full-text index of a new [analysis.Analyze].
func rebuildFullText(ctx context.Context, tx *sql.Tx) error {
	delta, err := recountTermDF(ctx, tx)
	if err != nil {
		return err
	}
	delta[""] += 0 // the number of chunks, even when it is 0
	if _, err := tx.ExecContext(ctx, `DELETE FROM term_df`); err != nil {
		return err
	}
	if err := addTermDF(ctx, tx, delta); err != nil {
		return err
	}
	// The postings, if the schema has them yet (migration 2 runs this
	// before 6 made them).
	var postingsTables int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'fts_segments'`).Scan(&postingsTables); err != nil {
		return err
	}
	if postingsTables > 0 {
		if err := rebuildPostings(ctx, tx); err != nil {
			return err
		}
	}
	return setMeta(ctx, tx, metaAnalyzer, strconv.Itoa(analysis.Version))
}

// checkAnalyzer rebuilds the full-text terms of an index written with
// another version of [analysis.Analyze]. Vectors are left alone: an
// embedder whose vectors come from the analysis (the hash embedder) names
// the version it was made with, so vectors of another version are refused
// as another embedder's ([ErrEmbedderMismatch]).
func (s *Store) checkAnalyzer(ctx context.Context) error {
	v, err := getMeta(ctx, s.db, metaAnalyzer)
	if err != nil {
		return err
	}
	if v == strconv.Itoa(analysis.Version) {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := rebuildFullText(ctx, tx); err != nil {
			return fmt.Errorf("rebuild full-text index: %w", err)
		}
		return nil
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
		err := s.chunkRecords(ctx, `c.rowid IN (?`+strings.Repeat(",?", len(batch)-1)+`)`, args, func(r ChunkRecord) {
			out[r.Rowid] = r
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ChunkByID returns the chunk with the given id (a [Chunk]'s ID, as search
// hits and citations carry it), with its document. A chunk that does not
// exist, or no longer does, is an error wrapping [ErrNotFound].
func (s *Store) ChunkByID(ctx context.Context, id string) (ChunkRecord, error) {
	var rec ChunkRecord
	found := false
	err := s.chunkRecords(ctx, `c.id = ?`, []any{id}, func(r ChunkRecord) { rec, found = r, true })
	if err != nil {
		return ChunkRecord{}, err
	}
	if !found {
		return ChunkRecord{}, fmt.Errorf("chunk %s: %w", id, ErrNotFound)
	}
	return rec, nil
}

// chunkRecords reads the chunks matching where (over chunks c) with their
// documents and calls fn with each.
func (s *Store) chunkRecords(ctx context.Context, where string, args []any, fn func(ChunkRecord)) error {
	rows, err := s.db.QueryContext(ctx, `
		SELECT c.rowid, c.id, c.document_id, c.ordinal, c.text, c.tokens, c.start_byte, c.end_byte, c.src_start, c.src_end, c.headings, c.page, c.page_end, `+documentColumns+`
		FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
		WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r ChunkRecord
		var headings string
		var d Document
		var mtime, indexed int64
		err := rows.Scan(&r.Rowid, &r.ID, &r.DocumentID, &r.Ordinal, &r.Text, &r.Tokens, &r.Start, &r.End, &r.SourceStart, &r.SourceEnd, &headings, &r.Page, &r.PageEnd,
			&d.ID, &d.Source, &d.Path, &d.Title, &d.Type, &d.Kind, &d.Size, &mtime, &d.Hash, &d.Pipeline, &d.TextBytes, &d.Chunks, &d.Tokens, &indexed)
		if err != nil {
			return fmt.Errorf("read chunks: %w", err)
		}
		if err := json.Unmarshal([]byte(headings), &r.Headings); err != nil {
			return fmt.Errorf("read chunk %s: headings: %w", r.ID, err)
		}
		if len(r.Headings) == 0 {
			r.Headings = nil
		}
		d.ModTime, d.IndexedAt = unixNano(mtime), unixNano(indexed)
		r.Document = d
		fn(r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	return nil
}
