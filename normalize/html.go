package normalize

import (
	"bytes"
	"strconv"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func normalizeHTML(src []byte) *Document { return normalizeHTMLWith(src, true) }

// normalizeHTMLWith normalizes a page; content says whether only its
// content is read (see pageRegions).
func normalizeHTMLWith(src []byte, content bool) *Document {
	src = src[:min(len(src), maxSource)]
	pe := sniffEncoding(src)
	if pe.enc == nil {
		b := newBuilder(src, pe.bom, len(src))
		h := newHTMLState(b, true)
		data := src[pe.bom:]
		if content {
			h.regions = pageRegions(data)
		}
		h.run(data, []piece{{data: 0, src: pe.bom}})
		return b.document(h.titleText())
	}
	decoded, m := decodeWithMap(pe.enc, pe.name, src, pe.bom)
	b := newBuilder(decoded, 0, len(decoded))
	h := newHTMLState(b, true)
	if content {
		h.regions = pageRegions(decoded)
	}
	h.run(decoded, []piece{{data: 0, src: 0}})
	d := b.document(h.titleText())
	d.m = compose(d.m, m)
	d.srcLen = len(src)
	return d
}

// piece says that tokenized data from offset data on is builder source from
// offset src on (until the next piece). A whole page is one piece; a Markdown
// HTML block inside a list or quote is one piece per line.
type piece struct {
	data, src int
}

// htmlState turns HTML tokens into builder calls. It serves whole pages
// (doc: <head> and <title> handling) and the raw HTML of Markdown documents.
type htmlState struct {
	b   *builder
	doc bool

	data   []byte
	pieces []piece
	pk     int // index of the piece of the last text

	skip      atom.Atom // element whose content is dropped, 0 when none
	skipDepth int
	inHead    bool
	inTitle   bool
	titleSeen bool
	title     []byte
	preDepth  int  // open pre, listing, xmp, plaintext, textarea
	codeDepth int  // open code (line breaks kept, like pre)
	skipLF    bool // drop a newline right after <pre>, <listing>, <textarea> (as browsers do)
	rawText   bool // inside xmp or plaintext: no character references
	lists     []listLevel
	cells     []int // for each open table, the number of cells seen in the current row
	noteref   noteState
	noteAt    int // where the footnote reference's text starts

	regions []region // ranges of a page that are not its content (see pageRegions)
	rk      int      // index of the first region not passed yet
}

// noteState is where the text stands in a footnote reference (see
// [htmlState.noteRole]).
type noteState uint8

const (
	noNote      noteState = iota
	noteOpen              // in a reference, no text yet
	noteBracket           // "[" written: "]" at its end
	noteText              // its text has brackets of its own
)

func newHTMLState(b *builder, doc bool) *htmlState {
	return &htmlState{b: b, doc: doc}
}

// reset forgets the element state (between Markdown blocks).
func (h *htmlState) reset() {
	h.skip, h.skipDepth = 0, 0
	h.inHead, h.inTitle = false, false
	h.preDepth, h.codeDepth = 0, 0
	h.skipLF, h.rawText = false, false
	h.lists = h.lists[:0]
	h.cells = h.cells[:0]
	h.noteref = noNote
	h.b.pre = false
}

func (h *htmlState) titleText() string {
	if len(h.title) == 0 {
		return ""
	}
	return normalizeTitle(h.title, true)
}

// run tokenizes data with x/net/html and feeds the builder. Token offsets
// come from the lengths of the raw tokens, which partition the input.
func (h *htmlState) run(data []byte, pieces []piece) {
	h.data, h.pieces, h.pk = data, pieces, 0
	z := html.NewTokenizer(bytes.NewReader(data))
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start := off
		off += len(raw)
		if len(h.regions) > 0 && h.outside(start) {
			continue
		}
		switch tt {
		case html.TextToken:
			h.textToken(start, off)
		case html.StartTagToken, html.SelfClosingTagToken:
			a := tagAtom(raw, false)
			h.startTag(a, tt == html.SelfClosingTagToken, z)
		case html.EndTagToken:
			a := tagAtom(raw, true)
			h.endTag(a)
		}
	}
	h.b.pre = false
}

