package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Errors about vectors callers branch on.
var (
	// ErrEmbedderMismatch: the index's vectors were made by another
	// embedder than the one given.
	ErrEmbedderMismatch = errors.New("embedder mismatch")
	// ErrNoVectors: the index has no embedder yet.
	ErrNoVectors = errors.New("no vectors")
)

// Embedder is what the store needs of an embedder: the name that tells its
// vectors apart from other embedders', and their dimension. Dim returns 0
// while the dimension is unknown; ProbeDim learns it (a model provider's
// embedder asks its server). *embed.Embedder implements it.
type Embedder interface {
	Name() string
	Dim() int
	ProbeDim(ctx context.Context) (int, error)
}

// EmbedderInfo names the embedder whose vectors an index holds.
type EmbedderInfo struct {
	Name string `json:"name"` // canonical spec, [Embedder.Name]
	Dim  int    `json:"dim"`
}

// meta keys.
const (
	metaEmbedder   = "embedder"
	metaDim        = "dim"
	metaAnalyzer   = "analyzer"
	metaVectorsGen = "vectors_gen"
)

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getMeta(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// bumpVectorsGen records that the vectors changed and returns the new
// generation.
func bumpVectorsGen(ctx context.Context, tx *sql.Tx) (int64, error) {
	var gen int64
	err := tx.QueryRowContext(ctx, `
		INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
		RETURNING CAST(value AS INTEGER)`, metaVectorsGen).Scan(&gen)
	return gen, err
}

func vectorsGen(ctx context.Context, q querier) (int64, error) {
	v, err := getMeta(ctx, q, metaVectorsGen)
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// vectorDim returns the dimension of the index's vectors, 0 if it has no
// embedder.
func vectorDim(ctx context.Context, q querier) (int, error) {
	v, err := getMeta(ctx, q, metaDim)
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.Atoi(v)
}

// Embedder returns the embedder that made the index's vectors; its Name is
// empty when the index has none yet.
func (s *Store) Embedder(ctx context.Context) (EmbedderInfo, error) {
	name, err := getMeta(ctx, s.db, metaEmbedder)
	if err != nil {
		return EmbedderInfo{}, fmt.Errorf("read embedder: %w", err)
	}
	dim, err := vectorDim(ctx, s.db)
	if err != nil {
		return EmbedderInfo{}, fmt.Errorf("read embedder: %w", err)
	}
	return EmbedderInfo{Name: name, Dim: dim}, nil
}

// UseEmbedder records e as the index's embedder if it has none, and
// otherwise checks that e is the one it has: vectors of two embedders
// cannot be compared, so another one is an [ErrEmbedderMismatch] (change it
// with [Store.ResetVectors]). It learns e's dimension if needed.
func (s *Store) UseEmbedder(ctx context.Context, e Embedder) error {
	cur, err := s.Embedder(ctx)
	if err != nil {
		return err
	}
	if cur.Name != "" {
		return checkEmbedder(cur, e)
	}
	dim, err := e.ProbeDim(ctx)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		name, err := getMeta(ctx, tx, metaEmbedder)
		if err != nil {
			return err
		}
		if name != "" { // another process got there first
			d, err := vectorDim(ctx, tx)
			if err != nil {
				return err
			}
			return checkEmbedder(EmbedderInfo{name, d}, e)
		}
		if err := setMeta(ctx, tx, metaEmbedder, e.Name()); err != nil {
			return err
		}
		return setMeta(ctx, tx, metaDim, strconv.Itoa(dim))
	})
}

// CheckEmbedder returns an [ErrEmbedderMismatch] error if the index's
// vectors were made by another embedder than e, and [ErrNoVectors] if it
// has none.
func (s *Store) CheckEmbedder(ctx context.Context, e Embedder) error {
	cur, err := s.Embedder(ctx)
	if err != nil {
		return err
	}
	if cur.Name == "" {
		return fmt.Errorf("%w: the index has no embedder yet (cite index makes one)", ErrNoVectors)
	}
	return checkEmbedder(cur, e)
}

