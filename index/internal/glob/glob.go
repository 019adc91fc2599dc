// Package glob matches names against patterns in SQLite's GLOB syntax,
// the syntax of [index.Filter.Path], for stores that cannot ask SQLite
// (the Weaviate store filters its hits with it). It agrees with SQLite's
// GLOB operator character for character, including how SQLite reads bytes
// that are not UTF-8, so the same filter admits the same paths in every
// store.
//
// Syntax: * matches any run of characters (slashes included), ? exactly
// one, [...] one character of a set, [^...] one not in it. In a set, a "]"
// first is a member, and "a-z" is a range unless the "-" is first or last.
// A "[" that no "]" closes makes a pattern that matches nothing.
//
// Cost: [Pattern.Match] takes O(len(pattern) × len(name)) steps at most
// and allocates nothing; it never backtracks further than the last "*" it
// passed, so no pattern makes it exponential (a recursive matcher takes
// seconds for "*[a]*[a]*[a]*[a]*[a]*[a]b" on a 66-byte name).
package glob

import "strings"

// Pattern is a compiled GLOB pattern; it is safe for concurrent use.
type Pattern struct {
	toks  []token
	never bool // a "[" no "]" closes: SQLite matches nothing
}

type kind uint8

const (
	literal kind = iota // one character, r
	any1                // ?
	set                 // [...] or [^...]
	star                // *
)

type token struct {
	kind   kind
	r      rune
	neg    bool
	ranges [][2]rune // inclusive; a single character is {c, c}
}

func (t *token) matches(c rune) bool {
	switch t.kind {
	case literal:
		return c == t.r
	case any1:
		return true
	case set:
		in := false
		for _, rg := range t.ranges {
			if rg[0] <= c && c <= rg[1] {
				in = true
				break
			}
		}
		return in != t.neg
	}
	return false
}

// Compile parses pattern. It never fails: every string is a pattern to
// SQLite, and a "[" that no "]" closes makes one that matches nothing
// (callers that want to refuse such patterns check first, as
// [index.Filter.Validate] does).
func Compile(pattern string) *Pattern {
	p := &Pattern{}
	s := cut(pattern)
	for len(s) > 0 {
		c, n := decode(s)
		s = s[n:]
		switch c {
		case '*':
			if k := len(p.toks); k == 0 || p.toks[k-1].kind != star {
				p.toks = append(p.toks, token{kind: star})
			}
		case '?':
			p.toks = append(p.toks, token{kind: any1})
		case '[':
			t, rest, ok := parseSet(s)
			if !ok {
				p.never = true
				return p
			}
			p.toks = append(p.toks, t)
			s = rest
		default:
			p.toks = append(p.toks, token{kind: literal, r: c})
		}
	}
	return p
}

// parseSet reads a set after its "[" as SQLite's patternCompare does: it
// returns the set, the rest of the pattern after its "]", and false when
// no "]" closes it.
func parseSet(s string) (token, string, bool) {
	t := token{kind: set}
	next := func() rune {
		if len(s) == 0 {
			return 0
		}
		c, n := decode(s)
		s = s[n:]
		return c
	}
	c2 := next()
	if c2 == '^' {
		t.neg = true
		c2 = next()
	}
	if c2 == ']' {
		t.ranges = append(t.ranges, [2]rune{']', ']'})
		c2 = next()
	}
	var prior rune // the character a "-" would start a range from; 0 none
	for c2 != 0 && c2 != ']' {
		if c2 == '-' && len(s) > 0 && s[0] != ']' && prior > 0 {
			c2 = next()
			// SQLite tests c >= prior && c <= c2; the single prior is a
			// member already, so the range adds the rest.
			t.ranges = append(t.ranges, [2]rune{prior, c2})
			prior = 0
		} else {
			t.ranges = append(t.ranges, [2]rune{c2, c2})
			prior = c2
		}
		c2 = next()
	}
	if c2 == 0 {
		return token{}, "", false
	}
	return t, s, true
}

// Match reports whether name matches p, as name GLOB pattern would in
// SQLite.
func (p *Pattern) Match(name string) bool {
	if p.never {
		return false
	}
	// Every token but * consumes exactly one character, so on a mismatch
	// it is enough to retry from the last * with one more character
	// swallowed by it: an earlier * could only swallow less, which the
	// later one's retries already cover.
	name = cut(name)
	toks := p.toks
	ti, ni := 0, 0
	starTi, starNi := -1, 0
	for {
		if ti < len(toks) && toks[ti].kind == star {
			starTi, starNi = ti, ni
			ti++
			continue
		}
		if ni < len(name) {
			c, n := decode(name[ni:])
			if ti < len(toks) && toks[ti].matches(c) {
				ti, ni = ti+1, ni+n
				continue
			}
		} else if ti == len(toks) {
			return true
		}
		if starTi < 0 || starNi >= len(name) {
			return false
		}
		_, n := decode(name[starNi:])
		starNi += n
		ti, ni = starTi+1, starNi
	}
}

// cut returns s up to its first NUL: SQLite reads both operands of GLOB
// as C strings.
func cut(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// decode reads one character of s (not empty) as SQLite's
// sqlite3Utf8Read does, returning it and its length in bytes: a lead byte
// takes every continuation byte after it; a byte 0x80-0xBF on its own is
// the character of that value; an overlong form, a surrogate or U+FFFE/F
// is U+FFFD. Valid UTF-8 reads as Go reads it.
func decode(s string) (rune, int) {
	c := uint32(s[0])
	if c < 0xc0 {
		return rune(c), 1
	}
	c = trans1[c-0xc0]
	i := 1
	for i < len(s) && s[i]&0xc0 == 0x80 {
		c = c<<6 + uint32(s[i]&0x3f)
		i++
	}
	if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
		c = 0xFFFD
	}
	return rune(c), i
}

// trans1 is SQLite's sqlite3Utf8Trans1: the payload bits of a lead byte.
var trans1 = [64]uint32{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}
