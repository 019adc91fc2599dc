package office

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// A workbook is read into sheets of sparse rows, then written as one
// table a sheet under a heading naming it (see [emitSheets]).

// sheetCell is a cell with text: its column (0-based) and text.
type sheetCell struct {
	col  int
	text string
}

// sheetRow is a row with at least one cell with text.
type sheetRow struct {
	row   int
	cells []sheetCell
}

type sheet struct {
	name string
	rows []sheetRow
}

// maxRepeat bounds a repeat count or a cell reference: a spreadsheet has at
// most 1,048,576 rows (Excel, LibreOffice) and 16,384 columns.
const maxRepeat = 1 << 20

// cellBudget counts the cells with text read from a workbook, against
// [Limits].MaxCells.
type cellBudget struct {
	left  int
	max   int
	sheet string // the sheet being read when the budget ran out
}

// take takes n cells from the budget and returns how many it may have.
func (b *cellBudget) take(n int, sheet string) int {
	if n > b.left {
		n = b.left
		if b.sheet == "" {
			b.sheet = sheet
		}
	}
	b.left -= n
	return n
}

func (b *cellBudget) out() bool { return b.left <= 0 }

// emitSheets writes each sheet with text as a level-1 heading (its name)
// and a table: its rows in order, empty rows left out, and the columns
// empty in every row left out (so a table starting at C5 starts at its
// first column). notes are what the reader left out. The title is the
// workbook's own (from its properties) or none: the first sheet's name is
// not the workbook's title.
func emitSheets(sheets []sheet, title string, notes []string) *normalize.Document {
	var x normalize.Extracted
	for _, s := range sheets {
		if len(s.rows) == 0 {
			continue
		}
		slices.SortStableFunc(s.rows, func(a, b sheetRow) int { return a.row - b.row })
		var used []int
		for _, r := range s.rows {
			for _, c := range r.cells {
				used = append(used, c.col)
			}
		}
		slices.Sort(used)
		used = slices.Compact(used)
		x.Heading(1, s.name)
		for _, r := range s.rows {
			cells := make([]string, len(used))
			last := -1
			for _, c := range r.cells {
				i, _ := slices.BinarySearch(used, c.col)
				if cells[i] != "" {
					cells[i] += " "
				}
				cells[i] += c.text
				last = max(last, i)
			}
			x.Row(cells[:last+1]...)
		}
		x.EndTable()
	}
	for _, n := range notes {
		x.Note(n)
	}
	d := x.Document(title)
	if title == "" {
		d.Title = "" // not the first sheet's name
	}
	return d
}

// budgetNote says where reading stopped for the cell budget.
func budgetNote(b *cellBudget) string {
	if b.sheet == "" {
		return ""
	}
	return fmt.Sprintf("read the first %d cells with text (the limit): the rest of sheet %q and the sheets after it are left out", b.max, b.sheet)
}

// xmlStream reads XML tokens, refusing nesting deeper than max. Like
// [parseXML], it reads no DTD and resolves no external entity.
type xmlStream struct {
	d     *xml.Decoder
	depth int
	max   int
	name  string // the part, for errors
}

func newXMLStream(b []byte, max int, name string) *xmlStream {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	return &xmlStream{d: d, max: max, name: name}
}

// inside returns the next token of an element not yet ended: the end of
// the part there is an error.
func (s *xmlStream) inside() (xml.Token, error) {
	tok, err := s.next()
	if err == io.EOF {
		err = fmt.Errorf("%w: part %q: XML is incomplete", ErrDamaged, s.name)
	}
	return tok, err
}

// next returns the next token; io.EOF at the end of a complete document.
func (s *xmlStream) next() (xml.Token, error) {
	tok, err := s.d.Token()
	if err == io.EOF {
		if s.depth != 0 {
			return nil, fmt.Errorf("%w: part %q: XML is incomplete", ErrDamaged, s.name)
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%w: part %q: %v", ErrDamaged, s.name, err)
	}
	switch tok.(type) {
	case xml.StartElement:
		s.depth++
		if s.depth > s.max {
			return nil, fmt.Errorf("%w: part %q: XML nested deeper than %d elements", ErrTooLarge, s.name, s.max)
		}
	case xml.EndElement:
		s.depth--
	}
	return tok, nil
}

// skip reads past the end of the element just started.
func (s *xmlStream) skip() error {
	depth := s.depth
	for s.depth >= depth {
		if _, err := s.next(); err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: part %q: XML is incomplete", ErrDamaged, s.name)
			}
			return err
		}
	}
	return nil
}

func attrOf(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// errStop ends a scan early (the cell budget is spent).
var errStop = errors.New("stop")

// cellText makes a cell's text one line: runs of white space, line breaks
// included, become one space.
func cellText(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == '\t' }) < 0 {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// docTitle returns the dc:title of a properties part (docProps/core.xml,
// meta.xml), "" when it has none or cannot be read.
func docTitle(z *zipDoc, name string) string {
	if !z.has(name) {
		return ""
	}
	b, err := z.readLimited(name, 1<<20)
	if err != nil {
		return ""
	}
	root, err := parseXML(b, z.limits.MaxDepth)
	if err != nil {
		return ""
	}
	for _, t := range root.all("title") {
		if t.name.Space == "http://purl.org/dc/elements/1.1/" {
			return cellText(t.textContent())
		}
	}
	return ""
}
