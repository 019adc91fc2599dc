package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/cite-rag/cite/index/internal/postings"
	"github.com/cite-rag/cite/index/internal/topk"
)

// The full-text postings (schema 6): the chunks of each write transaction
// become a segment, holding for each term the chunks that have it with
// its frequency in blocks a search can skip ([postings]), and the chunks'
// lengths. Deleted chunks are tombstones (fts_deleted) until a merge
// leaves them out. Segments are merged in tiers: when mergeFactor
// segments of the same tier (number of chunks, in powers of mergeFactor)
// exist, they become one, so that each chunk is rewritten about
// log_mergeFactor(chunks) times in all and a search reads a few dozen
// segments at most.
const mergeFactor = 8

// metaFTSGen is the meta key of a counter bumped whenever the segments
// change, so that a process keeping them in memory (ftsCache) sees when
// another one changed them.
const metaFTSGen = "fts_gen"

// compactTombstones is the number of tombstones past which a write merges
// every segment into one, leaving the deleted chunks out (also past a
// sixteenth of the chunks): a search reads the tombstones every time.
const compactTombstones = 1024

// newSegment collects the chunks a write transaction adds, for
// [flushSegment]. Each distinct term gets a number the first time it is
// seen, kept in the chunk's termCount, so that the segment is built from
// numbers, with one lookup by term for each term of a chunk, and the
// transaction's document frequencies come from the same lookups
// ([newSegment.addDF]).
type newSegment struct {
	chunks []segmentChunk
	ids    termCounter // term -> its number, its index in ids.counts
	terms  []string    // by number
	df     []int32     // by number: the chunks added that have it
	// gone holds the rowids the transaction deleted, each with the number
	// of chunks added before its last deletion: SQLite may give a deleted
	// rowid (the highest) to a chunk inserted after, which stays.
	gone map[int64]int
}

// segmentChunk is a chunk of a new segment: its distinct terms with their
// frequencies and numbers, and its length in terms.
type segmentChunk struct {
	rowid  int64
	counts []termCount
	length uint32
}

// termCount is a term of a text with its number of occurrences, and the
// term's number in the newSegment the text was last added to.
type termCount struct {
	term string
	tf   uint32
	id   int32
}

// add records a chunk the transaction inserted, given its analyzed terms
// joined by spaces.
func (s *newSegment) add(rowid int64, terms string) {
	counts, n := termCounts(nil, terms)
	s.addCounted(rowid, counts, n)
}

// addCounted records a chunk the transaction inserted, given its distinct
// terms counted ([termCounts]); it numbers them in counts.
func (s *newSegment) addCounted(rowid int64, counts []termCount, length uint32) {
	if s.ids.slots == nil {
		s.ids.seed = segmentSeed
	}
	s.chunks = append(s.chunks, segmentChunk{rowid, counts, length})
	for i := range counts {
		c := &counts[i]
		id := s.ids.number(c.term)
		if int(id) == len(s.terms) {
			s.terms = append(s.terms, c.term)
			s.df = append(s.df, 0)
		}
		s.df[id]++
		c.id = id
	}
}

// segmentSeed hashes the long terms of a newSegment's numbers.
var segmentSeed = maphash.MakeSeed()

// addDF adds to delta the document frequencies of the chunks added, as
// [countTerms] would for each of them: those removed since count too.
func (s *newSegment) addDF(delta map[string]int) {
	if len(s.chunks) == 0 {
		return
	}
	delta[""] += len(s.chunks)
	for id, n := range s.df {
		delta[s.terms[id]] += int(n)
	}
}

// remove records a chunk the transaction deleted, which may be one it
// added.
func (s *newSegment) remove(rowid int64) {
	if s.gone == nil {
		s.gone = map[int64]int{}
	}
	s.gone[rowid] = len(s.chunks)
}

// segmentData is a segment's content, ready to write: its chunks, and its
// terms in increasing order, each with its postings.
type segmentData struct {
	rowids   []int64
	lengths  []uint32
	terms    []string
	postings [][]postings.Posting // by term
}

