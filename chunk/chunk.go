package chunk

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Default sizes, in o200k_base tokens.
const (
	DefaultSize    = 500
	DefaultOverlap = 50
	// MinSize is the smallest chunk size accepted: a window must always
	// hold a few whole characters (one character is at most four tokens).
	MinSize = 16
)

// Bounds of a chunk's heading path. A heading is text of the document, and
// its whole text is stored once, in the chunks that hold it; the path that
// every chunk under it carries is a label and costs a bounded size, however
// long the heading (a heading of a megabyte would otherwise be copied into
// every chunk of its section). A heading longer than MaxHeadingBytes is
// clipped, after a word where one ends near the bound, and ends in "…"
// ([Clip]); a path whose clipped headings add up to more than MaxPathBytes
// (only paths deeper than the six levels of Markdown and HTML can) keeps
// its outermost heading and as many of its innermost as fit, with one "…"
// for those left out between.
const (
	MaxHeadingBytes = 200
	MaxPathBytes    = 600
)

// Ellipsis ends a clipped heading and stands for the headings a bounded
// path leaves out.
const Ellipsis = "…"

// Heading is a section heading of the text being split: the chunker gives
// every chunk the path of headings it sits under, bounded (see
// [MaxHeadingBytes]).
type Heading struct {
	Offset int    // byte offset in the text where the heading starts
	Level  int    // 1 for the outermost level
	Text   string // the heading as shown
}

// Chunk is one window of a text.
type Chunk struct {
	Ordinal  int      `json:"ordinal"`  // 0-based position in the document
	Text     string   `json:"text"`     // Text == text[Start:End]
	Tokens   int      `json:"tokens"`   // o200k_base tokens in Text, encoded on its own
	Start    int      `json:"start"`    // byte offset of the chunk in the text
	End      int      `json:"end"`      // byte offset just past the chunk
	Headings []string `json:"headings"` // heading path, outermost first, bounded; nil when none
}

// Options configure a [Splitter]. The zero value means the defaults.
type Options struct {
	Size    int // maximum tokens per chunk; 0 means DefaultSize
	Overlap int // tokens shared by consecutive chunks; 0 means DefaultOverlap, -1 none
}

// Splitter cuts text into token windows. It is safe for concurrent use.
type Splitter struct {
	size, overlap int
	tok           *Tokenizer
}

// ErrOptions reports invalid [Options].
var ErrOptions = errors.New("invalid chunk options")

// New returns a Splitter using the shared o200k_base [Tokenizer].
func New(opts Options) (*Splitter, error) {
	size, overlap := opts.Size, opts.Overlap
	if size == 0 {
		size = DefaultSize
	}
	switch {
	case overlap == 0:
		overlap = min(DefaultOverlap, size/2)
	case overlap < 0:
		overlap = 0
	}
	if size < MinSize {
		return nil, fmt.Errorf("%w: size %d is below the minimum %d tokens", ErrOptions, size, MinSize)
	}
	if overlap >= size {
		return nil, fmt.Errorf("%w: overlap %d must be smaller than size %d", ErrOptions, overlap, size)
	}
	tok, err := O200k()
	if err != nil {
		return nil, err
	}
	return &Splitter{size: size, overlap: overlap, tok: tok}, nil
}

// Size returns the maximum tokens per chunk.
func (s *Splitter) Size() int { return s.size }

// Overlap returns the tokens shared by consecutive chunks.
func (s *Splitter) Overlap() int { return s.overlap }

// Tokenizer returns the tokenizer the Splitter counts with.
func (s *Splitter) Tokenizer() *Tokenizer { return s.tok }

