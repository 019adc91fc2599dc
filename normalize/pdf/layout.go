package pdf

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/textdist"
	"github.com/klippa-app/go-pdfium/responses"
)

// A PDF page is read as words (characters close together on one line),
// rows (words on one baseline), segments (the parts of a row separated by
// a gap wider than a word space: columns or table cells) and lines (the
// segments in reading order). Only the lines of a page are kept once it is
// read; its characters are dropped.

type box struct{ x0, x1, y0, y1 float64 } // PDF space: y grows upwards

func (b box) h() float64  { return b.y1 - b.y0 }
func (b box) cy() float64 { return (b.y0 + b.y1) / 2 }
func (b box) cx() float64 { return (b.x0 + b.x1) / 2 }

func (b *box) add(o box) {
	b.x0, b.x1 = min(b.x0, o.x0), max(b.x1, o.x1)
	b.y0, b.y1 = min(b.y0, o.y0), max(b.y1, o.y1)
}

type word struct {
	box
	text    string
	size    float64
	bold    bool
	mono    bool    // every character in a monospaced font
	em      float64 // the size of its font on the page, in points
	spacing float64 // its letter spacing, in points, where pdfium's spaces inside it were dropped
	lead    lead    // the space glyph drawn before it, if it was the only character between it and the word before
	sup     int     // bytes at the end of text that are a superscript marker (a footnote's "1")
}

// lead is the space between two words: the advance of a space glyph the PDF
// draws there, or the character cell of a monospaced font that the words'
// advances leave empty; and the size of its font. A gap one space fills is
// a word space, however wide: a monospaced font's space is 0.6 em, more
// than twice a proportional font's, and inline code in a paragraph ("go
// run ./cmd") was cut into table cells. Producers draw no glyph between a
// table's cells or a page's columns, where pdfium makes up a space without
// width, and the gap there is one character's advance only by chance.
type lead struct {
	x0, x1, em float64
}

// fills reports whether l, drawn between the words a and b, fills the gap
// between their ink, the side bearings of the glyphs beside it aside.
func (l lead) fills(a, b word) bool {
	if l.x1 <= l.x0 {
		return false
	}
	slack := 0.2 * l.em
	return l.x0 >= a.x1-slack && l.x1 <= b.x0+slack && (b.x0-a.x1)-(l.x1-l.x0) <= 2*slack
}

// seg is a piece of a row: a column's line, or a table cell.
type seg struct {
	box
	text string
	size float64
	bold bool
	mono bool    // all its words in a monospaced font (code)
	em   float64 // its largest font size on the page, in points
	sup  int     // bytes at the end of text that are a superscript marker, see [word]
}

type row struct {
	box
	segs []seg
}

type page struct {
	number int
	rows   []row // top to bottom
}

// fold replaces ligatures by their letters, and pdfium's mark of a hyphen
// at a line's end (U+0002) by the hyphen-minus it stands for: whether it
// hyphenates a word is [layout.join]'s to say.
var fold = strings.NewReplacer("ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st", "\u0002", "-")

// spacing corrects pdfium's word spaces on a page: missing holds the
// indexes of characters that start a word though pdfium put no space
// before them ([missingSpaces]); spurious the spaces pdfium generated
// inside letter-spaced words, each with the spacing of the letters beside
// it in points ([spuriousSpaces]).
type spacing struct {
	missing  map[int]bool
	spurious map[int]float64
	cells    map[int]lead // generated spaces that leave one character cell of a monospaced font empty ([cellSpaces])
}

// minWordHeight is the height, in ems, a word's ink is taken to have at
// least when the gap to its next character is weighed: about the height
// of capitals and digits. Hyphens and periods are far lower, and "--",
// "../" and "---" in a monospaced font came out "- -", ". ./" and "- - -".
const minWordHeight = 0.7

