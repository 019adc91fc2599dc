package chunk

import (
	"fmt"
	"hash/maphash"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
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
// from the rank table, and has tiktoken-go byte-pair-encode the rest,
// remembering the result. That is several times faster than tiktoken-go's
// own Encode, whose regexp2 scan dominates its cost, and gives the same
// tokens (TestTokenizerMatchesTiktoken, FuzzTokenizer).
//
// A Tokenizer is safe for concurrent use. Its piece cache is bounded.
type Tokenizer struct {
	ranks   map[string]int // token bytes -> id; shared with tiktoken-go, read-only
	lengths []uint16       // id -> token length in bytes
	// longest[b0<<8|b1] is the length of the longest token starting with
	// the bytes b0 b1: where longestMatch starts looking.
	longest []uint8
	bpe     *tiktoken.Tiktoken
	seed    maphash.Seed
	shards  [cacheShards]cacheShard
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

// capturingLoader hands tiktoken-go the ranks embedded by
// tiktoken-go-loader (never the network) and keeps them for the Tokenizer.
type capturingLoader struct {
	ranks map[string]int
}

func (l *capturingLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(file)
	if err != nil {
		return nil, fmt.Errorf("load %s offline: %w", file, err)
	}
	l.ranks = ranks
	return ranks, nil
}

// O200k returns the shared o200k_base tokenizer, loading it on first use
// (about 0.3 s and 40 MB for the rank tables).
//
// Loading installs tiktoken-go-loader's offline loader as tiktoken-go's
// process-wide BPE loader, so no tiktoken-go encoding in this process ever
// downloads its tables.
func O200k() (*Tokenizer, error) {
	loadOnce.Do(func() { loaded, loadErr = newTokenizer() })
	return loaded, loadErr
}

func newTokenizer() (*Tokenizer, error) {
	loader := &capturingLoader{}
	tiktoken.SetBpeLoader(loader)
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", Encoding, err)
	}
	if loader.ranks == nil {
		return nil, fmt.Errorf("load tokenizer %s: ranks were loaded before the offline loader was installed", Encoding)
	}
	t := &Tokenizer{ranks: loader.ranks, bpe: enc, seed: maphash.MakeSeed()}
	maxID := 0
	for _, id := range t.ranks {
		maxID = max(maxID, id)
	}
	t.lengths = make([]uint16, maxID+1)
	t.longest = make([]uint8, 1<<16)
	for tok, id := range t.ranks {
		t.lengths[id] = uint16(len(tok))
		if len(tok) >= 2 {
			k := uint16(tok[0])<<8 | uint16(tok[1])
			t.longest[k] = max(t.longest[k], uint8(min(len(tok), 255)))
		}
	}
	for i := range t.shards {
		t.shards[i].m = make(map[string][]uint32)
	}
	return t, nil
}

// pieceTokens returns the token ids of one pre-token piece. The result is
// shared: callers must not modify it. single is scratch space of length 1.
func (t *Tokenizer) pieceTokens(piece string, single []uint32) []uint32 {
	if id, ok := t.ranks[piece]; ok {
		single[0] = uint32(id)
		return single
	}
	sh := &t.shards[maphash.String(t.seed, piece)%cacheShards]
	sh.mu.RLock()
	ids, ok := sh.m[piece]
	sh.mu.RUnlock()
	if ok {
		return ids
	}
	switch {
	case len(piece) > longPiece:
		// A long run of one character (pieces are cut at MaxPiece bytes)
		// repeats the same piece: cached too.
		ids = t.longestMatch(piece)
	case utf8.ValidString(piece):
		enc := t.bpe.EncodeOrdinary(piece)
		ids = make([]uint32, len(enc))
		for i, id := range enc {
			ids[i] = uint32(id)
		}
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
			for _, id := range t.bpe.EncodeOrdinary(piece[:valid]) {
				ids = append(ids, uint32(id))
			}
			piece = piece[valid:]
			continue
		}
		ids = append(ids, t.pieceTokens(piece[:1], single[:])[0])
		piece = piece[1:]
	}
	return ids
}

// Encode returns the o200k_base token ids of text. Special-token text such
// as "<|endoftext|>" is encoded as ordinary text.
func (t *Tokenizer) Encode(text string) []int {
	var out []int
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			for _, id := range t.pieceTokens(text[i:e], single[:]) {
				out = append(out, int(id))
			}
			i = e
		}
	}
	return out
}

// Count returns the number of o200k_base tokens in text.
func (t *Tokenizer) Count(text string) int {
	n := 0
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			n += len(t.pieceTokens(text[i:e], single[:]))
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

// tokens appends the tokens of text to dst. Token boundaries may fall
// inside a multi-byte character (byte-level BPE); callers that cut text
// check [utf8.RuneStart].
func (t *Tokenizer) tokens(text string, dst []token) []token {
	var single [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			off := i
			for k, id := range t.pieceTokens(text[i:e], single[:]) {
				off += int(t.lengths[id])
				dst = append(dst, token{end: int32(off), pieceStart: k == 0})
			}
			i = e
		}
	}
	return dst
}

// tokensN returns the first n or more tokens of text, stopping at the
// piece where it has n.
func (t *Tokenizer) tokensN(text string, n int) []token {
	var dst []token
	var single [1]uint32
	for i := 0; i < len(text) && len(dst) < n; {
		for end := nextPiece(text, i); i < end && len(dst) < n; {
			e := subPiece(text, i, end)
			off := i
			for k, id := range t.pieceTokens(text[i:e], single[:]) {
				off += int(t.lengths[id])
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
func (t *Tokenizer) longestMatch(piece string) []uint32 {
	ids := make([]uint32, 0, len(piece)/2+1)
	for i := 0; i < len(piece); {
		n := 1
		if i+1 < len(piece) {
			for l := min(int(t.longest[uint16(piece[i])<<8|uint16(piece[i+1])]), len(piece)-i); l > 1; l-- {
				if id, ok := t.ranks[piece[i:i+l]]; ok {
					ids = append(ids, uint32(id))
					n = l
					break
				}
			}
		}
		if n == 1 {
			ids = append(ids, uint32(t.ranks[piece[i:i+1]]))
		}
		i += n
	}
	return ids
}