// outside reports whether the token at offset start lies in a region that
// is not the page's content, and so is not read. Entering a region breaks
// the text as its element would.
func (h *htmlState) outside(start int) bool {
	for h.rk < len(h.regions) && h.regions[h.rk].end <= start {
		h.rk++
	}
	if h.rk == len(h.regions) || start < h.regions[h.rk].start {
		return false
	}
	r := &h.regions[h.rk]
	if start == r.start {
		switch {
		case r.brk != inline:
			h.b.brk(int(r.brk))
		case r.space:
			h.b.space = true
		}
	}
	return true
}

// tagAtom returns the atom of the tag in raw ("<name ..." or "</name ..."),
// 0 for names that are not known HTML names.
func tagAtom(raw []byte, end bool) atom.Atom {
	i := 1
	if end {
		i = 2
	}
	var buf [16]byte // longer than any HTML element name
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return 0
		}
		buf[n] = lowerASCII(c)
		n++
	}
	return atom.Lookup(buf[:n])
}

func (h *htmlState) textToken(ds, de int) {
	if h.skip != 0 {
		return
	}
	if h.inTitle {
		h.title = append(h.title, h.data[ds:de]...)
		return
	}
	if h.inHead {
		if isHTMLSpace(h.data[ds:de]) {
			return
		}
		h.inHead = false // text ends the head, as in a browser
	}
	if h.skipLF {
		h.skipLF = false
		switch {
		case bytes.HasPrefix(h.data[ds:de], []byte("\r\n")):
			ds += 2
		case ds < de && (h.data[ds] == '\n' || h.data[ds] == '\r'):
			ds++
		}
	}
	h.b.pre = h.preDepth > 0 || h.codeDepth > 0
	if h.noteref == noteOpen {
		if t := bytes.TrimLeft(h.data[ds:de], " \t\n\r\f"); len(t) > 0 {
			h.noteref = noteText
			if t[0] != '[' {
				h.noteref = noteBracket
				h.b.synthGap([]byte("["))
			}
		}
	}
	h.emit(ds, de)
}

func isHTMLSpace(p []byte) bool {
	for _, c := range p {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// emit writes data[ds:de] as text, piece by piece. Text tokens come in
// order, so the search for the first piece resumes where the last one ended.
func (h *htmlState) emit(ds, de int) {
	for h.pk+1 < len(h.pieces) && h.pieces[h.pk+1].data <= ds {
		h.pk++
	}
	for k := h.pk; k < len(h.pieces); k++ {
		p := h.pieces[k]
		if p.data >= de {
			break
		}
		pe := len(h.data)
		if k+1 < len(h.pieces) {
			pe = h.pieces[k+1].data
		}
		a, z := max(ds, p.data), min(de, pe)
		if a >= z {
			continue
		}
		s, e := a-p.data+p.src, z-p.data+p.src
		if h.rawText {
			h.b.text(s, e)
		} else {
			htmlText(h.b, s, e)
		}
	}
}

// breakKind says what an element does to the text around it.
type breakKind uint8

const (
	inline    breakKind = iota
	lineBreak           // one newline before and after
	paraBreak           // a blank line before and after
)

// blockBreak returns how an element breaks the text. Browsers render these
// elements as blocks; the ones that usually hold a paragraph or more of
// content get a blank line, the rest a line break.
func blockBreak(a atom.Atom) breakKind {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext, atom.Blockquote,
		atom.Table, atom.Hr, atom.Figure, atom.Section, atom.Article,
		atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Main,
		atom.Form, atom.Fieldset, atom.Details, atom.Address, atom.Hgroup,
		atom.Center, atom.Search:
		return paraBreak
	case atom.Div, atom.Li, atom.Dt, atom.Dd, atom.Tr, atom.Caption,
		atom.Figcaption, atom.Summary, atom.Legend, atom.Body, atom.Html,
		atom.Thead, atom.Tbody, atom.Tfoot, atom.Option, atom.Optgroup,
		atom.Dialog, atom.Textarea, atom.Frameset, atom.Frame, atom.Noscript,
		atom.Ul, atom.Ol, atom.Menu, atom.Dl:
		return lineBreak
	}
	return inline
}

// dropsContent reports whether an element's content is not text a reader
// sees: scripts, styles, fallback content, templates, vector graphics, form
// option lists, and TeX annotations of MathML.
func dropsContent(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Iframe, atom.Noembed,
		atom.Noframes, atom.Template, atom.Svg, atom.Object, atom.Canvas,
		atom.Audio, atom.Video, atom.Select, atom.Datalist, atom.Annotation,
		atom.AnnotationXml:
		return true
	}
	return false
}

