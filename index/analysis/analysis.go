// Package analysis turns text into the terms cite indexes and searches:
// words folded (case, diacritics, NFKC) and stemmed (Porter2), Chinese and
// Japanese cut in character bigrams, stopwords dropped from queries.
//
// It is a leaf under index: the full-text index ([Analyze]) and the hash
// embedder ([Terms]) read the same terms, which is why an index records
// [Version]. It imports nothing from cite; it is the only home of
// github.com/blevesearch/snowballstem and uses golang.org/x/text for
// normalization.
//
// Usage:
//
//	terms := analysis.Analyze("Get-ChildItem lists the files") // [get childitem list the file]
//	query := analysis.QueryTerms("Which cmdlet lists the files?") // [cmdlet list file]
package analysis

import (
	"iter"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/unicode/norm"
)

// Version identifies the rules of [Analyze]. It changes whenever a text can
// analyze to different terms, so an index built by another version must be
// rebuilt: its full-text terms would not match queries analyzed by this one.
// Embedders whose vectors come from these terms (the hash embedder) carry
// the version in their name.
const Version = 1

// MaxQueryTerms caps the distinct terms of a query ([QueryTerms]); a longer
// query (a pasted paragraph) keeps its first MaxQueryTerms terms.
const MaxQueryTerms = 64

// maxTermBytes caps the length of a term. Longer runs of letters and digits
// (base64 blobs, minified code) are cut at a rune boundary; a query for the
// same run is cut the same way, so it still matches.
const maxTermBytes = 128

// Token is one term of an analyzed text with the byte span of the text it
// came from. For a word, the span is the whole word as written (a word that
// Unicode normalization splits in several terms, such as "½", gives each term
// the span of the whole word); for a CJK bigram, the two characters.
type Token struct {
	Term       string
	Start, End int
}

// Analyze returns the index terms of text in order: words folded to lower
// case without diacritics, English words stemmed (Porter2), stopwords kept.
//
// The rules:
//   - A word is a run of letters, digits and combining marks. Any other
//     character separates words, so "Get-ChildItem" gives "get" and
//     "childitem", "snake_case" gives "snake" and "case", "v1.2" gives "v1"
//     and "2". Case changes inside a word do not split it ("ChildItem" is one
//     term).
//   - An apostrophe between two letters joins them ("don't" gives "dont"),
//     after dropping a possessive "'s" ("Tom's" gives "tom"); elsewhere it
//     separates.
//   - Text is normalized with Unicode NFKC (full-width forms, ligatures and
//     superscripts become plain letters and digits), lower-cased, and letters
//     of the Latin, Greek and Cyrillic scripts lose their diacritics ("Café"
//     gives "cafe"); a few letters without a decomposition are folded too
//     ("ß" to "ss", "ø" to "o", "æ" to "ae", "ł" to "l").
//   - Chinese and Japanese (Han, Hiragana, Katakana), written without spaces,
//     give overlapping character bigrams ("東京都" gives "東京" and "京都");
//     a lone character gives itself.
//   - Words of ASCII letters only are stemmed with the Snowball English
//     (Porter2) stemmer; words with digits and words in other scripts are
//     kept as they are.
//   - Soft hyphens and zero-width joiners inside words are ignored.
//
// Every term is non-empty and valid UTF-8, has at most 128 bytes, and
// consists of letters, digits and combining marks; its only ASCII bytes are
// a-z and 0-9. A full-text tokenizer that splits on ASCII punctuation and
// spaces (SQLite's "simple") therefore sees exactly these terms when they are
// joined by spaces.
func Analyze(text string) []string {
	a := getAnalyzer()
	defer putAnalyzer(a)
	terms := make([]string, 0, len(text)/6+1)
	a.run(text, func(t *Term) { terms = append(terms, t.Term) })
	return terms
}

