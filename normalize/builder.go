package normalize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// headRec is a heading found while building: its level and its normalized range.
type headRec struct {
	level      int
	start, end int
	notes      [][2]int // footnote markers in it, left out of its Text
}

// builder writes normalized text and its segment list in one pass. All
// whitespace goes through it: callers report content (copied or synthesized)
// and breaks, and the builder decides what whitespace reaches the output, so
// the invariants (no leading, trailing or doubled spaces, no space next to a
// newline, at most two newlines in a row) hold by construction.
type builder struct {
	src []byte // the bytes that source offsets index
	sb  strings.Builder
	m   offsetMap

	last int // source offset where the last emitted content ended

	// Pending separator, written just before the next content.
	nl     int    // newlines wanted (0..2)
	space  bool   // a space wanted (ignored when nl > 0)
	prefix []byte // synthesized text to write after the whitespace (list markers, cell separators)

	pre bool // line breaks in the source are kept (pre, code blocks, plain text)

	mark    bool // record the offset of the next content in markPos
	markPos int

	hLevel int // level of the open heading, 0 when none
	hNotes [][2]int
	heads  []headRec
}

func newBuilder(src []byte, base, sizeHint int) *builder {
	b := &builder{src: src, last: base}
	b.sb.Grow(sizeHint)
	b.m.segs.hint = sizeHint/32 + 4
	return b
}

// brk asks for n newlines (1: line break, 2: paragraph break) before the next
// content. Breaks from structure do not add up: the largest wins.
func (b *builder) brk(n int) {
	if n > b.nl {
		b.nl = n
	}
}

// hardBreak adds one newline before the next content (<br>, a Markdown hard
// line break, a newline in preformatted text). Hard breaks add up, to at most two.
func (b *builder) hardBreak() {
	if b.nl < 2 {
		b.nl++
	}
}

// setMarker sets the list marker written before the next content. It
// replaces any pending prefix: the marker of an empty item vanishes.
func (b *builder) setMarker(lists []listLevel) {
	b.prefix = itemMarker(b.prefix[:0], lists)
}

// cellSep asks for " | " before the next content. Separators of empty cells add up.
func (b *builder) cellSep() {
	b.space = true
	b.prefix = append(b.prefix, "| "...)
}

// clearPrefix drops a pending prefix.
func (b *builder) clearPrefix() { b.prefix = b.prefix[:0] }

// flush writes the pending separator before content whose source starts at
// srcStart, and returns srcStart raised to the end of the previous content.
// The separator maps to the whole source gap between the previous content
// and this one.
func (b *builder) flush(srcStart int) int {
	if srcStart < b.last {
		srcStart = b.last
	}
	if b.sb.Len() == 0 {
		b.nl, b.space = 0, false
	}
	if b.nl > 0 || b.space || len(b.prefix) > 0 {
		t := b.sb.Len()
		n := 0
		switch {
		case b.nl > 0:
			n = b.nl
			for range n {
				b.sb.WriteByte('\n')
			}
		case b.space:
			n = 1
			b.sb.WriteByte(' ')
		}
		b.sb.Write(b.prefix)
		synth := len(b.prefix) > 0 || srcStart-b.last != n || !asciiSpaceOnly(b.src[b.last:srcStart])
		b.m.add(t, b.last, srcStart, synth)
		b.last = srcStart
		b.nl, b.space = 0, false
		b.prefix = b.prefix[:0]
	}
	if b.mark {
		b.mark = false
		b.markPos = b.sb.Len()
	}
	return srcStart
}

func asciiSpaceOnly(p []byte) bool {
	for _, c := range p {
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			return false
		}
	}
	return true
}

// copyRun writes b.src[s:e]: valid UTF-8 that neither starts nor ends with
// whitespace and holds no whitespace but single spaces between words.
func (b *builder) copyRun(s, e int) {
	if s >= e {
		return
	}
	if s < b.last {
		// Out of source order: keep the mapping monotone by synthesizing.
		b.synth(b.src[s:e], s, e)
		return
	}
	b.flush(s)
	t := b.sb.Len()
	b.sb.Write(b.src[s:e])
	b.m.add(t, s, e, false)
	b.last = e
}

// synth writes p, which holds no whitespace and is valid UTF-8, as
// synthesized text for the source range [s, e).
func (b *builder) synth(p []byte, s, e int) {
	if len(p) == 0 {
		return
	}
	s = b.flush(s)
	if e < s {
		e = s
	}
	t := b.sb.Len()
	b.sb.Write(p)
	b.m.add(t, s, e, true)
	b.last = e
}

// Byte classes for text: plain bytes are copied as they come.
const (
	plainByte = iota
	spaceByte // ASCII whitespace or NUL: the slow path
	highByte  // the start of a multi-byte sequence, or an invalid byte
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte{0, '\t', '\n', '\v', '\f', '\r', ' '} {
		t[c] = spaceByte
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = highByte
	}
	return t
}()

var replacementChar = []byte("\uFFFD")

