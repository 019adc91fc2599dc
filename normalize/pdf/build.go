package pdf

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"

	"github.com/cite-rag/cite/normalize"
)

// readOutline returns the levels of the document's bookmarks by their
// titles (normalized by [titleKey]), nil when it has none.
func readOutline(in pdfium.Pdfium, doc references.FPDF_DOCUMENT) map[string]int {
	b, err := in.GetBookmarks(&requests.GetBookmarks{Document: doc})
	if err != nil || len(b.Bookmarks) == 0 {
		return nil
	}
	out := map[string]int{}
	var walk func([]responses.GetBookmarksBookmark, int)
	walk = func(bs []responses.GetBookmarksBookmark, depth int) {
		for _, x := range bs {
			if k := titleKey(x.Title); k != "" {
				if _, ok := out[k]; !ok {
					out[k] = depth
				}
			}
			if depth < 64 {
				walk(x.Children, depth+1)
			}
		}
	}
	walk(b.Bookmarks, 1)
	return out
}

func titleKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return ' '
	}, fold.Replace(s))
	return strings.Join(strings.Fields(s), " ")
}

// layout holds what is known of the whole document when its pages are
// written: the body text's size, the sizes of headings, the words used,
// and the paragraph that ended the page written last (held).
type layout struct {
	body     float64
	headings []float64       // heading font sizes, largest first
	levels   map[float64]int // the heading level of each of them
	deepest  int             // the deepest of those levels
	words    map[string]bool
	outline  map[string]int
	held     *heldParagraph
	// pitch is the usual distance between the lines of a paragraph in
	// the whole document, by font size ([roundSize]); measure the width
	// of its widest line outside columns.
	pitch   map[float64]float64
	measure float64
	// notes are the numbers that start a line of the document ("1 Listed
	// in…", "1. Kept since…"): the notes a raised number may refer to.
	notes map[string]bool
}

// heldParagraph is the last paragraph of a page, not written until the
// next page says whether it goes on there: its parts so far, and its last
// line (its font).
type heldParagraph struct {
	parts []normalize.PagePart
	last  line
}

func roundSize(s float64) float64 { return math.Round(s*2) / 2 }

func newLayout(pages []*page, outline map[string]int) *layout {
	l := &layout{words: map[string]bool{}, outline: outline}
	bySize := map[float64]int{}
	notLetter := func(r rune) bool { return !unicode.IsLetter(r) }
	for _, p := range pages {
		split := false // the row before ended in a hyphen
		for _, r := range p.rows {
			// The parts of a word hyphenated at a line's end are not
			// words the document uses ([layout.join] asks).
			ends := len(r.segs) > 0 && endsInHyphen(r.segs[len(r.segs)-1].text)
			for i, s := range r.segs {
				bySize[roundSize(s.size)] += len(s.text)
				ws := strings.FieldsFunc(s.text, notLetter)
				if split && i == 0 && len(ws) > 0 {
					ws = ws[1:]
				}
				if ends && i == len(r.segs)-1 && len(ws) > 0 {
					ws = ws[:len(ws)-1]
				}
				for _, w := range ws {
					l.words[strings.ToLower(w)] = true
				}
			}
			split = ends
		}
	}
	most := 0
	for s, n := range bySize {
		if n > most || (n == most && s < l.body) {
			l.body, most = s, n
		}
	}
	var headings []float64
	for s := range bySize {
		if s >= 1.15*l.body {
			headings = append(headings, s)
		}
	}
	l.setHeadings(headings)
	return l
}

// setHeadings keeps sizes as the headings' sizes and gives each its
// level: the largest is of level 1, and a size within [sameLevel] of a
// level's largest is of that level.
func (l *layout) setHeadings(sizes []float64) {
	l.headings = slices.Clone(sizes)
	slices.Sort(l.headings)
	slices.Reverse(l.headings)
	l.levels = map[float64]int{}
	level, top := 0, 0.0
	for _, s := range l.headings {
		if level == 0 || s*sameLevel < top {
			level, top = level+1, s
		}
		l.levels[s] = level
	}
	l.deepest = level
}