// JoinedTerms returns the terms of [Analyze] joined by single spaces, as the
// full-text index stores them, without the slice of terms in between (a
// text of one-letter words would hold 16 bytes of it per 2 bytes of text).
func JoinedTerms(text string) string {
	a := getAnalyzer()
	defer putAnalyzer(a)
	var b strings.Builder
	b.Grow(len(text))
	a.run(text, func(t *Term) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Term)
	})
	return b.String()
}

// AnalyzeQuery is [Analyze] for queries: it also drops English stopwords
// ("the", "what", "is", ...), unless the query has nothing else (a query such
// as "to be or not to be" keeps all its terms).
//
// The index keeps stopwords (Analyze does not drop them) so that such
// queries still find something, and so that the terms of a text line up with
// its words for highlighting.
func AnalyzeQuery(text string) []string {
	a := getAnalyzer()
	defer putAnalyzer(a)
	var all, kept []string
	a.run(text, func(t *Term) {
		all = append(all, t.Term)
		if !t.Stop {
			kept = append(kept, t.Term)
		}
	})
	if len(kept) == 0 {
		return all
	}
	return kept
}

// AnalyzeTokens is [Analyze] with the byte span of each term in text, for
// highlighting the words that matched a query.
func AnalyzeTokens(text string) []Token {
	a := getAnalyzer()
	defer putAnalyzer(a)
	var toks []Token
	a.run(text, func(t *Term) {
		toks = append(toks, Token{Term: t.Term, Start: t.Start, End: t.End})
	})
	return toks
}

// QueryTerms returns the distinct terms of a query, in order: [AnalyzeQuery]'s
// terms, at most [MaxQueryTerms].
func QueryTerms(query string) []string {
	var terms []string
	for _, t := range AnalyzeQuery(query) {
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
			if len(terms) == MaxQueryTerms {
				break
			}
		}
	}
	return terms
}

// IDF returns the inverse document frequency of a term found in df of docs
// documents, as Lucene's BM25 computes it: ln(1 + (docs-df+0.5)/(df+0.5)).
// It is positive, near 0 for a term in every document and largest for a
// term in none (a typo: its character n-grams still count).
func IDF(docs, df int) float64 {
	if df < 0 {
		df = 0
	}
	if docs < df {
		docs = df
	}
	return math.Log(1 + (float64(docs)-float64(df)+0.5)/(float64(df)+0.5))
}

// Term is one term of an analyzed text with what [Terms] knows of it.
type Term struct {
	// Word is the folded word before stemming (lower case, no diacritics,
	// no apostrophes), or the CJK bigram. It is only valid until the
	// iteration moves on.
	Word []byte
	// Term is the index term: Word stemmed, or Word itself.
	Term string
	// Stop reports whether Word is an English stopword.
	Stop bool
	// CJK reports whether the term is a CJK character bigram (or unigram).
	CJK bool
	// Start and End are the byte span of the text it came from.
	Start, End int
}

// Terms yields the terms of text in order, as [Analyze] gives them, with
// their folded words, stopword and CJK flags and spans: what the hash
// embedder hashes. The *Term yielded is reused from term to term; copy what
// must outlive the step.
func Terms(text string) iter.Seq[*Term] {
	return func(yield func(*Term) bool) {
		a := getAnalyzer()
		defer putAnalyzer(a)
		a.run(text, func(t *Term) {
			if !a.stopped && !yield(t) {
				a.stopped = true
			}
		})
	}
}

// analyzer holds the scratch space of one analysis; analyzers are pooled so
// that analyzing allocates only the returned terms (and the first sighting
// of each distinct word, in the term cache).
type analyzer struct {
	norm  []byte // NFKC form of the current word
	word  []byte // folded sub-word being built
	cjk   []cjkChar
	env   *snowballstem.Env
	terms *termCache
	stems map[string]string // word -> term, bounded by maxStemCache, behind terms
	tok   Term
	// stopped ends run early: the consumer of [Terms] stopped.
	stopped bool
	// general makes scanWord read every word by its general path, as the
	// fast path's tests compare them.
	general bool
}