// layoutPage turns a page's characters into rows, with sp's corrections
// of pdfium's spaces.
func layoutPage(n int, chars []*responses.GetPageTextStructuredChar, sp spacing) *page {
	p := &page{number: n}
	var words []word
	var cur word
	var sb strings.Builder
	var tail strings.Builder // the word's superscript marker so far
	baseEm := 0.0            // the size of the word's characters but its marker's
	joined := false          // the last character was a spurious space, skipped
	// The space glyph drawn since the last character written, and how
	// many characters other than ink came since.
	var space lead
	between := 0
	flush := func() {
		if sb.Len() > 0 {
			cur.text = fold.Replace(sb.String())
			if t := fold.Replace(tail.String()); t != "" && len(t) < len(cur.text) && strings.HasSuffix(cur.text, t) {
				cur.sup = len(t)
			}
			words = append(words, cur)
		}
		sb.Reset()
		tail.Reset()
		cur = word{}
	}
	for i, c := range chars {
		if sp.missing[i] {
			flush()
		}
		if ls, ok := sp.spurious[i]; ok && sb.Len() > 0 {
			cur.spacing = max(cur.spacing, ls)
			joined = true
			continue
		}
		r, _ := utf8.DecodeRuneInString(c.Text)
		pos := c.PointPosition
		b := box{pos.Left, pos.Right, pos.Bottom, pos.Top}
		if c.Text == "" || (r != 2 && (unicode.IsSpace(r) || unicode.IsControl(r))) || r == 0xfffe || b.x1 <= b.x0 {
			flush()
			between++
			if c.Text == " " && b.x1 > b.x0 {
				space = lead{b.x0, b.x1, em(c)}
			} else if l, ok := sp.cells[i]; ok {
				space = l
			}
			continue
		}
		size, bold := 0.0, false
		if f := c.FontInformation; f != nil {
			size = f.Size
			bold = f.Weight >= 600 || strings.Contains(strings.ToLower(f.Name), "bold")
		}
		if sb.Len() > 0 {
			// The gap is measured against the height of a line's
			// letters: a word of small signs ("--", "..") has ink only
			// a fraction of that high, and in a monospaced font the
			// gap between two of them is most of a character's width.
			h := max(cur.h(), b.h(), minWordHeight*em(c))
			overlap := min(cur.y1, b.y1) - max(cur.y0, b.y0)
			gap := b.x0 - cur.x1
			// Words end at pdfium's spaces; a wide gap with no space
			// (columns, table cells) ends one too, unless the gap is
			// a letter spacing found wider than most.
			if overlap <= 0 || (gap > 0.8*h && !joined) || b.x0 < cur.x0-0.5*h {
				flush()
			}
		}
		if sb.Len() == 0 {
			cur = word{box: b, size: size, bold: bold, mono: monospaced(c), em: em(c)}
			baseEm = em(c)
			if between == 1 {
				cur.lead = space
			}
		} else {
			if superscript(r, em(c), b, baseEm, cur.box) {
				tail.WriteString(c.Text)
			} else {
				tail.Reset()
				baseEm = max(baseEm, em(c))
			}
			cur.add(b)
			cur.bold = cur.bold && bold
			cur.mono = cur.mono && monospaced(c)
		}
		sb.WriteString(c.Text)
		joined = false
		space, between = lead{}, 0
	}
	flush()
	p.rows = makeRows(words)
	return p
}

// Missing spaces. Some producers draw no space glyph between words
// (Chromium's Skia among them); pdfium then puts a space where the gap
// between two characters is wide enough, but a kerned space (a capital A
// before a space is kerned in most fonts) can fall short of its threshold,
// and "NASA Administrator" came out "NASAAdministrator". The characters'
// boxes cannot tell: they are the glyphs' ink, and the ink gaps inside a
// word (side bearings) are as wide as such a space. Their loose boxes
// (pdfium's, from the glyphs' advance widths) can: inside a word one
// glyph's advance ends where the next begins (kerning makes them overlap),
// and a word space leaves about a quarter of an em between them. So where
// the ink gap between two characters with nothing between them could hide a
// space, their loose boxes are read, and a word starts where the advance gap
// is a space's and wider than the gaps beside it: justified text widens
// only its spaces, which pdfium reports, and letter-spaced text widens
// every gap alike, which splits no word.

// Thresholds of [missingSpaces], in ems.
const (
	candidateGap = 0.1  // ink gap from which a pair of characters is checked
	minSpace     = 0.1  // advance gap from which it may be a space
	spaceMargin  = 0.08 // by which it is wider than the gaps beside it
)

// superscript reports whether a character r of size size in box b is a
// footnote's superscript marker after characters of size base in box w: a
// digit or a reference sign, in a smaller font (chromium sets <sup> at
// 83%), raised by a quarter of an em at least.
func superscript(r rune, size float64, b box, base float64, w box) bool {
	return markerText(string(r)) && base > 0 && size <= 0.9*base && b.y0 >= w.y0+0.25*base
}