// build returns the segment of the chunks added and not removed since.
func (s *newSegment) build() *segmentData {
	var es []segmentChunk
	for i, c := range s.chunks {
		if added, ok := s.gone[c.rowid]; !ok || i >= added {
			es = append(es, c)
		}
	}
	slices.SortStableFunc(es, func(a, b segmentChunk) int { return cmp.Compare(a.rowid, b.rowid) })
	// A rowid removed and used again: its last chunk is the one.
	for i := 0; i+1 < len(es); {
		if es[i].rowid == es[i+1].rowid {
			es = slices.Delete(es, i, i+1)
		} else {
			i++
		}
	}
	d := &segmentData{rowids: make([]int64, len(es)), lengths: make([]uint32, len(es))}
	// Each term's postings get their place in one array, the terms in
	// increasing order, then the chunks fill them in order of rowid.
	count := make([]int32, len(s.terms))
	total := 0
	for _, e := range es {
		for _, c := range e.counts {
			count[c.id]++
		}
		total += len(e.counts)
	}
	order := make([]int32, 0, len(s.terms))
	for id, n := range count {
		if n > 0 {
			order = append(order, int32(id))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(s.terms[a], s.terms[b]) })
	all := make([]postings.Posting, total)
	next := make([]int32, len(s.terms)) // where each term's next posting goes
	d.terms = make([]string, len(order))
	d.postings = make([][]postings.Posting, len(order))
	at := int32(0)
	for i, id := range order {
		next[id] = at
		d.terms[i] = s.terms[id]
		d.postings[i] = all[at : at+count[id] : at+count[id]]
		at += count[id]
	}
	for doc, e := range es {
		d.rowids[doc], d.lengths[doc] = e.rowid, e.length
		for _, c := range e.counts {
			all[next[c.id]] = postings.Posting{Doc: uint32(doc), TF: c.tf, DL: e.length}
			next[c.id]++
		}
	}
	return d
}

// flushSegment writes the segment of the chunks a write transaction added,
// then merges segments if a tier is full or tombstones are many.
func flushSegment(ctx context.Context, tx *sql.Tx, seg *newSegment) error {
	if len(seg.chunks) > 0 {
		if _, err := writeSegment(ctx, tx, seg.build()); err != nil {
			return err
		}
	}
	return maintainSegments(ctx, tx, len(seg.chunks) > 0)
}

// maintainSegments merges segments if a tier is full, or all of them if
// the tombstones are many; changed says the segments already changed in
// this transaction.
func maintainSegments(ctx context.Context, tx *sql.Tx, changed bool) error {
	var tombs, chunks int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM fts_deleted), (SELECT coalesce(sum(chunks), 0) FROM fts_segments)`).Scan(&tombs, &chunks); err != nil {
		return err
	}
	if tombs > max(compactTombstones, chunks/16) {
		if err := mergeAll(ctx, tx); err != nil {
			return fmt.Errorf("merge full-text segments: %w", err)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	if err := mergeSegments(ctx, tx); err != nil {
		return fmt.Errorf("merge full-text segments: %w", err)
	}
	return bumpFTSGen(ctx, tx)
}

func bumpFTSGen(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, metaFTSGen)
	return err
}

// writeSegment stores a segment under a new id, above every id before.
func writeSegment(ctx context.Context, tx *sql.Tx, d *segmentData) (int64, error) {
	id, err := insertSegment(ctx, tx, d.rowids, d.lengths)
	if err != nil {
		return 0, err
	}
	w := newPostingWriter(ctx, tx)
	defer w.close()
	// In the order of the table's key (terms sorted): each row goes where
	// the last one went or just after, on pages still in SQLite's cache.
	for i, t := range d.terms {
		if err := w.add(t, id, d.postings[i]); err != nil {
			return 0, err
		}
	}
	return id, w.flush()
}

// postingRows is how many rows of fts_postings one statement of a
// [postingWriter] inserts.
const postingRows = 128

// postingWriter inserts rows of fts_postings postingRows a statement
// ([rowInserter]), in the order they are added, each row's postings
// encoded in memory of its own until written.
type postingWriter struct {
	rows  rowInserter
	data  []byte // the encoded postings of the rows not yet written, back to back
	first string // the first of their terms, for errors
	last  string // and the last
}

func newPostingWriter(ctx context.Context, tx *sql.Tx) *postingWriter {
	return &postingWriter{rows: rowInserter{ctx: ctx, tx: tx, query: postingInsert, cols: 3, max: postingRows}}
}

// add encodes ps as the row of term in segment seg.
func (w *postingWriter) add(term string, seg int64, ps []postings.Posting) error {
	if w.rows.pending() == 0 {
		w.first = term
		w.data = w.data[:0]
	}
	w.last = term
	start := len(w.data)
	w.data = postings.Encode(w.data, ps)
	// A slice of data: a later encoding that grows data leaves it where
	// it is, in the array it was written to.
	return w.wrap(w.rows.add(term, seg, w.data[start:len(w.data):len(w.data)]))
}

// flush writes the rows added since the last flush.
func (w *postingWriter) flush() error { return w.wrap(w.rows.flush()) }

func (w *postingWriter) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("write postings of %q to %q: %w", w.first, w.last, err)
	}
	return nil
}

func (w *postingWriter) close() { w.rows.close() }

// postingInsert returns the statement inserting n rows of fts_postings.
func postingInsert(n int) string {
	return `INSERT INTO fts_postings (term, segment, data) VALUES (?, ?, ?)` + strings.Repeat(`, (?, ?, ?)`, n-1)
}

func insertSegment(ctx context.Context, tx *sql.Tx, rowids []int64, lengths []uint32) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO fts_segments (chunks, docs) VALUES (?, ?)`, len(rowids), postings.EncodeDocs(nil, rowids, lengths))
	if err != nil {
		return 0, fmt.Errorf("write full-text segment: %w", err)
	}
	return res.LastInsertId()
}

