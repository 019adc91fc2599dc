package normalize

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options change how [NormalizeWith] reads a source. The zero value reads
// it as [Normalize] does.
type Options struct {
	// KeepBoilerplate reads a whole HTML page as it renders, page-level
	// navigation, banners, footers, sidebars, hidden elements and buttons
	// included, instead of its content alone (see "Page content" in the
	// package documentation). It changes nothing for other formats.
	KeepBoilerplate bool
}

// NormalizeWith reads src in the given format with the given options.
func NormalizeWith(f Format, src []byte, o Options) *Document {
	if f == HTML {
		return FromHTMLWith(src, o)
	}
	return Normalize(f, src)
}

// FromHTMLWith normalizes an HTML page or fragment with the given options.
func FromHTMLWith(src []byte, o Options) *Document {
	return normalizeHTMLWith(src, !o.KeepBoilerplate)
}

// ContentVersion numbers the rules that choose a page's content: it goes
// up when they change, so that pages indexed by their content are read
// again, once (ingest names it in a page's pipeline, "html:content2").
// Version 2 leaves out blocks named as boilerplate ([elem.namedOut]).
const ContentVersion = 2

// region is a range [start, end) of the tokenized page whose tokens are
// not read (but for the page's <title>), and the break the element that
// starts it makes in the text around it.
type region struct {
	start, end int
	text       int // its text bytes outside whitespace
	brk        breakKind
	space      bool // an inline element that renders apart from its neighbours (a button)
}

// opened is an element open while scanning a page: 16 bytes, as a page
// of nested <div>s opens one every 5 bytes.
type opened struct {
	a     atom.Atom // 0 for a name that is not HTML's: see name
	name  int32     // index of its name in the scan's names, when a is 0
	e     int32     // index of its elem in the scan's elements, -1 for none
	flags openFlags
}

// openFlags are what an open element passes to those inside it.
type openFlags uint16

const (
	sectionedFlag openFlags = 1 << iota // inside main, article, section, aside or nav
	inMainFlag                          // inside a main or an article
	mainFlag                            // main, role=main or article
	noTextFlag                          // its content is not text (script, style, the head...)
	mathFlag                            // holds a <math>
	h1Flag                              // holds an <h1>
	droppedFlag                         // inside svg, script, template... (dropsContent)
	linkFlag                            // inside an <a>
	holdsMainFlag                       // holds a main or role=main
)

// elem is an element that may be left out of a page, or be its content.
type elem struct {
	a           atom.Atom
	start       int  // offset of its start tag
	end         int  // offset past its end tag, or of the tag that closed it
	own         bool // closed by its own end tag
	text0, text int  // the page's text before it, and in it
	link0, link int  // the same for the text of links

	drop      dropKind
	main      bool // <main> or role=main
	article   bool // <article>
	sectioned bool // inside main, article, section, aside or nav
	inMain    bool // inside a main or an article
	out       bool // left out, or inside an element left out
	math      bool // holds a <math>
	h1        bool // holds an <h1>
	open      bool // has the attribute open (a dialog shown)
	byName    bool // page-level by its class or id
	holdsMain bool // holds a main or role=main
	named     nameKind
}

// nameKind is what an element's class or id says it is, for the elements
// that are boilerplate if they also look it ([elem.namedOut]).
type nameKind uint8

const (
	notNamed      nameKind = iota
	linksNamed             // a menu, share bar, list of related stories, sidebar, footer...
	commentsNamed          // a comment section
)

// dropKind says why an element is not content.
type dropKind uint8

const (
	keep      dropKind = iota
	pageLevel          // header, footer, aside and their roles: only outside main, article and section
	hidden             // hidden, aria-hidden, display:none: unless it holds MathML
	always             // navigation, search, dialogs, buttons, cookie banners
)

// mark raises e's drop kind to k (the strongest reason counts).
func (e *elem) mark(k dropKind) { e.drop = max(e.drop, k) }

// leftOut reports whether e is not content.
func (e *elem) leftOut() bool {
	switch e.drop {
	case always:
		return true
	case hidden:
		return !e.math
	case pageLevel:
		// A header with the page's h1 is the title block of a page
		// without <main> (pandoc's standalone HTML), not a site's banner.
		return !e.sectioned && !e.inMain && !((e.a == atom.Header || e.byName) && e.h1)
	}
	return false
}

