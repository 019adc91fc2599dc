package chunk

import (
	"math/bits"
	"runtime"
	"sync"

	"github.com/cite-rag/cite/internal/le"
)

// pieceCache remembers the tokens of the pre-token pieces one caller met
// last, for pieces of up to [pieceKeyMax] bytes (nearly all of them: words
// with their leading space, numbers, punctuation). Text is mostly the same
// few thousand pieces again and again, and finding one here costs a hash
// of two machine words and one cache line, where the rank map of 200,000
// tokens costs a string hash and two or three cache misses, and the shared
// cache of byte-pair encodings a lock besides. Pieces not found here are
// looked up as before ([Tokenizer.pieceTokens]), so the tokens are the
// same with or without it (TestPieceCache).
//
// It is two-way set-associative: a piece goes in one of the two entries
// of its set (one cache line), the one used least recently giving way. One
// pieceCache serves one goroutine at a time; encoding calls take one from
// a free list ([getPieceCache]), so that it carries over from text to text
// without being shared. The list keeps one per core (cite index splits a
// file per core) for the life of the process; more calls at once get a new
// one each, dropped afterwards. A sync.Pool would drop them at every other
// garbage collection, which ingest runs a few times a second.
type pieceCache struct {
	sets [pieceCacheSets][2]pieceEntry
}

// pieceEntry is one piece and its tokens, in 32 bytes.
type pieceEntry struct {
	lo, hi uint64 // the piece's bytes, as pieceKey packs them
	n      uint8  // the piece's length; 0 marks an empty entry
	count  uint8  // tokens in ids
	ids    [pieceEntryIDs]uint32
}

const (
	pieceCacheBits = 13
	pieceCacheSets = 1 << pieceCacheBits // 16,384 entries, 512 KB
	pieceEntryIDs  = 3                   // pieces of more tokens are not kept (1 in 1,000)
	pieceKeyMax    = 16                  // longest piece pieceKey packs
)

var pieceCaches struct {
	mu   sync.Mutex
	free []*pieceCache
}

func getPieceCache() *pieceCache {
	pieceCaches.mu.Lock()
	defer pieceCaches.mu.Unlock()
	if n := len(pieceCaches.free); n > 0 {
		c := pieceCaches.free[n-1]
		pieceCaches.free = pieceCaches.free[:n-1]
		return c
	}
	return new(pieceCache)
}

func putPieceCache(c *pieceCache) {
	pieceCaches.mu.Lock()
	defer pieceCaches.mu.Unlock()
	if len(pieceCaches.free) < runtime.GOMAXPROCS(0) {
		pieceCaches.free = append(pieceCaches.free, c)
	}
}

// cachedTokens is [Tokenizer.pieceTokens] through the cache c. The result
// may be c's own: it is valid until the next call with c, and callers must
// not modify it.
func (t *Tokenizer) cachedTokens(c *pieceCache, piece string, single []uint32) []uint32 {
	if len(piece) > pieceKeyMax {
		return t.pieceTokens(piece, single)
	}
	lo, hi := pieceKey(piece)
	set := &c.sets[pieceHash(lo, hi, len(piece))]
	if e := &set[0]; e.lo == lo && e.hi == hi && int(e.n) == len(piece) {
		return e.ids[:e.count]
	}
	if e := set[1]; e.lo == lo && e.hi == hi && int(e.n) == len(piece) {
		set[1] = set[0]
		set[0] = e
		return set[0].ids[:e.count]
	}
	ids := t.pieceTokens(piece, single)
	if len(ids) <= pieceEntryIDs {
		set[1] = set[0]
		e := &set[0]
		e.lo, e.hi, e.n, e.count = lo, hi, uint8(len(piece)), uint8(len(ids))
		copy(e.ids[:], ids)
	}
	return ids
}

// pieceKey packs a piece of 1 to [pieceKeyMax] bytes in two words that,
// with its length, identify it: its first and last 8 bytes (overlapping
// when it is shorter than 16), or its first and last 4, or, below 4
// bytes, its first, middle and last byte.
func pieceKey(s string) (lo, hi uint64) {
	switch n := len(s); {
	case n >= 8:
		return le.Uint64(s), le.Uint64(s[n-8:])
	case n >= 4:
		return uint64(le.Uint32(s)) | uint64(le.Uint32(s[n-4:]))<<32, 0
	default:
		return uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16, 0
	}
}

// pieceHash returns the entry of a piece's key.
func pieceHash(lo, hi uint64, n int) uint64 {
	h := (lo ^ bits.RotateLeft64(hi, 29) ^ uint64(n)) * 0x9e3779b97f4a7c15
	return h >> (64 - pieceCacheBits)
}