func checkEmbedder(cur EmbedderInfo, e Embedder) error {
	if cur.Name != e.Name() || (e.Dim() != 0 && e.Dim() != cur.Dim) {
		return fmt.Errorf("%w: the index's vectors were made by %s (%d dimensions), not %s; cite reindex --embedder %s re-embeds them",
			ErrEmbedderMismatch, cur.Name, cur.Dim, e.Name(), e.Name())
	}
	return nil
}

// ResetVectors deletes every vector and records e as the index's embedder,
// in one transaction; [Store.MissingVectors] then lists every chunk.
func (s *Store) ResetVectors(ctx context.Context, e Embedder) error {
	dim, err := e.ProbeDim(ctx)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors`); err != nil {
			return err
		}
		if cur, err := getMeta(ctx, tx, metaReplica); err != nil {
			return err
		} else if cur != "" {
			if err := markAllPending(ctx, tx); err != nil {
				return err
			}
		}
		if err := setMeta(ctx, tx, metaEmbedder, e.Name()); err != nil {
			return err
		}
		if err := setMeta(ctx, tx, metaDim, strconv.Itoa(dim)); err != nil {
			return err
		}
		_, err := bumpVectorsGen(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("reset vectors: %w", err)
	}
	s.vmu.Lock()
	s.vectors = nil // the next search loads the new (empty) set
	s.vmu.Unlock()
	return nil
}

// ForgetEmbedder removes the index's embedder and all its vectors: what
// cite check --repair does when the embedder recorded is damaged (a name
// no embedder has). The next [Store.UseEmbedder] records a new one.
func (s *Store) ForgetEmbedder(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors`); err != nil {
			return err
		}
		if cur, err := getMeta(ctx, tx, metaReplica); err != nil {
			return err
		} else if cur != "" {
			if err := markAllPending(ctx, tx); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN (?, ?)`, metaEmbedder, metaDim); err != nil {
			return err
		}
		_, err := bumpVectorsGen(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("forget embedder: %w", err)
	}
	s.vmu.Lock()
	s.vectors = nil
	s.vmu.Unlock()
	return nil
}

// VectorIDs returns the ids of the chunks of a document that have a
// vector.
func (s *Store) VectorIDs(ctx context.Context, documentID string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id FROM chunks c JOIN vectors v ON v.chunk = c.rowid WHERE c.document_id = ?`, documentID)
	if err != nil {
		return nil, fmt.Errorf("read vectors of %s: %w", documentID, err)
	}
	defer rows.Close()
	ids := make(map[string]bool)
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// ChunkText is a chunk's identity and text, for embedding.
type ChunkText struct {
	Rowid int64
	ID    string
	Text  string
}

