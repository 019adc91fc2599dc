package citations

import "unicode/utf8"

// Marker grammar. A marker group is
//
//	group = open ws* "doc" ws* [":"] ws* item { ws* sep ws* ["doc" ws* [":"] ws*] item } ws* close
//	open  = "[" | "【"          close = "]" | "】"   (matching the open bracket)
//	item  = 1 to 9 ASCII digits   sep = "," | ";"   ws = " " | "\t"
//
// with "doc" in any case and the whole group at most maxGroupLen bytes on one
// line. Once the reserved prefix, open ws* "doc" ws* followed by ":" or a
// digit, is seen, the bracket belongs to the citation syntax: if what follows
// is not a well-formed group, the group is malformed and is removed, up to
// its closing bracket or, when that is not on the same line within the
// limit, just the reserved prefix and the well-formed items after it.

// maxGroupLen bounds a marker group in bytes. It also bounds how much text a
// streaming renderer holds back while a group is undecided.
const maxGroupLen = 256

// maxIndex is the largest index a marker can carry (nine digits).
const maxIndex = 999_999_999

type groupStatus uint8

const (
	groupNone      groupStatus = iota // not a marker group: the bracket is text
	groupMore                         // undecided until more input arrives
	groupOK                           // a well-formed group
	groupMalformed                    // reserved prefix, bad content, closing bracket found
	groupCut                          // reserved prefix cut off by a line end, the limit or the end of input
	groupBare                         // a bracketed number such as "[5]" or "[1, 2]": not a marker
)

