package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cite-rag/cite/index/analysis"
)

// Reader is what search reads from an index: the embedded [Store], or a
// remote index such as a Weaviate collection (package index/weaviate).
// Package search, and everything built on it, sees only this.
type Reader interface {
	// SearchText ranks chunks by BM25 over their full-text terms.
	SearchText(ctx context.Context, query string, f Filter, k int) ([]Scored, error)
	// SearchVectors ranks chunks by cosine similarity to q.
	SearchVectors(ctx context.Context, q []float32, f Filter, k int) ([]Scored, error)
	// TermStats gives the chunk count and the terms' document frequencies.
	TermStats(ctx context.Context, terms []string) (TermStats, error)
	// VectorStats gives the number of vectors and their dimension.
	VectorStats(ctx context.Context) (n, dim int, err error)
	// ChunksByRowid reads ranked chunks (a [Scored]'s Chunk) with their
	// documents; chunks gone since they were ranked are left out.
	ChunksByRowid(ctx context.Context, rowids []int64) (map[int64]ChunkRecord, error)
	// ChunkByID reads one chunk by its id ([ErrNotFound] if gone).
	ChunkByID(ctx context.Context, id string) (ChunkRecord, error)
	// SourceNames lists the data sources, sorted.
	SourceNames(ctx context.Context) ([]string, error)
	// Document finds a document by id, id prefix or path.
	Document(ctx context.Context, source, ref string) (Document, error)
	// Embedder is the embedder the index's vectors were made with.
	Embedder(ctx context.Context) (EmbedderInfo, error)
	// CheckEmbedder fails with [ErrEmbedderMismatch] unless e made them.
	CheckEmbedder(ctx context.Context, e Embedder) error
}

// A HybridSearcher is a [Reader] that fuses BM25 and vector rankings
// itself, in one query. vectorWeight, in [0, 1], is the vector ranking's
// share of the fused score.
type HybridSearcher interface {
	SearchHybrid(ctx context.Context, query string, q []float32, vectorWeight float64, f Filter, k int) ([]Scored, error)
}

var _ Reader = (*Store)(nil)

// A Replica holds a copy of the index's chunks, their full-text terms and
// their vectors where other machines search them: a Weaviate collection
// (package index/weaviate). The local index stays the writer's manifest:
// every change is committed locally first, with the document marked
// pending in the same transaction, then pushed, and the mark removed once
// the replica has it. A crash between the two leaves the mark, and the next
// write, [Store.SyncReplica] or [Store.Repair] pushes the document again;
// pushes are idempotent.
type Replica interface {
	// Name identifies the replica (its address and collection); the index
	// records it, and a different one gets every document pushed.
	Name() string
	// UseEmbedder records the embedder the vectors are made with.
	UseEmbedder(ctx context.Context, info EmbedderInfo) error
	// Push makes the replica's copy of each document what it is here:
	// its chunks with their terms and vectors, and no other. It returns a
	// [*ReplicaError] naming the documents it could not push.
	Push(ctx context.Context, docs []ReplicaDocument) error
	// Remove deletes documents and their chunks from the replica.
	Remove(ctx context.Context, documentIDs []string) error
	// Documents lists the replica's documents with their chunk ids, and
	// the chunks it holds by document (orphans included), for
	// [Store.CheckReplica].
	Inventory(ctx context.Context) (ReplicaInventory, error)
	// RemoveChunks deletes chunks by id.
	RemoveChunks(ctx context.Context, chunkIDs []string) error
}

// ReplicaDocument is a document as a [Replica] receives it: its chunks
// carry their Terms and, when they have one, their Vector.
type ReplicaDocument struct {
	Document Document
	Chunks   []Chunk
}

// ReplicaInventory is what a replica holds.
type ReplicaInventory struct {
	// Documents maps each document id to the chunk ids its committed
	// version lists.
	Documents map[string][]string
	// Hashes maps each document id to the content hash it was pushed with.
	Hashes map[string]string
	// Chunks maps each chunk object's id to its document id.
	Chunks map[string]string
}

// ReplicaError reports documents a replica could not take. They stay
// pending: the next write or cite check --repair pushes them again.
type ReplicaError struct {
	Replica   string
	Documents map[string]error // by document id
}

