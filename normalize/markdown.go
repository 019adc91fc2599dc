package normalize

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is goldmark's CommonMark parser with the GitHub table and
// strikethrough extensions and footnotes ([footnoteOptions]). (GFM autolinks are left out: a bare URL is text
// either way, and linkify costs a quarter of the parse time.) Its link
// reference definitions are looked for only where one can start
// ([linkRefs]). Parsers are safe for concurrent use.
var mdParser = sync.OnceValue(func() parser.Parser {
	p := parser.NewParser(append([]parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(util.Prioritized(linkRefs{}, 100)),
	}, footnoteOptions()...)...)
	return goldmark.New(goldmark.WithParser(p), goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
})

// linkRefs is goldmark's [parser.LinkReferenceParagraphTransformer] (its
// only default paragraph transformer), called only for a paragraph whose
// first line starts with "[" after spaces, or is blank. A definition
// starts so, and goldmark's transformer takes nothing off any other
// paragraph, but makes a block reader for each to find that out.
type linkRefs struct{}

func (linkRefs) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	if lines := node.Lines(); lines.Len() > 0 {
		s := lines.At(0)
		line := reader.Source()[s.Start:s.Stop]
		i := 0
		for i < len(line) && util.IsSpace(line[i]) {
			i++
		}
		if i < len(line) && line[i] != '[' {
			return
		}
	}
	parser.LinkReferenceParagraphTransformer.Transform(node, reader, pc)
}

func normalizeMarkdown(src []byte) *Document {
	return normalizeMarkdownWith(mdParser(), src)
}

// normalizeMarkdownWith is normalizeMarkdown with the parser p.
func normalizeMarkdownWith(p parser.Parser, src []byte) *Document {
	src = src[:min(len(src), maxSource)]
	if d, ok := fromEncoded(src, func(b []byte) *Document { return normalizeMarkdownWith(p, b) }); ok {
		return d
	}
	base := 0
	if bytes.HasPrefix(src, utf8BOM) {
		base = len(utf8BOM)
	}
	body, fmTitle, _ := frontMatter(src, base)
	md := src[body:]
	if why := markdownCostlyWhy(md); why != "" {
		// goldmark would take far longer than for prose of the same size:
		// keep the text as it is, as for plain text, and say so.
		b := newBuilder(src, body, len(src))
		b.pre = true
		b.text(body, len(src))
		d := b.document(normalizeTitle(fmTitle, false))
		d.Notes = append(d.Notes, "read as plain text, not as Markdown: "+why)
		return d
	}
	root := p.Parse(text.NewReader(md))
	b := newBuilder(src, body, len(src))
	w := &mdWalker{b: b, src: src, md: md, off: body, h: newHTMLState(b, false)}
	w.block(root)
	title := ""
	if len(fmTitle) > 0 {
		title = normalizeTitle(fmTitle, false)
	}
	return b.document(title)
}

// mdWalker walks goldmark's AST and feeds the builder.
type mdWalker struct {
	b       *builder
	src     []byte // the whole source (builder offsets)
	md      []byte // the part goldmark parsed: src[off:]
	off     int
	h       *htmlState // raw HTML: blocks and inline tags
	lists   []listLevel
	scratch []byte
	pieces  []piece
}

func (w *mdWalker) seg(s text.Segment) (int, int) {
	return s.Start + w.off, s.Stop + w.off
}

func (w *mdWalker) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c)
	}
}