// Split cuts text into chunks of at most s.Size() tokens and returns them
// with the number of tokens in the whole text. Consecutive
// chunks share up to s.Overlap() tokens; together they cover every byte of
// text, each chunk starts after the previous one and ends after it, and no
// boundary falls inside a UTF-8 character.
//
// A chunk ends, in order of preference, before a heading, at a paragraph
// break, a line break, the end of a sentence, between words, between
// pre-tokens, or between tokens, taking the latest such point near the size
// limit. The overlap starts, likewise, at the earliest paragraph, line,
// sentence or word start in the last Overlap tokens of the previous chunk.
//
// headings must be sorted by Offset. The text is tokenized once; only rare
// cuts inside a single very long pre-token (thousands of letters without a
// space) re-encode a chunk to count it.
func (s *Splitter) Split(text string, headings []Heading) ([]Chunk, int) {
	if text == "" {
		return nil, 0
	}
	cache := getPieceCache()
	defer putPieceCache(cache)
	toks := s.tok.tokens(cache, text)
	defer putTokenList(toks) // the chunks keep nothing of it
	sp := splitter{Splitter: s, text: text, toks: toks, headings: headings, cache: cache}
	return sp.run(), toks.len()
}

// splitter holds the state of one Split call.
type splitter struct {
	*Splitter
	text     string
	toks     *tokenList
	headings []Heading
	path     headingPath
	cache    *pieceCache // the tokenizer's, for this call alone

	// Scratch space, reused from chunk to chunk.
	cands  []cand
	sorted []cand // cands by tier
	own    []token
}

// tokStart returns the byte offset where token k starts.
func (sp *splitter) tokStart(k int) int {
	if k == 0 {
		return 0
	}
	return sp.toks.end(k - 1)
}

// pieceBoundary reports whether a pre-token piece starts at token k
// (k == len(toks) is the end of the text).
func (sp *splitter) pieceBoundary(k int) bool {
	return k == sp.toks.len() || sp.toks.pieceStart(k)
}

func (sp *splitter) run() []Chunk {
	var chunks []Chunk
	start, kStart := 0, 0 // byte offset of the chunk; first token at or after it
	prevEnd := 0
	for {
		end, count := sp.cut(start, kStart, prevEnd)
		c := Chunk{
			Ordinal:  len(chunks),
			Text:     sp.text[start:end],
			Tokens:   count,
			Start:    start,
			End:      end,
			Headings: sp.path.at(sp.headings, contentStart(sp.text, max(start, prevEnd))),
		}
		chunks = append(chunks, c)
		if end == len(sp.text) {
			return chunks
		}
		kEnd := sort.Search(sp.toks.len(), func(i int) bool { return sp.tokStart(i) >= end })
		start, kStart = sp.nextStart(start, end, kEnd)
		prevEnd = end
	}
}

// contentStart skips the whitespace at text[i:].
func contentStart(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\n') {
		i++
	}
	return i
}

// firstPiece describes how the chunk starting at byte start begins. kStart
// is the token that contains start or begins at it. When start is a piece
// boundary, the document's tokens apply as they are: base is 0 and k1 is
// kStart. Otherwise the text from start is pre-tokenized on its own until
// the scan lands on one of the document's piece boundaries (from there on,
// the pieces are the document's, since the pattern never looks behind):
// base is the tokens of that stretch, k1 the document token where it ends.
// A stretch that does not fit the chunk at all reports base > size.
func (sp *splitter) firstPiece(start, kStart int) (base, k1 int) {
	if kStart < sp.toks.len() && sp.tokStart(kStart) == start && sp.pieceBoundary(kStart) {
		return 0, kStart
	}
	var single [1]uint32
	// The scan stops at scanLimit bytes: in a long run of letters, which
	// a start inside it never gets back in step with, scanning further
	// would make Split quadratic. Reaching lim reports that the stretch
	// does not fit, and cut then measures the chunk's own text: its count
	// stays exact, and only a chunk of tokens averaging more than
	// scanLimit/size bytes (no text has them) is cut shorter than it
	// could be.
	lim := sp.scanLimit(start)
	text := sp.text[:lim]
	pos, k := start, kStart
	for pos < len(text) {
		for end := nextPiece(text, pos); pos < end; {
			for k < sp.toks.len() && sp.tokStart(k) < pos {
				k++
			}
			if sp.tokStart(k) == pos && sp.pieceBoundary(k) {
				return base, k // back in step with the document
			}
			e := subPiece(text, pos, end)
			base += len(sp.tok.cachedTokens(sp.cache, text[pos:e], single[:]))
			if base > sp.size {
				return base, k
			}
			pos = e
		}
	}
	if lim < len(sp.text) {
		return sp.size + 1, k
	}
	return base, sp.toks.len()
}