// Guards against markup that is not what it seems. What a page keeps must
// be at least minKeptBytes of text (bytes outside whitespace) or
// minKeptShare of its text, else the page is read whole (a navigation
// whose end tag closes the page's wrapper, a hidden wrapper while a
// dialog is shown). A <main> or <article> is taken as the content only if
// it holds minContentShare of the text that the boilerplate leaves (an
// <article> may be a teaser beside the page's text); on the 129 pages of
// the test corpus the least share taken is 0.36.
const (
	minKeptShare    = 0.15
	minKeptBytes    = 200
	minContentShare = 0.25
)

// pageRegions scans a whole page and returns the ranges of it that are not
// its content, sorted and disjoint; nil when the whole page is read.
//
// The scan keeps a stack of the open elements: an end tag closes the
// innermost open element of its name and those inside it (they are
// closed, not by their own end tag, and so never left out: a navigation
// whose end tag is missing is read); an end tag with no open element of
// its name is ignored; a <p>, <li>, <dt>, <dd>, <tr>, <td>, <th> or
// <option> closes an open one of its kind right before it, as in a
// browser.
func pageRegions(data []byte) []region {
	z := html.NewTokenizer(bytes.NewReader(data))
	var (
		all     []*elem  // the elements that may be left out or be the content, in document order
		stack   []opened // the open elements
		names   []string // names of open elements that are not HTML's
		open    = map[string]int{}
		nameBuf [64]byte
		text    int // text bytes outside whitespace, in elements whose content is text
		link    int // those of them inside links

		titleStart, titleEnd = -1, -1 // the page's <title>: the first outside svg, script...
	)
	nameOf := func(o *opened) string {
		if o.a != 0 {
			return o.a.String()
		}
		return names[o.name]
	}
	closeTop := func(end int, own bool) {
		o := &stack[len(stack)-1]
		if o.e >= 0 {
			e := all[o.e]
			e.end, e.own, e.text, e.link = end, own, text-e.text0, link-e.link0
			e.math, e.h1 = o.flags&mathFlag != 0, o.flags&h1Flag != 0
			e.holdsMain = o.flags&holdsMainFlag != 0
		}
		if o.a == atom.Title && titleStart >= 0 && titleEnd < 0 {
			titleEnd = end
		}
		open[nameOf(o)]--
		if o.a == 0 && int(o.name) == len(names)-1 {
			names = names[:len(names)-1]
		}
		stack = stack[:len(stack)-1]
	}
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start := off
		off += len(raw)
		switch tt {
		case html.TextToken:
			if n := len(stack); n > 0 && stack[n-1].flags&noTextFlag != 0 {
				continue
			}
			n := 0
			for _, c := range raw {
				if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' {
					n++
				}
			}
			text += n
			if k := len(stack); k > 0 && stack[k-1].flags&linkFlag != 0 {
				link += n
			}
		case html.StartTagToken:
			// The name from the raw tag: z.TagName copies it.
			name := tagName(raw, nameBuf[:0])
			a := atom.Lookup(name)
			hasAttr := len(raw) > len(name)+2
			if voidElement(a) {
				continue
			}
			if n := len(stack); n > 0 && a != 0 && closesSibling(a, stack[n-1].a) {
				closeTop(start, false)
			}
			switch a {
			case atom.Math:
				// Wikipedia hides the MathML of its formulas (display:none)
				// behind a picture of them: the MathML is their text.
				for i := len(stack) - 1; i >= 0 && stack[i].flags&mathFlag == 0; i-- {
					stack[i].flags |= mathFlag
				}
			case atom.H1:
				for i := len(stack) - 1; i >= 0 && stack[i].flags&h1Flag == 0; i-- {
					stack[i].flags |= h1Flag
				}
			}
			o := opened{a: a, e: -1}
			if n := len(stack); n > 0 {
				p := stack[n-1].flags
				if p&(sectionedFlag|mainFlag) != 0 || sectioning(stack[n-1].a) {
					o.flags |= sectionedFlag
				}
				if p&(inMainFlag|mainFlag) != 0 {
					o.flags |= inMainFlag
				}
				o.flags |= p & (noTextFlag | droppedFlag | linkFlag)
			}
			if a == atom.A {
				o.flags |= linkFlag
			}
			if a == atom.Title && titleStart < 0 && o.flags&droppedFlag == 0 {
				titleStart = start
			}
			if dropsContent(a) {
				o.flags |= droppedFlag
			}
			if dropsContent(a) || a == atom.Head || a == atom.Title {
				o.flags |= noTextFlag
			}
			e := elem{a: a, start: start, end: len(data), text0: text, link0: link,
				sectioned: o.flags&sectionedFlag != 0, inMain: o.flags&inMainFlag != 0}
			if hasAttr && mayClassify(raw) {
				classify(&e, z)
			}
			classifyTag(&e)
			if e.main || e.article {
				o.flags |= mainFlag
			}
			if e.main {
				o.flags |= holdsMainFlag
				for i := len(stack) - 1; i >= 0 && stack[i].flags&holdsMainFlag == 0; i-- {
					stack[i].flags |= holdsMainFlag
				}
			}
			if o.flags&noTextFlag == 0 && (e.drop != keep || e.main || e.article || e.named != notNamed) {
				o.e = int32(len(all))
				ep := new(elem)
				*ep = e
				all = append(all, ep)
			}
			if a == 0 {
				o.name = int32(len(names))
				names = append(names, string(name))
			}
			if len(stack) == cap(stack) {
				// Doubling: append grows large slices by a quarter, and a
				// page of nested <div>s would allocate five times its stack.
				stack = append(make([]opened, 0, 2*cap(stack)+64), stack...)
			}
			stack = append(stack, o)
			open[nameOf(&o)]++
		case html.EndTagToken:
			name := tagName(raw[1:], nameBuf[:0])
			if open[string(name)] == 0 {
				continue
			}
			for len(stack) > 0 {
				own := nameOf(&stack[len(stack)-1]) == string(name)
				if own {
					closeTop(off, true)
					break
				}
				closeTop(start, false)
			}
		}
	}
	for len(stack) > 0 {
		closeTop(off, false)
	}
	if text == 0 {
		return nil
	}

	// Boilerplate, outermost first (elements nest: a later start inside
	// one left out lies in it).
	var rs []region
	out := 0
	outEnd := -1
	for _, e := range all {
		if e.start < outEnd {
			e.out = true
			continue
		}
		if !e.own || !e.leftOut() {
			continue
		}
		e.out, outEnd = true, e.end
		rs = append(rs, region{start: e.start, end: e.end, text: e.text, brk: blockBreak(e.a), space: e.a == atom.Button})
		out += e.text
	}
	rs, out = namedRegions(all, rs, out, text)

	// The content: the one <main> (or role=main) left, else the one
	// outermost <article>.
	var mains, articles []*elem
	for _, e := range all {
		if e.out {
			continue
		}
		if e.main {
			mains = append(mains, e)
		}
		if e.article && !e.inMain {
			articles = append(articles, e)
		}
	}
	var content *elem
	switch {
	case len(mains) == 1:
		content = mains[0]
	case len(mains) == 0 && len(articles) == 1:
		content = articles[0]
	}
	if content != nil {
		// The regions left out inside it stay; those outside it are in
		// the two regions around it.
		with := []region{{start: 0, end: content.start}}
		o := content.text0 + text - (content.text0 + content.text)
		for _, r := range rs {
			if r.start >= content.start && r.end <= content.end {
				with = append(with, r)
				o += r.text
			}
		}
		with = append(with, region{start: content.end, end: len(data)})
		// The content must hold a good part of the text the boilerplate
		// leaves (an <article> may be a teaser beside the page's text).
		if float64(text-o) >= minContentShare*float64(text-out) {
			rs, out = with, o
		}
	}
	if len(rs) == 0 {
		return nil
	}
	kept := text - out
	if kept < minKeptBytes && float64(kept) < minKeptShare*float64(text) {
		return nil
	}
	return aroundTitle(rs, titleStart, titleEnd)
}