func (w *mdWalker) block(n ast.Node) {
	b := w.b
	switch n := n.(type) {
	case *ast.Document:
		w.blocks(n)
	case *ast.Paragraph:
		b.brk(2)
		w.inlines(n)
		w.endBlock()
		b.brk(2)
	case *ast.TextBlock:
		b.brk(1)
		w.inlines(n)
		w.endBlock()
		b.brk(1)
	case *ast.Heading:
		b.brk(2)
		b.beginHeading(n.Level)
		w.inlines(n)
		w.h.reset()
		b.endHeading()
		b.brk(2)
	case *ast.ThematicBreak:
		b.brk(2)
	case *ast.CodeBlock:
		w.code(n.Lines())
	case *ast.FencedCodeBlock:
		w.code(n.Lines())
	case *ast.Blockquote:
		b.brk(2)
		w.blocks(n)
		b.brk(2)
	case *ast.List:
		w.list(n)
	case *ast.HTMLBlock:
		w.htmlBlock(n)
	case *ast.LinkReferenceDefinition:
		// Not content.
	case *east.FootnoteList:
		// Its footnotes are written where they stand (footnoteSpot).
	case *footnoteSpot:
		w.footnote(n.fn)
	case *east.Table:
		b.brk(2)
		w.blocks(n)
		b.brk(2)
	case *east.TableHeader:
		w.row(n)
	case *east.TableRow:
		w.row(n)
	default:
		if n.Type() == ast.TypeInline {
			w.inline(n)
			return
		}
		// A block from an extension: its children, or its lines as text.
		b.brk(1)
		if n.HasChildren() {
			w.blocks(n)
		} else if lines := n.Lines(); lines != nil {
			for i := range lines.Len() {
				a, z := w.seg(lines.At(i))
				b.text(a, z)
			}
		}
		b.brk(1)
	}
}

// endBlock ends the inline content of a leaf block: raw HTML state does not
// leak out of it.
func (w *mdWalker) endBlock() {
	w.h.reset()
	w.b.endHeading()
}

// code writes a code block's lines verbatim (but for the whitespace rules):
// content only, no fences or info string; line breaks kept.
func (w *mdWalker) code(lines *text.Segments) {
	b := w.b
	b.brk(2)
	b.pre = true
	n := lines.Len()
	for i := range n {
		a, z := w.seg(lines.At(i))
		b.text(a, z)
		if i+1 < n && (z == a || w.src[z-1] != '\n' && w.src[z-1] != '\r') {
			b.hardBreak()
		}
	}
	b.pre = false
	b.brk(2)
}

// list writes a list: each item on its own line after a marker (see itemMarker).
func (w *mdWalker) list(n *ast.List) {
	b := w.b
	top := len(w.lists) == 0
	if top {
		b.brk(2)
	} else {
		b.brk(1)
	}
	w.lists = pushList(w.lists, listLevel{ordered: n.IsOrdered(), num: n.Start - 1, delim: n.Marker})
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		b.brk(1)
		l := &w.lists[len(w.lists)-1]
		l.num++
		b.setMarker(w.lists)
		w.blocks(item)
		b.clearPrefix()
		b.brk(1)
	}
	w.lists = w.lists[:len(w.lists)-1]
	if top {
		b.brk(2)
	} else {
		b.brk(1)
	}
}

// row writes a table row on one line, cells separated by " | ".
func (w *mdWalker) row(n ast.Node) {
	b := w.b
	b.brk(1)
	b.clearPrefix()
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if i > 0 {
			b.cellSep()
		}
		i++
		w.inlines(c)
		w.endBlock()
	}
	b.clearPrefix()
	b.brk(1)
}

// htmlBlock runs an HTML block through the HTML stripper. Its lines are
// contiguous in the source unless the block sits in a list or a block quote;
// then they are copied together, with a piece per line for the offsets.
func (w *mdWalker) htmlBlock(n *ast.HTMLBlock) {
	b := w.b
	lines := n.Lines()
	count := lines.Len()
	if n.HasClosure() {
		count++
	}
	if count == 0 {
		return
	}
	at := func(i int) (int, int) {
		if i < lines.Len() {
			return w.seg(lines.At(i))
		}
		return w.seg(n.ClosureLine)
	}
	w.pieces = w.pieces[:0]
	first, _ := at(0)
	prevEnd := first
	contiguous := true
	for i := range count {
		a, z := at(i)
		if a != prevEnd {
			contiguous = false
		}
		prevEnd = z
	}
	var data []byte
	if contiguous {
		data = w.src[first:prevEnd]
		w.pieces = append(w.pieces, piece{data: 0, src: first})
	} else {
		w.scratch = w.scratch[:0]
		for i := range count {
			a, z := at(i)
			w.pieces = append(w.pieces, piece{data: len(w.scratch), src: a})
			w.scratch = append(w.scratch, w.src[a:z]...)
		}
		data = w.scratch
	}
	b.brk(2)
	w.h.reset()
	w.h.run(data, w.pieces)
	w.h.reset()
	b.endHeading()
	b.brk(2)
}