// sameLevel is how much smaller than the largest of a heading level a
// size may be and still be of that level: OCR measures the lines of one
// size within a few percent (report.pdf's two first-level headings
// scanned: 28.5 and 29 points), where the levels of a document differ by
// a tenth or more (Word's 16, 13 and 12 points; LaTeX's 14.4, 12 and 10.95).
const sameLevel = 1.06

// build writes the pages in reading order.
func build(pages []*page, outline map[string]int, rep *Report) *normalize.Extracted {
	dropRunning(pages, rep)
	l := newLayout(pages, outline)
	lines := make([][]line, len(pages))
	for i, p := range pages {
		lines[i] = order(p.rows)
	}
	l.measureLines(lines)
	l.notes = noteNumbers(lines)
	x := &normalize.Extracted{}
	for i, p := range pages {
		l.writePage(x, p.number, lines[i])
	}
	l.release(x)
	return x
}

// measureLines finds the document's line pitch by font size and its
// widest line outside columns.
func (l *layout) measureLines(pages [][]line) {
	bySize := map[float64][]float64{}
	for _, lines := range pages {
		columns := columnBands(lines)
		for i, ln := range lines {
			if !columns[ln.band] && ln.cells == nil {
				l.measure = max(l.measure, ln.x1-ln.x0)
			}
			if i > 0 {
				if p, ok := pitchOf(lines[i-1], ln); ok {
					bySize[roundSize(ln.size)] = append(bySize[roundSize(ln.size)], p)
				}
			}
		}
	}
	l.pitch = map[float64]float64{}
	for s, ps := range bySize {
		l.pitch[s] = median(ps)
	}
}

// pitchOf returns the distance between lines a and b, one after the other
// in one column and font size; false for other pairs.
func pitchOf(a, b line) (float64, bool) {
	if a.band == b.band && a.col == b.col && roundSize(a.size) == roundSize(b.size) && a.cy() > b.cy() && a.cells == nil && b.cells == nil {
		return a.cy() - b.cy(), true
	}
	return 0, false
}

// columnBands reports the bands of lines set in columns.
func columnBands(lines []line) map[int]bool {
	out := map[int]bool{}
	for _, ln := range lines {
		if ln.col > 0 {
			out[ln.band] = true
		}
	}
	return out
}

// item is a block of lines (a paragraph or a heading) or a table row of a
// page.
type item struct {
	block []line
	cells []string
	lines bool // a block whose line breaks are kept: code, an address, verse
}

func (l *layout) writePage(x *normalize.Extracted, n int, lines []line) {
	items := l.items(lines)
	if len(items) == 0 {
		return // a page without text: the held paragraph may go on after it
	}
	started := false
	start := func() {
		if !started {
			l.release(x)
			x.Page(n)
			started = true
		}
	}
	inTable := false
	for i, it := range items {
		if it.cells != nil {
			start()
			x.Row(it.cells...)
			inTable = true
			continue
		}
		if inTable {
			x.EndTable()
			inTable = false
		}
		paragraph := !it.lines && l.heading(it.block) == 0
		if i == 0 && paragraph && l.continues(it.block) {
			// The paragraph that ended the last page goes on here.
			l.goOn(n, it.block)
			if i == len(items)-1 {
				return // and perhaps on the next page
			}
			continue
		}
		start()
		if i == len(items)-1 && paragraph {
			l.hold(n, it.block)
			return
		}
		l.writeBlock(x, it)
	}
	if inTable {
		x.EndTable()
	}
}

