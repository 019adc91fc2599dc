package normalize

import (
	"errors"
	"strings"
)

// ErrEncrypted is the error readers of binary formats wrap for a document
// that cannot be read without a password; ingest skips such a file, saying
// so, rather than failing.
var ErrEncrypted = errors.New("encrypted: a password is required")

// ErrUnsupported is the error readers wrap for a file in a format they
// recognize but do not read (an old binary Word file); ingest skips such a
// file with the error's message, which says what to do instead.
var ErrUnsupported = errors.New("unsupported format")

// ErrOverLimit is the error readers wrap for a document over a limit the
// user sets (a PDF of more pages than cite index --max-pages): nothing is
// wrong with the file, so ingest skips it with the error's message, as it
// skips a file over --max-size, rather than failing.
var ErrOverLimit = errors.New("over a limit")

// Page marks where a page (or a slide) of an extracted document starts.
type Page struct {
	Number int // 1-based, as the document numbers its pages
	Offset int // byte offset in Document.Text where the page's text starts
}

// Extracted builds the [Document] of a format whose text a reader took out
// of a binary file (PDF, Word, OpenDocument, EPUB, PowerPoint). Readers in
// sub-packages (normalize/pdf, normalize/office) call its methods in reading
// order; the text follows the same whitespace rules as every other format
// (see the package documentation), with blocks separated as Markdown's are:
// paragraphs, headings and tables by a blank line, list items and table
// rows by a line break.
//
// An extracted document has no source bytes of its own to point into: its
// source is its text, so [Document.SourceSpan] is the identity and a
// citation's byte range is a range of the extracted text (which `cite show`
// prints). Where the format has pages or slides, [Document.Pages] says where
// each starts.
//
// The zero value is ready to use. An Extracted is not safe for concurrent use.
type Extracted struct {
	b     *builder
	src   []byte
	lists []listLevel
	pages []Page
	notes []string
	// pendingPage is a page started with no content yet: it begins at the
	// next content written.
	pendingPage int
}

func (x *Extracted) init() {
	if x.b == nil {
		x.b = newBuilder(nil, 0, 4096)
	}
}

// write appends p to the source and writes it as content.
func (x *Extracted) write(p string) {
	x.init()
	if len(x.src)+len(p) > maxSource {
		return
	}
	s := len(x.src)
	x.src = append(x.src, p...)
	x.b.src = x.src
	before := x.b.sb.Len()
	if x.pendingPage > 0 {
		x.b.mark = true
	}
	x.b.text(s, len(x.src))
	if x.pendingPage > 0 && x.b.sb.Len() > before {
		x.pages = append(x.pages, Page{Number: x.pendingPage, Offset: x.b.markPos})
		x.pendingPage = 0
	}
}

// Page starts page (or slide) n: the text written next is on it. A page
// without text is not recorded; page numbers must not decrease.
func (x *Extracted) Page(n int) {
	x.init()
	x.endList()
	x.b.brk(2)
	x.startPage(n)
}

// PagePart is a piece of a paragraph that page breaks cut (see
// [Extracted.ParagraphAcross]).
type PagePart struct {
	Page int // the page the piece is on
	Text string
	// Space says a space separates the piece from the one before: not
	// when a word hyphenated at the foot of the page was joined again.
	Space bool
}

// ParagraphAcross writes one paragraph that page breaks cut: its first
// part on the page started last, each other part on its own Page, which
// starts where that part does (so a passage crossing the break names both
// pages). Page numbers must increase from part to part.
func (x *Extracted) ParagraphAcross(parts ...PagePart) {
	x.init()
	x.endList()
	x.b.brk(2)
	x.b.pre = false
	for i, p := range parts {
		if i > 0 {
			x.startPage(p.Page)
			x.b.space = x.b.space || p.Space
		}
		x.write(p.Text)
	}
	x.b.brk(2)
}

// startPage makes n the page of the text written next.
func (x *Extracted) startPage(n int) {
	if x.pendingPage > 0 || n <= 0 {
		// The previous page had no text; this one replaces it.
		x.pendingPage = 0
	}
	if len(x.pages) > 0 && n <= x.pages[len(x.pages)-1].Number {
		return
	}
	x.pendingPage = n
}

// Heading writes a heading of the given level (1..6; others are clamped).
func (x *Extracted) Heading(level int, text string) {
	x.HeadingNotes(level, text, nil)
}

// HeadingNotes writes a heading as [Extracted.Heading] does, where the
// byte ranges notes of text are footnote markers ("[1]", a superscript
// "1"): they stay in the text, and the heading's [Heading.Text] (its
// heading path) leaves them out.
func (x *Extracted) HeadingNotes(level int, text string, notes [][2]int) {
	x.init()
	x.endList()
	level = min(max(level, 1), 6)
	x.b.brk(2)
	x.b.beginHeading(level)
	at := 0
	for _, n := range notes {
		if n[0] < at || n[1] > len(text) || n[0] >= n[1] {
			continue
		}
		x.write(text[at:n[0]])
		start := x.b.sb.Len()
		x.write(text[n[0]:n[1]])
		x.b.noteMark(start)
		at = n[1]
	}
	x.write(text[at:])
	x.b.endHeading()
	x.b.brk(2)
}

// Paragraph writes a paragraph: its line breaks are spaces (it reflows).
func (x *Extracted) Paragraph(text string) {
	x.init()
	x.endList()
	x.b.brk(2)
	x.b.pre = false
	x.write(text)
	x.b.brk(2)
}

