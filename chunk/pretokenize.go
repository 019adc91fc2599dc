package chunk

import (
	"unicode"
	"unicode/utf8"
)

// This file splits text into the pieces that o200k_base's pre-tokenization
// regular expression produces, without running the regular expression. The
// pattern (from tiktoken, as tiktoken-go compiles it with regexp2) is the
// alternation, tried in order at each position:
//
//	1. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	2. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	3. \p{N}{1,3}
//	4. " ?[^\s\p{L}\p{N}]+[\r\n/]*"
//	5. \s*[\r\n]+
//	6. \s+(?!\S)
//	7. \s+
//
// Each branch is matched here with the backtracking outcome a regex engine
// would reach, worked out once per branch (see the comments below). \s is
// [unicode.IsSpace], as in regexp2 and in tiktoken's Rust regex (Unicode
// White_Space): U+FEFF, the byte-order mark, is not whitespace in either, so
// it is punctuation here (JavaScript's \s includes it, which is why js-tiktoken
// splits text with a BOM differently). The differential tests check the result
// against tiktoken-go token for token.

// class is the character class of a rune as far as the pattern cares.
type class uint8

const (
	cOther   class = iota // not a letter, number, mark or space: punctuation, symbols, controls
	cUpper                // Lu, Lt: in the "upper" set only
	cLower                // Ll: in the "lower" set only
	cBoth                 // Lm, Lo: letters in both sets
	cMark                 // M: in both sets, but not \p{L}
	cNumber               // \p{N}
	cSpace                // \s other than \r and \n
	cNewline              // \r, \n
)

// inUpper reports membership in [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func (c class) inUpper() bool { return c == cUpper || c == cBoth || c == cMark }

// inLower reports membership in [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func (c class) inLower() bool { return c == cLower || c == cBoth || c == cMark }

// prefix reports membership in [^\r\n\p{L}\p{N}].
func (c class) prefix() bool { return c == cOther || c == cMark || c == cSpace }

// punct reports membership in [^\s\p{L}\p{N}].
func (c class) punct() bool { return c == cOther || c == cMark }

// space reports membership in \s.
func (c class) space() bool { return c == cSpace || c == cNewline }

// byteClass is the class of each ASCII byte, and cMulti for the other
// bytes, which start (or continue) longer UTF-8 sequences or are invalid.
var byteClass [256]class

// cMulti marks, in byteClass, a byte that is not a character by itself.
const cMulti class = 0xFF

func init() {
	for b := range byteClass {
		byteClass[b] = cMulti
		if b < utf8.RuneSelf {
			byteClass[b] = classify(rune(b))
		}
	}
}

func classify(r rune) class {
	switch {
	case r == '\r' || r == '\n':
		return cNewline
	case unicode.IsSpace(r):
		return cSpace
	case unicode.IsLetter(r):
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			return cUpper
		case unicode.IsLower(r):
			return cLower
		}
		return cBoth
	case unicode.IsMark(r):
		return cMark
	case unicode.IsNumber(r):
		return cNumber
	}
	return cOther
}

// classAt returns the class and byte width of the character at text[i].
// An invalid byte counts as one character of class cOther.
//
// The scanning loops below write out its ASCII case, a table lookup, and
// call classAtRune for the rest: classAt is too large to inline, and a
// call per character cost as much as the rest of the scan.
func classAt(text string, i int) (class, int) {
	if c := byteClass[text[i]]; c != cMulti {
		return c, 1
	}
	return classAtRune(text, i)
}

// classAtRune is classAt of a character that is not ASCII.
func classAtRune(text string, i int) (class, int) {
	r, n := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && n == 1 {
		return cOther, 1
	}
	return classify(r), n
}

// MaxPiece caps the bytes of a pre-token piece: a piece the pattern
// matches longer than that (a run of thousands of letters without a space,
// or of punctuation) is encoded as consecutive pieces of MaxPiece bytes,
// each cut backed off to a UTF-8 character start, and a last, shorter one.
// Only such runs get token boundaries other than tiktoken's: no piece in
// ordinary text comes near the cap (the longest o200k_base token is 128
// bytes). The cap keeps tokenizing and chunking linear in the text.
const MaxPiece = 1024

// subPiece returns the end of the capped piece that starts at text[i],
// inside the pattern's piece [i, end) or at a [MaxPiece] cut of it.
func subPiece(text string, i, end int) int {
	if end-i <= MaxPiece {
		return end
	}
	cut := i + MaxPiece
	for k := cut; k > cut-utf8.UTFMax; k-- {
		if utf8.RuneStart(text[k]) {
			return k
		}
	}
	return cut // invalid UTF-8: cut between its bytes
}