// cjkChar is one normalized CJK character (a base plus its marks) and where
// it came from in the text.
type cjkChar struct {
	start, end int // span in the text
	from, to   int // span in analyzer.norm
}

const maxStemCache = 1 << 16

// The free analyzers are kept, two per core (about as many as a sync.Pool
// holds between two garbage collections), each with a term cache of 320 KB
// and a stem cache of up to maxStemCache words (about 2 MB for the 20,000
// distinct words of the Markdown corpus). More analyses at once than that
// get a new analyzer each, dropped afterwards. Unlike a sync.Pool, which
// drops its contents at every other garbage collection (a few times a
// second during ingest), the list keeps the caches warm.
var analyzers struct {
	mu   sync.Mutex
	free []*analyzer
}

func getAnalyzer() *analyzer {
	analyzers.mu.Lock()
	if n := len(analyzers.free); n > 0 {
		a := analyzers.free[n-1]
		analyzers.free = analyzers.free[:n-1]
		analyzers.mu.Unlock()
		return a
	}
	analyzers.mu.Unlock()
	return newAnalyzer()
}

func newAnalyzer() *analyzer {
	return &analyzer{
		env:   snowballstem.NewEnv(""),
		terms: new(termCache),
		stems: make(map[string]string),
		word:  make([]byte, 0, 64),
		norm:  make([]byte, 0, 64),
	}
}

func putAnalyzer(a *analyzer) {
	a.stopped = false
	a.tok = Term{} // hold no text
	analyzers.mu.Lock()
	defer analyzers.mu.Unlock()
	if len(analyzers.free) < 2*runtime.GOMAXPROCS(0) {
		analyzers.free = append(analyzers.free, a)
	}
}

// Character classes of the scanner.
const (
	classSep    = iota // separates words
	classWord          // letter, digit or mark
	classApos          // apostrophe: joins two letters, else separates
	classCJK           // Han, Hiragana or Katakana character
	classIgnore        // soft hyphen, zero-width joiner: skipped inside words
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			t[c] = classWord
		case c == '\'':
			t[c] = classApos
		default:
			t[c] = classSep
		}
	}
	return t
}()

// asciiFold maps the ASCII letters and digits to themselves lower-cased,
// and every other byte to 0.
var asciiFold = func() (t [256]byte) {
	for c := range utf8.RuneSelf {
		if asciiClass[c] == classWord {
			t[c] = byte(unicode.ToLower(rune(c)))
		}
	}
	return t
}()

// runeClass classifies a non-ASCII rune.
func runeClass(r rune) uint8 {
	switch {
	case r == utf8.RuneError:
		return classSep
	case isCJK(r):
		return classCJK
	case r == '\u2019' || r == '\u02BC' || r == '\uFF07':
		return classApos
	case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
		return classWord
	case r == '\u00AD' || r == '\u200C' || r == '\u200D' || r == '\u2060' || r == '\uFEFF':
		return classIgnore
	}
	return classSep
}

// isCJK reports whether r belongs to a script written without spaces that
// the analyzer splits in character bigrams.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || r == 0x30FC || r == 0xFF70 ||
		(r >= 0x3005 && r <= 0x3007)
}

// isCJKMark reports whether r attaches to the CJK character before it: a
// combining mark, or a spacing or half-width kana voicing mark.
func isCJKMark(r rune) bool {
	return r == '\u309B' || r == '\u309C' || r == '\uFF9E' || r == '\uFF9F' ||
		unicode.Is(unicode.Mn, r)
}

// isLGC reports whether r is in a block of the Latin, Greek or Cyrillic
// scripts, whose diacritics the analyzer removes.
func isLGC(r rune) bool {
	return r < 0x0530 || (r >= 0x1D00 && r < 0x2000) ||
		(r >= 0x2C60 && r < 0x2C80) || (r >= 0xA640 && r < 0xA6A0) ||
		(r >= 0xA720 && r < 0xA800) || (r >= 0xAB30 && r < 0xAB70)
}