// markerText reports whether t is digits and reference signs only.
func markerText(t string) bool {
	return t != "" && strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && !strings.ContainsRune("*†‡§¶", r) }) < 0
}

// em returns the size of c's font on the page, in points.
func em(c *responses.GetPageTextStructuredChar) float64 {
	if f := c.FontInformation; f != nil {
		if f.RenderedSize > 0 {
			return f.RenderedSize
		}
		if f.Size > 0 {
			return f.Size
		}
	}
	return c.PointPosition.Top - c.PointPosition.Bottom
}

// inkChar reports whether c is a character drawn on a horizontal line.
func inkChar(c *responses.GetPageTextStructuredChar) bool {
	r, _ := utf8.DecodeRuneInString(c.Text)
	return c.Text != "" && !unicode.IsSpace(r) && !unicode.IsControl(r) && r != 0xfffe && c.Angle == 0 &&
		c.PointPosition.Right > c.PointPosition.Left
}

// adjacent reports whether chars i-1 and i are drawn one after the other
// on one line, nothing between them.
func adjacent(chars []*responses.GetPageTextStructuredChar, i int) bool {
	if i <= 0 || i >= len(chars) || !inkChar(chars[i-1]) || !inkChar(chars[i]) {
		return false
	}
	a, b := chars[i-1].PointPosition, chars[i].PointPosition
	return min(a.Top, b.Top) > max(a.Bottom, b.Bottom) && b.Left > a.Left
}

// spaceCandidates returns the indexes i of characters whose ink gap to
// character i-1 could hide a word space.
func spaceCandidates(chars []*responses.GetPageTextStructuredChar) []int {
	var out []int
	for i := 1; i < len(chars); i++ {
		if adjacent(chars, i) && chars[i].PointPosition.Left-chars[i-1].PointPosition.Right > candidateGap*em(chars[i]) {
			out = append(out, i)
		}
	}
	return out
}

// missingSpaces returns the candidates (see [spaceCandidates]) before which
// a word starts, given the characters' loose boxes' left and right edges
// and the spaces found spurious ([spuriousSpaces]), which join the letters
// beside them.
func missingSpaces(chars []*responses.GetPageTextStructuredChar, candidates []int, loose func(i int) (x0, x1 float64, ok bool), spurious map[int]float64) map[int]bool {
	// gap is the advance gap between chars a and b; 0 when either is
	// missing (-1).
	gap := func(a, b int) (float64, bool) {
		if a < 0 || b < 0 {
			return 0, true
		}
		_, a1, ok1 := loose(a)
		b0, _, ok2 := loose(b)
		return b0 - a1, ok1 && ok2
	}
	// prev and next are the letters before and after chars[i] in its
	// word as far as pdfium's spaces go: adjacent, or across a spurious
	// space; -1 when there is none.
	prev := func(i int) int {
		if adjacent(chars, i) {
			return i - 1
		}
		if _, ok := spurious[i-1]; ok {
			return i - 2
		}
		return -1
	}
	next := func(i int) int {
		if adjacent(chars, i+1) {
			return i + 1
		}
		if _, ok := spurious[i+1]; ok {
			return i + 2
		}
		return -1
	}
	// nearby is the letter spacing found by spuriousSpaces within a few
	// characters of chars[i] on its line, or 0: the spacing of a
	// two-letter word, which has no gaps of its own beside.
	nearby := func(i int) float64 {
		for d := 1; d <= 8; d++ {
			for _, j := range [2]int{i - d, i + d} {
				if ls, ok := spurious[j]; ok && sameLine(chars[j-1], chars[i]) {
					return ls
				}
			}
		}
		return 0
	}
	var out map[int]bool
	for _, i := range candidates {
		g, ok := gap(i-1, i)
		before, ok1 := gap(prev(i-1), i-1)
		after, ok2 := gap(i, next(i))
		if prev(i-1) < 0 && next(i) < 0 {
			before = nearby(i)
		}
		if ok && ok1 && ok2 && spaceBefore(g, before, after, em(chars[i])) {
			if out == nil {
				out = map[int]bool{}
			}
			out[i] = true
		}
	}
	return out
}

// spaceBefore decides from the advance gap between two characters, the
// gaps before and after them and the font size whether a word space lies
// between them.
func spaceBefore(gap, before, after, em float64) bool {
	return gap > minSpace*em && gap > max(before, after, 0)+spaceMargin*em
}

