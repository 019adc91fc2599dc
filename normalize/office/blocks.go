package office

import (
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// blockKind is the kind of a block of extracted text.
type blockKind uint8

const (
	bPara     blockKind = iota
	bHeading            // level
	bItem               // level is the depth, ordered
	bRow                // cells
	bEndTable           // ends the table of the rows before it
	bPage               // level is the page (slide) number
	bLines              // text whose line breaks are kept
)

// block is one block of a document's text, in reading order. Readers build
// blocks; emit writes them to a [normalize.Extracted].
type block struct {
	kind    blockKind
	level   int
	ordered bool
	text    string
	cells   []string
}

// emit writes blocks to x in order.
func emit(x *normalize.Extracted, blocks []block) {
	inTable := false
	for _, b := range blocks {
		if inTable && b.kind != bRow {
			x.EndTable()
			inTable = false
		}
		switch b.kind {
		case bPara:
			x.Paragraph(b.text)
		case bHeading:
			x.Heading(b.level, b.text)
		case bItem:
			x.ListItem(b.level, b.ordered, b.text)
		case bRow:
			x.Row(b.cells...)
			inTable = true
		case bPage:
			x.Page(b.level)
		case bLines:
			x.Lines(b.text)
		}
	}
	if inTable {
		x.EndTable()
	}
}

// notes numbers footnotes and endnotes in the order they are referenced
// and keeps their text for the "Notes" section at the end of the document.
type notes struct {
	seen  map[string]int // kind+id to number
	texts [][]block      // by number-1
}

// ref returns the marker of note key, numbering it on first reference;
// body gives its blocks then.
func (n *notes) ref(key string, body func() []block) string {
	if n.seen == nil {
		n.seen = map[string]int{}
	}
	num, ok := n.seen[key]
	if !ok {
		n.texts = append(n.texts, nil)
		num = len(n.texts)
		n.seen[key] = num
		n.texts[num-1] = body()
	}
	return "[" + itoa(num) + "]"
}

// section returns the blocks of the "Notes" section: a level-1 heading,
// then each note as a paragraph starting with its marker; nothing when no
// note was referenced.
func (n *notes) section() []block {
	if len(n.texts) == 0 {
		return nil
	}
	out := []block{{kind: bHeading, level: 1, text: "Notes"}}
	for i, body := range n.texts {
		marker := "[" + itoa(i+1) + "]"
		first := true
		for _, b := range body {
			if first && (b.kind == bPara || b.kind == bHeading || b.kind == bItem || b.kind == bLines) {
				b = lineBreaks(block{kind: bPara, text: marker + " " + b.text})
				first = false
			} else if b.kind == bHeading {
				b.kind = bPara
			}
			out = append(out, b)
		}
		if first {
			out = append(out, block{kind: bPara, text: marker})
		}
	}
	return out
}

// lineBreaks makes a paragraph whose text has line breaks (Word's w:br,
// OpenDocument's text:line-break, PowerPoint's a:br: an address, a verse,
// a code block) a block whose line breaks are kept. Headings, list items
// and table cells keep reading as one line.
func lineBreaks(b block) block {
	if b.kind == bPara && strings.Contains(b.text, "\n") {
		b.kind = bLines
	}
	return b
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

// blockText joins the text of blocks with spaces (a table cell's content).
func blockText(blocks []block) string {
	var parts []string
	for _, b := range blocks {
		switch b.kind {
		case bRow:
			parts = append(parts, strings.Join(b.cells, " "))
		case bPage, bEndTable:
		default:
			parts = append(parts, b.text)
		}
	}
	return strings.Join(nonEmpty(parts), " ")
}

func nonEmpty(s []string) []string {
	out := s[:0:0]
	for _, p := range s {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}