func isWS(c byte) bool    { return c == ' ' || c == '\t' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Display characters. The grammar reads what a reader sees, not the bytes:
// "[doc\\:2]" and "&#91;doc:2&#93;" show as "[doc:2]" once the Markdown is
// rendered, "［ｄｏｃ：２］" is the same text in full-width forms, and a
// zero-width character inside a group is invisible. [displayAt] maps each
// such form to the ASCII character it shows, so that all of them are
// markers; other characters are chOther.
const (
	chEnd   byte = 0    // the end of the input or of the group's limit
	chWideL byte = 0x10 // 【
	chWideR byte = 0x11 // 】
	chOther byte = 0xff // any character the grammar does not use
)

// displayAt returns the character a reader sees at b[p] and the bytes it
// takes, skipping zero-width characters before it. more reports that b ends
// before the character is known and b is not cut (more input may follow).
func displayAt(b []byte, p int, cut bool) (c byte, w int, more bool) {
	for q := p; ; {
		if q >= len(b) {
			return chEnd, q - p, !cut
		}
		x := b[q]
		if x < utf8.RuneSelf {
			switch x {
			case '\\':
				if q+1 == len(b) {
					if !cut {
						return 0, 0, true
					}
				} else if d := b[q+1]; isPunct(d) {
					return d, q + 2 - p, false // a Markdown escape shows the character
				}
			case '&':
				r, k, more := entityAt(b, q, cut)
				if more {
					return 0, 0, true
				}
				if k > 0 {
					if c, skip := displayRune(r); skip {
						q += k
						continue
					} else {
						return c, q + k - p, false
					}
				}
			}
			return x, q + 1 - p, false
		}
		if !utf8.FullRune(b[q:]) && !cut {
			return 0, 0, true
		}
		r, size := utf8.DecodeRune(b[q:])
		c, skip := displayRune(r)
		if skip {
			q += size
			continue
		}
		return c, q + size - p, false
	}
}

// displayRune maps a character to the one the grammar reads; skip reports a
// zero-width character.
func displayRune(r rune) (c byte, skip bool) {
	switch {
	case r < utf8.RuneSelf:
		return byte(r), false
	case r == 0x200b, r == 0x200c, r == 0x200d, r == 0x2060, r == 0xfeff, r == 0xad:
		return 0, true // zero-width space, non-joiner, joiner, word joiner, BOM, soft hyphen
	case r == '【':
		return chWideL, false
	case r == '】':
		return chWideR, false
	case 0xff01 <= r && r <= 0xff5e: // full-width ASCII forms
		return byte(r - 0xff01 + '!'), false
	case r == 0x3000, r == 0xa0: // ideographic and no-break space
		return ' ', false
	case r == 0x2013, r == 0x2014, r == 0x2212: // en and em dash, minus sign
		return '-', false
	}
	return chOther, false
}

// entityAt decodes an HTML character reference at b[q] ('&'): "&#91;",
// "&#x5B;" or one of a few named ones. It returns the character and the
// reference's length, 0 if there is none; more if b ends inside what may
// still become one.
func entityAt(b []byte, q int, cut bool) (r rune, n int, more bool) {
	const maxLen = 12
	k := q + 1
	for ; k < len(b) && k-q < maxLen; k++ {
		c := b[k]
		if c == ';' {
			break
		}
		if !('a' <= lower(c) && lower(c) <= 'z' || isDigit(c) || c == '#' && k == q+1) {
			return 0, 0, false
		}
	}
	if k == len(b) {
		return 0, 0, !cut && k-q < maxLen
	}
	if b[k] != ';' {
		return 0, 0, false
	}
	name := b[q+1 : k]
	if len(name) > 1 && name[0] == '#' {
		base, digits := 10, name[1:]
		if lower(digits[0]) == 'x' {
			base, digits = 16, digits[1:]
		}
		if len(digits) == 0 || len(digits) > 7 {
			return 0, 0, false
		}
		v := 0
		for _, c := range digits {
			d := int(lower(c))
			switch {
			case isDigit(c):
				d -= '0'
			case base == 16 && 'a' <= d && d <= 'f':
				d -= 'a' - 10
			default:
				return 0, 0, false
			}
			v = v*base + d
		}
		return rune(v), k + 1 - q, false
	}
	switch string(name) {
	case "lbrack", "lsqb":
		return '[', k + 1 - q, false
	case "rbrack", "rsqb":
		return ']', k + 1 - q, false
	case "colon":
		return ':', k + 1 - q, false
	case "comma":
		return ',', k + 1 - q, false
	case "semi":
		return ';', k + 1 - q, false
	case "nbsp":
		return ' ', k + 1 - q, false
	case "ZeroWidthSpace", "zwj", "zwnj", "NoBreak", "shy":
		return 0x200b, k + 1 - q, false
	}
	return 0, 0, false
}

// isOpener reports whether c opens a group, and returns its closer.
func isOpener(c byte) (closer byte, ok bool) {
	switch c {
	case '[':
		return ']', true
	case chWideL:
		return chWideR, true
	}
	return 0, false
}

// cursor reads display characters of a group.
type cursor struct {
	b   []byte // the input up to the group's limit
	p   int
	cut bool // b ends before the input does, or the input is complete
}

func (g *cursor) peek() (c byte, w int, more bool) { return displayAt(g.b, g.p, g.cut) }

// ws skips white space; more reports that the input ran out undecided.
func (g *cursor) ws() (more bool) {
	for {
		c, w, more := g.peek()
		if more {
			return true
		}
		if !isWS(c) {
			return false
		}
		g.p += w
	}
}

// parseGroup parses the group that starts at b[i], if b[i] starts an open
// bracket. For a well-formed marker group it appends the item indices to idx.
// end is the offset after the group: after the closing bracket for groupOK,
// groupMalformed and groupBare, after the removable prefix for groupCut.
// With final set, the end of b is the end of the input and groupMore is
// never returned.
func parseGroup(b []byte, i int, final bool, idx []int) (st groupStatus, end int, out []int) {
	n := len(b)
	limit := min(n, i+maxGroupLen)
	g := cursor{b: b[:limit], p: i, cut: limit < n || final}
	idx0 := len(idx)

	// Before the reserved prefix: running out of input means "not yet known"
	// (undecided); anything unexpected means the bracket is plain text.
	undecided := groupMore
	if g.cut {
		undecided = groupNone
	}

	c, w, more := g.peek()
	if more {
		return undecided, i, idx[:idx0]
	}
	closer, ok := isOpener(c)
	if !ok {
		return groupNone, i, idx
	}
	g.p += w
	if g.ws() {
		return undecided, i, idx[:idx0]
	}
	c, _, _ = g.peek()
	if isDigit(c) {
		st, end := parseBare(&g, i, closer)
		return st, end, idx
	}
	for k := range len("doc") {
		c, w, more := g.peek()
		if more || c == chEnd {
			return undecided, i, idx[:idx0]
		}
		if lower(c) != "doc"[k] {
			return groupNone, i, idx
		}
		g.p += w
	}
	if g.ws() {
		return undecided, i, idx[:idx0]
	}
	c, w, more = g.peek()
	switch {
	case more || c == chEnd:
		return undecided, i, idx[:idx0]
	case c == ':':
		g.p += w
	case isDigit(c):
	default:
		return groupNone, i, idx
	}

	// The reserved prefix is complete: from here on a failure is malformed.
	cutAt := func(at int) (groupStatus, int, []int) {
		if g.cut {
			return groupCut, at, idx[:idx0]
		}
		return groupMore, i, idx[:idx0]
	}
	bad := func(at int) (groupStatus, int, []int) {
		st, end := g.bad(at, closer)
		if st == groupMore {
			return cutAt(at)
		}
		return st, end, idx[:idx0]
	}
	for first := true; ; first = false {
		if g.ws() {
			return cutAt(g.p)
		}
		c, w, _ := g.peek()
		if c == chEnd {
			return cutAt(g.p)
		}
		if !first && lower(c) == 'd' {
			for k := range len("doc") {
				c, w, more := g.peek()
				if more || c == chEnd {
					return cutAt(g.p)
				}
				if lower(c) != "doc"[k] {
					return bad(g.p)
				}
				g.p += w
			}
			if g.ws() {
				return cutAt(g.p)
			}
			if c, w, _ := g.peek(); c == ':' {
				g.p += w
			}
			if g.ws() {
				return cutAt(g.p)
			}
			c, w, _ = g.peek()
			if c == chEnd {
				return cutAt(g.p)
			}
		}
		start, nd, v := g.p, 0, 0
		for isDigit(c) {
			if nd < 9 {
				v = v*10 + int(c-'0')
			}
			nd++
			g.p += w
			var more bool
			if c, w, more = g.peek(); more {
				return cutAt(g.p)
			}
		}
		if c == chEnd {
			return cutAt(g.p)
		}
		if nd == 0 || nd > 9 {
			return bad(g.p)
		}
		_ = start
		idx = append(idx, v)
		if g.ws() {
			return cutAt(g.p)
		}
		c, w, _ = g.peek()
		switch c {
		case chEnd:
			return cutAt(g.p)
		case ',', ';':
			g.p += w
			continue
		case closer:
			return groupOK, g.p + w, idx
		}
		return bad(g.p)
	}
}

// bad finds the end of a malformed group whose bad content starts at at:
// after its closing bracket (groupMalformed), or at at if a line end or a
// backtick comes first (groupCut); groupMore if the input runs out.
func (g *cursor) bad(at int, closer byte) (groupStatus, int) {
	for g.p = at; ; {
		c, w, more := g.peek()
		switch {
		case more || c == chEnd:
			return groupMore, at
		case c == '\n' || c == '`':
			// A code span binds tighter than the bracket: what follows a
			// backtick (escaped or not, which a fence info string must
			// not lose) is not the group's to remove.
			return groupCut, at
		case c == closer:
			return groupMalformed, g.p + w
		}
		g.p += w
	}
}

// parseBare parses the rest of a group that is a bracketed number or list
// of numbers, "[5]", "[1, 2]" or "[1-3]", from its first digit.
func parseBare(g *cursor, i int, closer byte) (groupStatus, int) {
	undecided := groupMore
	if g.cut {
		undecided = groupNone
	}
	for {
		nd := 0
		for {
			c, w, more := g.peek()
			if more {
				return undecided, i
			}
			if !isDigit(c) {
				break
			}
			nd++
			g.p += w
		}
		if nd == 0 || nd > 9 {
			return groupNone, i
		}
		if g.ws() {
			return undecided, i
		}
		c, w, _ := g.peek()
		switch c {
		case chEnd:
			return undecided, i
		case closer:
			return groupBare, g.p + w
		case ',', ';', '-':
			g.p += w
			if g.ws() {
				return undecided, i
			}
			continue
		}
		return groupNone, i
	}
}

// opener reports whether b[i] may start a group: the first byte of '[',
// an entity, a full-width or lenticular bracket.
func opener(c byte) bool { return c == '[' || c == '&' || c == 0xef || c == 0xe3 }

// glues reports whether text written after tail that starts with c would
// extend a group prefix in tail: whether some open bracket in tail starts
// text that tail+c continues as a group, still forming or complete.
func glues(tail []byte, c byte) bool {
	var scratch [4]int
	var buf [2*maxGroupLen + 1]byte
	if len(tail) >= len(buf) {
		tail = tail[len(tail)-len(buf)+1:]
	}
	b := append(append(buf[:0], tail...), c)
	for i := len(tail) - 1; i >= 0; i-- {
		if !opener(tail[i]) {
			continue
		}
		if st, end, _ := parseGroup(b, i, false, scratch[:0]); st == groupMore || st != groupNone && end > len(tail) {
			return true
		}
	}
	return false
}

// Marker is one citation marker as written in a model's output.
type Marker struct {
	// Index is N of the marker, as written; 0 for "[doc:0]" and for malformed
	// groups.
	Index int `json:"index"`
	// Span is the byte range of the marker's bracket group in the text. Each
	// index of a joined group such as "[doc:1, doc:2]" is a separate Marker
	// with the same Span.
	Span Span `json:"span"`
	// Malformed is set for a group that starts like a marker ("[doc:") but is
	// not well formed; renderers remove it.
	Malformed bool `json:"malformed,omitempty"`
}

// Parse returns the markers in text, in order, following the same rules as
// [Render]: markers inside code spans and code blocks are not markers, and a
// group that starts like a marker but is not well formed, or is cut off by a
// line end, is reported as Malformed. A rendered answer parses to no markers
// at all.
func Parse(text string) []Marker {
	var p markerSink
	sc := newScanner(&p, []byte(text))
	sc.final = true
	sc.scan()
	return p.markers
}

type markerSink struct{ markers []Marker }

func (*markerSink) text([]byte, bool) {}

func (p *markerSink) run(r *run) bool {
	for _, g := range r.groups {
		if g.bare {
			continue
		}
		if g.malformed {
			p.markers = append(p.markers, Marker{Span: g.span, Malformed: true})
			continue
		}
		for _, n := range r.items[g.first:g.last] {
			p.markers = append(p.markers, Marker{Index: n, Span: g.span})
		}
	}
	for range r.segs {
		r.kept = append(r.kept, true)
	}
	return true
}