// Spurious spaces. Letter spacing (CSS letter-spacing, a PDF's Tc) widens
// the gap after every character. Where the producer drew no space glyphs
// pdfium generates a space wherever a gap looks wide to it, and in
// letter-spaced text that is at many of the letters: a heading set 0.3 em
// apart came out "Q u a r t e r l y R e p o r t". A generated space is the
// letters' spacing, not a word's, when its advance gap (loose boxes, as for
// missing spaces) is no wider than the narrower of the gaps beside it (to
// the letter before the one before it and after the one after it) by
// spaceMargin, and those gaps are a letter spacing themselves (from
// minSpace): a word space in letter-spaced text is a space's width wider
// than the spacing, and text set without spacing has none of its spaces
// checked. A one-letter word keeps its spaces: one of its gaps is a word
// space, and the narrower one is compared.

// generatedSpace reports whether c is a space pdfium made up: no glyph
// drawn, so no width.
func generatedSpace(c *responses.GetPageTextStructuredChar) bool {
	return c.Text == " " && c.PointPosition.Right <= c.PointPosition.Left
}

// inkBefore returns the ink character before chars[i] on its line, across
// one generated space, or -1.
func inkBefore(chars []*responses.GetPageTextStructuredChar, i int) int {
	j := i - 1
	if j >= 0 && generatedSpace(chars[j]) {
		j--
	}
	if j < 0 || !level(chars[j], chars[i]) {
		return -1
	}
	return j
}

// inkAfter returns the ink character after chars[i] on its line, across
// one generated space, or -1.
func inkAfter(chars []*responses.GetPageTextStructuredChar, i int) int {
	j := i + 1
	if j < len(chars) && generatedSpace(chars[j]) {
		j++
	}
	if j >= len(chars) || !level(chars[i], chars[j]) {
		return -1
	}
	return j
}

// sameLine reports whether a and b are drawn level with each other.
func sameLine(a, b *responses.GetPageTextStructuredChar) bool {
	p, q := a.PointPosition, b.PointPosition
	return min(p.Top, q.Top) > max(p.Bottom, q.Bottom)
}

// level reports whether b is an ink character drawn after ink character a
// on a's line.
func level(a, b *responses.GetPageTextStructuredChar) bool {
	if !inkChar(a) || !inkChar(b) {
		return false
	}
	return sameLine(a, b) && b.PointPosition.Left > a.PointPosition.Left
}

// generatedCandidates returns the indexes of the spaces pdfium generated
// between two letters whose ink gaps beside could be a letter spacing: the
// few spaces [spuriousSpaces] reads loose boxes for.
func generatedCandidates(chars []*responses.GetPageTextStructuredChar) []int {
	var out []int
	for i := 1; i+1 < len(chars); i++ {
		if !generatedSpace(chars[i]) || !level(chars[i-1], chars[i+1]) {
			continue
		}
		p, n := i-1, i+1
		e := em(chars[n])
		spaced := func(a, b int) bool {
			return a >= 0 && b >= 0 && chars[b].PointPosition.Left-chars[a].PointPosition.Right > candidateGap*e
		}
		pp, nn := inkBefore(chars, p), inkAfter(chars, n)
		if (pp < 0 || spaced(pp, p)) && (nn < 0 || spaced(n, nn)) && (pp >= 0 || nn >= 0) {
			out = append(out, i)
		}
	}
	return out
}

// spuriousSpaces returns the candidates (see [generatedCandidates]) that
// are letter spacing, not word spaces, each with the letters' spacing,
// given the characters' loose boxes' left and right edges.
func spuriousSpaces(chars []*responses.GetPageTextStructuredChar, candidates []int, loose func(i int) (x0, x1 float64, ok bool)) map[int]float64 {
	gap := func(a, b int) (float64, bool) {
		if a < 0 || b < 0 {
			return math.Inf(1), true
		}
		_, a1, ok1 := loose(a)
		b0, _, ok2 := loose(b)
		return b0 - a1, ok1 && ok2
	}
	var out map[int]float64
	for _, i := range candidates {
		p, n := i-1, i+1
		g, ok := gap(p, n)
		before, ok1 := gap(inkBefore(chars, p), p)
		after, ok2 := gap(n, inkAfter(chars, n))
		// The narrower gap beside is the letters' spacing (a period
		// after a letter is often kerned closer); the wider one says
		// the text is letter-spaced at all.
		letters, wide := min(before, after), max(before, after)
		if math.IsInf(wide, 1) {
			wide = letters
		}
		e := em(chars[n])
		if ok && ok1 && ok2 && !math.IsInf(letters, 1) && (letter(chars[p]) && letter(chars[n]) || alnum(chars[p]) && closing(chars[n])) &&
			wide > minSpace*e && g <= max(letters, 0)+spaceMargin*e {
			if out == nil {
				out = map[int]float64{}
			}
			out[i] = max(letters, 0)
		}
	}
	return out
}