// MissingVectors returns up to limit chunks that have no vector, after
// rowid (0 to start), in rowid order.
func (s *Store) MissingVectors(ctx context.Context, after int64, limit int) ([]ChunkText, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT c.rowid, c.id, c.text FROM chunks c
		WHERE c.rowid > ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk = c.rowid)
		ORDER BY c.rowid LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list chunks without vectors: %w", err)
	}
	defer rows.Close()
	var out []ChunkText
	for rows.Next() {
		var c ChunkText
		if err := rows.Scan(&c.Rowid, &c.ID, &c.Text); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CountMissingVectors returns the number of chunks without a vector.
func (s *Store) CountMissingVectors(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk = c.rowid)`).Scan(&n)
	return n, err
}

// PutVectors stores vectors of chunks by chunk id, in one transaction.
// Chunks that no longer exist are skipped (their document changed since
// the vectors were asked for); it returns how many were stored.
func (s *Store) PutVectors(ctx context.Context, vectors map[string][]float32) (int, error) {
	var rows []vectorRow
	var gen int64
	var docs []string // documents whose chunks got vectors
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, gen, docs = rows[:0], 0, docs[:0]
		dim, err := vectorDim(ctx, tx)
		if err != nil {
			return err
		}
		if dim == 0 {
			return fmt.Errorf("%w: record the embedder first", ErrNoVectors)
		}
		find, err := tx.PrepareContext(ctx, `SELECT rowid, document_id FROM chunks WHERE id = ?`)
		if err != nil {
			return err
		}
		defer find.Close()
		put, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors (chunk, vec) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer put.Close()
		for id, v := range vectors {
			if len(v) != dim {
				return fmt.Errorf("%w: vector of chunk %s has %d dimensions, the index's embedder makes %d", ErrInvalidInput, id, len(v), dim)
			}
			var rowid int64
			var doc string
			err := find.QueryRowContext(ctx, id).Scan(&rowid, &doc)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if i := nonFinite(v); i >= 0 {
				var path string
				tx.QueryRowContext(ctx, `SELECT path FROM documents WHERE id = ?`, doc).Scan(&path)
				name, _ := getMeta(ctx, tx, metaEmbedder)
				return fmt.Errorf("%w: document %s: the vector of chunk %s from embedder %s has value %d %v, not a number", ErrInvalidInput, path, id, name, i, v[i])
			}
			q := make([]int8, dim)
			b, scale := prepVector(nil, v, q)
			if _, err := put.ExecContext(ctx, rowid, b); err != nil {
				return err
			}
			rows = append(rows, vectorRow{rowid: rowid, vec: v, q: q, scale: scale})
			if !slices.Contains(docs, doc) {
				docs = append(docs, doc)
			}
		}
		if len(rows) == 0 {
			return nil
		}
		if err := markPending(ctx, tx, docs); err != nil {
			return err
		}
		gen, err = bumpVectorsGen(ctx, tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store vectors: %w", err)
	}
	if gen > 0 {
		s.vectorsChanged(gen, nil, rows)
	}
	if _, err := s.push(ctx, docs); err != nil {
		return len(rows), err
	}
	return len(rows), nil
}

// nonFinite returns the index of the first NaN or infinite value of v, -1
// if there is none. Such a value makes every score it enters NaN or
// infinite: the store refuses it.
func nonFinite(v []float32) int {
	for i, x := range v {
		if x-x != 0 {
			return i
		}
	}
	return -1
}

// Vectors are stored little-endian, as IEEE 754 binary16 (float16) values,
// two bytes a value, followed by one byte, [vecFloat16]: half the bytes of
// float32. Blobs of 4*dim bytes are float32, as cite wrote them before,
// and are read as they are (no schema change); they become float16 when
// their chunk is embedded again (cite reindex, a changed document). The
// format byte makes a float16 blob's length odd, so a blob tells its format
// and its dimension without the index's recorded dimension: 2*dim bytes
// alone would be 4*(dim/2), a float32 vector of half the dimensions, and
// cite check could not tell a recorded dimension damaged to half (or
// double) from a good one, nor --repair restore it from the vectors.
//
// A vector with a value too large for float16 (|x| ≥ 65520, which would
// round to infinity) is stored as float32, whole: the embedders' vectors
// are unit length, so only a caller's own vectors can be that large, and
// they lose nothing. Rounding is to nearest, ties to even
// (github.com/x448/float16): a value keeps 11 significant bits, a relative
// error of at most 2⁻¹¹ (4.9e-4), and one below 2⁻¹⁴ (6.1e-5, a subnormal
// float16) an absolute error of at most 2⁻²⁵ (3e-8), which a dot product
// of unit vectors does not notice. Every reader (the ranking of the
// shortlist, the in-memory vectors and vectors.cache, cite check, the
// Weaviate replica, [Store.Vectors]) sees the stored values, and the
// writers quantize the rounded values ([storedVector]), so the in-memory
// vectors are the database's.

// vecFloat16 is the byte that ends a vector stored as float16.
const vecFloat16 = 0x10

// encodeVector returns v as stored: float16 values and [vecFloat16], or
// float32 values when one of v does not fit a float16 (|x| ≥ 65520, NaN or
// infinite).
func encodeVector(v []float32) []byte {
	b := make([]byte, 2*len(v)+1)
	if halfEncode(b, v) >= 0x7c00 {
		return encodeFloat32(v)
	}
	b[2*len(v)] = vecFloat16
	return b
}

// encodeFloat32 encodes v as little-endian float32 values, the format of
// vectors too large for float16 and of those older cite wrote.
func encodeFloat32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// storedVector returns v as stored ([encodeVector]) and the values a
// reader decodes from it: v rounded to float16, in dst when it has room
// (allocated otherwise), or v itself when it is stored as float32.
func storedVector(v, dst []float32) (b []byte, r []float32) {
	b = encodeVector(v)
	if len(b) == 4*len(v) {
		return b, v
	}
	if cap(dst) < len(v) {
		dst = make([]float32, len(v))
	}
	r = dst[:len(v)]
	halfDecode(r, b) // finite: encodeVector checked
	return b, r
}

// RoundVector returns v as the store gives it back ([Store.Vectors], the
// scores of [Store.SearchVectors]): rounded to float16, or v itself when a
// value is too large for float16 and it is stored as float32.
func RoundVector(v []float32) []float32 {
	_, r := storedVector(v, nil)
	return r
}

// vectorFormatDim returns the dimension of the vector a blob of n bytes
// holds, and whether it is float16; 0 when n fits neither format.
func vectorFormatDim(n int) (dim int, half bool) {
	switch {
	case n%2 == 1:
		return n / 2, true
	case n%4 == 0:
		return n / 4, false
	}
	return 0, false
}

// decodeVector decodes a vector of dim values from b into dst (allocated
// when nil): float16 values when b holds 2*dim+1 bytes, float32 when it
// holds 4*dim. Another length or format byte, or a NaN or infinite value,
// is an error: the latter would make every score it enters NaN or infinite.
func decodeVector(b []byte, dim int, dst []float32) ([]float32, error) {
	n, half := vectorFormatDim(len(b))
	if n != dim {
		return nil, fmt.Errorf("vector of %d bytes, want %d (float16) or %d (float32) for %d dimensions", len(b), 2*dim+1, 4*dim, dim)
	}
	if half && b[2*dim] != vecFloat16 {
		return nil, fmt.Errorf("vector of %d bytes ends in format byte %#x, want %#x (float16)", len(b), b[2*dim], vecFloat16)
	}
	if dst == nil {
		dst = make([]float32, dim)
	}
	dst = dst[:dim]
	if half {
		if halfDecode(dst, b) < 0x7c00 {
			return dst, nil
		}
		i := 0 // the first infinity or NaN
		for binary.LittleEndian.Uint16(b[2*i:])&0x7c00 != 0x7c00 {
			i++
		}
		return nil, fmt.Errorf("vector value %d is %v, not a number", i, dst[i])
	}
	for i := range dst {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if x-x != 0 { // NaN or ±Inf
			return nil, fmt.Errorf("vector value %d is %v, not a number", i, x)
		}
		dst[i] = x
	}
	return dst, nil
}

// Vectors calls fn with every stored vector and its chunk's id, in rowid
// order, stopping at fn's first error.
func (s *Store) Vectors(ctx context.Context, fn func(chunkID string, v []float32) error) error {
	dim, err := vectorDim(ctx, s.db)
	if err != nil || dim == 0 {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, v.vec FROM vectors v JOIN chunks c ON c.rowid = v.chunk ORDER BY v.chunk`)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		v, err := decodeVector(b, dim, nil)
		if err != nil {
			return fmt.Errorf("vector of chunk %s: %w", id, err)
		}
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CheckEmbedderInfo returns an [ErrEmbedderMismatch] error unless e is the
// embedder cur names, and [ErrNoVectors] when cur names none: the check
// [Store.CheckEmbedder] makes, for other [Reader]s.
func CheckEmbedderInfo(cur EmbedderInfo, e Embedder) error {
	if cur.Name == "" {
		return fmt.Errorf("%w: the index has no embedder yet (cite index makes one)", ErrNoVectors)
	}
	return checkEmbedder(cur, e)
}
