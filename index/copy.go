package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Copy is what the index holds of a document that another document made
// from the same bytes, by the same pipeline, can take instead of being
// read, normalized, chunked and embedded again: a file renamed, moved or
// copied. See [Store.FindCopy].
type Copy struct {
	// From is the document copied from, with its Layout.
	From Document
	// Chunks are From's chunks, in order: text, spans, pages, headings
	// and token counts, without ids (the document they go to gives them
	// theirs, [AssignIDs]). With vectors asked for, each carries the
	// vector stored for it, if any, as the store decodes it.
	Chunks []Chunk
	// Embedder is the embedder that made the vectors of Chunks, read in
	// the same snapshot; empty when no vector was read.
	Embedder EmbedderInfo
}

// maxCandidates bounds the documents with the same hash FindCopy looks
// at: copies of one file in many sources or folders are alike.
const maxCandidates = 16

// FindCopy returns a document stored from bytes whose sha256 is hash (as
// [Document.Hash]) for which accept returns true, with its layout, its
// chunks and, if vectors is set, their vectors, all read in one snapshot
// of the index; nil when there is none. accept sees the documents with
// that hash, those of preferSource first; it decides whether one was made
// the way the caller would make its own (the same pipeline, the same
// format). A candidate whose chunks do not add up (the index damaged: its
// count of chunks is not the number of its rows) is passed over.
//
// The copy is new memory: storing it as another document ([Store.PutDocuments])
// writes new rows, in that document's source, and leaves From as it is.
func (s *Store) FindCopy(ctx context.Context, hash, preferSource string, accept func(Document) bool, vectors bool) (*Copy, error) {
	if hash == "" {
		return nil, nil
	}
	// Most files looked for are new content: one look at the index of
	// hashes, without the snapshot's connection of its own.
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM documents WHERE hash = ? LIMIT 1`, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find a copy of %s: %w", hash, dbError(err))
	}
	conn, done, err := s.snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("find a copy of %s: %w", hash, dbError(err))
	}
	defer done()
	c, err := findCopy(ctx, conn, hash, preferSource, accept, vectors)
	if err != nil {
		return nil, fmt.Errorf("find a copy of %s: %w", hash, dbError(err))
	}
	return c, nil
}

// ContentHashes returns the content hashes of the documents stored from
// files, in every data source: those a file may be a copy of
// ([Store.FindCopy]).
func (s *Store) ContentHashes(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT hash FROM documents WHERE kind = ? AND hash != ''`, KindFile)
	if err != nil {
		return nil, fmt.Errorf("content hashes: %w", dbError(err))
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, fmt.Errorf("content hashes: %w", dbError(err))
		}
		out[h] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("content hashes: %w", dbError(err))
	}
	return out, nil
}

func findCopy(ctx context.Context, conn *sql.Conn, hash, preferSource string, accept func(Document) bool, vectors bool) (*Copy, error) {
	rows, err := conn.QueryContext(ctx, `SELECT `+documentColumns+`, d.layout
		FROM documents d JOIN sources s ON s.id = d.source_id
		WHERE d.hash = ? ORDER BY s.name = ? DESC, d.indexed_at LIMIT ?`, hash, preferSource, maxCandidates)
	if err != nil {
		return nil, err
	}
	type candidate struct {
		doc    Document
		layout string
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		var mtime, indexed int64
		d := &c.doc
		if err := rows.Scan(&d.ID, &d.Source, &d.Path, &d.Title, &d.Type, &d.Kind, &d.Size, &mtime, &d.Hash, &d.Pipeline, &d.TextBytes, &d.Chunks, &d.Tokens, &indexed, &c.layout); err != nil {
			rows.Close()
			return nil, err
		}
		d.ModTime, d.IndexedAt = unixNano(mtime), unixNano(indexed)
		cands = append(cands, c)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	var emb EmbedderInfo
	if vectors {
		name, err := getMeta(ctx, conn, metaEmbedder)
		if err != nil {
			return nil, err
		}
		dim, err := vectorDim(ctx, conn)
		if err != nil {
			return nil, err
		}
		emb = EmbedderInfo{Name: name, Dim: dim}
		vectors = name != "" && dim > 0
	}
	for _, c := range cands {
		if !accept(c.doc) {
			continue
		}
		if c.layout != "" {
			var l Layout
			if json.Unmarshal([]byte(c.layout), &l) != nil {
				continue // damaged: cite check names it
			}
			c.doc.Layout = &l
		}
		chunks, ok, err := copyChunks(ctx, conn, c.doc, vectors, emb.Dim)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cp := &Copy{From: c.doc, Chunks: chunks}
		if vectors {
			cp.Embedder = emb
		}
		return cp, nil
	}
	return nil, nil
}

// copyChunks reads the chunks of d (and their vectors, of dim values) for
// a copy; ok is false when they do not add up to a document: fewer or more
// rows than d counts, a gap in their ordinals, or a row that does not read.
func copyChunks(ctx context.Context, conn *sql.Conn, d Document, vectors bool, dim int) ([]Chunk, bool, error) {
	q := `SELECT c.ordinal, c.text, c.tokens, c.start_byte, c.end_byte, c.src_start, c.src_end, c.headings, c.page, c.page_end, NULL
		FROM chunks c WHERE c.document_id = ? ORDER BY c.ordinal`
	if vectors {
		q = `SELECT c.ordinal, c.text, c.tokens, c.start_byte, c.end_byte, c.src_start, c.src_end, c.headings, c.page, c.page_end, v.vec
		FROM chunks c LEFT JOIN vectors v ON v.chunk = c.rowid WHERE c.document_id = ? ORDER BY c.ordinal`
	}
	rows, err := conn.QueryContext(ctx, q, d.ID)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := make([]Chunk, 0, d.Chunks)
	for rows.Next() {
		var c Chunk
		var headings string
		var vec []byte
		if err := rows.Scan(&c.Ordinal, &c.Text, &c.Tokens, &c.Start, &c.End, &c.SourceStart, &c.SourceEnd, &headings, &c.Page, &c.PageEnd, &vec); err != nil {
			return nil, false, nil // a value of the wrong type: cite check names it
		}
		if c.Ordinal != len(out) || json.Unmarshal([]byte(headings), &c.Headings) != nil {
			return nil, false, nil
		}
		if len(c.Headings) == 0 {
			c.Headings = nil
		}
		if vec != nil {
			v, err := decodeVector(vec, dim, nil)
			if err != nil {
				return nil, false, nil
			}
			c.Vector = v
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(out) != d.Chunks || len(out) == 0 {
		return nil, false, nil
	}
	return out, true, nil
}