// maxTokenBytes bounds the bytes of one o200k_base token (the longest is 128).
const maxTokenBytes = 128

// scanLimit returns where a scan of the chunk starting at start stops:
// 16 bytes per token of the chunk size (ordinary text averages 4), at
// least 8 MaxPiece cuts.
func (sp *splitter) scanLimit(start int) int {
	return min(len(sp.text), start+max(16*(sp.size+1), 8*MaxPiece))
}

// Cut tiers, best first: the kinds of position where a chunk may end, with
// how far back from the size limit the splitter looks for one, in percent
// of the chunk size. The splitter takes the latest position of the best
// tier found. All but the last cut at the start of a run of whitespace, so
// that chunks do not end in whitespace and a long run is one candidate.
//
// ws says that a position of the tier is always a [splitter.wsStart]: the
// splitter then skips from one such start to the one before, instead of
// trying every byte.
var cutTiers = []struct {
	window int
	ws     bool
	match  func(sp *splitter, p int) bool
}{
	{50, true, (*splitter).beforeHeading},
	{35, true, func(sp *splitter, p int) bool { return sp.wsStart(p) && sp.blankLineAt(p) }},
	{20, true, func(sp *splitter, p int) bool {
		return sp.wsStart(p) && strings.IndexByte(sp.text[p:sp.wsEnd(p)], '\n') >= 0
	}},
	{20, true, func(sp *splitter, p int) bool { return sp.wsStart(p) && sp.sentenceEnd(p) }},
	{10, true, (*splitter).wsStart},
	{50, false, func(sp *splitter, p int) bool { return sp.pieceAt(p) }},
	// Inside a long run of letters or symbols, the end of one of its
	// MaxPiece cuts anywhere in the chunk: a chunk that ends there lets
	// the next start there in step with the document's tokens (see
	// nextStart) instead of encoding its start again.
	{100, false, func(sp *splitter, p int) bool { return sp.pieceAt(p) && sp.longPieceEndsAt(p) }},
}

// wsStart reports whether a run of spaces and line breaks starts at p.
func (sp *splitter) wsStart(p int) bool {
	return p > 0 && isWS(sp.text[p]) && !isWS(sp.text[p-1])
}