// items groups a page's lines into blocks and table rows.
//
// A block ends where the font changes (size, weight, a monospaced font),
// the column changes, the next line starts a list's item, or the gap to
// the next line is a paragraph's: wider than the page's usual line pitch,
// or, after a line the next line's first word would have fitted on (a
// break the writer made), wider than the document's line pitch in that
// font or than 1.2 em, whichever is less. A page of one-line paragraphs
// has no other pitch than theirs to go by, and was read as one paragraph.
// A break the writer made before a line set in further or less (a nested
// list's item) ends a block too.
func (l *layout) items(lines []line) []item {
	// The usual distance between the lines of a paragraph on this page.
	var pitches []float64
	for i := 1; i < len(lines); i++ {
		if p, ok := pitchOf(lines[i-1], lines[i]); ok {
			pitches = append(pitches, p)
		}
	}
	pitch := median(pitches)
	cols := columnsOf(lines)
	var out []item
	var block []line
	set := false // the block was set in or out from the one before, after a break the writer made
	flush := func() {
		if len(block) > 0 {
			out = append(out, item{block: block, lines: l.keepBreaks(block, cols, set)})
			block = nil
		}
	}
	for i, ln := range lines {
		if ln.cells != nil {
			flush()
			out = append(out, item{cells: ln.cells})
			continue
		}
		if len(block) > 0 {
			prev := lines[i-1]
			d := prev.cy() - ln.cy()
			byWriter := !prev.mono && made(prev, ln, l.column(cols, ln).x1)
			// Set in or out, not centred (a caption's lines).
			indent := byWriter && math.Abs(ln.x0-prev.x0) > emOf(ln) && math.Abs(ln.cx()-prev.cx()) > emOf(ln)
			if prev.band != ln.band || prev.col != ln.col || prev.bold != ln.bold || prev.mono != ln.mono ||
				math.Abs(prev.size-ln.size) > 0.1*max(prev.size, ln.size) ||
				d <= 0 || (pitch > 0 && d > 1.4*pitch) || (l.heading(block) > 0 && !startsLower(ln.text)) ||
				listItem(block[0].text) && listItem(ln.text) ||
				byWriter && d > 1.4*l.linePitch(ln) || indent {
				flush()
				set = indent
			}
		} else {
			set = false
		}
		block = append(block, ln)
	}
	flush()
	return out
}

// colKey names a column of a page: its band and its index in the band.
type colKey struct{ band, col int }

// columnsOf returns the extent of each column of a page's lines.
func columnsOf(lines []line) map[colKey]box {
	out := map[colKey]box{}
	for _, ln := range lines {
		k := colKey{ln.band, ln.col}
		if b, ok := out[k]; ok {
			b.add(ln.box)
			out[k] = b
		} else {
			out[k] = ln.box
		}
	}
	return out
}

// emOf returns the font size of ln on the page, in points.
func emOf(ln line) float64 {
	if ln.em > 0 {
		return ln.em
	}
	return ln.h()
}

// linePitch returns the distance between the lines of a paragraph set in
// ln's font: the document's usual pitch in that size, at most 1.2 em.
func (l *layout) linePitch(ln line) float64 {
	p := 1.2 * emOf(ln)
	if dp := l.pitch[roundSize(ln.size)]; dp > 0 {
		p = min(p, dp)
	}
	return p
}

// made reports whether the break between the lines a and b was made by
// the writer, not by the line's end: b's first word would have fitted at
// the end of a, before right, with half an em to spare. A line that ends
// in a hyphen was broken inside a word.
func made(a, b line, right float64) bool {
	if strings.TrimSpace(a.text) == "" || hyphenated(a.text) {
		return false
	}
	text := strings.TrimSpace(b.text)
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return false
	}
	first, _, _ := strings.Cut(text, " ")
	w := (b.x1 - b.x0) * float64(utf8.RuneCountInString(first)) / float64(n)
	e := emOf(b)
	return a.x1+0.25*e+w < right-0.5*e
}