// rawTextElement reports whether the tokenizer reads the element's content as
// raw text (so that it has a content even when written <x/>).
func rawTextElement(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Iframe, atom.Noembed,
		atom.Noframes, atom.Title, atom.Textarea, atom.Xmp, atom.Plaintext:
		return true
	}
	return false
}

// inHeadElement reports whether an element may sit in <head>; any other start
// tag ends the head, as in a browser.
func inHeadElement(a atom.Atom) bool {
	switch a {
	case atom.Title, atom.Meta, atom.Link, atom.Base, atom.Script, atom.Style,
		atom.Noscript, atom.Template, atom.Basefont, atom.Bgsound, atom.Head, atom.Html:
		return true
	}
	return false
}

// startTag applies a start tag. z, when not nil, is positioned on the tag (for
// attributes).
func (h *htmlState) startTag(a atom.Atom, selfClosing bool, z *html.Tokenizer) {
	h.skipLF = false
	if h.skip != 0 {
		if a == h.skip && !selfClosing {
			h.skipDepth++
		}
		return
	}
	if h.inHead && !inHeadElement(a) {
		h.inHead = false
	}
	hasContent := !selfClosing || rawTextElement(a)
	if dropsContent(a) {
		if hasContent {
			h.skip, h.skipDepth = a, 1
		}
		return
	}
	b := h.b
	switch a {
	case atom.Head:
		if h.doc && !selfClosing {
			h.inHead = true
		}
		return
	case atom.Title:
		if h.doc && !h.titleSeen {
			h.titleSeen = true
			h.inTitle = true
		} else {
			h.skip, h.skipDepth = a, 1
		}
		return
	case atom.Br:
		b.hardBreak()
		return
	case atom.Code:
		if !selfClosing {
			h.codeDepth++
		}
		return
	case atom.A:
		if z == nil || selfClosing {
			return
		}
		switch noteRole(z) {
		case "noteref":
			h.noteref = noteOpen
			h.noteAt = h.b.sb.Len()
		case "backlink":
			h.skip, h.skipDepth = a, 1
		}
		return
	}
	bk := blockBreak(a)
	if bk == inline {
		if a == atom.Td || a == atom.Th {
			if len(h.cells) == 0 {
				h.cells = append(h.cells, 0)
			}
			if h.cells[len(h.cells)-1] > 0 {
				b.cellSep()
			}
			h.cells[len(h.cells)-1]++
		}
		return
	}
	if h.preDepth == 0 {
		h.codeDepth = 0
	}
	switch a {
	case atom.Dl:
		if len(h.lists) == 0 {
			bk = paraBreak
		}
	case atom.Ul, atom.Ol, atom.Menu:
		if len(h.lists) == 0 {
			bk = paraBreak
		}
		l := listLevel{ordered: a == atom.Ol}
		if a == atom.Ol && z != nil {
			if v, ok := attrInt(z, "start"); ok {
				l.num = v - 1
			}
		}
		if !selfClosing {
			h.lists = pushList(h.lists, l)
		}
	case atom.Li:
		b.brk(1)
		if n := len(h.lists); n > 0 && h.lists[n-1].ordered {
			l := &h.lists[n-1]
			l.num++
			if z != nil {
				if v, ok := attrInt(z, "value"); ok {
					l.num = v
				}
			}
		}
		b.setMarker(h.lists)
		return
	case atom.Table:
		h.cells = append(h.cells, 0)
	case atom.Tr:
		if len(h.cells) == 0 {
			h.cells = append(h.cells, 0)
		}
		h.cells[len(h.cells)-1] = 0
		b.clearPrefix()
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		b.brk(2)
		b.beginHeading(int(headingLevel(a)))
		return
	case atom.Pre, atom.Listing, atom.Textarea:
		h.preDepth++
		h.skipLF = true
	case atom.Xmp, atom.Plaintext:
		h.preDepth++
		h.rawText = true
	}
	b.brk(int(bk))
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	}
	return 6
}