func (w *mdWalker) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(c)
	}
}

func (w *mdWalker) inline(n ast.Node) {
	b := w.b
	switch n := n.(type) {
	case *ast.Text:
		if w.h.skip == 0 {
			a, z := w.seg(n.Segment)
			if n.IsRaw() {
				b.text(a, z)
			} else {
				mdText(b, a, z)
			}
		}
		if n.HardLineBreak() {
			b.hardBreak()
		} else if n.SoftLineBreak() {
			b.space = true
		}
	case *ast.String:
		if w.h.skip == 0 {
			b.synthGap(n.Value)
		}
	case *ast.CodeSpan:
		if w.h.skip != 0 {
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				a, z := w.seg(t.Segment)
				b.text(a, z)
			}
		}
	case *ast.AutoLink:
		if w.h.skip != 0 {
			return
		}
		label := n.Label(w.md)
		if o := cap(w.md) - cap(label); len(label) > 0 && o >= 0 && o+len(label) <= len(w.md) && &w.md[o] == &label[0] {
			b.text(w.off+o, w.off+o+len(label))
		} else {
			b.synthGap(label)
		}
	case *ast.RawHTML:
		w.rawHTML(n)
	case *east.FootnoteLink:
		if w.h.skip == 0 {
			start := b.sb.Len()
			b.synthGap([]byte("[" + strconv.Itoa(n.Index) + "]"))
			b.noteMark(start)
		}
	default:
		// Emphasis, strikethrough, links (their text, not the URL), images
		// (their alt text) and inlines from extensions: their content.
		w.inlines(n)
	}
}

// rawHTML applies an inline HTML tag (goldmark has checked its syntax):
// <br> breaks the line, block tags break the paragraph, the content of
// <script>, <style> and the like is dropped up to the closing tag or the end
// of the block; other tags, comments and declarations vanish.
func (w *mdWalker) rawHTML(n *ast.RawHTML) {
	segs := n.Segments
	if segs.Len() == 0 {
		return
	}
	a, z := w.seg(segs.At(0))
	raw := w.src[a:z]
	if len(raw) < 2 || raw[0] != '<' || raw[1] == '!' || raw[1] == '?' {
		return
	}
	end := raw[1] == '/'
	at := tagAtom(raw, end)
	if end {
		w.h.endTag(at)
		return
	}
	la, lz := w.seg(segs.At(segs.Len() - 1))
	w.h.startTag(at, bytes.HasSuffix(w.src[la:lz], []byte("/>")), nil)
}

// markdownCostly reports whether goldmark would take disproportionately
// long, or hold disproportionately much memory, on md. It estimates the
// parser's work, in units of the work on one byte of prose, and compares it
// with a budget linear in len(md); and it estimates the nodes of the syntax
// tree goldmark builds before the walk reads any of it, and compares them
// with a budget of memory linear in len(md). The constructs it counts were
// measured with BenchmarkPathological in ingest:
//   - deep nesting: every line walks all the lists and block quotes open
//     above it, so a list nested a thousand levels deep is quadratic;
//   - link destinations: after each "](" goldmark scans the destination to
//     the next space (to the end of the line after "](<"), so a long run of
//     "[a](" without a space is quadratic;
//   - link label openers: each "[" costs about a hundred bytes of prose;
//   - link reference definitions: goldmark takes them off the start of a
//     paragraph one at a time, and each one copies and scans the lines of
//     the paragraph after it, so a paragraph of n lines starting with "["
//     costs n² (tens of thousands of definitions take seconds);
//   - nodes: a table cell, an emphasis delimiter, a code span each make a
//     node or two of about 90 bytes, so a table of a thousand narrow
//     columns, or a run of "*a **b ", holds 100 to 200 bytes of tree per
//     byte of input (8 bytes a byte is the whole indexing's target) and
//     takes 10 to 70 times as long as prose.
//
// The scan is linear and allocates nothing.
func markdownCostly(md []byte) bool {
	_, _, _, costly := markdownWork(md, true)
	return costly
}