// fixedPitch reports whether c is drawn in a monospaced font (the
// FixedPitch flag of its font descriptor).
func fixedPitch(c *responses.GetPageTextStructuredChar) bool {
	return c.FontInformation != nil && c.FontInformation.Flags&1 != 0
}

// monoName matches the names of monospaced fonts whose descriptor leaves
// out the FixedPitch flag (TeX's cmtt, the URW and Courier fonts of
// DocBook and Office PDFs).
var monoName = regexp.MustCompile(`(?i)mono|nimbusmon|courier|cousine|consol|menlo|typewriter|code|^(cm|ec|lm|t1)?(sl)?tt[0-9]|^rm?tt`)

// monospaced reports whether c is drawn in a monospaced font: flagged so,
// or named so.
func monospaced(c *responses.GetPageTextStructuredChar) bool {
	if fixedPitch(c) {
		return true
	}
	if c.FontInformation == nil {
		return false
	}
	name := c.FontInformation.Name
	if _, after, ok := strings.Cut(name, "+"); ok {
		name = after
	}
	return monoName.MatchString(name)
}

// cellCandidates returns the indexes of the spaces pdfium generated
// between two characters of one monospaced font on a line: the spaces
// [cellSpaces] reads loose boxes for.
func cellCandidates(chars []*responses.GetPageTextStructuredChar) []int {
	var out []int
	for i := 1; i+1 < len(chars); i++ {
		p, n := chars[i-1], chars[i+1]
		if generatedSpace(chars[i]) && level(p, n) && fixedPitch(p) && fixedPitch(n) &&
			p.FontInformation.Name == n.FontInformation.Name && em(p) == em(n) {
			out = append(out, i)
		}
	}
	return out
}

// cellSpaces returns the candidates (see [cellCandidates]) where the
// advance gap between the characters beside is one character's advance,
// as the space between two words of code is, each as the lead of the word
// after it; given the characters' loose boxes' left and right edges.
func cellSpaces(chars []*responses.GetPageTextStructuredChar, candidates []int, loose func(i int) (x0, x1 float64, ok bool)) map[int]lead {
	var out map[int]lead
	for _, i := range candidates {
		a0, a1, ok1 := loose(i - 1)
		b0, b1, ok2 := loose(i + 1)
		e := em(chars[i+1])
		if !ok1 || !ok2 || a1 <= a0 {
			continue
		}
		advance := a1 - a0
		if math.Abs((b0-a1)-advance) <= 0.05*e && math.Abs((b1-b0)-advance) <= 0.05*e {
			if out == nil {
				out = map[int]lead{}
			}
			out[i] = lead{a1, b0, e}
		}
	}
	return out
}

// letter reports whether c is a letter: letter spacing is looked for
// between letters, and before closing punctuation, only, so that digits
// and signs set apart ("1 2 3", "x = a + b") keep their spaces.
func letter(c *responses.GetPageTextStructuredChar) bool {
	r, _ := utf8.DecodeRuneInString(c.Text)
	return unicode.IsLetter(r)
}