// hyphenated reports whether a line ends in a hyphen: a word broken there.
func hyphenated(text string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(text))
	return r == '-' || r == '\u00ad' || r == '\u2010'
}

// maxShortLine is the widest a line of an address or of verse is, as a
// share of the text's width.
const maxShortLine = 0.6

// keepBreaks reports whether block's line breaks are kept (written by
// [normalize.Extracted.Lines]): code (every line in a monospaced font), or
// an address, verse, or the items of a list without markers: lines short
// beside the text's width, none ending in a hyphen, each starting with a
// capital, a digit or a sign, or else after a break the writer made
// ([made]): a narrow paragraph's lines go on with a small letter after a
// break the line's end made. A block set in or out from the one before
// (set: the items of a nested list) may start its lines with small
// letters.
func (l *layout) keepBreaks(block []line, cols map[colKey]box, set bool) bool {
	if len(block) < 2 || listItem(block[0].text) {
		return false
	}
	mono := true
	right := block[0].x1
	for _, ln := range block {
		mono = mono && ln.mono
		right = max(right, ln.x1)
	}
	if mono {
		return true
	}
	c := l.column(cols, block[0])
	width := c.x1 - c.x0
	for i, ln := range block {
		if ln.x1-ln.x0 > maxShortLine*width {
			return false
		}
		if i > 0 && (hyphenated(block[i-1].text) || !set && startsLower(ln.text) && !made(block[i-1], ln, right)) {
			return false
		}
	}
	return true
}

// column returns the extent of ln's column on its page: where its lines
// are, and outside columns at least as wide as the document's widest line
// (a page of short lines is no narrower than the others).
func (l *layout) column(cols map[colKey]box, ln line) box {
	c := cols[colKey{ln.band, ln.col}]
	if _, split := cols[colKey{ln.band, 1}]; !split {
		c.x1 = max(c.x1, c.x0+l.measure)
	}
	return c
}

// startsLower reports whether text starts with a small letter: a line of
// a heading's size that does goes on with it (a heading of two lines, or a
// sentence of a larger print, which is then no heading).
func startsLower(text string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(text))
	return unicode.IsLower(r)
}

// listMarker matches the start of a list item: a number or a small letter
// followed by a period or a parenthesis, or a bullet, then a space. A
// capital and a period is an initial more often ("A. Smith and\nC. Brown").
var listMarker = regexp.MustCompile(`^(?:[0-9]{1,3}[.)]|[a-z][.)]|[A-Z]\)|[•◦▪‣●○■□·–—*-])\s`)

// listItem reports whether a line starts as a list item does. A line that
// does, in a block whose first line does too, starts the next item: a
// list's items are set as close as a paragraph's lines, and "1. Request
// clearance. 2. Single up lines." came out as one paragraph. A paragraph's
// line that only happens to start with "2. " goes on.
func listItem(text string) bool {
	return listMarker.MatchString(strings.TrimSpace(text))
}

// hold keeps the paragraph b, the last of page n, unwritten until the next
// page is read.
func (l *layout) hold(n int, b []line) {
	l.held = &heldParagraph{parts: []normalize.PagePart{{Page: n, Text: l.join(texts(b))}}, last: b[len(b)-1]}
}

// continues reports whether the paragraph b, the first of its page, goes
// on with the held paragraph of the page before: it is set in the same
// font, and either starts with a small letter or the held paragraph ends
// without ending a sentence.
func (l *layout) continues(b []line) bool {
	h := l.held
	if h == nil {
		return false
	}
	first := b[0]
	if roundSize(first.size) != roundSize(h.last.size) || first.bold != h.last.bold {
		return false
	}
	if listItem(h.parts[0].Text) && listItem(first.text) {
		return false // the next item of a list
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(first.text))
	if unicode.IsLower(r) {
		return true
	}
	end := strings.TrimRightFunc(h.parts[len(h.parts)-1].Text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'”’»)]", r)
	})
	last, _ := utf8.DecodeLastRuneInString(end)
	return last != utf8.RuneError && !strings.ContainsRune(".!?:;…", last)
}

