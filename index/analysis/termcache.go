package analysis

import (
	"math/bits"

	"github.com/cite-rag/cite/internal/le"
)

// termCache remembers the terms of the folded words (and CJK bigrams) of up
// to [wordKeyMax] bytes one analyzer met last, with their stopword flag:
// nearly every word of a text. Finding one costs a hash of two machine
// words and one or two cache lines, where a map keyed by the word's string
// costs a string hash and cache misses in a map grown to tens of thousands
// of words, and the stopword map a second lookup. Words not found are
// looked up in that map, and stemmed ([analyzer.stem]) if not there, so the
// terms are the same with or without it (TestTermCache).
//
// It is two-way set-associative: a word goes in one of the two entries of
// its set, the one used least recently giving way.
type termCache struct {
	sets [termCacheSets][2]termEntry
}

// termEntry is one folded word, its term and its stopword flag.
type termEntry struct {
	lo, hi uint64 // the word's bytes, as wordKey packs them
	n      uint8  // the word's length; 0 marks an empty entry
	stop   bool
	term   string
}

const (
	termCacheBits = 12
	termCacheSets = 1 << termCacheBits // 8,192 entries, 320 KB
	wordKeyMax    = 16                 // longest word wordKey packs
)

// wordKey packs a word of 1 to [wordKeyMax] bytes in two words that, with
// its length, identify it: its first and last 8 bytes (overlapping when it
// is shorter than 16), or its first and last 4, or, below 4 bytes, its
// first, middle and last byte.
func wordKey(w []byte) (lo, hi uint64) {
	switch n := len(w); {
	case n >= 8:
		return le.Uint64(w), le.Uint64(w[n-8:])
	case n >= 4:
		return uint64(le.Uint32(w)) | uint64(le.Uint32(w[n-4:]))<<32, 0
	default:
		return uint64(w[0]) | uint64(w[n/2])<<8 | uint64(w[n-1])<<16, 0
	}
}

// wordHash returns the set of a word's key.
func wordHash(lo, hi uint64, n int) uint64 {
	h := (lo ^ bits.RotateLeft64(hi, 29) ^ uint64(n)) * 0x9e3779b97f4a7c15
	return h >> (64 - termCacheBits)
}