// Append writes the text and headings of d, a document normalize read (an
// HTML page: an EPUB's chapter, a saved page's frame): its headings as
// headings, the blocks between them (separated by blank lines) with their
// line breaks (list items, table rows) kept.
func (x *Extracted) Append(d *Document) {
	pos := 0
	body := func(end int) {
		for _, b := range strings.Split(d.Text[pos:end], "\n\n") {
			if strings.TrimSpace(b) != "" {
				x.Lines(b)
			}
		}
	}
	for _, h := range d.Headings {
		if h.Offset < pos || h.End > len(d.Text) || h.End < h.Offset {
			continue
		}
		body(h.Offset)
		full := d.Text[h.Offset:h.End]
		x.HeadingNotes(h.Level, full, notesIn(full, h.Text))
		pos = h.End
	}
	body(len(d.Text))
}

// notesIn returns the byte ranges of full, a heading's text, that its Text
// (full less its footnote markers, see [Heading]) leaves out.
func notesIn(full, text string) [][2]int {
	if full == text {
		return nil
	}
	var out [][2]int
	j := 0
	for i := 0; i < len(full); {
		if j < len(text) && full[i] == text[j] {
			i++
			j++
			continue
		}
		start := i
		for i < len(full) && (j >= len(text) || full[i] != text[j]) {
			i++
		}
		out = append(out, [2]int{start, i})
	}
	return out
}

// Lines writes a block whose line breaks are kept (code, verse, an address),
// without its indentation.
func (x *Extracted) Lines(text string) {
	x.init()
	x.endList()
	x.b.brk(2)
	x.b.pre = true
	x.write(text)
	x.b.pre = false
	x.b.brk(2)
}

// ListItem writes an item of a list nested depth levels deep (1 for a list
// that is not nested), with the markers HTML and Markdown lists get: "• ",
// "◦ ", "▪ " for bullet lists by depth, "N. " for ordered lists, numbered
// from 1 at each depth and prefixed by the numbers of enclosing ordered
// items ("2.1. ").
func (x *Extracted) ListItem(depth int, ordered bool, text string) {
	x.init()
	depth = min(max(depth, 1), 16)
	for len(x.lists) > depth {
		x.lists = x.lists[:len(x.lists)-1]
	}
	if len(x.lists) == depth && x.lists[depth-1].ordered != ordered {
		x.lists = x.lists[:depth-1]
	}
	if len(x.lists) == 0 {
		x.b.brk(2)
	}
	for len(x.lists) < depth {
		x.lists = pushList(x.lists, listLevel{ordered: ordered})
	}
	x.lists[depth-1].num++
	x.b.brk(1)
	x.b.setMarker(x.lists)
	x.b.pre = false
	x.write(text)
	x.b.clearPrefix()
}

// Row writes a table row: one line, cells separated by " | " (an empty cell
// by an empty column), as HTML and Markdown tables are. Consecutive rows
// form one table; a blank line separates it from other blocks.
func (x *Extracted) Row(cells ...string) {
	x.init()
	x.endList()
	x.b.brk(1)
	x.b.pre = false
	for i, c := range cells {
		if i > 0 {
			x.b.cellSep()
		}
		x.write(oneLine(c))
	}
	x.b.clearPrefix()
}

// EndTable ends a table started by [Extracted.Row]: the next block starts
// after a blank line.
func (x *Extracted) EndTable() {
	x.init()
	x.b.brk(2)
}

func (x *Extracted) endList() {
	if len(x.lists) > 0 {
		x.lists = x.lists[:0]
		x.b.brk(2)
	}
}

// Note records something the user should know about the document that its
// text does not show (a running header left out, a page without text): one
// line, shown by cite index and cite show.
func (x *Extracted) Note(msg string) {
	x.notes = append(x.notes, oneLine(msg))
}

// Len returns the length of the text written so far.
func (x *Extracted) Len() int {
	if x.b == nil {
		return 0
	}
	return x.b.sb.Len()
}

// Document returns the document built. title is normalized to one line; when
// it is empty the first level-1 heading is the title. The Extracted must not
// be used afterwards.
func (x *Extracted) Document(title string) *Document {
	x.init()
	d := x.b.document(normalizeTitle([]byte(title), false))
	// The source is the text itself.
	d.m = offsetMap{}
	if n := len(d.Text); n > 0 {
		d.m.add(0, 0, n, false)
		d.m.textLen = n
		d.m.end = n
	}
	d.srcLen = len(d.Text)
	d.Pages = x.pages
	d.Notes = x.notes
	return d
}

// PageAt returns the page (or slide) holding byte offset off of d.Text, and
// 0 when the document has no pages or off comes before the first.
func (d *Document) PageAt(off int) int {
	lo, hi := 0, len(d.Pages)
	for lo < hi {
		m := (lo + hi) / 2
		if d.Pages[m].Offset <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return d.Pages[lo-1].Number
}

// PageRange returns the first and last pages of the text in [start, end):
// first == last when it lies on one page, both 0 when d has no pages.
func (d *Document) PageRange(start, end int) (first, last int) {
	if len(d.Pages) == 0 {
		return 0, 0
	}
	first = d.PageAt(start)
	if first == 0 {
		first = d.Pages[0].Number
	}
	last = first
	if end > start {
		last = max(d.PageAt(end-1), first)
	}
	return first, last
}