// noteRole returns "noteref" for a link that is a footnote reference
// (role="doc-noteref" as pandoc writes HTML, epub:type="noteref" as EPUBs
// have it, data-type="noteref" as O'Reilly's HTMLBook), "backlink" for a
// link from a note back to its reference (role="doc-backlink", its text an
// arrow), and "" for any other; z is positioned on the link's start tag.
// A reference reads "[1]" (as Word's and Markdown's notes do), not "1" run
// into the word or number before it ("5 seconds.23").
func noteRole(z *html.Tokenizer) string {
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "role", "epub:type", "data-type":
			for _, w := range bytes.Fields(v) {
				switch string(bytes.ToLower(w)) {
				case "doc-noteref", "noteref":
					return "noteref"
				case "doc-backlink":
					return "backlink"
				}
			}
		}
		if !more {
			return ""
		}
	}
}

// attrInt returns the integer value of the named attribute of the current tag.
func attrInt(z *html.Tokenizer, name string) (int, bool) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == name {
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			return n, err == nil
		}
		if !more {
			return 0, false
		}
	}
}

// endTag applies an end tag.
func (h *htmlState) endTag(a atom.Atom) {
	h.skipLF = false
	if h.skip != 0 {
		if a == h.skip {
			h.skipDepth--
			if h.skipDepth == 0 {
				h.skip = 0
			}
		}
		return
	}
	b := h.b
	switch a {
	case atom.Head:
		h.inHead = false
		return
	case atom.Title:
		h.inTitle = false
		return
	case atom.Br:
		// </br> is a <br> in browsers.
		b.hardBreak()
		return
	case atom.Code:
		if h.codeDepth > 0 {
			h.codeDepth--
		}
		return
	case atom.A:
		if h.noteref == noteBracket {
			b.synthGap([]byte("]"))
		}
		if h.noteref != noNote {
			b.noteMark(h.noteAt)
		}
		h.noteref = noNote
		return
	case atom.Body:
		h.inHead = false
	}
	bk := blockBreak(a)
	if bk == inline {
		return
	}
	if h.preDepth == 0 {
		h.codeDepth = 0
	}
	switch a {
	case atom.Ul, atom.Ol, atom.Menu:
		if n := len(h.lists); n > 0 {
			h.lists = h.lists[:n-1]
		}
		if len(h.lists) == 0 {
			bk = paraBreak
		}
		b.clearPrefix()
	case atom.Dl:
		if len(h.lists) == 0 {
			bk = paraBreak
		}
	case atom.Li:
		b.clearPrefix()
	case atom.Table:
		if n := len(h.cells); n > 0 {
			h.cells = h.cells[:n-1]
		}
		b.clearPrefix()
	case atom.Tr:
		b.clearPrefix()
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		b.endHeading()
	case atom.Pre, atom.Listing, atom.Textarea:
		if h.preDepth > 0 {
			h.preDepth--
		}
	case atom.Xmp:
		if h.preDepth > 0 {
			h.preDepth--
		}
		h.rawText = false
	}
	b.brk(int(bk))
}