// text copies b.src[s:e] as content: whitespace runs become pending
// separators, NUL and invalid UTF-8 become U+FFFD.
func (b *builder) text(s, e int) {
	p := b.src[:e]
	run := s
	i := s
	for i < len(p) {
		c := p[i]
		switch byteClass[c] {
		case plainByte:
			i++
			continue
		case spaceByte:
			// A single space between two words of the run is a copy of itself:
			// keep it in the run (most whitespace is this).
			if c == ' ' && i > run && i+1 < len(p) && byteClass[p[i+1]] == plainByte {
				i += 2
				continue
			}
			b.copyRun(run, i)
			switch c {
			case 0:
				b.synth(replacementChar, i, i+1)
				i++
			case '\n':
				b.lineEnd()
				i++
			case '\r':
				i++
				if i < len(p) && p[i] == '\n' {
					i++
				}
				b.lineEnd()
			default:
				b.space = true
				i++
			}
			run = i
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			b.copyRun(run, i)
			j := i + 1
			for j < len(p) {
				if r2, sz := utf8.DecodeRune(p[j:]); r2 != utf8.RuneError || sz != 1 {
					break
				}
				j++
			}
			b.synth(replacementChar, i, j)
			i = j
			run = i
			continue
		}
		if unicode.IsSpace(r) {
			b.copyRun(run, i)
			if isLineSep(r) {
				b.lineEnd()
			} else {
				b.space = true
			}
			i += size
			run = i
			continue
		}
		i += size
	}
	b.copyRun(run, e)
}

// lineEnd handles a line break found in the text: kept in preformatted text,
// otherwise collapsible like any whitespace.
func (b *builder) lineEnd() {
	if b.pre {
		b.hardBreak()
	} else {
		b.space = true
	}
}

func isLineSep(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// synthText writes p, any bytes, as synthesized text for the source range
// [s, e): whitespace in p follows the rules, invalid UTF-8 becomes U+FFFD.
// The first run of content maps to [s, e); later runs (rare: an entity that
// decodes to text with a space inside) map to the empty range at e, so that
// source ranges never overlap.
func (b *builder) synthText(p []byte, s, e int) {
	first := true
	emit := func(q []byte) {
		if len(q) == 0 {
			return
		}
		if first {
			b.synth(q, s, e)
			first = false
			return
		}
		b.synth(q, e, e)
	}
	run := 0
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == 0:
			emit(p[run:i])
			emit(replacementChar)
			i += size
			run = i
		case unicode.IsSpace(r):
			emit(p[run:i])
			if isLineSep(r) {
				b.lineEnd()
			} else {
				b.space = true
			}
			i += size
			run = i
		default:
			i += size
		}
	}
	emit(p[run:])
}

// synthGap writes p as synthesized text with no source of its own: it maps to
// the empty source range where the previous content ended.
func (b *builder) synthGap(p []byte) {
	b.synthText(p, b.last, b.last)
}

// beginHeading starts a heading of the given level; its text is the content
// written until endHeading.
func (b *builder) beginHeading(level int) {
	if b.hLevel > 0 {
		b.endHeading()
	}
	b.hLevel = level
	b.hNotes = nil
	b.mark = true
}

// noteMark records that the text written since start (an offset of the
// text, as b.sb.Len() gave it) is a footnote marker: in a heading, it is
// left out of the heading's Text, so that a heading path reads "Title",
// not "Title[1]".
func (b *builder) noteMark(start int) {
	if b.hLevel > 0 && b.sb.Len() > start {
		b.hNotes = append(b.hNotes, [2]int{start, b.sb.Len()})
	}
}

// endHeading ends the open heading and records it if it has any text.
func (b *builder) endHeading() {
	if b.hLevel == 0 {
		return
	}
	if !b.mark && b.sb.Len() > b.markPos {
		b.heads = append(b.heads, headRec{level: b.hLevel, start: b.markPos, end: b.sb.Len(), notes: b.hNotes})
	}
	b.mark = false
	b.hLevel = 0
	b.hNotes = nil
}

// document finishes the build.
func (b *builder) document(title string) *Document {
	b.endHeading()
	text := b.sb.String()
	if c := b.sb.Cap(); c > 1<<16 && 2*len(text) < c {
		// The buffer was sized for the source; markup-dense sources (HTML
		// pages, entity bombs) leave most of it unused.
		text = strings.Clone(text)
	}
	d := &Document{Text: text, m: b.m, srcLen: len(b.src)}
	d.m.textLen = len(d.Text)
	if len(b.heads) > 0 {
		d.Headings = make([]Heading, len(b.heads))
		for i, h := range b.heads {
			d.Headings[i] = Heading{Level: h.level, Text: withoutNotes(d.Text, h), Offset: h.start, End: h.end}
		}
	}
	d.Title = title
	if d.Title == "" {
		for _, h := range d.Headings {
			if h.Level == 1 {
				d.Title = oneLine(h.Text)
				break
			}
		}
	}
	return d
}

// withoutNotes returns the text of heading h less its footnote markers,
// the spaces around them collapsed ("Title [1]" and "Title[1]" read
// "Title"); its whole text when that leaves nothing.
func withoutNotes(text string, h headRec) string {
	t := text[h.start:h.end]
	if len(h.notes) == 0 {
		return t
	}
	var sb strings.Builder
	at := h.start
	for _, n := range h.notes {
		if n[0] < at || n[1] > h.end {
			continue
		}
		sb.WriteString(text[at:n[0]])
		at = n[1]
	}
	sb.WriteString(text[at:h.end])
	out := strings.Join(strings.FieldsFunc(sb.String(), func(r rune) bool { return r == ' ' }), " ")
	if strings.TrimSpace(out) == "" {
		return t
	}
	return strings.Trim(out, " \n")
}

// oneLine turns normalized text into a title: line breaks become spaces.
func oneLine(s string) string {
	if strings.IndexByte(s, '\n') < 0 {
		return s
	}
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
	return strings.Join(f, " ")
}

// normalizeTitle applies the whitespace rules to a title from outside the
// text (front matter, <title>), on one line. decode says whether HTML
// character references are decoded.
func normalizeTitle(p []byte, decode bool) string {
	b := newBuilder(p, 0, len(p))
	if decode {
		htmlText(b, 0, len(p))
	} else {
		b.text(0, len(p))
	}
	return oneLine(b.sb.String())
}
