package normalize

import (
	"strconv"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// footnoteOptions are the parsers of Markdown footnotes (PHP Markdown
// Extra's, as GitHub renders them): a reference "[^label]" and a
// definition "[^label]: text" (its further paragraphs indented). Without
// them a reference reads "^label" when a definition of one word is taken
// for a link reference definition (and its text dropped), else
// "[^label]". goldmark's footnote extension is not used whole: its AST
// transformer adds back links and moves the notes to the end.
func footnoteOptions() []parser.Option {
	return []parser.Option{
		parser.WithBlockParsers(util.Prioritized(footnoteDefs{extension.NewFootnoteBlockParser()}, 999)),
		parser.WithInlineParsers(util.Prioritized(extension.NewFootnoteParser(), 101)),
	}
}

// footnoteDefs is goldmark's footnote definition parser, which moves each
// definition it closes into one list (where the first definition stood) so
// that references can find it; it leaves a [footnoteSpot] where the
// definition was, so that the text keeps the source's order.
type footnoteDefs struct{ parser.BlockParser }

func (f footnoteDefs) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	parent, next := node.Parent(), node.NextSibling()
	f.BlockParser.Close(node, reader, pc)
	fn, ok := node.(*east.Footnote)
	if !ok || parent == nil {
		return
	}
	spot := &footnoteSpot{fn: fn}
	if next != nil && next.Parent() == parent {
		parent.InsertBefore(parent, next, spot)
	} else {
		parent.AppendChild(parent, spot)
	}
}

// kindFootnoteSpot is the kind of a [footnoteSpot].
var kindFootnoteSpot = ast.NewNodeKind("FootnoteSpot")

// footnoteSpot marks where a footnote definition stands in the source.
type footnoteSpot struct {
	ast.BaseBlock
	fn *east.Footnote
}

func (*footnoteSpot) Kind() ast.NodeKind { return kindFootnoteSpot }

func (n *footnoteSpot) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// footnote writes a footnote definition where it stands: its blocks, the
// first starting with its number ("[1] ", as the notes of Word and
// OpenDocument files read; on a line of its own before a list or code),
// or "[^label]:" for a note never referenced.
func (w *mdWalker) footnote(fn *east.Footnote) {
	b := w.b
	marker := "[^" + string(fn.Ref) + "]:"
	if fn.Index > 0 {
		marker = "[" + strconv.Itoa(fn.Index) + "]"
	}
	b.brk(2)
	switch fn.FirstChild().(type) {
	case *ast.Paragraph, *ast.TextBlock:
		b.prefix = append(append(b.prefix[:0], marker...), ' ')
	default:
		// No text, or a list or code first: the marker alone.
		b.synthGap([]byte(marker))
	}
	w.blocks(fn)
	b.clearPrefix()
	b.brk(2)
}