// markdownCostlyWhy is markdownCostly saying why: "" when goldmark can read
// md, else which of the constructs markdownCostly counts made the estimate
// go over budget (the largest of its parts where it did), for the note on
// the document.
func markdownCostlyWhy(md []byte) string {
	cost, refPairs, nodes, costly := markdownWork(md, true)
	if !costly {
		return ""
	}
	// The part furthest over its budget: the tree's memory, or the
	// parser's time, and of the time the largest share.
	refs, tree := refPairs/refPairsPerUnit, nodeCost*nodes/2
	budget, nodeBudget := float64(markdownBudget(len(md))), float64(markdownNodeBudget(len(md)))
	overTime, overTree := float64(cost+refs+tree)/budget, float64(nodes/2)/nodeBudget
	switch {
	case overTree > overTime || tree >= max(cost, refs):
		return "it has too many table cells, emphasis marks, code spans or HTML tags for its size " +
			"(the Markdown parser would hold hundreds of bytes of memory for each byte of it)"
	case refs >= cost:
		return "it has " + strconv.Itoa(linesStartingWith(md, '[')) + " lines starting with \"[\" (link reference definitions), " +
			"which the Markdown parser reads in time growing with the square of their number"
	default:
		return "it has lists or block quotes nested very deep, or long runs of \"[\" or \"](\" " +
			"(links without spaces), which the Markdown parser reads in time growing with the square of their size"
	}
}

// linesStartingWith counts the lines of md whose first byte past spaces,
// tabs and ">" is c.
func linesStartingWith(md []byte, c byte) int {
	n := 0
	for line := range bytes.Lines(md) {
		if rest := bytes.TrimLeft(line, " \t>"); len(rest) > 0 && rest[0] == c {
			n++
		}
	}
	return n
}

// markdownBudget is markdownWork's budget of work for a document of size
// bytes, in units of the work on a byte of prose.
func markdownBudget(size int) int { return 20*size + 1<<20 }

// markdownNodeBudget is markdownWork's budget of syntax-tree nodes for a
// document of size bytes.
func markdownNodeBudget(size int) int {
	// The tree of prose takes about 7 bytes per byte of input. Beyond that,
	// allow about 4 bytes a byte and 24 MB (at ~90 bytes a node, and as
	// much again before the collector runs).
	return size/40 + 1<<17
}

// The units of markdownWork's estimate (see markdownCostly).
const (
	depthCost   = 150 // per column of indentation past 16, per line
	bracketCost = 100 // per "["
	// per pair of lines in a paragraph, one of which starts with "[":
	// a pair costs 0.03 to 0.3 bytes of prose (more in long paragraphs,
	// whose lines no longer fit in the processor's caches)
	refPairsPerUnit = 2
	nodeCost        = 10 // per node of the syntax tree (prose has one in 50 to 100 bytes)
)

