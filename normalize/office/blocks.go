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

// A note's marker is written between noteOpen and noteClose (Unicode
// noncharacters, for internal use) until emit: a heading's markers are
// footnote markers of [normalize.Extracted.HeadingNotes], left out of its
// heading path; elsewhere the delimiters are dropped.
const (
	noteOpen  = "\uFDD0"
	noteClose = "\uFDD1"
)

// noteRanges returns s without its markers' delimiters, and where the
// markers are in it.
func noteRanges(s string) (string, [][2]int) {
	if !strings.Contains(s, noteOpen) && !strings.Contains(s, noteClose) {
		return s, nil
	}
	var sb strings.Builder
	var out [][2]int
	start := -1
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], noteOpen):
			start = sb.Len()
			i += len(noteOpen)
		case strings.HasPrefix(s[i:], noteClose):
			if start >= 0 && sb.Len() > start {
				out = append(out, [2]int{start, sb.Len()})
			}
			start = -1
			i += len(noteClose)
		default:
			sb.WriteByte(s[i])
			i++
		}
	}
	return sb.String(), out
}

// plainNotes returns s without its markers' delimiters.
func plainNotes(s string) string {
	t, _ := noteRanges(s)
	return t
}

// withoutNotes returns s without its markers (a title).
func withoutNotes(s string) string {
	t, notes := noteRanges(s)
	for i := len(notes) - 1; i >= 0; i-- {
		t = t[:notes[i][0]] + t[notes[i][1]:]
	}
	return strings.TrimSpace(t)
}

// emit writes blocks to x in order.
func emit(x *normalize.Extracted, blocks []block) {
	inTable := false
	for _, b := range blocks {
		b.text = plainNotesIn(b)
		if inTable && b.kind != bRow {
			x.EndTable()
			inTable = false
		}
		switch b.kind {
		case bPara:
			x.Paragraph(b.text)
		case bHeading:
			text, notes := noteRanges(b.text)
			x.HeadingNotes(b.level, text, notes)
		case bItem:
			x.ListItem(b.level, b.ordered, b.text)
		case bRow:
			cells := make([]string, len(b.cells))
			for i, c := range b.cells {
				cells[i] = plainNotes(c)
			}
			x.Row(cells...)
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
	return noteOpen + "[" + itoa(num) + "]" + noteClose
}

// plainNotesIn returns b's text, its markers' delimiters dropped but for a
// heading's.
func plainNotesIn(b block) string {
	if b.kind == bHeading {
		return b.text
	}
	return plainNotes(b.text)
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