// run analyzes text and calls emit for each term in order. The token passed
// to emit is reused.
func (a *analyzer) run(text string, emit func(*Term)) {
	for i := 0; i < len(text) && !a.stopped; {
		switch cl, size := classAt(text, i); cl {
		case classWord:
			i = a.scanWord(text, i, emit)
		case classCJK:
			i = a.scanCJK(text, i, emit)
		default:
			i += size
		}
	}
}

// classAt classifies the character at text[i] and returns its size.
func classAt(text string, i int) (cl uint8, size int) {
	if c := text[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return runeClass(r), size
}

// scanWord reads the word starting at text[start] and emits its terms. It
// returns the end of the word.
func (a *analyzer) scanWord(text string, start int, emit func(*Term)) int {
	// The common word: ASCII letters and digits, lower-cased as they are
	// read, up to an ASCII separator other than an apostrophe, or the end.
	if !a.general {
		w := a.word[:0]
		i := start
		for i < len(text) {
			c := asciiFold[text[i]]
			if c == 0 {
				break
			}
			w = append(w, c)
			i++
		}
		if i == len(text) || (text[i] < utf8.RuneSelf && text[i] != '\'') {
			a.word = w[:0]
			a.emitTerm(w, start, i, emit)
			return i
		}
		// Any other word: read again.
	}
	ascii := true
	i := start
loop:
	for i < len(text) {
		cl, size := uint8(classSep), 1
		if c := text[i]; c < utf8.RuneSelf {
			cl = asciiClass[c] // classAt, inlined for ASCII
		} else {
			cl, size = classAt(text, i)
		}
		switch cl {
		case classWord:
			if size > 1 {
				ascii = false
			}
			i += size
		case classApos, classIgnore:
			// Inside the word only if a word character follows
			// (after any ignorable characters).
			j := i + size
			next := uint8(classSep)
			for j < len(text) {
				var n int
				next, n = classAt(text, j)
				if next != classIgnore {
					break
				}
				ascii = false
				j += n
			}
			if next != classWord {
				break loop
			}
			if size > 1 {
				ascii = false
			}
			i = j
		default:
			break loop
		}
	}
	end := i
	if ascii {
		a.word = a.word[:0]
		for k := start; k < end; k++ {
			c := text[k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			a.word = append(a.word, c)
		}
		a.emitWord(start, end, emit)
		return end
	}
	a.foldWord(text, start, end, emit)
	return end
}

// foldWord normalizes the non-ASCII word text[start:end] and emits its
// terms. Normalization can produce separators ("½" is "1⁄2" in NFKC), so a
// word may give several terms.
func (a *analyzer) foldWord(text string, start, end int, emit func(*Term)) {
	a.norm = norm.NFKC.AppendString(a.norm[:0], text[start:end])
	a.word = a.word[:0]
	s := a.norm
	baseLGC := false // the last base letter is Latin, Greek or Cyrillic
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch asciiClass[c] {
			case classWord:
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				a.word = append(a.word, c)
				baseLGC = true
			case classApos:
				a.word = append(a.word, '\'')
			default:
				a.emitWord(start, end, emit)
				baseLGC = false
			}
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
			// Diacritics of Latin, Greek and Cyrillic letters go, other
			// scripts keep their marks; a mark with no base goes too.
			if !baseLGC && len(a.word) > 0 {
				a.word = utf8.AppendRune(a.word, r)
			}
			continue
		}
		cl := runeClass(r)
		switch cl {
		case classApos:
			a.word = append(a.word, '\'')
			continue
		case classIgnore:
			continue
		case classWord, classCJK:
			// CJK can appear here only through normalization (from a
			// compatibility character); it stays in the word.
		default:
			a.emitWord(start, end, emit)
			baseLGC = false
			continue
		}
		baseLGC = isLGC(r)
		if !baseLGC {
			a.appendLower(r)
			continue
		}
		if f, ok := specialFold[r]; ok {
			a.word = append(a.word, f...)
			continue
		}
		d := norm.NFD.Properties(s[i-size:]).Decomposition()
		if d == nil {
			a.appendLower(r)
			continue
		}
		for j := 0; j < len(d); {
			dr, n := utf8.DecodeRune(d[j:])
			j += n
			if !unicode.Is(unicode.Mn, dr) {
				a.appendLower(dr)
			}
		}
	}
	a.emitWord(start, end, emit)
}