// alnum reports whether c is a letter or a digit.
func alnum(c *responses.GetPageTextStructuredChar) bool {
	r, _ := utf8.DecodeRuneInString(c.Text)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// closing reports whether c is punctuation that ends a word or sentence.
func closing(c *responses.GetPageTextStructuredChar) bool {
	return len(c.Text) > 0 && strings.ContainsAny(c.Text[:1], ".,;:!?)]}'") || c.Text == "’" || c.Text == "”"
}

// makeRows groups words into rows, top to bottom, and splits each row into
// segments at gaps wider than a word space.
func makeRows(words []word) []row {
	if len(words) == 0 {
		return nil
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].cy() > words[j].cy() })
	var rows [][]word
	var rowBox []box
	for _, w := range words {
		if k := len(rows) - 1; k >= 0 {
			rb := rowBox[k]
			// On the row when most of the word, or of the row, is level
			// with the other: a comma sits low, a capital stands high.
			if overlap := min(rb.y1, w.y1) - max(rb.y0, w.y0); overlap > 0.5*min(rb.h(), w.h()) && math.Abs(rb.cy()-w.cy()) < 0.5*max(rb.h(), w.h()) {
				rows[k] = append(rows[k], w)
				if w.h() > 0.5*rb.h() {
					rowBox[k].add(w.box)
				}
				continue
			}
		}
		rows = append(rows, []word{w})
		rowBox = append(rowBox, w.box)
	}
	// The page's word space: a low quantile of the gaps between words of
	// a row (justified lines stretch theirs).
	var gaps []float64
	for _, r := range rows {
		slices.SortFunc(r, func(a, b word) int { return cmpFloat(a.x0, b.x0) })
		for i := 1; i < len(r); i++ {
			if g := r[i].x0 - r[i-1].x1; g > 0 {
				gaps = append(gaps, g)
			}
		}
	}
	space := quantile(gaps, 0.25)
	out := make([]row, 0, len(rows))
	for _, r := range rows {
		// A letter-spaced row's word spaces are wider by its spacing
		// on either side.
		var spacing float64
		for _, w := range r {
			spacing = max(spacing, w.spacing)
		}
		var rw row
		var s seg
		var sb strings.Builder
		end := func() {
			s.text = sb.String()
			rw.segs = append(rw.segs, s)
			sb.Reset()
		}
		for i, w := range r {
			if i > 0 {
				gap := w.x0 - r[i-1].x1
				if gap > max(0.7*min(w.h(), r[i-1].h()), 1.8*space)+2*spacing && !w.lead.fills(r[i-1], w) {
					end()
				} else {
					sb.WriteByte(' ')
					s.add(w.box)
					s.bold = s.bold && w.bold
					s.mono = s.mono && w.mono
					s.size = max(s.size, w.size)
					s.em = max(s.em, w.em)
					s.sup = w.sup
					if p := r[i-1]; w.sup == 0 && markerText(w.text) && w.em <= 0.9*p.em && w.y0 >= p.y0+0.25*p.em {
						s.sup = len(w.text) + 1 // a marker of its own, after a space
					}
					sb.WriteString(w.text)
					continue
				}
			}
			s = seg{box: w.box, size: w.size, bold: w.bold, mono: w.mono, em: w.em, sup: w.sup}
			sb.WriteString(w.text)
		}
		end()
		rw.box = rw.segs[0].box
		for _, s := range rw.segs[1:] {
			rw.box.add(s.box)
		}
		out = append(out, rw)
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func median(v []float64) float64 { return quantile(v, 0.5) }

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[int(q*float64(len(v)-1))]
}

// line is a segment in reading order, with the block structure around it.
type line struct {
	seg
	band  int // lines of a band of columns share it; a column change starts a block
	col   int
	cells []string // a table row's cells
}

// join adds s, the next segment of l's row, to l.
func (l *line) join(s seg) {
	l.text += " " + s.text
	l.sup = s.sup
	l.box.add(s.box)
	l.mono = l.mono && s.mono
	l.em = max(l.em, s.em)
}

// order puts a page's segments in reading order: a band of rows set in
// columns is read column by column; a row that crosses the columns' gutter
// ends the band, as does a table (rows of cells that line up).
func order(rows []row) []line {
	gutters := findGutters(rows)
	table := findTables(rows, gutters)
	var out []line
	band := 0
	inColumns := false
	i := 0
	for i < len(rows) {
		if len(gutters) > 0 && !table[i] && fits(rows[i], gutters) {
			j := i
			for j < len(rows) && !table[j] && fits(rows[j], gutters) {
				j++
			}
			band++
			inColumns = true
			for c := 0; c <= len(gutters); c++ {
				for _, r := range rows[i:j] {
					// The pieces of a column's line (split at a justified
					// line's wide spaces) are one line again.
					var l *line
					for _, s := range r.segs {
						if column(s, gutters) != c {
							continue
						}
						if l == nil {
							out = append(out, line{seg: s, band: band, col: c})
							l = &out[len(out)-1]
						} else {
							l.join(s)
						}
					}
				}
			}
			i = j
			continue
		}
		if i == 0 || inColumns || table[i] != table[i-1] {
			band++
		}
		inColumns = false
		r := rows[i]
		l := line{seg: r.segs[0], band: band}
		if table[i] {
			for _, s := range r.segs {
				l.cells = append(l.cells, s.text)
				l.box.add(s.box)
			}
		} else {
			for _, s := range r.segs[1:] {
				l.join(s)
			}
		}
		out = append(out, l)
		i++
	}
	return out
}

