package normalize

import (
	"bytes"
	"fmt"
)

// Format says how to read the source bytes.
type Format int

const (
	// PlainText is text whose line breaks are meant: see [FromPlainText].
	PlainText Format = iota
	// Markdown is CommonMark with GitHub tables and strikethrough: see [FromMarkdown].
	Markdown
	// HTML is an HTML page or fragment: see [FromHTML].
	HTML
)

// String returns "text", "markdown" or "html".
func (f Format) String() string {
	switch f {
	case PlainText:
		return "text"
	case Markdown:
		return "markdown"
	case HTML:
		return "html"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Heading is a section heading found in the document.
type Heading struct {
	Level  int    // 1..6
	Text   string // normalized heading text, as it appears in Document.Text[Offset:End] less its footnote markers ("Title" for "Title[1]")
	Offset int    // byte offset in Document.Text where the heading text starts
	End    int    // byte offset in Document.Text just past the heading text
}

// Document is normalized text plus what is needed to cite it.
type Document struct {
	// Title is the document title, normalized and on one line; "" when the
	// document has none.
	Title string
	// Text is the normalized text: valid UTF-8 that follows the whitespace
	// rules in the package documentation.
	Text string
	// Headings are the section headings in document order, offsets ascending.
	Headings []Heading
	// Pages says where each page (or slide) starts, for formats that have
	// them (see [Extracted]); nil for Markdown, HTML and text.
	Pages []Page
	// Notes are what the reader of an extracted format noted about the
	// document for its user: running headers and footers it left out of
	// the text, pages it could not read and why (see [Extracted.Note]);
	// and, of Markdown, that it was read as plain text because the Markdown
	// parser would take far longer on it than on prose, and why.
	Notes []string

	m      offsetMap // see SourceSpan
	srcLen int
}

// Normalize reads src in the given format. It never fails: any byte sequence
// gives a Document. An unknown Format is read as [PlainText].
func Normalize(f Format, src []byte) *Document {
	switch f {
	case Markdown:
		return normalizeMarkdown(src)
	case HTML:
		return normalizeHTML(src)
	default:
		return normalizePlainText(src)
	}
}

// FromMarkdown normalizes a Markdown document; it is Normalize(Markdown, src).
// See the package documentation for the rules.
func FromMarkdown(src []byte) *Document { return normalizeMarkdown(src) }

// FromHTML normalizes an HTML page or fragment; it is Normalize(HTML, src).
// See the package documentation for the rules.
func FromHTML(src []byte) *Document { return normalizeHTML(src) }

// FromPlainText normalizes plain text; it is Normalize(PlainText, src): the
// whitespace rules, U+FFFD for invalid UTF-8 and NUL, and a leading byte-order
// mark dropped. Line breaks are kept (at most one blank line in a row); plain
// text has no title and no headings.
func FromPlainText(src []byte) *Document { return normalizePlainText(src) }

var utf8BOM = []byte("\xEF\xBB\xBF")

func normalizePlainText(src []byte) *Document {
	src = src[:min(len(src), maxSource)]
	if d, ok := fromEncoded(src, normalizePlainText); ok {
		return d
	}
	base := 0
	if bytes.HasPrefix(src, utf8BOM) {
		base = len(utf8BOM)
	}
	b := newBuilder(src, base, len(src))
	b.pre = true
	b.text(base, len(src))
	return b.document("")
}

// SourceSpan maps the byte range [start, end) of d.Text to the byte range
// [srcStart, srcEnd) of the original source that produced it, with
// 0 <= srcStart <= srcEnd <= len(src).
//
// Text copied from the source maps byte for byte. Synthesized text (a decoded
// entity, a collapsed whitespace run, a newline for a block tag, a list
// marker, U+FFFD) maps as a whole to the source from its construct up to the
// next content, markup dropped in between included: when it starts the range
// it maps to its first source byte, when it ends the range to the end of that
// source. A whitespace run thus maps to all the source between the content
// before it and the content after it. srcStart never decreases when start
// grows, and srcEnd never decreases when end grows.
//
// An empty range (start == end) maps to an empty range at the source offset
// start would map to; start == len(d.Text) maps to the end of the source of
// the last text. SourceSpan does not panic: offsets outside [0, len(d.Text)]
// are clamped into it, and end is raised to start when it is smaller. It
// costs O(log n) in the number of segments of the map.
func (d *Document) SourceSpan(start, end int) (srcStart, srcEnd int) {
	n := len(d.Text)
	start = min(max(start, 0), n)
	end = min(max(end, start), n)
	srcStart = d.m.startOf(start)
	if end == start {
		return srcStart, srcStart
	}
	return srcStart, max(d.m.endOf(end), srcStart)
}
