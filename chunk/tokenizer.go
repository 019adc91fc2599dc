package chunk

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cite-rag/cite/chunk/internal/ranktable"
)

// Encoding is the name of the only encoding cite uses: GPT-4o's.
const Encoding = "o200k_base"

// Tokenizer counts and splits text into o200k_base tokens, exactly as
// OpenAI's tiktoken does, fully offline, except for pre-token pieces longer
// than 256 bytes (runs of letters, symbols or spaces without a break, which
// ordinary text does not have): it cuts those in pieces of [MaxPiece] bytes
// at most and encodes each by longest match, in linear time, where
// byte-pair encoding is superlinear.
//
// It pre-tokenizes with a hand-written scanner equivalent to the encoding's
// regular expression (pretokenize.go), answers pieces that are single tokens
// from the rank table, and byte-pair encodes the rest itself, remembering
// the result. In front of both, each encoding call has a small
// cache of its own of the pieces met last ([pieceCache]): most pieces of a
// text are a few thousand words met again and again. That is several times
// faster than tiktoken-go's own Encode, whose regexp2 scan dominates its
// cost, and gives the same tokens (TestTokenizerMatchesTiktoken,
// FuzzTokenizer, TestPieceCache).
//
// A Tokenizer is safe for concurrent use. Its caches are bounded.
type Tokenizer struct {
	ranks  ranktable.Table // token bytes -> id, id -> length; read-only
	seed   maphash.Seed
	shards [cacheShards]cacheShard

	sortOnce sync.Once
	sorted   *sortedTokens // for longestMatch, built on first use
	long     longCache
}

// longCache remembers the last few pieces over longPiece bytes. They come
// only from long runs without a break, where they repeat soon if at all: a
// run of one character is the same piece again and again, and a chunk cut
// inside a run re-encodes the same few pieces. Kept apart from the shards,
// a run of random letters, whose pieces never repeat, cannot fill those
// with pieces of a kilobyte each.
type longCache struct {
	mu   sync.Mutex
	keys [longCacheSize]string
	ids  [longCacheSize][]uint32
	next int // the entry replaced next
}

const longCacheSize = 32

// tokens returns the ids of piece, from the cache or from encode.
func (c *longCache) tokens(piece string, encode func(string) []uint32) []uint32 {
	c.mu.Lock()
	for i, k := range c.keys {
		if k == piece {
			ids := c.ids[i]
			c.mu.Unlock()
			return ids
		}
	}
	c.mu.Unlock()
	ids := encode(piece)
	c.mu.Lock()
	c.keys[c.next], c.ids[c.next] = strings.Clone(piece), ids // never pin the caller's text
	c.next = (c.next + 1) % longCacheSize
	c.mu.Unlock()
	return ids
}

// sortedTokens holds the tokens of two bytes or more in byte order, for
// longest-match encoding: the tokens that start with given bytes are a
// range of them, narrowed one byte at a time. Their bytes lie end to end
// in one array, so that the binary searches stay in a few cache lines.
type sortedTokens struct {
	bytes  []byte   // the tokens, end to end
	off    []uint32 // token i is bytes[off[i]:off[i+1]]
	ids    []uint32
	first  []int32     // tokens first[k]:first[k+1] start with the bytes k>>8, k&0xFF
	single [256]uint32 // id of each one-byte token
}

const (
	cacheShards     = 64
	cacheShardMax   = 4096    // entries per shard before the shard is cleared
	cacheShardBytes = 1 << 18 // bytes of pieces and ids per shard, likewise
)

type cacheShard struct {
	mu    sync.RWMutex
	m     map[string][]uint32
	bytes int
}

var (
	loadOnce sync.Once
	loaded   *Tokenizer
	loadErr  error
)

// O200k returns the shared o200k_base tokenizer, made on first use. Its
// rank table is embedded in the binary and read in place, never from the
// network: making it costs next to nothing, and [Preload] is kept for
// programs that call it early.
func O200k() (*Tokenizer, error) {
	loadOnce.Do(func() { loaded, loadErr = newTokenizer() })
	return loaded, loadErr
}

// Preload starts loading the shared tokenizer in the background, for a
// program that will need it after other start-up work: [O200k] and [New]
// then find it loaded, or wait only for what is left.
func Preload() {
	go O200k()
}