// Blocks named as boilerplate ([nameKind]) are left out when they look
// it: a block of links (linkDensity of its text in links, as menus,
// share bars and lists of related stories are) or of little text (under
// shortText bytes: a share bar whose buttons are left out, a copyright
// line), for comments any. Never a block that holds the page's h1 or its
// main, nor one that holds over maxNamedShare of the text the rules
// before leave (maxCommentsShare for comments: a page of comments, such
// as a bug's, is its comments): that is the page's content, whatever
// its name.
const (
	linkDensity      = 0.5
	shortText        = 100
	maxNamedShare    = 0.5
	minCommentsShare = 0.25
	maxCommentsShare = 2.0 / 3
)

// namedOut reports whether e, named as boilerplate and holding t bytes of
// text that the rules before leave, of the page's kept, is left out.
func (e *elem) namedOut(t, kept int) bool {
	if t == 0 || e.h1 || e.holdsMain || e.main || e.article {
		return false
	}
	switch e.named {
	}
	links := t < shortText || float64(e.link) >= linkDensity*float64(e.text)
	switch e.named {
	case commentsNamed:
		return links || minCommentsShare*float64(kept) <= float64(t) && float64(t) <= maxCommentsShare*float64(kept)
	case linksNamed:
		return links && float64(t) <= maxNamedShare*float64(kept)
	}
	return false
}