// goOn adds the paragraph b of page n to the held paragraph, joining a
// word hyphenated at the foot of the page before again as [layout.join]
// does inside a page.
func (l *layout) goOn(n int, b []line) {
	h := l.held
	prev := &h.parts[len(h.parts)-1]
	text := l.join(texts(b))
	joined := l.join([]string{prev.Text, text})
	space := true
	if before, ok := strings.CutSuffix(joined, text); ok {
		before, space = strings.CutSuffix(before, " ")
		prev.Text = before
	}
	h.parts = append(h.parts, normalize.PagePart{Page: n, Text: text, Space: space})
	h.last = b[len(b)-1]
}

// release writes the held paragraph, if any, on the pages it is on.
func (l *layout) release(x *normalize.Extracted) {
	if l.held != nil {
		x.ParagraphAcross(l.held.parts...)
		l.held = nil
	}
}

func texts(b []line) []string {
	out := make([]string, len(b))
	for i, ln := range b {
		out[i] = ln.text
	}
	return out
}

// heading returns the level of the heading block b is, or 0.
func (l *layout) heading(b []line) int {
	if len(b) > 3 {
		return 0
	}
	texts := make([]string, len(b))
	for i, ln := range b {
		texts[i] = ln.text
	}
	text := strings.Join(texts, " ")
	if len(text) > 200 {
		return 0
	}
	if l.outline != nil {
		m := l.marker(b)
		if lv, ok := l.outline[titleKey(text)]; ok || m == 0 {
			return lv
		}
		// The outline names the heading without its footnote's marker.
		return l.outline[titleKey(strings.TrimSpace(text[:len(text)-m]))]
	}
	if strings.HasSuffix(strings.TrimRight(text, `"'’”)]`), ".") && len(strings.Fields(text)) >= minSentenceWords {
		// A sentence in a larger font (a pull quote; a scanned page
		// of larger print than the pages with text) is no heading.
		return 0
	}
	size := roundSize(b[0].size)
	if lv, ok := l.levels[size]; ok {
		return min(lv, 6)
	}
	if b[0].bold && len(b) == 1 && len(text) < 100 && !strings.HasSuffix(text, ".") && size >= l.body {
		return min(l.deepest+1, 6)
	}
	return 0
}

// marker returns the bytes at the end of the heading block b that are a
// footnote's marker, or 0. A raised number at a heading's end is one when
// a line of the document starts with it (the note, at the page's foot or
// the document's end) and it does not raise a unit or a variable: an
// exponent follows a digit, a bracket or a word of one or two small
// letters ("m²", "cm³", "E = mc²", "10⁶", "(a+b)²"), where a marker follows
// a word ("lights¹") or a space. A raised number without a note is an
// exponent too ("Lamp hours⁴" stays whole in the heading's path).
func (l *layout) marker(b []line) int {
	last := b[len(b)-1]
	if last.sup <= 0 || last.sup >= len(last.text) {
		return 0
	}
	body, m := last.text[:len(last.text)-last.sup], strings.TrimSpace(last.text[len(last.text)-last.sup:])
	if !l.notes[m] {
		return 0
	}
	if r, _ := utf8.DecodeLastRuneInString(body); unicode.IsDigit(r) || strings.ContainsRune(")]}", r) {
		return 0
	}
	if w := lastWord(body); w != "" && len(w) <= 2 && strings.ToLower(w) == w {
		return 0
	}
	return last.sup
}

// noteStart matches a number that starts a note: "1 Listed…", "1. Kept…".
var noteStart = regexp.MustCompile(`^([0-9]{1,3})[.)]?\s+\S`)