func newTokenizer() (*Tokenizer, error) {
	ranks, err := loadRanks()
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", Encoding, err)
	}
	t := &Tokenizer{ranks: ranks, seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = make(map[string][]uint32)
	}
	return t, nil
}

// pieceTokens returns the token ids of one pre-token piece. The result is
// shared: callers must not modify it. single is scratch space of length 1.
func (t *Tokenizer) pieceTokens(piece string, single []uint32) []uint32 {
	if id, ok := t.ranks.Rank(piece); ok {
		single[0] = uint32(id)
		return single
	}
	if len(piece) > longPiece {
		return t.long.tokens(piece, t.longestMatch)
	}
	sh := &t.shards[maphash.String(t.seed, piece)%cacheShards]
	sh.mu.RLock()
	ids, ok := sh.m[piece]
	sh.mu.RUnlock()
	if ok {
		return ids
	}
	switch {
	case utf8.ValidString(piece):
		ids = t.bytePairEncode(piece)
	default:
		ids = t.invalidPiece(piece)
	}
	sh.mu.Lock()
	if len(sh.m) >= cacheShardMax || sh.bytes+len(piece) > cacheShardBytes {
		clear(sh.m)
		sh.bytes = 0
	}
	sh.m[string([]byte(piece))] = ids // copy: never pin the caller's text
	sh.bytes += len(piece) + 4*len(ids)
	sh.mu.Unlock()
	return ids
}