// namedRegions adds to rs, the regions left out of a page and out of its
// text bytes, the blocks named as boilerplate that [elem.namedOut] leaves
// out, outermost first, and returns them sorted with the new out.
func namedRegions(all []*elem, rs []region, out, text int) ([]region, int) {
	sum := make([]int, len(rs)+1) // sum[i]: the text of rs[:i]
	for i, r := range rs {
		sum[i+1] = sum[i] + r.text
	}
	kept := text - out
	var named []region
	outEnd := -1
	for _, e := range all {
		if e.start < outEnd {
			e.out = true
			continue
		}
		if e.out || e.named == notNamed || !e.own {
			continue
		}
		// The regions inside e: they start inside it (none holds it).
		i, _ := slices.BinarySearchFunc(rs, e.start, func(r region, s int) int { return r.start - s })
		j, _ := slices.BinarySearchFunc(rs, e.end, func(r region, s int) int { return r.start - s })
		t := e.text - (sum[j] - sum[i])
		if !e.namedOut(t, kept) {
			continue
		}
		e.out, outEnd = true, e.end
		named = append(named, region{start: e.start, end: e.end, text: t, brk: blockBreak(e.a)})
		out += t
	}
	if len(named) == 0 {
		return rs, out
	}
	merged := make([]region, 0, len(rs)+len(named))
	for _, r := range rs {
		for len(named) > 0 && named[0].start < r.start {
			merged = append(merged, named[0])
			named = named[1:]
		}
		if n := len(merged); n > 0 && r.start < merged[n-1].end {
			continue // inside the named block before it
		}
		merged = append(merged, r)
	}
	return append(merged, named...), out
}

// aroundTitle cuts the region that holds the page's <title> element
// [start, end), if one does, in two around it: the title is read wherever
// it is (a page whose <title> is in its <body>).
func aroundTitle(rs []region, start, end int) []region {
	if start < 0 || end < 0 {
		return rs
	}
	for i, r := range rs {
		if r.start <= start && end <= r.end {
			after := region{start: end, end: r.end}
			rs[i].end = start
			return slices.Insert(rs, i+1, after)
		}
	}
	return rs
}

// closesSibling reports whether a start tag a closes an open element b
// right before it, as a browser does (a <p> the <p> before it).
func closesSibling(a, b atom.Atom) bool {
	switch b {
	case atom.P, atom.Li, atom.Option:
		return a == b
	case atom.Dt, atom.Dd:
		return a == atom.Dt || a == atom.Dd
	case atom.Td, atom.Th:
		return a == atom.Td || a == atom.Th || a == atom.Tr
	case atom.Tr:
		return a == atom.Tr
	}
	return false
}

// tagName returns the name of the tag raw starts ("<name ...": for an
// end tag, raw from its "/"), lowercased into buf.
func tagName(raw, buf []byte) []byte {
	for i := 1; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		buf = append(buf, lowerASCII(c))
	}
	return buf
}

func sectioning(a atom.Atom) bool {
	return a == atom.Section || a == atom.Aside || a == atom.Nav
}

// voidElement reports whether an element has no end tag and no content.
func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img,
		atom.Input, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track,
		atom.Wbr, atom.Keygen:
		return true
	}
	return false
}

// classifyTag marks elements that are boilerplate, or content, by their
// name alone.
func classifyTag(e *elem) {
	switch e.a {
	case atom.Nav, atom.Search, atom.Button:
		e.mark(always)
	case atom.Header, atom.Footer, atom.Aside:
		e.mark(pageLevel)
	case atom.Dialog:
		if !e.open {
			e.mark(always) // a dialog not open is not shown
		}
	case atom.Main:
		e.main = true
	case atom.Article:
		e.article = true
	}
}