// nextPiece returns the end of the pre-token piece that starts at text[i],
// as the pattern matches it, without the [MaxPiece] cap. i < len(text).
func nextPiece(text string, i int) int {
	c, n := classAt(text, i)
	// Branches 1 and 2: words, optionally with one leading prefix character.
	if c.prefix() {
		if i+n < len(text) {
			if end, ok := wordLower(text, i+n); ok {
				return end
			}
		}
	}
	if c.inUpper() || c.inLower() {
		if end, ok := wordLower(text, i); ok {
			return end
		}
	}
	if c.prefix() {
		if i+n < len(text) {
			if end, ok := wordUpper(text, i+n); ok {
				return end
			}
		}
	}
	if c.inUpper() {
		if end, ok := wordUpper(text, i); ok {
			return end
		}
	}
	switch {
	case c == cNumber: // Branch 3: one to three digits.
		end := i + n
		for k := 1; k < 3 && end < len(text); k++ {
			c2, n2 := classAt(text, end)
			if c2 != cNumber {
				break
			}
			end += n2
		}
		return end
	case c.punct() || (text[i] == ' ' && i+1 < len(text)):
		// Branch 4: an optional space, a run of punctuation, then any \r, \n, /.
		j := i
		if text[i] == ' ' {
			c2, _ := classAt(text, i+1)
			if !c2.punct() {
				break
			}
			j = i + 1
		}
		for j < len(text) {
			c2, n2 := byteClass[text[j]], 1
			if c2 == cMulti {
				c2, n2 = classAtRune(text, j)
			}
			if !c2.punct() {
				break
			}
			j += n2
		}
		for j < len(text) && (text[j] == '\r' || text[j] == '\n' || text[j] == '/') {
			j++
		}
		return j
	}
	if !c.space() {
		// Unreachable: every class is handled above. Keep the scan moving.
		return i + n
	}
	// Branches 5 to 7 all start with a run of whitespace [i, e).
	e, lastNewline := i, -1
	for e < len(text) {
		c2, n2 := byteClass[text[e]], 1
		if c2 == cMulti {
			c2, n2 = classAtRune(text, e)
		}
		if !c2.space() {
			break
		}
		if c2 == cNewline {
			lastNewline = e
		}
		e += n2
	}
	if lastNewline >= 0 {
		// \s*[\r\n]+: \s* backtracks to the last newline, [\r\n]+ takes it.
		return lastNewline + 1
	}
	if e == len(text) {
		// \s+(?!\S) at the end of the text takes the whole run.
		return e
	}
	// \s+(?!\S) gives back the last whitespace character, so that it can
	// prefix the next word; a single whitespace character falls to \s+.
	_, last := utf8.DecodeLastRuneInString(text[i:e])
	if e-last > i {
		return e - last
	}
	return e
}

// wordLower matches [U]*[W]+ contraction? at text[i], where U is the upper
// set and W the lower set. U* is greedy; when the character after the run
// of U is not in W, the engine backtracks into the run to its last W
// character, and W+ then matches just that one.
func wordLower(text string, i int) (int, bool) {
	j, lastW := i, -1
	for j < len(text) {
		c, n := byteClass[text[j]], 1
		if c == cMulti {
			c, n = classAtRune(text, j)
		}
		if !c.inUpper() {
			break
		}
		if c.inLower() {
			lastW = j + n
		}
		j += n
	}
	if j < len(text) {
		if c, _ := classAt(text, j); c == cLower {
			return contraction(text, lowerRun(text, j)), true
		}
	}
	if lastW < 0 {
		return 0, false
	}
	return contraction(text, lastW), true
}

// wordUpper matches [U]+[W]* contraction? at text[i]. No backtracking is
// needed: W* may be empty.
func wordUpper(text string, i int) (int, bool) {
	j := i
	for j < len(text) {
		c, n := byteClass[text[j]], 1
		if c == cMulti {
			c, n = classAtRune(text, j)
		}
		if !c.inUpper() {
			break
		}
		j += n
	}
	if j == i {
		return 0, false
	}
	return contraction(text, lowerRun(text, j)), true
}

// lowerRun returns the end of the run of W characters starting at j.
func lowerRun(text string, j int) int {
	for j < len(text) {
		c, n := byteClass[text[j]], 1
		if c == cMulti {
			c, n = classAtRune(text, j)
		}
		if !c.inLower() {
			break
		}
		j += n
	}
	return j
}

// contraction extends end over one of 's 't 're 've 'm 'll 'd (any case).
func contraction(text string, end int) int {
	if end+1 >= len(text) || text[end] != '\'' {
		return end
	}
	switch text[end+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return end + 2
	case 'r', 'v':
		if end+2 < len(text) && text[end+2]|0x20 == 'e' {
			return end + 3
		}
	case 'l':
		if end+2 < len(text) && text[end+2]|0x20 == 'l' {
			return end + 3
		}
	}
	return end
}