// bytePairEncode encodes a piece of at most longPiece bytes as tiktoken
// does (its byte_pair_merge, as tiktoken-go ports it): starting from the
// piece's bytes, merge the adjacent pair whose bytes are the token of
// lowest rank, the leftmost of equals, until no pair is a token. Its tokens
// are tiktoken-go's EncodeOrdinary of the piece, without EncodeOrdinary's
// regexp2 pre-tokenization of a text that is one piece already
// (TestBytePairEncode).
func (t *Tokenizer) bytePairEncode(piece string) []uint32 {
	type part struct{ start, rank int }
	var buf [longPiece + 1]part
	parts := buf[:0]
	if len(piece) > longPiece {
		parts = make([]part, 0, len(piece)+1)
	}
	for i := range len(piece) + 1 {
		parts = append(parts, part{i, math.MaxInt})
	}
	// rank returns the rank of the bytes of parts i to i+skip+1 together,
	// or MaxInt if they are not a token.
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := t.ranks.Rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for k := 0; k < len(parts)-1; k++ {
			if parts[k].rank < minRank {
				minRank, i = parts[k].rank, k
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = rank(i, 1)
		if i > 0 {
			parts[i-1].rank = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	ids := make([]uint32, len(parts)-1)
	for k := range ids {
		id, _ := t.ranks.Rank(piece[parts[k].start:parts[k+1].start])
		ids[k] = uint32(id)
	}
	return ids
}

// invalidPiece encodes a piece holding invalid UTF-8, which tiktoken-go
// would turn into U+FFFD (three bytes for one): valid runs are encoded
// normally and each invalid byte as its own byte token, so token lengths
// always add up to the piece. normalize never produces such text.
func (t *Tokenizer) invalidPiece(piece string) []uint32 {
	var ids []uint32
	var single [1]uint32
	for len(piece) > 0 {
		valid := 0
		for valid < len(piece) {
			r, n := utf8.DecodeRuneInString(piece[valid:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			valid += n
		}
		if valid > 0 {
			ids = t.appendValid(ids, piece[:valid])
			piece = piece[valid:]
			continue
		}
		ids = append(ids, t.pieceTokens(piece[:1], single[:])[0])
		piece = piece[1:]
	}
	return ids
}

// appendValid appends to ids the tokens of text, valid UTF-8 without a
// piece over longPiece bytes, encoded whole as tiktoken does: pre-token
// pieces, each byte-pair encoded.
func (t *Tokenizer) appendValid(ids []uint32, text string) []uint32 {
	var single [1]uint32
	for i := 0; i < len(text); {
		end := nextPiece(text, i)
		ids = append(ids, t.pieceTokens(text[i:end], single[:])...)
		i = end
	}
	return ids
}

// Encode returns the o200k_base token ids of text. Special-token text such
// as "<|endoftext|>" is encoded as ordinary text.
func (t *Tokenizer) Encode(text string) []int {
	c := getPieceCache()
	defer putPieceCache(c)
	var out []int
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			for _, id := range t.cachedTokens(c, text[i:e], single[:]) {
				out = append(out, int(id))
			}
			i = e
		}
	}
	return out
}

// Count returns the number of o200k_base tokens in text.
func (t *Tokenizer) Count(text string) int {
	c := getPieceCache()
	defer putPieceCache(c)
	return t.count(c, text)
}

// count is [Tokenizer.Count] with the piece cache c.
func (t *Tokenizer) count(c *pieceCache, text string) int {
	n := 0
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			n += len(t.cachedTokens(c, text[i:e], single[:]))
			i = e
		}
	}
	return n
}

// token is one token of a document: where it ends in the text and whether
// a pre-token piece starts with it.
type token struct {
	end        int32
	pieceStart bool
}

// tokenList is the tokens of a document, 4 bytes each: where the token
// ends in the text (texts are shorter than 2 GiB), with pieceStartBit set
// when a pre-token piece starts with it. It is kept in blocks of
// tokenBlock tokens, so that it grows without copying what it holds: a
// text's tokens are only known once they are counted, and a slice grown
// by appending would hold the old and the new array at once.
type tokenList struct {
	blocks [][]uint32
	n      int
	hint   int // capacity of the first block
}

const (
	tokenBlockBits = 16
	tokenBlock     = 1 << tokenBlockBits
	pieceStartBit  = 1 << 31
)

func (l *tokenList) add(end int, pieceStart bool) {
	v := uint32(end)
	if pieceStart {
		v |= pieceStartBit
	}
	if l.n&(tokenBlock-1) == 0 && l.n>>tokenBlockBits == len(l.blocks) {
		k, c := len(l.blocks), tokenBlock
		if k == 0 {
			c = min(max(l.hint, 16), tokenBlock)
		}
		if k < cap(l.blocks) && cap(l.blocks[:k+1][k]) >= c { // a block of a list before
			l.blocks = l.blocks[:k+1]
			l.blocks[k] = l.blocks[k][:0]
		} else {
			l.blocks = append(l.blocks, make([]uint32, 0, c))
		}
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, v)
	l.n++
}

func (l *tokenList) len() int { return l.n }

// tokenLists holds token lists done with, for their blocks: a document's
// tokens take as many bytes as its text, and most documents are small.
var tokenLists sync.Pool

// maxPooledTokens bounds the tokens a pooled list has room for (1 MB).
const maxPooledTokens = 1 << 18

// getTokenList returns an empty token list whose first block will have
// room for about hint tokens, reusing the blocks of a list before that
// are large enough.
func getTokenList(hint int) *tokenList {
	if l, ok := tokenLists.Get().(*tokenList); ok {
		l.hint = hint
		return l
	}
	return &tokenList{hint: hint}
}

// putTokenList empties l and keeps it for getTokenList, unless it holds
// room for more than maxPooledTokens. l must not be used after.
func putTokenList(l *tokenList) {
	room := 0
	for _, b := range l.blocks[:cap(l.blocks)] {
		room += cap(b)
	}
	if room > maxPooledTokens {
		return
	}
	l.blocks, l.n = l.blocks[:0], 0
	tokenLists.Put(l)
}

// end returns the byte offset where token k ends.
func (l *tokenList) end(k int) int {
	return int(l.blocks[k>>tokenBlockBits][k&(tokenBlock-1)] &^ pieceStartBit)
}

// pieceStart reports whether a pre-token piece starts with token k.
func (l *tokenList) pieceStart(k int) bool {
	return l.blocks[k>>tokenBlockBits][k&(tokenBlock-1)]&pieceStartBit != 0
}

// tokens returns the tokens of text, using the piece cache c. The caller
// may give the list back with putTokenList when done with it.
func (t *Tokenizer) tokens(c *pieceCache, text string) *tokenList {
	l := getTokenList(len(text)/4 + 1)
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			ids := t.cachedTokens(c, text[i:e], single[:])
			if len(ids) == 1 { // most pieces: no need to look up its length
				l.add(e, true)
				i = e
				continue
			}
			off := i
			for k, id := range ids {
				off += t.ranks.TokenLen(int(id))
				l.add(off, k == 0)
			}
			i = e
		}
	}
	return l
}