// tier returns the merge tier of a segment of n chunks.
func tier(n int) int {
	t := 0
	for n >= mergeFactor {
		n /= mergeFactor
		t++
	}
	return t
}

// segmentIDs returns the ids of the segments, oldest first, with their
// numbers of chunks.
func segmentIDs(ctx context.Context, q readQuerier) (ids []int64, chunks []int, err error) {
	rows, err := q.QueryContext(ctx, `SELECT id, chunks FROM fts_segments ORDER BY id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, nil, err
		}
		ids, chunks = append(ids, id), append(chunks, n)
	}
	return ids, chunks, rows.Err()
}

// mergeSegments merges the segments of any tier that holds mergeFactor of
// them, until none does.
func mergeSegments(ctx context.Context, tx *sql.Tx) error {
	for {
		ids, chunks, err := segmentIDs(ctx, tx)
		if err != nil {
			return err
		}
		tiers := map[int][]int64{}
		var full []int64
		for i, id := range ids {
			t := tier(chunks[i])
			tiers[t] = append(tiers[t], id)
			if len(tiers[t]) == mergeFactor && full == nil {
				full = tiers[t]
			}
		}
		if full == nil {
			return nil
		}
		if err := mergeSegmentIDs(ctx, tx, full, sum(chunks)); err != nil {
			return err
		}
	}
}

// mergeAll merges every segment into one.
func mergeAll(ctx context.Context, tx *sql.Tx) error {
	ids, chunks, err := segmentIDs(ctx, tx)
	if err != nil || len(ids) == 0 {
		return err
	}
	return mergeSegmentIDs(ctx, tx, ids, sum(chunks))
}

// sum returns the sum of ns.
func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// readQuerier reads: a *sql.DB or a *sql.Tx.
type readQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadedSegment is a stored segment's chunks, with those its tombstones
// delete.
type loadedSegment struct {
	id      int64
	rowids  []int64
	lengths []uint32
	deleted []uint64 // bit per chunk; nil when none is
	size    int      // bytes of its encoding
	// stored is the segment as read, without tombstones: the same for
	// every search until the segment is read again.
	stored *loadedSegment
}

func (s *loadedSegment) isDeleted(doc uint32) bool {
	return s.deleted != nil && s.deleted[doc/64]&(1<<(doc%64)) != 0
}

// readSegment reads a segment's chunks.
func readSegment(ctx context.Context, q readQuerier, id int64) (*loadedSegment, error) {
	var docs []byte
	if err := q.QueryRowContext(ctx, `SELECT docs FROM fts_segments WHERE id = ?`, id).Scan(&docs); err != nil {
		return nil, fmt.Errorf("read full-text segment %d: %w", id, err)
	}
	rowids, lengths, err := postings.DecodeDocs(docs)
	if err != nil {
		return nil, fmt.Errorf("read full-text segment %d: %w: %w", id, ErrCorrupt, err)
	}
	seg := &loadedSegment{id: id, rowids: rowids, lengths: lengths, size: len(docs)}
	seg.stored = seg
	return seg, nil
}

// tombstone is a row of fts_deleted.
type tombstone struct {
	chunk, upto int64
}

func readTombstones(ctx context.Context, q readQuerier) ([]tombstone, error) {
	rows, err := q.QueryContext(ctx, `SELECT chunk, upto FROM fts_deleted`)
	if err != nil {
		return nil, fmt.Errorf("read full-text tombstones: %w", err)
	}
	defer rows.Close()
	var out []tombstone
	for rows.Next() {
		var t tombstone
		if err := rows.Scan(&t.chunk, &t.upto); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// withTombstones returns s with the chunks that tombs delete marked.
func (s *loadedSegment) withTombstones(tombs []tombstone) *loadedSegment {
	out := &loadedSegment{id: s.id, rowids: s.rowids, lengths: s.lengths, size: s.size, stored: s.stored}
	for _, t := range tombs {
		if t.upto < s.id || len(s.rowids) == 0 || t.chunk < s.rowids[0] || t.chunk > s.rowids[len(s.rowids)-1] {
			continue
		}
		if i, ok := slices.BinarySearch(s.rowids, t.chunk); ok {
			if out.deleted == nil {
				out.deleted = make([]uint64, (len(s.rowids)+63)/64)
			}
			out.deleted[i/64] |= 1 << (i % 64)
		}
	}
	return out
}

// mergeByScan reports whether a merge of segments holding merged of the
// total chunks reads the postings in term order by reading the whole
// table in the order of its key (term, segment), rather than through the
// index on segment and a sort of every row read (its data copied into a
// temporary b-tree). The scan needs no sort and skips the other segments'
// rows without reading their data: on the corpus's index, 22,295 rows of
// two segments in 7 ms against 57 through the index, with the table half
// as large again as those segments. It is taken when the segments merged
// hold an eighth of the chunks or more, as the first segments of a run
// do; a variable so that tests take either way.
var mergeByScan = func(merged, total int) bool { return 8*merged >= total }

// mergeSegmentIDs merges segments into a new one, leaving out the chunks
// their tombstones delete; total is the chunks of all the segments. It
// holds one term's postings at a time.
func mergeSegmentIDs(ctx context.Context, tx *sql.Tx, ids []int64, total int) error {
	tombs, err := readTombstones(ctx, tx)
	if err != nil {
		return err
	}
	segs := map[int64]*loadedSegment{}
	type live struct {
		rowid  int64
		length uint32
		seg    int64
		doc    uint32
	}
	var all []live
	for _, id := range ids {
		s, err := readSegment(ctx, tx, id)
		if err != nil {
			return err
		}
		s = s.withTombstones(tombs)
		segs[id] = s
		for d, r := range s.rowids {
			if !s.isDeleted(uint32(d)) {
				all = append(all, live{r, s.lengths[d], id, uint32(d)})
			}
		}
	}
	// By rowid; a rowid live in two segments would be a defect of the
	// tombstones: the newest segment's is kept.
	slices.SortStableFunc(all, func(a, b live) int { return cmp.Compare(a.rowid, b.rowid) })
	for i := 0; i+1 < len(all); {
		if all[i].rowid == all[i+1].rowid {
			all = slices.Delete(all, i, i+1)
		} else {
			i++
		}
	}
	renumber := map[int64][]int64{} // segment -> its doc -> the merged doc, or -1
	for _, id := range ids {
		m := make([]int64, len(segs[id].rowids))
		for i := range m {
			m[i] = -1
		}
		renumber[id] = m
	}
	rowids := make([]int64, len(all))
	lengths := make([]uint32, len(all))
	for i, l := range all {
		renumber[l.seg][l.doc] = int64(i)
		rowids[i], lengths[i] = l.rowid, l.length
	}
	merged := 0
	for _, id := range ids {
		merged += len(segs[id].rowids)
	}
	scan := mergeByScan(merged, total)
	newID, err := insertSegment(ctx, tx, rowids, lengths)
	if err != nil {
		return err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := `(?` + strings.Repeat(",?", len(ids)-1) + `)`
	query := `SELECT term, segment, data FROM fts_postings WHERE segment IN ` + in + ` ORDER BY term`
	if scan {
		query = `SELECT term, segment, data FROM fts_postings WHERE +segment IN ` + in + ` ORDER BY term`
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	w := newPostingWriter(ctx, tx)
	defer w.close()
	var term string
	var ps []postings.Posting
	flush := func() error {
		if len(ps) == 0 {
			return nil
		}
		slices.SortFunc(ps, func(a, b postings.Posting) int { return cmp.Compare(a.Doc, b.Doc) })
		err := w.add(term, newID, ps)
		ps = ps[:0]
		return err
	}
	for rows.Next() {
		var t string
		var seg int64
		var data []byte
		if err := rows.Scan(&t, &seg, &data); err != nil {
			return err
		}
		if t != term {
			if err := flush(); err != nil {
				return err
			}
			term = t
		}
		s := segs[seg]
		l, err := postings.Decode(data, uint32(len(s.rowids)))
		if err != nil {
			return fmt.Errorf("postings of %q in segment %d: %w: %w", t, seg, ErrCorrupt, err)
		}
		m := renumber[seg]
		c := l.Cursor()
		for c.Next(); c.Doc != postings.End; c.Next() {
			if nd := m[c.Doc]; nd >= 0 {
				ps = append(ps, postings.Posting{Doc: uint32(nd), TF: c.TF(), DL: lengths[nd]})
			}
		}
		if c.Err() != nil {
			return fmt.Errorf("postings of %q in segment %d: %w: %w", t, seg, ErrCorrupt, c.Err())
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	rows.Close()
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts_postings WHERE segment IN `+in, args...); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts_segments WHERE id IN `+in, args...); err != nil {
		return err
	}
	// Tombstones over no segment left are spent.
	_, err = tx.ExecContext(ctx, `DELETE FROM fts_deleted WHERE upto < (SELECT min(id) FROM fts_segments)`)
	return err
}

// rebuildBatch is the number of chunks of each segment rebuildPostings
// writes before merging them.
const rebuildBatch = 4096

// rebuildPostings writes the postings of every chunk again, from their
// texts analyzed again.
func rebuildPostings(ctx context.Context, tx *sql.Tx) error {
	ids, _, err := segmentIDs(ctx, tx)
	if err != nil {
		return fmt.Errorf("rebuild postings: %w", err)
	}
	seg := &newSegment{}
	write := func() error {
		if len(seg.chunks) == 0 {
			return nil
		}
		_, err := writeSegment(ctx, tx, seg.build())
		seg = &newSegment{}
		return err
	}
	err = eachChunkTerms(ctx, tx, `SELECT rowid, text FROM chunks ORDER BY rowid`, nil, func(rowid int64, terms string) error {
		seg.add(rowid, terms)
		if len(seg.chunks) == rebuildBatch {
			return write()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rebuild postings: %w", err)
	}
	if err := write(); err != nil {
		return err
	}
	// The old segments go after the new ones are written, so that ids
	// only grow.
	for _, q := range []string{`DELETE FROM fts_postings WHERE segment <= ?`, `DELETE FROM fts_segments WHERE id <= ?`, `DELETE FROM fts_deleted WHERE ? >= 0`} {
		if _, err := tx.ExecContext(ctx, q, slices.Max(append(ids, 0))); err != nil {
			return fmt.Errorf("rebuild postings: %w", err)
		}
	}
	return maintainSegments(ctx, tx, true)
}

// ftsCache keeps the segments' chunks in memory: a segment never changes
// once written, so the list of segments is read again when the generation
// moves (metaFTSGen), and only new ones are loaded.
type ftsCache struct {
	mu    sync.Mutex
	gen   string
	segs  map[int64]*loadedSegment // without tombstones
	docs  int                      // chunks in the segments
	total int64                    // their lengths
	lists listCache                // the postings lists searches read
}

// ftsView is the postings' chunks for one search.
type ftsView struct {
	segs   map[int64]*loadedSegment // with their tombstones
	sorted []*loadedSegment         // the same, by id
	docs   int                      // chunks not deleted
	total  int64                    // their lengths
}

// ftsView returns the segments as of the read transaction q, with the
// chunks their tombstones delete.
func (s *Store) ftsView(ctx context.Context, q readQuerier) (ftsView, error) {
	gen, err := getMeta(ctx, q, metaFTSGen)
	if err != nil {
		return ftsView{}, err
	}
	tombs, err := readTombstones(ctx, q)
	if err != nil {
		return ftsView{}, err
	}
	c := &s.fts
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.segs == nil || c.gen != gen {
		rows, err := q.QueryContext(ctx, `SELECT id, chunks, length(docs) FROM fts_segments`)
		if err != nil {
			return ftsView{}, fmt.Errorf("read full-text segments: %w", err)
		}
		segs := map[int64]*loadedSegment{}
		docs, total := 0, int64(0)
		for rows.Next() {
			var id int64
			var n, size int
			if err := rows.Scan(&id, &n, &size); err != nil {
				rows.Close()
				return ftsView{}, err
			}
			seg := c.segs[id]
			if seg == nil || len(seg.rowids) != n || seg.size != size {
				if seg, err = readSegment(ctx, q, id); err != nil {
					rows.Close()
					return ftsView{}, err
				}
			}
			segs[id] = seg
			docs += len(seg.rowids)
			for _, l := range seg.lengths {
				total += int64(l)
			}
		}
		if err := rows.Close(); err != nil {
			return ftsView{}, err
		}
		c.gen, c.segs, c.docs, c.total = gen, segs, docs, total
		c.lists.keep(segs)
	}
	v := ftsView{segs: c.segs, docs: c.docs, total: c.total}
	if len(tombs) == 0 {
		v.sorted = sortedSegments(v.segs)
		return v, nil
	}
	v.segs = make(map[int64]*loadedSegment, len(c.segs))
	for id, seg := range c.segs {
		seg = seg.withTombstones(tombs)
		v.segs[id] = seg
		for d := range seg.deleted {
			for w := seg.deleted[d]; w != 0; w &= w - 1 {
				doc := d*64 + bits.TrailingZeros64(w)
				v.docs--
				v.total -= int64(seg.lengths[doc])
			}
		}
	}
	v.sorted = sortedSegments(v.segs)
	return v, nil
}

func sortedSegments(segs map[int64]*loadedSegment) []*loadedSegment {
	return slices.SortedFunc(maps.Values(segs), func(a, b *loadedSegment) int { return cmp.Compare(a.id, b.id) })
}

// listsReadHook, when set (by tests), learns how many lists a search
// read from SQLite rather than from memory.
var listsReadHook func(read int)

// termLists returns the postings lists of terms in the segments of view,
// by segment as stored and term: those s.fts.lists holds, as long as
// their sizes are the ones stored, and the others read in tx and kept.
func (s *Store) termLists(ctx context.Context, tx readQuerier, view ftsView, terms []string) (map[listKey]*postings.List, error) {
	out := make(map[listKey]*postings.List, len(terms)*len(view.sorted))
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	in := `(?` + strings.Repeat(",?", len(terms)-1) + `)`
	rows, err := tx.QueryContext(ctx, `SELECT term, segment, length(data) FROM fts_postings WHERE term IN `+in, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type stored struct {
		seg     *loadedSegment
		term    string
		encoded int
	}
	var missing []stored
	read := map[string]bool{}
	for rows.Next() {
		var st stored
		var id int64
		if err := rows.Scan(&st.term, &id, &st.encoded); err != nil {
			return nil, err
		}
		if st.seg = view.segs[id]; st.seg == nil {
			return nil, fmt.Errorf("%w: postings of %q name segment %d, which does not exist", ErrCorrupt, st.term, id)
		}
		if l := s.fts.lists.get(st.seg, st.term, st.encoded); l != nil {
			out[listKey{st.seg.stored, st.term}] = l
			continue
		}
		missing = append(missing, st)
		read[st.term] = true
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if listsReadHook != nil {
		listsReadHook(len(missing))
	}
	if len(missing) == 0 {
		return out, nil
	}
	args = args[:0]
	for t := range read {
		args = append(args, t)
	}
	in = `(?` + strings.Repeat(",?", len(args)-1) + `)`
	rows, err = tx.QueryContext(ctx, `SELECT term, segment, data FROM fts_postings WHERE term IN `+in, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var id int64
		var data []byte
		if err := rows.Scan(&term, &id, &data); err != nil {
			return nil, err
		}
		seg := view.segs[id]
		if seg == nil {
			return nil, fmt.Errorf("%w: postings of %q name segment %d, which does not exist", ErrCorrupt, term, id)
		}
		k := listKey{seg.stored, term}
		if out[k] != nil {
			continue
		}
		l, err := postings.Decode(data, uint32(len(seg.rowids)))
		if err != nil {
			return nil, fmt.Errorf("%w: postings of %q in segment %d: %w", ErrCorrupt, term, id, err)
		}
		out[k] = l
		s.fts.lists.put(seg, term, len(data), l)
	}
	return out, rows.Err()
}

// avgLength returns the average chunk length as FTS4's matchinfo 'a'
// gave it before: rounded to an integer, at least 1.
func avgLength(docs int, total int64) float64 {
	if docs == 0 {
		return 1
	}
	a := (int64(uint32(total)) + int64(docs)/2) / int64(docs)
	return max(float64(uint32(a)), 1)
}

// termScore is one term's BM25 score in a chunk: tf occurrences of a term
// of idf in a chunk of dl terms (norm is [bm25Norm] of dl). [bm25] sums
// the same expression, so both give the same bits.
func termScore(idf float64, tf uint32, norm float64) float64 {
	t := float64(tf)
	return idf * t * (bm25K1 + 1) / (t + norm)
}

func bm25Norm(dl, avgdl float64) float64 { return bm25K1 * (1 - bm25B + bm25B*dl/avgdl) }

// postingsQuery is one search over the postings.
type postingsQuery struct {
	terms []string // rarest first, the order scores are summed in
	idf   []float64
	avgdl float64
	admit func(rowid int64) bool // nil: all
	top   interface {
		Push(Scored)
		Full() bool
		Worst() Scored
	}
	exhaustive bool
	scored     int // chunks scored in full
}

// scoreHook, when set (by tests), learns how many chunks a search scored
// in full.
var scoreHook func(scored int)

// termList is one term's postings in a segment.
type termList struct {
	term int // index in postingsQuery.terms
	list *postings.List
	c    *postings.Cursor
	ub   float64 // the most it adds to a score in this segment
}

// slack widens bounds against rounding: a bound is a sum in another order
// than the score's.
const slack = 1 + 1e-9

// searchSegment ranks a segment's chunks into q.top: block-max MaxScore
// (Turtle and Flood's MaxScore, with the per-block bounds of Ding and
// Suel's block-max indexes). Lists are ordered by their bound; the
// longest prefix whose bounds sum below the k-th best score so far is
// "non-essential": a chunk found only there cannot enter the top k, so
// only the other lists are walked for candidates, and the non-essential
// ones are looked up (skipping whole blocks) for a candidate while its
// bound, with the blocks' own bounds, can still beat the k-th best.
func (q *postingsQuery) searchSegment(seg *loadedSegment, lists []*termList) error {
	norm := func(doc uint32) float64 { return bm25Norm(float64(seg.lengths[doc]), q.avgdl) }
	for _, l := range lists {
		l.c = l.list.Cursor()
		l.c.Next()
		l.ub = termScore(q.idf[l.term], l.list.MaxTF, bm25Norm(float64(l.list.MinDL), q.avgdl))
	}
	slices.SortFunc(lists, func(a, b *termList) int { return cmp.Compare(a.ub, b.ub) })
	// upto[j]: the sum of the bounds of lists 0..j-1.
	upto := make([]float64, len(lists)+1)
	for j, l := range lists {
		upto[j+1] = upto[j] + l.ub
	}
	threshold := func() float64 {
		if q.exhaustive || !q.top.Full() {
			return math.Inf(-1)
		}
		return q.top.Worst().Score
	}
	theta := threshold()
	essential := 0 // lists[essential:] are walked
	setEssential := func() {
		essential = 0
		for essential < len(lists) && upto[essential+1]*slack < theta {
			essential++
		}
	}
	setEssential()
	contrib := make([]float64, len(q.terms))
	bub := make([]float64, len(lists))
	for essential < len(lists) {
		doc := uint32(postings.End)
		for _, l := range lists[essential:] {
			doc = min(doc, l.c.Doc)
		}
		if doc == postings.End {
			break
		}
		if seg.isDeleted(doc) || (q.admit != nil && !q.admit(seg.rowids[doc])) {
			for _, l := range lists[essential:] {
				if l.c.Doc == doc {
					l.c.Next()
				}
			}
			continue
		}
		clear(contrib)
		n := norm(doc)
		var sum float64
		for _, l := range lists[essential:] {
			if l.c.Doc == doc {
				v := termScore(q.idf[l.term], l.c.TF(), n)
				contrib[l.term] = v
				sum += v
				l.c.Next()
			}
		}
		// The non-essential lists, highest bound first, while the chunk
		// can still beat the k-th best with the bounds of the blocks that
		// would hold it.
		for j := range essential {
			l := lists[j]
			bub[j] = 0
			if b := l.c.Shallow(doc); b < len(l.list.Blocks) {
				blk := l.list.Blocks[b]
				bub[j] = termScore(q.idf[l.term], blk.MaxTF, bm25Norm(float64(blk.MinDL), q.avgdl))
			}
		}
		rest := 0.0 // the block bounds of lists 0..j
		for j := range essential {
			rest += bub[j]
		}
		pruned := false
		for j := essential - 1; j >= 0; j-- {
			if (sum+rest)*slack < theta {
				pruned = true
				break
			}
			rest -= bub[j]
			if bub[j] == 0 {
				continue // past the list's end
			}
			l := lists[j]
			l.c.Advance(doc)
			if l.c.Doc == doc {
				v := termScore(q.idf[l.term], l.c.TF(), n)
				contrib[l.term] = v
				sum += v
			}
		}
		if pruned {
			continue
		}
		var score float64
		for _, v := range contrib {
			score += v
		}
		q.scored++
		q.top.Push(Scored{Chunk: seg.rowids[doc], Score: score})
		if t := threshold(); t != theta {
			theta = t
			setEssential()
		}
	}
	for _, l := range lists {
		if err := l.c.Err(); err != nil {
			return fmt.Errorf("%w: postings of %q in segment %d: %w", ErrCorrupt, q.terms[l.term], seg.id, err)
		}
	}
	return nil
}

// searchPostings ranks the chunks f admits by BM25 over terms and returns
// the k best, best first. exhaustive scores every match (the oracle of the
// tests).
func (s *Store) searchPostings(ctx context.Context, terms []string, f Filter, k int, exhaustive bool) ([]Scored, error) {
	tx, end, err := s.snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", dbError(err))
	}
	defer end()
	ts, err := termStats(ctx, tx, terms)
	if err != nil {
		return nil, err
	}
	if terms = liveIn(terms, ts); len(terms) == 0 {
		return nil, nil
	}
	view, err := s.ftsView(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	q := &postingsQuery{terms: terms, idf: idfs(terms, ts), exhaustive: exhaustive}
	top := topk.New(k, scoredFirst)
	q.top = top
	read, err := s.termLists(ctx, tx, view, terms)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	// Each segment's lists in the order of their terms' text, as SQLite
	// returns them.
	pos := make(map[string]int, len(terms))
	for i, t := range terms {
		pos[t] = i
	}
	lists := map[int64][]*termList{}
	segs := []*loadedSegment{}
	for _, t := range slices.Sorted(slices.Values(terms)) {
		for _, seg := range view.sorted {
			l := read[listKey{seg.stored, t}]
			if l == nil {
				continue
			}
			if lists[seg.id] == nil {
				segs = append(segs, seg)
			}
			lists[seg.id] = append(lists[seg.id], &termList{term: pos[t], list: l})
		}
	}
	docs, total := view.docs, view.total
	q.avgdl = avgLength(docs, total)
	if !f.IsZero() {
		allowed, err := filterChunks(ctx, tx, f)
		if err != nil {
			return nil, err
		}
		set := make(map[int64]struct{}, len(allowed))
		for _, r := range allowed {
			set[r] = struct{}{}
		}
		q.admit = func(r int64) bool { _, ok := set[r]; return ok }
	}
	// The segment with the best bound first raises the k-th best soonest.
	bound := func(seg *loadedSegment) float64 {
		var b float64
		for _, l := range lists[seg.id] {
			b += termScore(q.idf[l.term], l.list.MaxTF, bm25Norm(float64(l.list.MinDL), q.avgdl))
		}
		return b
	}
	slices.SortFunc(segs, func(a, b *loadedSegment) int { return cmp.Or(cmp.Compare(bound(b), bound(a)), cmp.Compare(a.id, b.id)) })
	for _, seg := range segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := q.searchSegment(seg, lists[seg.id]); err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
	}
	if scoreHook != nil {
		scoreHook(q.scored)
	}
	return top.Sorted(), nil
}

// checkPostings counts the chunks whose postings are missing, doubled or
// of no chunk, and the terms whose postings do not hold as many chunks as
// the full-text terms say (df, from [recountTermDF]), or cannot be read.
func checkPostings(ctx context.Context, q readQuerier, df map[string]int) (int, error) {
	ids, _, err := segmentIDs(ctx, q)
	if err != nil {
		return 0, err
	}
	tombs, err := readTombstones(ctx, q)
	if err != nil {
		return 0, err
	}
	bad := 0
	segs := map[int64]*loadedSegment{}
	live := map[int64]int{}
	for _, id := range ids {
		seg, err := readSegment(ctx, q, id)
		if errors.Is(err, ErrCorrupt) {
			return max(df[""], 1), nil
		}
		if err != nil {
			return 0, err
		}
		seg = seg.withTombstones(tombs)
		segs[id] = seg
		for d, r := range seg.rowids {
			if !seg.isDeleted(uint32(d)) {
				live[r]++
			}
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT rowid FROM chunks`)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			rows.Close()
			return 0, err
		}
		if live[r] != 1 {
			bad++
		}
		delete(live, r)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	bad += len(live)
	rows, err = q.QueryContext(ctx, `SELECT term, segment, data FROM fts_postings ORDER BY term`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var term, data any // a damaged row may hold anything
		var id int64
		if err := rows.Scan(&term, &id, &data); err != nil {
			return 0, err
		}
		t, ok1 := term.(string)
		b, ok2 := data.([]byte)
		seg := segs[id]
		if !ok1 || !ok2 || seg == nil {
			bad++
			continue
		}
		l, err := postings.Decode(b, uint32(len(seg.rowids)))
		if err != nil {
			bad++
			continue
		}
		c := l.Cursor()
		for c.Next(); c.Doc != postings.End; c.Next() {
			if !seg.isDeleted(c.Doc) {
				counts[t]++
			}
		}
		if c.Err() != nil {
			bad++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for t, n := range df {
		if t != "" && n > 0 && counts[t] != n {
			bad++
		}
		delete(counts, t)
	}
	for _, n := range counts {
		if n > 0 {
			bad++
		}
	}
	return bad, nil
}