func isWS(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// prevWSStart returns the last p' <= p after lim where a run of spaces and
// line breaks starts, or lim if none does.
func (sp *splitter) prevWSStart(p, lim int) int {
	for p > lim && !sp.wsStart(p) {
		p--
	}
	return p
}

// wsEnd returns the end of the run of whitespace at p.
func (sp *splitter) wsEnd(p int) int {
	for p < len(sp.text) && isWS(sp.text[p]) {
		p++
	}
	return p
}

// blankLineAt reports whether the whitespace run at p holds a blank line.
func (sp *splitter) blankLineAt(p int) bool {
	run := sp.text[p:sp.wsEnd(p)]
	i := strings.IndexByte(run, '\n')
	return i >= 0 && strings.IndexByte(run[i+1:], '\n') >= 0
}

// pieceAt reports whether a pre-token piece starts at byte p.
func (sp *splitter) pieceAt(p int) bool {
	k := sort.Search(sp.toks.len(), func(i int) bool { return sp.tokStart(i) >= p })
	return k < sp.toks.len() && sp.tokStart(k) == p && sp.toks.pieceStart(k)
}

// span is the chunk being cut: it starts at byte start; its first piece
// (possibly partial) has base tokens counted on its own; document tokens
// apply from token k1 on.
type span struct {
	start, base, k1 int
}

// count returns the tokens of text[c.start:p], exactly as encoding that
// text on its own would give, and false when p is not worth counting (it
// lies inside a piece too long to re-encode cheaply).
//
// Cutting the text at p leaves the document's pieces before p as they
// are, with two exceptions that are re-encoded: the piece p falls inside,
// and a run of whitespace just before p, which \s+(?!\S) splits in the
// document ("a  b" is "a", " ", " b") but takes whole at the end of a text.
func (sp *splitter) count(c span, p int) (int, bool) {
	q := p // start of the whitespace that ends at p
	for q > c.start {
		r, n := utf8.DecodeLastRuneInString(sp.text[:q])
		if !unicode.IsSpace(r) {
			break
		}
		q -= n
	}
	kq := sort.Search(sp.toks.len(), func(i int) bool { return sp.toks.end(i) > q })
	if q == p && sp.tokStart(kq) == p && sp.pieceBoundary(kq) && kq >= c.k1 {
		return c.base + kq - c.k1, true
	}
	ka := kq // the piece that holds q
	for ka > 0 && !sp.pieceBoundary(ka) {
		ka--
	}
	if ka < c.k1 {
		// Inside the stretch the chunk re-scanned from its start.
		if p-c.start > maxTokenBytes*sp.size {
			return 0, false
		}
		return sp.tok.count(sp.cache, sp.text[c.start:p]), true
	}
	pa := sp.tokStart(ka)
	if p-pa > maxTokenBytes*sp.size {
		return 0, false
	}
	return c.base + ka - c.k1 + sp.tok.count(sp.cache, sp.text[pa:p]), true
}

// cut chooses where the chunk starting at start ends, after prevEnd. It
// returns the end byte offset and the chunk's token count.
func (sp *splitter) cut(start, kStart, prevEnd int) (int, int) {
	n := sp.toks.len()
	base, k1 := sp.firstPiece(start, kStart)
	c := span{start, base, k1}
	floor := max(prevEnd, start) // a cut must lie after this
	if base <= sp.size {
		kMax := k1 + sp.size - base // cutting before token kMax fits exactly
		if kMax >= n {
			return len(sp.text), base + n - k1
		}
		pMax := sp.tokStart(kMax)
		for _, t := range cutTiers {
			pLo := sp.tokStart(max(kMax-sp.size*t.window/100, k1))
			lim := max(pLo-1, floor)
			for p := pMax; p > lim; p-- {
				if t.ws {
					if p = sp.prevWSStart(p, lim); p <= lim {
						break
					}
				}
				if !t.match(sp, p) || !charBoundary(sp.text, p) {
					continue
				}
				if n, ok := sp.count(c, p); ok && n <= sp.size {
					return p, n
				}
			}
		}
	}
	if base > sp.size {
		// The chunk starts inside a long run that its own encoding does
		// not get back in step with: try the ends of its own tokens,
		// latest first, before trying every byte.
		lim := sp.scanLimit(start)
		sp.own = sp.tok.tokensN(sp.cache, sp.own[:0], sp.text[start:lim], sp.size)
		own := sp.own
		for i := min(sp.size, len(own)) - 1; i >= 0; i-- {
			p := start + int(own[i].end)
			if p <= floor {
				break
			}
			if !charBoundary(sp.text, p) {
				continue
			}
			if n := sp.tok.count(sp.cache, sp.text[start:p]); n <= sp.size {
				return p, n
			}
		}
	}
	// Inside one long piece, or nothing else fits: the latest character
	// boundary that does (a token may straddle two characters, so token
	// boundaries alone can miss the only one).
	pMax := len(sp.text)
	if k := kStart + sp.size; k < n {
		pMax = sp.tokStart(k)
	}
	for p := pMax; p > floor; p-- {
		if !charBoundary(sp.text, p) {
			continue
		}
		if n, ok := sp.count(c, p); ok && n <= sp.size {
			return p, n
		}
	}
	// Unreachable: nextStart only starts a chunk from which the first
	// character past prevEnd fits. Take it anyway so that Split terminates.
	p := floor + 1
	for !charBoundary(sp.text, p) {
		p++
	}
	return p, sp.tok.count(sp.cache, sp.text[start:p])
}

// beforeHeading reports whether only whitespace separates p from a heading.
func (sp *splitter) beforeHeading(p int) bool {
	if !sp.wsStart(p) {
		return false
	}
	q := sp.wsEnd(p)
	i := sort.Search(len(sp.headings), func(i int) bool { return sp.headings[i].Offset >= q })
	return i < len(sp.headings) && sp.headings[i].Offset == q
}

// sentenceEnd reports whether a sentence ends just before p: terminal
// punctuation, maybe closed by a quote or bracket, then a space or newline;
// or CJK terminal punctuation.
func (sp *splitter) sentenceEnd(p int) bool {
	if p == 0 {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(sp.text[:p])
	switch r {
	case '。', '！', '？', '．':
		return true
	}
	if c := sp.text[p]; c != ' ' && c != '\n' {
		return false
	}
	switch r {
	case '"', '\'', ')', ']', '”', '’', '»':
		r, _ = utf8.DecodeLastRuneInString(sp.text[:p-n])
	}
	return r == '.' || r == '!' || r == '?' || r == '…'
}

// cand is a position where the next chunk may start: byte p, in token k,
// of a start tier.
type cand struct{ p, k, tier int }

// Start tiers, best first: where the overlap of the next chunk may begin.
const (
	startParagraph = iota // after a blank line
	startLine             // after a line break
	startSentence         // at the first word of a sentence
	startWord             // at a word, after its space
	startPiece            // at any pre-token piece
	startNone
)

// nextStart chooses where the chunk after [start, end) begins: inside the
// last Overlap tokens before end, after start, at the earliest position of
// the best tier whose overlap, encoded on its own, has at most Overlap
// tokens. kEnd is the first token at or after end. It returns the byte
// offset and the token that contains it or starts at it.
func (sp *splitter) nextStart(start, end, kEnd int) (int, int) {
	if sp.overlap == 0 {
		return end, kEnd
	}
	lo := max(kEnd-sp.overlap, 0)
	for lo < kEnd && sp.tokStart(lo) <= start {
		lo++
	}
	cands := sp.cands[:0]
	defer func() { sp.cands = cands[:0] }()
	for k := lo; k < kEnd; k++ {
		p := sp.tokStart(k)
		if !sp.pieceBoundary(k) {
			if charBoundary(sp.text, p) {
				cands = append(cands, cand{p, k, startNone}) // inside a long piece
			}
			continue
		}
		switch {
		case p >= 2 && sp.text[p-2:p] == "\n\n":
			cands = append(cands, cand{p, k, startParagraph})
		case sp.text[p-1] == '\n':
			cands = append(cands, cand{p, k, startLine})
		default:
			cands = append(cands, cand{p, k, startPiece})
		}
		// " word" begins with its space; starting after the space gives a
		// piece "word" that ends where " word" does, so the tokens after it
		// stay the document's own.
		if sp.text[p] == ' ' && p+1 < end {
			if c, _ := classAt(sp.text, p+1); c.inUpper() || c.inLower() {
				tier := startWord
				if sp.sentenceEnd(p) {
					tier = startSentence
				}
				cands = append(cands, cand{p + 1, k, tier})
			}
		}
	}
	sorted := sp.byTier(cands)
	// At the end of a piece of more than 256 bytes (a run of letters or
	// symbols without a break, cut every MaxPiece bytes), when the
	// overlap would start inside it: no overlap. One would start out of
	// step with the document's tokens, and every chunk after it would have
	// to be encoded again; sharing a slice of random letters is worth
	// nothing to a reader either.
	if len(sorted) > 0 && sorted[0].tier == startNone && sp.pieceBoundary(kEnd) && kEnd > 0 && sp.tokStart(kEnd) == end && sp.longPieceBefore(kEnd) {
		return end, kEnd
	}
	// The next chunk must be able to get past end: from its start to the
	// first character after end must fit. That is only in doubt when the
	// overlap nearly fills a chunk (a character is at most 4 tokens).
	next := end + 1
	for !charBoundary(sp.text, next) {
		next++
	}
	for _, c := range sorted {
		n := sp.tok.count(sp.cache, sp.text[c.p:end])
		if n > sp.overlap || (n+4 > sp.size && sp.tok.count(sp.cache, sp.text[c.p:next]) > sp.size) {
			continue
		}
		return c.p, c.k
	}
	// The last character alone, even when it encodes to more than Overlap
	// tokens (an overlap of a token or two, ending on a character that BPE
	// splits): consecutive chunks always share something.
	_, n := utf8.DecodeLastRuneInString(sp.text[:end])
	if p := end - n; p > start {
		k := sort.Search(sp.toks.len(), func(i int) bool { return sp.toks.end(i) > p })
		return p, k
	}
	return end, kEnd
}

// byTier returns cands ordered by tier, best first, and by position
// within a tier (a stable sort by tier, counting the candidates of each),
// in scratch space of sp's: cands is left as it was.
func (sp *splitter) byTier(cands []cand) []cand {
	var next [startNone + 2]int // where the next candidate of each tier goes
	for _, c := range cands {
		next[c.tier+1]++
	}
	for t := 1; t < len(next); t++ {
		next[t] += next[t-1]
	}
	sorted := slices.Grow(sp.sorted[:0], len(cands))[:len(cands)]
	for _, c := range cands {
		sorted[next[c.tier]] = c
		next[c.tier]++
	}
	sp.sorted = sorted
	return sorted
}

// longPieceBefore reports whether the piece that ends at token k (a piece
// boundary) is longer than longPiece bytes.
func (sp *splitter) longPieceBefore(k int) bool {
	ka := k - 1
	for ka > 0 && !sp.pieceBoundary(ka) {
		ka--
	}
	return sp.tokStart(k)-sp.tokStart(ka) > longPiece
}

// longPieceEndsAt reports whether a piece longer than longPiece bytes ends
// at byte p, a piece boundary.
func (sp *splitter) longPieceEndsAt(p int) bool {
	k := sort.Search(sp.toks.len(), func(i int) bool { return sp.tokStart(i) >= p })
	return k > 0 && sp.longPieceBefore(k)
}

// headingPath tracks the headings in effect as Split moves forward.
type headingPath struct {
	next  int       // index of the next heading not yet applied
	stack []Heading // open headings, outermost first, their text clipped
	path  []string  // the bounded path of stack, shared by the chunks under it
}

// at returns the heading path at byte offset pos; pos never decreases
// between calls.
func (h *headingPath) at(headings []Heading, pos int) []string {
	for h.next < len(headings) && headings[h.next].Offset <= pos {
		hd := headings[h.next]
		for len(h.stack) > 0 && h.stack[len(h.stack)-1].Level >= hd.Level {
			h.stack = h.stack[:len(h.stack)-1]
		}
		hd.Text = Clip(hd.Text, MaxHeadingBytes)
		h.stack = append(h.stack, hd)
		h.path = nil
		h.next++
	}
	if len(h.stack) == 0 {
		return nil
	}
	if h.path == nil {
		path := make([]string, len(h.stack))
		for i, hd := range h.stack {
			path[i] = hd.Text
		}
		h.path = BoundPath(path)
	}
	return h.path
}

// Clip returns s if it has at most n bytes, else its longest prefix that
// ends at a character boundary and leaves room for [Ellipsis], backed off
// to the end of a word when one ends in the last quarter of it, followed by
// Ellipsis: at most n bytes in all. n must be at least len(Ellipsis).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len(Ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut+1], " \n\t"); i >= cut-cut/4 && i > 0 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " \n\t") + Ellipsis
}

// BoundPath returns a heading path of at most [MaxPathBytes] bytes of
// headings: path itself if it fits, else its outermost heading, [Ellipsis]
// and as many of its innermost headings as fit. Each heading must already
// be at most [MaxHeadingBytes] (see [Clip]).
func BoundPath(path []string) []string {
	n := 0
	for _, s := range path {
		n += len(s)
	}
	if n <= MaxPathBytes {
		return path
	}
	used, i := len(path[0])+len(Ellipsis), len(path)
	for i > 2 && used+len(path[i-1]) <= MaxPathBytes {
		i--
		used += len(path[i])
	}
	return append([]string{path[0], Ellipsis}, path[i:]...)
}

// charBoundary reports whether cutting text at p keeps every UTF-8
// character whole. Bytes of invalid sequences are characters of their own.
func charBoundary(text string, p int) bool {
	if p <= 0 || p >= len(text) || utf8.RuneStart(text[p]) {
		return true
	}
	for s := p - 1; s >= 0 && s >= p-(utf8.UTFMax-1); s-- {
		if utf8.RuneStart(text[s]) {
			_, n := utf8.DecodeRuneInString(text[s:])
			return s+n <= p
		}
	}
	return true
}