// classify reads the attributes of e's start tag, on which z is
// positioned: its role, whether it is hidden, and its class and id.
func classify(e *elem, z *html.Tokenizer) {
	named, layout := false, false
	var kind nameKind
	veto := false
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "hidden":
			// hidden="until-found" is content a search reveals.
			if !bytes.EqualFold(bytes.TrimSpace(v), []byte("until-found")) {
				e.mark(hidden)
			}
		case "aria-hidden":
			if bytes.EqualFold(bytes.TrimSpace(v), []byte("true")) {
				e.mark(hidden)
			}
		case "style":
			if hiddenStyle(v) {
				e.mark(hidden)
			}
		case "open":
			e.open = true
		case "role":
			// The first role counts (a browser takes the first it knows).
			if f := bytes.Fields(v); len(f) > 0 {
				switch string(bytes.ToLower(f[0])) {
				case "navigation", "search", "menubar", "menu", "toolbar", "dialog", "alertdialog":
					e.mark(always)
				case "banner", "contentinfo", "complementary":
					e.mark(pageLevel)
				case "main":
					e.main = true
				}
			}
		case "class", "id":
			if !named && boilerplateName(v) {
				named = true
			}
			if !layout && layoutName(v) {
				layout = true
			}
			k, ok := blockName(v)
			kind, veto = max(kind, k), veto || ok
		}
		if !more {
			break
		}
	}
	if layout {
		switch e.a {
		case atom.Div, atom.Td, atom.Ul, atom.Ol, atom.Table, 0:
			// Containers only (0: a custom element): a heading or a
			// paragraph of class "header" is text.
			e.mark(pageLevel)
			e.byName = true
		}
	}
	if kind != notNamed && !veto {
		switch e.a {
		case atom.Div, atom.Section, atom.Aside, atom.Header, atom.Footer, atom.Nav, atom.Ul, atom.Ol,
			atom.Dl, atom.Li, atom.Table, atom.Td, atom.Form, 0:
			// Blocks (0: a custom element), not a paragraph or a link.
			e.named = kind
		}
	}
	if named {
		switch e.a {
		case atom.Html, atom.Body, atom.Main, atom.Article:
			// A page's wrapper is named after the page's state
			// ("cookies-accepted"), not what it holds.
		default:
			e.mark(always)
		}
	}
}

// attrWords are words of which a tag must hold one for [classify] to find
// anything in its attributes.
var attrWords = [][]byte{[]byte("hidden"), []byte("none"), []byte("role"), []byte("open"),
	[]byte("header"), []byte("footer"), []byte("sidebar"), []byte("nav"), []byte("menu"), []byte("masthead"),
	[]byte("cookie"), []byte("consent"), []byte("gdpr"), []byte("breadcrumb"), []byte("skip"),
	// blockName's
	[]byte("comment"), []byte("disqus"), []byte("replies"), []byte("share"), []byte("sharing"), []byte("social"),
	[]byte("related"), []byte("paginat"), []byte("pager"), []byte("sponsor"), []byte("promo"), []byte("newsletter"),
	[]byte("rss"), []byte("outbrain"), []byte("taboola"), []byte("popular"), []byte("trending"),
	[]byte("recommend"), []byte("advert"), []byte("popup"), []byte("tags"), []byte("supplemental"), []byte("shoutbox"), []byte("skyscraper"), []byte("agegate"), []byte("shopping"), []byte("community")}

// mayClassify reports whether the raw start tag holds, in any case, a word
// that [classify] looks for: most tags do not, and reading their
// attributes (x/net/html unescapes each value into new memory) is most of
// the cost of a scan.
func mayClassify(raw []byte) bool {
	var buf [512]byte
	if len(raw) > len(buf) {
		return true
	}
	low := buf[:len(raw)]
	for i, c := range raw {
		low[i] = lowerASCII(c)
	}
	// One pass, trying at each byte the words that start with it: with
	// some forty words, a search for each cost a sixth of the scan.
	for i, c := range low {
		for _, w := range attrWordsBy[c] {
			if bytes.HasPrefix(low[i:], w) {
				return true
			}
		}
	}
	return false
}

// attrWordsBy are attrWords by their first byte.
var attrWordsBy = func() (by [256][][]byte) {
	for _, w := range attrWords {
		by[w[0]] = append(by[w[0]], w)
	}
	return by
}()

// hiddenStyle reports whether an inline style hides its element:
// display:none or visibility:hidden.
func hiddenStyle(v []byte) bool {
	var b [64]byte
	s := b[:0]
	for _, c := range v {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			s = append(s, lowerASCII(c))
		}
	}
	for _, decl := range bytes.Split(s, []byte(";")) {
		decl = bytes.TrimSuffix(decl, []byte("!important"))
		if string(decl) == "display:none" || string(decl) == "visibility:hidden" {
			return true
		}
	}
	return false
}