// findTables marks the rows of tables: two or more rows in a row whose
// cells (segments not set apart by a column gutter) line up. A lone row
// with a wide gap (a justified line, a label and its value) is text.
func findTables(rows []row, gutters []gutter) []bool {
	starts := make([][]float64, len(rows))
	for i, r := range rows {
		for _, s := range r.segs[1:] {
			atGutter := false
			for _, g := range gutters {
				if math.Abs(s.x0-g.x1) < 3 {
					atGutter = true
				}
			}
			if !atGutter {
				starts[i] = append(starts[i], s.x0)
			}
		}
	}
	table := make([]bool, len(rows))
	for i := 0; i+1 < len(rows); i++ {
		if starts[i] != nil && starts[i+1] != nil && lineUp(starts[i], starts[i+1]) {
			table[i], table[i+1] = true, true
		}
	}
	return table
}

// lineUp reports whether a cell (other than the first, and other than a
// column's line) starts at the same place in both rows.
func lineUp(a, b []float64) bool {
	for _, x := range a {
		for _, y := range b {
			if math.Abs(x-y) < 3 {
				return true
			}
		}
	}
	return false
}

type gutter struct{ x0, x1 float64 }

// findGutters finds the gaps between text columns: a gap at the same place
// in at least three rows, between segments that are wide (lines of text,
// not table cells).
func findGutters(rows []row) []gutter {
	var left, right float64 = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		left, right = min(left, r.x0), max(right, r.x1)
	}
	width := right - left
	if width <= 0 {
		return nil
	}
	type cand struct {
		g     gutter
		count int
	}
	var cands []cand
	for _, r := range rows {
		for k := 1; k < len(r.segs); k++ {
			a, b := r.segs[k-1], r.segs[k]
			if a.x1-a.x0 < 0.2*width || b.x1-b.x0 < 0.2*width {
				continue
			}
			g := gutter{a.x1, b.x0}
			found := false
			for i := range cands {
				c := &cands[i].g
				if g.x0 < c.x1 && g.x1 > c.x0 {
					c.x0, c.x1 = max(c.x0, g.x0), min(c.x1, g.x1)
					cands[i].count++
					found = true
					break
				}
			}
			if !found {
				cands = append(cands, cand{g, 1})
			}
		}
	}
	var out []gutter
	for _, c := range cands {
		if c.count >= 3 && c.g.x1 > c.g.x0 {
			out = append(out, c.g)
		}
	}
	slices.SortFunc(out, func(a, b gutter) int { return cmpFloat(a.x0, b.x0) })
	return out
}

// fits reports whether no segment of r crosses a gutter.
func fits(r row, gs []gutter) bool {
	for _, s := range r.segs {
		for _, g := range gs {
			m := (g.x0 + g.x1) / 2
			if s.x0 < m && s.x1 > m {
				return false
			}
		}
	}
	return true
}

func column(s seg, gs []gutter) int {
	c := 0
	for _, g := range gs {
		if s.x0 >= (g.x0+g.x1)/2 {
			c++
		}
	}
	return c
}

var pageNumber = regexp.MustCompile(`(?i)^[-–—\s]*(page\s*)?[0-9ivxlc]+(\s*(/|of)\s*[0-9]+)?[-–—\s]*$`)

var digits = regexp.MustCompile(`[0-9]+`)

func edgeKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(digits.ReplaceAllString(s, "#"))), " ")
}

// minNearRunning is the length of an edge line's key from which a line
// that differs from a running header or footer by a few characters is
// one too (1 in 10): shorter lines (a chapter's title, "Page 3 of 9"'s
// neighbours) are taken as they are.
const minNearRunning = 20

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// A browser (Chromium, with its default "Headers and footers") prints the
// date and time and the page's title at the top of each page, and its
// address and "page/pages" at the bottom.
var (
	printedAt   = regexp.MustCompile(`^[0-9]{1,4}[./-][0-9]{1,2}[./-][0-9]{1,4},?\s+[0-9]{1,2}[:.][0-9]{2}(:[0-9]{2})?(\s*[AaPp]\.?[Mm]\.?)?$`)
	webAddress  = regexp.MustCompile(`^((https?|file|ftp)://\S+|about:blank|data:\S+)$`)
	pageOfPages = regexp.MustCompile(`^[0-9]+/[0-9]+$`)
)