func (a *analyzer) appendLower(r rune) {
	if f, ok := specialFold[r]; ok {
		a.word = append(a.word, f...)
		return
	}
	a.word = utf8.AppendRune(a.word, unicode.ToLower(r))
}

// specialFold folds letters that lower-casing and canonical decomposition
// leave alone but that a reader takes for plain letters.
var specialFold = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d",
	'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ı': "i", 'ς': "σ",
	'ſ': "s",
}

// emitWord emits a.word, if not empty, as a term with the span
// text[start:end], and resets a.word.
func (a *analyzer) emitWord(start, end int, emit func(*Term)) {
	w := a.word
	a.word = a.word[:0]
	// Apostrophes join letters ("don't" is "dont"), after a final
	// possessive "'s" is dropped.
	if n := len(w); n >= 2 && w[n-1] == 's' && w[n-2] == '\'' {
		w = w[:n-2]
	}
	k := 0
	for _, c := range w {
		if c != '\'' {
			w[k] = c
			k++
		}
	}
	a.emitTerm(w[:k], start, end, emit)
}

// emitTerm emits the folded word w, without apostrophes, if not empty, as a
// term with the span text[start:end].
func (a *analyzer) emitTerm(w []byte, start, end int, emit func(*Term)) {
	if len(w) == 0 {
		return
	}
	if len(w) > maxTermBytes {
		n := maxTermBytes
		for n > 0 && !utf8.RuneStart(w[n]) {
			n--
		}
		w = w[:n]
	}
	t := &a.tok
	t.Word = w
	t.Term, t.Stop = a.term(w)
	t.CJK = false
	t.Start, t.End = start, end
	emit(t)
}

// isStopWord reports whether the folded word (not its stem) is a stopword.
func isStopWord(w []byte) bool {
	_, ok := stopwords[string(w)]
	return ok
}

// term returns the term of the folded word (or CJK bigram) w, [stem]'s,
// and whether w is a stopword: from the term cache when w is short and
// met lately, else from the stem cache.
func (a *analyzer) term(w []byte) (term string, stop bool) {
	if len(w) > wordKeyMax {
		return a.stemCached(w), isStopWord(w)
	}
	lo, hi := wordKey(w)
	set := &a.terms.sets[wordHash(lo, hi, len(w))]
	if e := &set[0]; e.lo == lo && e.hi == hi && int(e.n) == len(w) {
		return e.term, e.stop
	}
	if e := set[1]; e.lo == lo && e.hi == hi && int(e.n) == len(w) {
		set[1] = set[0]
		set[0] = e
		return e.term, e.stop
	}
	term, stop = a.stemCached(w), isStopWord(w)
	set[1] = set[0]
	set[0] = termEntry{lo: lo, hi: hi, n: uint8(len(w)), stop: stop, term: term}
	return term, stop
}

// stemCached is [analyzer.stem], cached.
func (a *analyzer) stemCached(w []byte) string {
	if t, ok := a.stems[string(w)]; ok {
		return t
	}
	term := a.stem(w)
	if len(a.stems) >= maxStemCache {
		clear(a.stems)
	}
	a.stems[string(w)] = term
	return term
}

// stem returns the term of the folded word w: its Porter2 stem when w is
// made of ASCII letters, else w itself.
func (a *analyzer) stem(w []byte) string {
	word := string(w)
	if isASCIILetters(w) && len(w) > 2 {
		a.env.SetCurrent(word)
		english.Stem(a.env)
		if s := a.env.Current(); s != "" {
			return s
		}
	}
	return word
}

func isASCIILetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// scanCJK reads the run of CJK characters starting at text[start] and emits
// its bigrams. It returns the end of the run.
func (a *analyzer) scanCJK(text string, start int, emit func(*Term)) int {
	a.cjk = a.cjk[:0]
	a.norm = a.norm[:0]
	i := start
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isCJK(r) {
			break
		}
		// The character and its combining marks (voicing marks of kana).
		j := i + size
		for j < len(text) {
			m, n := utf8.DecodeRuneInString(text[j:])
			if !isCJKMark(m) {
				break
			}
			j += n
		}
		from := len(a.norm)
		a.norm = norm.NFKC.AppendString(a.norm, text[i:j])
		// Compatibility decompositions can bring in a space (the spacing
		// voicing marks); keep only letters, digits and marks.
		k := from
		for r := from; r < len(a.norm); {
			c, n := utf8.DecodeRune(a.norm[r:])
			if unicode.IsLetter(c) || unicode.IsNumber(c) || unicode.IsMark(c) {
				k += copy(a.norm[k:], a.norm[r:r+n])
			}
			r += n
		}
		a.norm = a.norm[:k]
		if k == from {
			i = j
			continue
		}
		a.cjk = append(a.cjk, cjkChar{start: i, end: j, from: from, to: len(a.norm)})
		i = j
	}
	t := &a.tok
	t.Stop, t.CJK = false, true
	if len(a.cjk) == 0 {
		return i
	}
	if len(a.cjk) == 1 {
		c := a.cjk[0]
		a.emitCJK(c, c, emit)
		return i
	}
	for k := 0; k+1 < len(a.cjk); k++ {
		a.emitCJK(a.cjk[k], a.cjk[k+1], emit)
	}
	return i
}

func (a *analyzer) emitCJK(c1, c2 cjkChar, emit func(*Term)) {
	w := a.norm[c1.from:c2.to]
	t := &a.tok
	t.Word = w
	t.Term, _ = a.term(w) // w itself: not ASCII, never a stopword
	t.Stop, t.CJK = false, true
	t.Start, t.End = c1.start, c2.end
	emit(t)
}

// stopwords are the English function words that queries drop, as folded
// words (contractions without their apostrophe). The list is the Snowball
// English stop list with contractions joined the way [Analyze] joins them,
// less the ones that collide with content words once joined ("she'll" is
// "shell", "we'd" is "wed").
var stopwords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an",
		"and", "any", "are", "arent", "as", "at", "be", "because", "been",
		"before", "being", "below", "between", "both", "but", "by", "cant",
		"cannot", "could", "couldnt", "did", "didnt", "do", "does", "doesnt",
		"doing", "dont", "down", "during", "each", "few", "for", "from",
		"further", "had", "hadnt", "has", "hasnt", "have", "havent", "having",
		"he", "hed", "hes", "her", "here", "heres", "hers", "herself", "him",
		"himself", "his", "how", "hows", "i", "id", "if", "im", "in", "into",
		"is", "isnt", "it", "its", "itself", "ive", "lets", "me", "more",
		"most", "mustnt", "my", "myself", "no", "nor", "not", "of", "off", "on",
		"once", "only", "or", "other", "ought", "our", "ours", "ourselves",
		"out", "over", "own", "same", "shant", "she", "shes", "should",
		"shouldnt", "so", "some", "such", "than", "that", "thats", "the",
		"their", "theirs", "them", "themselves", "then", "there", "theres",
		"these", "they", "theyd", "theyll", "theyre", "theyve", "this",
		"those", "through", "to", "too", "under", "until", "up", "very",
		"was", "wasnt", "we", "were", "werent", "weve", "what", "whats",
		"when", "whens", "where", "wheres", "which", "while", "who", "whom",
		"whos", "why", "whys", "with", "wont", "would", "wouldnt", "you",
		"youd", "youll", "youre", "youve", "your", "yours", "yourself",
		"yourselves",
	}
	m := make(map[string]struct{}, 2*len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