func (e *ReplicaError) Error() string {
	ids := make([]string, 0, len(e.Documents))
	for id := range e.Documents {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var first error
	if len(ids) > 0 {
		first = e.Documents[ids[0]]
	}
	return fmt.Sprintf("replica %s: %d document(s) not pushed (%s): %v; they stay pending and the next cite index or cite check --repair pushes them",
		e.Replica, len(ids), strings.Join(ids[:min(len(ids), 5)], ", "), first)
}

// Meta keys: the replica's name, and one key per pending document
// (metaPending + its id). Pending marks are rows of the meta table, not a
// table of their own, so that the schema still fits the database's first
// page, which cite check --repair needs to read a truncated file.
const (
	metaReplica = "replica"
	metaPending = "replica_pending:"
)

// SetReplica attaches r: from now on every committed change is pushed to
// it. An index that was never replicated to r gets every document marked
// pending, so the next [Store.SyncReplica] copies it all. A read-only store
// takes a replica for nothing (it writes nothing).
func (s *Store) SetReplica(ctx context.Context, r Replica) error {
	s.replica = r
	if s.readOnly {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		cur, err := getMeta(ctx, tx, metaReplica)
		if err != nil {
			return err
		}
		if cur == r.Name() {
			return nil
		}
		if err := markAllPending(ctx, tx); err != nil {
			return err
		}
		return setMeta(ctx, tx, metaReplica, r.Name())
	})
}

// Replica returns the attached replica, or nil.
func (s *Store) Replica() Replica { return s.replica }

// markPending records, inside a write transaction, that documents changed:
// when the index has ever had a replica, its copy of them is now behind.
func markPending(ctx context.Context, tx *sql.Tx, ids []string) error {
	cur, err := getMeta(ctx, tx, metaReplica)
	if err != nil || cur == "" {
		return err
	}
	return eachPending(ctx, tx, `INSERT OR IGNORE INTO meta (key, value) VALUES (? || ?, '')`, ids)
}

// eachPending runs stmt, with the pending-key prefix and a document id,
// for each of ids.
func eachPending(ctx context.Context, tx *sql.Tx, query string, ids []string) error {
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, metaPending, id); err != nil {
			return err
		}
	}
	return nil
}

// markAllPending marks every document pending.
func markAllPending(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta (key, value) SELECT ? || id, '' FROM documents`, metaPending)
	return err
}

// PendingReplica returns the ids of the documents the replica does not have
// as they are here.
func (s *Store) PendingReplica(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT substr(key, ?) FROM meta WHERE key > ? AND key < ? ORDER BY key`, len(metaPending)+1, metaPending, "replica_pending;") // ";" follows ":"
	if err != nil {
		return nil, fmt.Errorf("read pending documents: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// SyncReplica pushes every pending document to the attached replica (none
// attached: nothing to do). It returns how many it pushed, and a
// [*ReplicaError] naming those it could not.
func (s *Store) SyncReplica(ctx context.Context) (int, error) {
	if s.replica == nil || s.readOnly {
		return 0, nil
	}
	ids, err := s.PendingReplica(ctx)
	if err != nil {
		return 0, err
	}
	return s.push(ctx, ids)
}

// pushBatch is how many documents one push carries.
const pushBatch = 64

// push sends the documents' current state to the replica (a document gone
// here is removed there) and clears their pending marks.
func (s *Store) push(ctx context.Context, ids []string) (int, error) {
	if s.replica == nil || len(ids) == 0 {
		return 0, nil
	}
	info, err := s.Embedder(ctx)
	if err != nil {
		return 0, err
	}
	if info.Name != "" {
		if err := s.replica.UseEmbedder(ctx, info); err != nil {
			return 0, err
		}
	}
	failed := &ReplicaError{Replica: s.replica.Name(), Documents: map[string]error{}}
	done := 0
	for len(ids) > 0 {
		batch := ids[:min(len(ids), pushBatch)]
		ids = ids[len(batch):]
		var docs []ReplicaDocument
		var gone []string
		for _, id := range batch {
			d, err := s.replicaDocument(ctx, id)
			if errors.Is(err, ErrNotFound) {
				gone = append(gone, id)
				continue
			}
			if err != nil {
				return done, err
			}
			docs = append(docs, d)
		}
		var ok []string
		if len(gone) > 0 {
			if err := s.replica.Remove(ctx, gone); err != nil {
				for _, id := range gone {
					failed.Documents[id] = err
				}
			} else {
				ok = append(ok, gone...)
			}
		}
		if len(docs) > 0 {
			err := s.replica.Push(ctx, docs)
			var re *ReplicaError
			switch {
			case err == nil:
			case errors.As(err, &re):
				for id, e := range re.Documents {
					failed.Documents[id] = e
				}
			default:
				for _, d := range docs {
					failed.Documents[d.Document.ID] = err
				}
			}
			for _, d := range docs {
				if _, bad := failed.Documents[d.Document.ID]; !bad {
					ok = append(ok, d.Document.ID)
				}
			}
		}
		if err := s.clearPending(ctx, ok); err != nil {
			return done, err
		}
		done += len(ok)
	}
	if len(failed.Documents) > 0 {
		return done, failed
	}
	return done, nil
}

// clearPending removes the pending marks of documents the replica now has.
// A document changed again since its push was read keeps its mark: the
// push read it inside this process, and writes are serialized here, so
// the only writer that can interleave is another process, whose own
// transaction re-adds the mark after this delete, or whose change this
// push already carried.
func (s *Store) clearPending(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		return eachPending(ctx, tx, `DELETE FROM meta WHERE key = ? || ?`, ids)
	})
}