// boilerplateName reports whether a class or id names a cookie or consent
// banner, a breadcrumb trail or a link that skips to the content: words of
// it (split at spaces, "-" and "_") are "cookie", "cookies", "consent",
// "gdpr", "breadcrumb", "breadcrumbs", or "skip" followed by "link",
// "nav", "to", "main" or "content".
func boilerplateName(v []byte) bool {
	prevSkip := false
	for len(v) > 0 {
		// The next word: up to a space, "-" or "_".
		n := 0
		for n < len(v) && !nameSep(v[n]) {
			n++
		}
		w := v[:n]
		v = v[min(n+1, len(v)):]
		if n == 0 {
			continue
		}
		if prevSkip && (eqFold(w, "link") || eqFold(w, "links") || eqFold(w, "nav") || eqFold(w, "to") || eqFold(w, "main") || eqFold(w, "content")) {
			return true
		}
		for _, b := range []string{"cookie", "cookies", "consent", "gdpr", "breadcrumb", "breadcrumbs", "skiplink", "skiplinks"} {
			if eqFold(w, b) {
				return true
			}
		}
		prevSkip = eqFold(w, "skip")
	}
	return false
}

// layoutNames are the classes and ids of a page's header, footer, menu
// bar and sidebar in pages laid out without HTML5's elements.
var layoutNames = []string{"header", "footer", "sidebar", "navbar", "nav", "navigation", "menu", "masthead",
	"site-header", "site-footer", "site-nav", "site-navigation", "site-menu", "main-nav", "main-navigation", "main-menu",
	"global-nav", "global-header", "global-footer", "page-footer", "top-nav", "topnav", "footer-nav"}

// layoutName reports whether a class or id (one of its space-separated
// words, "_" read as "-") is one of layoutNames.
func layoutName(v []byte) bool {
	for len(v) > 0 {
		n := 0
		for n < len(v) && v[n] != ' ' && v[n] != '\t' && v[n] != '\n' && v[n] != '\r' && v[n] != '\f' {
			n++
		}
		w := v[:n]
		v = v[min(n+1, len(v)):]
		if n == 0 || n > 20 {
			continue
		}
		var buf [20]byte
		for i, c := range w {
			if c == '_' {
				c = '-'
			}
			buf[i] = lowerASCII(c)
		}
		if slices.Contains(layoutNames, string(buf[:n])) {
			return true
		}
	}
	return false
}

// Words of a class or id that name a block of boilerplate, when one of
// the block's words holds them: Readability's unlikely candidates and
// negative names, for the blocks that are not content. contentWords
// overrule them: the block may be a wrapper of the content and more
// ("content-sidebar-wrap"), as in Readability.
var (
	commentWords = []string{"comment", "disqus"}
	linksWords   = []string{"menu", "share", "sharing", "social", "related", "sidebar", "footer",
		"paginat", "pager", "sponsor", "promo", "newsletter", "outbrain", "taboola",
		"popular", "trending", "recommend", "advert", "popup", "supplemental", "shoutbox", "skyscraper", "agegate", "shopping", "community", "masthead"}
	contentWords = []string{"article", "content", "body", "mathjax"}
)

// blockName returns what a class or id names ([nameKind]): a comment
// section ("comments", "commentlist", "disqus_thread", "replies"), a block
// of links ("share-buttons", "related-posts", "rightSidebar",
// "site-footer", "tags"...), or nothing; ok reports whether it also names
// the content ("content-sidebar"), which overrules both. Words are split
// at anything but ASCII letters and digits, and compared in lower case.
func blockName(v []byte) (k nameKind, ok bool) {
	var buf [32]byte
	for len(v) > 0 {
		n := 0
		for n < len(v) && wordByte(v[n]) {
			n++
		}
		w := v[:n]
		v = v[min(n+1, len(v)):]
		if n == 0 || n > len(buf) {
			continue
		}
		for i, c := range w {
			buf[i] = lowerASCII(c)
		}
		s := string(buf[:n])
		switch {
		case containsAny(s, contentWords):
			ok = true
		case containsAny(s, commentWords) || s == "replies":
			k = max(k, commentsNamed)
		case containsAny(s, linksWords) || s == "tags" || s == "rss":
			k = max(k, linksNamed)
		}
	}
	return k, ok
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

func nameSep(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '-' || c == '_'
}

// eqFold reports whether w is s (lowercase ASCII) in any case.
func eqFold(w []byte, s string) bool {
	if len(w) != len(s) {
		return false
	}
	for i := range w {
		if lowerASCII(w[i]) != s[i] {
			return false
		}
	}
	return true
}