// printedByBrowser reports whether p's first row is a browser's header (a
// date and time, and the title) and its last row its footer (an address
// and "page/pages").
func printedByBrowser(p *page) bool {
	if len(p.rows) < 3 {
		return false
	}
	has := func(r row, re *regexp.Regexp) bool {
		return slices.ContainsFunc(r.segs, func(s seg) bool { return re.MatchString(strings.TrimSpace(s.text)) })
	}
	top, bottom := p.rows[0], p.rows[len(p.rows)-1]
	return len(top.segs) <= 2 && has(top, printedAt) && has(bottom, webAddress) && has(bottom, pageOfPages)
}

// dropRunning removes running headers and footers (the text of a page's
// first or last row that repeats on other pages, its numbers aside) and
// page numbers, and reports them.
func dropRunning(pages []*page, rep *Report) {
	type edge struct{ top, bottom map[string]bool }
	count := map[string]int{}
	withText := 0
	edges := make([]edge, len(pages))
	for i, p := range pages {
		if len(p.rows) == 0 {
			continue
		}
		withText++
		e := edge{map[string]bool{}, map[string]bool{}}
		for _, s := range p.rows[0].segs {
			e.top[edgeKey(s.text)] = true
		}
		for _, s := range p.rows[len(p.rows)-1].segs {
			e.bottom[edgeKey(s.text)] = true
		}
		for k := range e.top {
			count["t"+k]++
		}
		for k := range e.bottom {
			count["b"+k]++
		}
		edges[i] = e
	}
	exact := func(k string) bool { return withText >= 2 && count[k] >= 2 && 2*count[k] >= withText }
	// OCR misreads a character here and there ("report.htm|" for
	// "report.html" on one page of three): a long line within a tenth of
	// its length of a repeated one, at the same end, repeats it.
	var repeatedKeys []string
	for k := range count {
		if exact(k) && len(k) >= minNearRunning {
			repeatedKeys = append(repeatedKeys, k)
		}
	}
	slices.Sort(repeatedKeys)
	repeated := func(k string) bool {
		if exact(k) {
			return true
		}
		if len(k) < minNearRunning {
			return false
		}
		for _, r := range repeatedKeys {
			if r[0] == k[0] && abs(len(r)-len(k)) <= len(k)/10 && textdist.Levenshtein(r, k) <= len(k)/10 {
				return true
			}
		}
		return false
	}
	for _, p := range pages {
		if withText == 1 && printedByBrowser(p) {
			// One page: nothing repeats, but the browser's header and
			// footer read as they do on every page it prints.
			for _, s := range p.rows[0].segs {
				rep.Dropped = append(rep.Dropped, Dropped{Page: p.number, Text: s.text, Why: "running header"})
			}
			last := &p.rows[len(p.rows)-1]
			last.segs = slices.DeleteFunc(last.segs, func(s seg) bool {
				if webAddress.MatchString(s.text) {
					rep.Dropped = append(rep.Dropped, Dropped{Page: p.number, Text: s.text, Why: "running footer"})
					return true
				}
				return false
			})
			p.rows = p.rows[1:]
		}
		for _, end := range []string{"top", "bottom"} {
			if len(p.rows) == 0 || (end == "bottom" && len(p.rows) < 2) {
				continue
			}
			k := 0
			prefix, why := "t", "running header"
			if end == "bottom" {
				k, prefix, why = len(p.rows)-1, "b", "running footer"
			}
			r := &p.rows[k]
			var keep []seg
			for _, s := range r.segs {
				switch {
				case pageNumber.MatchString(s.text) && (withText >= 2 || strings.Contains(s.text, "/")):
					rep.Dropped = append(rep.Dropped, Dropped{Page: p.number, Text: s.text, Why: "page number"})
				case repeated(prefix + edgeKey(s.text)):
					rep.Dropped = append(rep.Dropped, Dropped{Page: p.number, Text: s.text, Why: why})
				default:
					keep = append(keep, s)
				}
			}
			r.segs = keep
			if len(keep) == 0 {
				p.rows = slices.Delete(p.rows, k, k+1)
			}
		}
	}
}