// noteNumbers returns the numbers that start a line of pages.
func noteNumbers(pages [][]line) map[string]bool {
	notes := map[string]bool{}
	for _, lines := range pages {
		for _, ln := range lines {
			if m := noteStart.FindStringSubmatch(strings.TrimSpace(ln.text)); m != nil {
				notes[m[1]] = true
			}
		}
	}
	return notes
}

// minSentenceWords is the fewest words of a block ending in a period that
// is a sentence, not a heading, whatever its size.
const minSentenceWords = 8

func (l *layout) writeBlock(x *normalize.Extracted, it item) {
	b := it.block
	if lv := l.heading(b); lv > 0 {
		text := l.join(texts(b))
		var notes [][2]int
		if m, last := l.marker(b), b[len(b)-1]; m > 0 && strings.HasSuffix(text, last.text[len(last.text)-m:]) {
			notes = [][2]int{{len(text) - m, len(text)}}
		}
		x.HeadingNotes(lv, text, notes)
		return
	}
	if it.lines {
		x.Lines(strings.Join(texts(b), "\n"))
		return
	}
	x.Paragraph(l.join(texts(b)))
}

// join joins the lines of a paragraph, joining again a word hyphenated at
// the end of a line: a soft or typographic hyphen (U+00AD, U+2010: what a
// typesetter's hyphenation draws) is dropped; a hyphen-minus is dropped
// only when the document uses the word without it, so "well-known" stays.
// A line that ends in an en or em dash attached to the word before it was
// broken after the dash ("24–" "10" is "24–10"): no space is added.
func (l *layout) join(lines []string) string {
	var sb strings.Builder
	for _, t := range lines {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if sb.Len() > 0 {
			s := sb.String()
			last, n := utf8.DecodeLastRuneInString(s)
			first, _ := utf8.DecodeRuneInString(t)
			before := lastWord(s[:len(s)-n])
			switch {
			case last == '\u00ad' && before != "" && unicode.IsLetter(first):
				sb.Reset()
				sb.WriteString(strings.TrimRight(s, "\u00ad"))
			case (last == '-' && unicode.IsLower(first) || last == '\u2010' && unicode.IsLetter(first)) && before != "":
				if l.hyphenated(before, firstWord(t)) {
					sb.Reset()
					sb.WriteString(strings.TrimRight(s[:len(s)-n], "\u00ad"))
				}
			case last == '-' && before != "" && unicode.IsUpper(first):
				// "Anglo-" then "Saxon": a compound, hyphen kept.
			case (last == '\u2013' || last == '\u2014') && attached(s[:len(s)-n]) && !unicode.IsSpace(first):
				// A line broken after a dash inside "12–4" or "word—word":
				// no space was there.
			default:
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(t)
	}
	return strings.ReplaceAll(sb.String(), "\u00ad", "")
}

// hyphenated reports whether a and b, the letters before a hyphen at a
// line's end and after it, are one word hyphenated rather than a compound:
// the document uses a+b whole, or does not use both a and b as words
// ("infor-mation"; "well-known" and "co-operate" keep their hyphen). A
// hyphen-minus at a line's end is a hyphenation point in TeX's output and
// in OCR, and pdfium marks every one at a line's end as such (U+0002), a
// compound's too: "well-known" read "wellknown".
func (l *layout) hyphenated(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return l.words[a+b] || !(l.words[a] && l.words[b])
}

// endsInHyphen reports whether s ends in a hyphen after a letter.
func endsInHyphen(s string) bool {
	s = strings.TrimRight(strings.TrimSpace(s), "\u00ad")
	last, n := utf8.DecodeLastRuneInString(s)
	if last != '-' && last != '\u2010' {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:len(s)-n])
	return unicode.IsLetter(before)
}

// attached reports whether s ends in a character that is not a space: a
// dash written after it is attached to it.
func attached(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r != utf8.RuneError && !unicode.IsSpace(r)
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	return s[i+1:]
}

func firstWord(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if i < 0 {
		return s
	}
	return s[:i]
}