// replicaDocument reads a document with its chunks, their terms and their
// vectors, in one read transaction.
func (s *Store) replicaDocument(ctx context.Context, id string) (ReplicaDocument, error) {
	tx, end, err := s.snapshot(ctx)
	if err != nil {
		return ReplicaDocument{}, err
	}
	defer end()
	d, err := scanDocument(tx.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents d JOIN sources s ON s.id = d.source_id WHERE d.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ReplicaDocument{}, ErrNotFound
	}
	if err != nil {
		return ReplicaDocument{}, fmt.Errorf("read document %s: %w", id, err)
	}
	// The layout (pages of an extracted document) goes with it, so that a
	// replica's hits say where each page starts as the index's do.
	var layout string
	if err := tx.QueryRowContext(ctx, `SELECT layout FROM documents WHERE id = ?`, id).Scan(&layout); err != nil {
		return ReplicaDocument{}, fmt.Errorf("read layout of %s: %w", id, err)
	}
	if layout != "" {
		d.Layout = &Layout{}
		if err := json.Unmarshal([]byte(layout), d.Layout); err != nil {
			return ReplicaDocument{}, fmt.Errorf("read layout of %s: %w", id, err)
		}
	}
	dim, err := vectorDim(ctx, tx)
	if err != nil {
		return ReplicaDocument{}, err
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT c.id, c.ordinal, c.text, c.tokens, c.start_byte, c.end_byte, c.src_start, c.src_end, c.headings, c.page, c.page_end, v.vec
		FROM chunks c LEFT JOIN vectors v ON v.chunk = c.rowid
		WHERE c.document_id = ? ORDER BY c.ordinal`, id)
	if err != nil {
		return ReplicaDocument{}, fmt.Errorf("read chunks of %s: %w", id, err)
	}
	defer rows.Close()
	out := ReplicaDocument{Document: d}
	for rows.Next() {
		var c Chunk
		var headings string
		var vec []byte
		if err := rows.Scan(&c.ID, &c.Ordinal, &c.Text, &c.Tokens, &c.Start, &c.End, &c.SourceStart, &c.SourceEnd, &headings, &c.Page, &c.PageEnd, &vec); err != nil {
			return ReplicaDocument{}, fmt.Errorf("read chunks of %s: %w", id, err)
		}
		c.DocumentID = id
		if err := json.Unmarshal([]byte(headings), &c.Headings); err != nil {
			return ReplicaDocument{}, fmt.Errorf("read chunk %s: headings: %w", c.ID, err)
		}
		c.Terms = analysis.JoinedTerms(c.Text)
		if vec != nil && dim > 0 {
			if c.Vector, err = decodeVector(vec, dim, nil); err != nil {
				return ReplicaDocument{}, fmt.Errorf("vector of chunk %s: %w", c.ID, err)
			}
		}
		out.Chunks = append(out.Chunks, c)
	}
	return out, rows.Err()
}

// replicaDiff is how a replica differs from the local index.
type replicaDiff struct {
	pending []string // marked pending here
	missing []string // documents the replica lacks
	stale   []string // pushed at another version, or with other chunks
	extra   []string // documents the replica has and this index does not
	broken  []string // documents one of whose listed chunks is missing there
	orphans []string // chunk objects no committed document lists
}

// diffReplica compares the replica with the local index.
func (s *Store) diffReplica(ctx context.Context) (replicaDiff, error) {
	var d replicaDiff
	inv, err := s.replica.Inventory(ctx)
	if err != nil {
		return d, err
	}
	if d.pending, err = s.PendingReplica(ctx); err != nil {
		return d, err
	}
	local := map[string][]string{}
	hashes := map[string]string{}
	rows, err := s.db.QueryContext(ctx, `SELECT d.id, d.hash, c.id FROM documents d LEFT JOIN chunks c ON c.document_id = d.id`)
	if err != nil {
		return d, err
	}
	for rows.Next() {
		var did, hash string
		var cid sql.NullString
		if err := rows.Scan(&did, &hash, &cid); err != nil {
			rows.Close()
			return d, err
		}
		hashes[did] = hash
		if _, ok := local[did]; !ok {
			local[did] = nil
		}
		if cid.Valid {
			local[did] = append(local[did], cid.String)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, err
	}
	listed := map[string]bool{}
	for did, cids := range local {
		have, ok := inv.Documents[did]
		if !ok {
			d.missing = append(d.missing, did)
			continue
		}
		if inv.Hashes[did] != hashes[did] || !sameSet(have, cids) {
			d.stale = append(d.stale, did)
		}
		for _, c := range have {
			listed[c] = true
			if inv.Chunks[c] != did {
				d.broken = append(d.broken, did)
				break
			}
		}
	}
	for did, cids := range inv.Documents {
		if _, ok := local[did]; !ok {
			d.extra = append(d.extra, did)
			for _, c := range cids {
				listed[c] = true
			}
		}
	}
	for c := range inv.Chunks {
		if !listed[c] {
			d.orphans = append(d.orphans, c)
		}
	}
	for _, l := range [][]string{d.missing, d.stale, d.extra, d.broken, d.orphans} {
		slices.Sort(l)
	}
	return d, nil
}

// CheckReplica compares the attached replica with the local index and
// appends what differs to r: documents not yet pushed, missing there,
// pushed at another version, gone here but not there, missing listed
// chunks, and chunk objects no committed document lists (orphans, which
// searches never return, but which take room).
func (s *Store) CheckReplica(ctx context.Context, r *Report) error {
	if s.replica == nil {
		return nil
	}
	d, err := s.diffReplica(ctx)
	if err != nil {
		return err
	}
	name := s.replica.Name()
	add := func(ids []string, what string) {
		for _, id := range ids {
			r.Problems = append(r.Problems, Problem{DocumentID: id, Problem: fmt.Sprintf(what, name)})
		}
	}
	add(d.pending, "not yet pushed to %s")
	add(d.missing, "missing from %s")
	add(d.stale, "%s has another version")
	add(d.extra, "deleted here but still in %s")
	add(d.broken, "%s lacks some of its chunks")
	if len(d.orphans) > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunk object(s) in %s that no document lists (orphans)", len(d.orphans), name)})
	}
	return nil
}

// RepairReplica makes the replica match the local index: it pushes every
// document that is pending, missing, stale or broken there, removes those
// gone here, and deletes orphan chunk objects. It returns what it did.
func (s *Store) RepairReplica(ctx context.Context) ([]string, error) {
	if s.replica == nil {
		return nil, nil
	}
	d, err := s.diffReplica(ctx)
	if err != nil {
		return nil, err
	}
	ids := slices.Concat(d.pending, d.missing, d.stale, d.extra, d.broken)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var did []string
	name := s.replica.Name()
	n, err := s.push(ctx, ids)
	if n > 0 {
		did = append(did, fmt.Sprintf("brought %d document(s) up to date in %s", n, name))
	}
	if err != nil {
		return did, err
	}
	if len(ids) > 0 {
		// A push may list chunk objects that were orphans before it (a
		// crash between uploading a version's chunks and committing it):
		// look again.
		if d, err = s.diffReplica(ctx); err != nil {
			return did, err
		}
	}
	if len(d.orphans) > 0 {
		if err := s.replica.RemoveChunks(ctx, d.orphans); err != nil {
			return did, err
		}
		did = append(did, fmt.Sprintf("removed %d orphan chunk object(s) from %s", len(d.orphans), name))
	}
	return did, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
