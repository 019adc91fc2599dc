package citations

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
)

var (
	wideOpen    = []byte("【")
	wideClose   = []byte("】")
	narrowClose = []byte("]")
)

func isWS(c byte) bool    { return c == ' ' || c == '\t' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixAt reports whether b[i:] starts with p, and whether b[i:] is a
// proper prefix of p (more input could still make it match).
func hasPrefixAt(b []byte, i int, p []byte) (match, partial bool) {
	rest := b[i:]
	if len(rest) >= len(p) {
		return string(rest[:len(p)]) == string(p), false
	}
	return false, string(rest) == string(p[:len(rest)])
}

// parseGroup parses the marker group that starts at b[i], which is '[' or
// the first byte of '【'. For a well-formed group it appends the item indices
// to idx. end is the offset after the group: after the closing bracket for
// groupOK and groupMalformed, after the removable prefix for groupCut. With
// final set, the end of b is the end of the input and groupMore is never
// returned.
func parseGroup(b []byte, i int, final bool, idx []int) (st groupStatus, end int, out []int) {
	n := len(b)
	limit := min(n, i+maxGroupLen)
	cut := limit < n || final // reaching limit means the group cannot continue
	idx0 := len(idx)

	// Before the reserved prefix: running out of input means "not yet known";
	// anything unexpected means the bracket is plain text.
	undecided := func() (groupStatus, int, []int) {
		if cut {
			return groupNone, i, idx[:idx0]
		}
		return groupMore, i, idx[:idx0]
	}

	p := i
	var closer []byte
	if b[p] == '[' {
		p++
		closer = narrowClose
	} else {
		m, partial := hasPrefixAt(b[:limit], p, wideOpen)
		if partial {
			return undecided()
		}
		if !m {
			return groupNone, i, idx
		}
		p += len(wideOpen)
		closer = wideClose
	}
	for p < limit && isWS(b[p]) {
		p++
	}
	for k := range len("doc") {
		if p == limit {
			return undecided()
		}
		if lower(b[p]) != "doc"[k] {
			return groupNone, i, idx
		}
		p++
	}
	for p < limit && isWS(b[p]) {
		p++
	}
	if p == limit {
		return undecided()
	}
	switch {
	case b[p] == ':':
		p++
	case isDigit(b[p]):
	default:
		return groupNone, i, idx
	}

	// The reserved prefix is complete: from here on a failure is malformed.
	more := func(at int) (groupStatus, int, []int) {
		if cut {
			return groupCut, at, idx[:idx0]
		}
		return groupMore, i, idx[:idx0]
	}
	bad := func(at int) (groupStatus, int, []int) {
		for q := at; q < limit; q++ {
			if b[q] == '\n' {
				return groupCut, at, idx[:idx0]
			}
			if m, partial := hasPrefixAt(b[:limit], q, closer); m {
				return groupMalformed, q + len(closer), idx[:idx0]
			} else if partial {
				break
			}
		}
		return more(at)
	}
	for first := true; ; first = false {
		for p < limit && isWS(b[p]) {
			p++
		}
		if p == limit {
			return more(p)
		}
		if !first && lower(b[p]) == 'd' {
			for k := range len("doc") {
				if p == limit {
					return more(p)
				}
				if lower(b[p]) != "doc"[k] {
					return bad(p)
				}
				p++
			}
			for p < limit && isWS(b[p]) {
				p++
			}
			if p < limit && b[p] == ':' {
				p++
			}
			for p < limit && isWS(b[p]) {
				p++
			}
			if p == limit {
				return more(p)
			}
		}
		start, v := p, 0
		for p < limit && isDigit(b[p]) {
			if p-start < 9 {
				v = v*10 + int(b[p]-'0')
			}
			p++
		}
		if p == limit {
			return more(p)
		}
		if p == start || p-start > 9 {
			return bad(p)
		}
		idx = append(idx, v)
		for p < limit && isWS(b[p]) {
			p++
		}
		if p == limit {
			return more(p)
		}
		if b[p] == ',' || b[p] == ';' {
			p++
			continue
		}
		m, partial := hasPrefixAt(b[:limit], p, closer)
		if m {
			return groupOK, p + len(closer), idx
		}
		if partial {
			return more(p)
		}
		return bad(p)
	}
}

// endsInGroupPrefix reports whether some open bracket in tail starts text
// that more input could turn into a marker group. Output written after such
// a tail must not be glued to it.
func endsInGroupPrefix(tail []byte) bool {
	var scratch [4]int
	for i := len(tail) - 1; i >= 0; i-- {
		if tail[i] != '[' && tail[i] != wideOpen[0] {
			continue
		}
		if st, _, _ := parseGroup(tail, i, false, scratch[:0]); st == groupMore {
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

func (*markerSink) text([]byte) {}

func (p *markerSink) run(r *run) bool {
	for _, g := range r.groups {
		if g.malformed {
			p.markers = append(p.markers, Marker{Span: g.span, Malformed: true})
			continue
		}
		for _, n := range r.items[g.first:g.last] {
			p.markers = append(p.markers, Marker{Index: n, Span: g.span})
		}
	}
	return true
}