// tokensN appends to dst the first n or more tokens of text, stopping at
// the piece where it has n, using the piece cache c.
func (t *Tokenizer) tokensN(c *pieceCache, dst []token, text string, n int) []token {
	var single [1]uint32
	n += len(dst)
	for i := 0; i < len(text) && len(dst) < n; {
		for end := nextPiece(text, i); i < end && len(dst) < n; {
			e := subPiece(text, i, end)
			off := i
			for k, id := range t.cachedTokens(c, text[i:e], single[:]) {
				off += t.ranks.TokenLen(int(id))
				dst = append(dst, token{end: int32(off), pieceStart: k == 0})
			}
			i = e
		}
	}
	return dst
}

// longPiece is the length above which a piece is encoded by longest match
// instead of byte-pair encoding. The longest o200k_base token has 128
// bytes; ordinary words are far shorter.
const longPiece = 256

// longestMatch encodes piece greedily: at each position, the longest
// o200k_base token that starts there (every single byte is a token). It is
// linear in the piece, and on runs of random letters gives about as many
// tokens as byte-pair encoding; at worst (a short pattern repeated, which
// byte-pair encoding merges well) about twice as many (TestLongestMatch).
// The result depends only on the piece's bytes, so a chunk's text encoded
// on its own gives the same tokens as the document did.
//
// At each position it narrows the range of sorted tokens that start with
// the bytes read so far, a byte at a time by binary search, until no token
// does: a few byte comparisons per byte of the piece, where looking up
// every candidate length in the rank map hashes each of them.
func (t *Tokenizer) longestMatch(piece string) []uint32 {
	st := t.sortedTokens()
	ids := make([]uint32, 0, len(piece)/2+1)
	for i := 0; i < len(piece); {
		id, n := st.single[piece[i]], 1
		if i+1 < len(piece) {
			k := int(piece[i])<<8 | int(piece[i+1])
			lo, hi := int(st.first[k]), int(st.first[k+1])
			if lo < hi && st.off[lo+1]-st.off[lo] == 2 {
				id, n = st.ids[lo], 2
			}
			// st's tokens lo:hi start with piece[i:i+l]; the first may be
			// that prefix itself, and the rest are in order of their byte l.
			for l := 2; lo < hi && i+l < len(piece); l++ {
				c := int(piece[i+l])
				lo = st.search(lo, hi, l, c)
				hi = st.search(lo, hi, l, c+1)
				if lo < hi && int(st.off[lo+1]-st.off[lo]) == l+1 {
					id, n = st.ids[lo], l+1
				}
			}
		}
		ids = append(ids, id)
		i += n
	}
	return ids
}

// search returns the first of the tokens lo:hi that is longer than l bytes
// and has a byte at l of at least c, or hi if none is.
func (st *sortedTokens) search(lo, hi, l, c int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s, e := st.off[m], st.off[m+1]; int(e-s) > l && int(st.bytes[int(s)+l]) >= c {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// sortedTokens returns the tokens in byte order, sorting them on first
// use (about 60 ms and 3 MB): only text with pieces over longPiece bytes
// needs them.
func (t *Tokenizer) sortedTokens() *sortedTokens {
	t.sortOnce.Do(func() {
		st := &sortedTokens{}
		type rankedToken struct {
			tok string
			id  uint32
		}
		toks := make([]rankedToken, 0, t.ranks.Len())
		size := 0
		for tok, id := range t.ranks.All() {
			if len(tok) == 1 {
				st.single[tok[0]] = uint32(id)
				continue
			}
			toks = append(toks, rankedToken{tok, uint32(id)})
			size += len(tok)
		}
		slices.SortFunc(toks, func(a, b rankedToken) int { return strings.Compare(a.tok, b.tok) })
		st.bytes = make([]byte, 0, size)
		st.off = make([]uint32, 1, len(toks)+1)
		st.ids = make([]uint32, len(toks))
		st.first = make([]int32, 1<<16+1)
		k := 0
		for i, rt := range toks {
			tok := rt.tok
			for ; k <= int(tok[0])<<8|int(tok[1]); k++ {
				st.first[k] = int32(i)
			}
			st.bytes = append(st.bytes, tok...)
			st.off = append(st.off, uint32(len(st.bytes)))
			st.ids[i] = rt.id
		}
		for ; k <= 1<<16; k++ {
			st.first[k] = int32(len(toks))
		}
		t.sorted = st
	})
	return t.sorted
}