// markdownWork estimates goldmark's work on md line by line, as
// markdownCostly describes: cost in units of the work on a byte of prose,
// the pairs of lines of a paragraph one of which starts with "[", and the
// nodes of the syntax tree in halves. costly reports whether the estimate
// went over budget after some line; with stop, the scan ends there.
//
// It reads each byte once: the bytes that count for nothing (letters,
// digits, most punctuation; spaces too outside a link destination) are
// skipped by a table lookup each. The start of a destination's run, which
// the cost of "](" needs, is found by scanning back when a "](" is met.
func markdownWork(md []byte, stop bool) (cost, refPairs, nodes int, costly bool) {
	budget := markdownBudget(len(md))
	nodeBudget := markdownNodeBudget(len(md))
	cost = len(md)
	paraLines, paraRefs := 0, 0 // in the paragraph the line is in
	for pos := 0; pos < len(md); {
		start := pos
		indent, j := 0, start
	indentLoop:
		for ; j < len(md); j++ {
			switch md[j] {
			case ' ', '>':
				indent++
			case '\t':
				indent += 4
			default:
				break indentLoop
			}
		}
		cost += depthCost * max(0, indent-16)
		// The line's content starts at rest; a last line of indentation
		// alone, without a newline, is all content.
		rest := j
		if j == len(md) {
			rest = start
		}
		// Link reference definitions: a line that starts with "[" costs
		// the lines of its paragraph, and each line of a paragraph costs
		// the lines that started with "[" before it.
		blank, ref := false, false
		switch c := md[rest]; {
		case c == '\n':
			blank = true
		case c < utf8.RuneSelf && !isASCIISpace(c):
			ref = c == '['
		default: // other whitespace, Unicode included
			end := len(md)
			if k := bytes.IndexByte(md[rest:], '\n'); k >= 0 {
				end = rest + k
			}
			blank = len(bytes.TrimSpace(md[rest:end])) == 0
		}
		if blank {
			paraLines, paraRefs = 0, 0
		} else {
			paraLines++
			if ref {
				paraRefs++
				refPairs += paraLines
			}
			refPairs += paraRefs
		}
		nodes += 2 // a line of text
		// Destinations: each "](" scans to the next space; "](<" to the end
		// of the line. opens counts the "](" in the run of non-spaces that
		// starts at runStart.
		opens, runStart := 0, start
		i := start
		for i < len(md) {
			class := &markdownClass[min(opens, 1)]
			for i < len(md) && class[md[i]] == mcPlain {
				i++
			}
			if i == len(md) {
				break
			}
			c := md[i]
			switch class[c] {
			case mcNode:
				nodes += int(nodeWeight[c])
				if c == '[' {
					cost += bracketCost
				}
				i++
				continue
			case mcParen:
				if i > start && md[i-1] == ']' {
					if i+1 < len(md) && md[i+1] == '<' {
						end := len(md)
						if k := bytes.IndexByte(md[i:], '\n'); k >= 0 {
							end = i + k + 1
						}
						cost += end - i
					}
					if opens == 0 {
						runStart = i
						for runStart > start && md[runStart-1] != ' ' && md[runStart-1] != '\t' {
							runStart--
						}
					}
					opens++
				}
				i++
				continue
			case mcEscape:
				// "\*" is text, merged with the text around it: the byte
				// after the backslash starts no node, but it is still a
				// "[" or a space.
				if i++; i == len(md) {
					continue
				}
				if c = md[i]; c != ' ' && c != '\t' && c != '\n' {
					if c == '[' {
						cost += bracketCost
					}
					i++
					continue
				}
			}
			// A space, a tab or the newline at i ends the run.
			cost += opens * (i - runStart)
			runStart, opens = i+1, 0
			if i++; c == '\n' {
				break
			}
		}
		// A last line without a newline ends the run too.
		cost += opens * (i - runStart)
		pos = i
		if cost+refPairs/refPairsPerUnit+nodeCost*nodes/2 > budget || nodes/2 > nodeBudget {
			costly = true
			if stop {
				return
			}
		}
	}
	return
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Byte classes of markdownWork.
const (
	mcPlain  = iota // counts for nothing
	mcNode          // starts nodes (nodeWeight)
	mcParen         // "(": a destination when after "]"
	mcEscape        // "\": the next byte starts no node
	mcSpace         // " ", "\t", "\n": ends a run
)

// markdownClass is the class of each byte, outside a run with a "](" in it
// (spaces count for nothing) and inside one.
var markdownClass = func() (t [2][256]uint8) {
	for k := range t {
		for c, w := range nodeWeight {
			if w > 0 {
				t[k][c] = mcNode
			}
		}
		t[k]['('] = mcParen
		t[k]['\\'] = mcEscape
		t[k]['\n'] = mcSpace
	}
	t[1][' '] = mcSpace
	t[1]['\t'] = mcSpace
	return t
}()

// nodeWeight estimates, in halves, the nodes of goldmark's syntax tree a
// byte can start (measured on runs of each construct): a table cell and
// its text at each "|"; an emphasis or code span delimiter and the text
// after it; a link, its text and the text after it at "["; an inline tag or
// autolink and the text around it at "<". Escapes and entities add none:
// goldmark merges them with the text around them.
var nodeWeight = func() (w [256]uint8) {
	for _, c := range []byte("*_~`") {
		w[c] = 3
	}
	w['|'] = 4
	w['['] = 6
	w['!'] = 4
	w['<'] = 8
	return w
}()
