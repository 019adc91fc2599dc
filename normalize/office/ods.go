package office

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// ods reads an OpenDocument spreadsheet's content.xml as a stream: its
// automatic styles (which say which tables are hidden) come before the
// body.
type ods struct {
	ctx    context.Context
	s      *xmlStream
	hidden map[string]bool // table styles with table:display="false"
	budget cellBudget
	// The data styles of cell styles, for cells without their text.
	codes    map[string]string   // data style to its format code
	maps     map[string][]odsMap // data style to its style:map
	cellData map[string]string   // cell style to its data style
	langs    map[string]odsLang  // data style to its language, where it names one
	formats  map[string]*numFormat
	cols     []colStyle // the default cell styles of the table's columns
	colEnd   int        // the columns declared so far
	sheets   []sheet
	notes    []string
}

func readODS(z *zipDoc, maxCells int) (*normalize.Document, error) {
	if err := odtEncrypted(z); err != nil {
		return nil, err
	}
	b, err := z.read("content.xml")
	if err != nil {
		return nil, err
	}
	o := &ods{ctx: z.ctx, s: newXMLStream(b, z.limits.MaxDepth, "content.xml"), hidden: map[string]bool{}, budget: cellBudget{left: maxCells, max: maxCells},
		codes: map[string]string{}, maps: map[string][]odsMap{}, cellData: map[string]string{}, langs: map[string]odsLang{}}
	if err := o.commonStyles(z); err != nil {
		return nil, err
	}
	style := "" // the table style being read
	seen := false
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := z.ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := o.s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				switch attrOf(t, "family") {
				case "table":
					style = attrOf(t, "name")
				case "table-cell":
					if ds := attrOf(t, "data-style-name"); ds != "" && len(o.cellData) < maxStyles {
						o.cellData[attrOf(t, "name")] = ds
					}
				}
			case "number-style", "currency-style", "percentage-style", "time-style", "boolean-style", "date-style", "text-style":
				code, maps, ok := odsDataStyle(o.s, t)
				if ok && len(o.codes) < maxStyles {
					o.keep(t, code, maps)
				}
			case "table-properties":
				if style != "" && attrOf(t, "display") == "false" {
					o.hidden[style] = true
				}
			case "spreadsheet":
				seen = true
			case "table":
				if err := o.table(t); err != nil {
					return nil, err
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" {
				style = ""
			}
		}
	}
	if !seen {
		return nil, fmt.Errorf("%w: content.xml has no spreadsheet", ErrDamaged)
	}
	if n := budgetNote(&o.budget); n != "" {
		o.notes = append(o.notes, n)
	}
	return emitSheets(o.sheets, docTitle(z, "meta.xml"), o.notes), nil
}

// repeat returns a number-*-repeated attribute's count: 1 when unset or
// not a count, at most maxRepeat.
func repeat(t xml.StartElement, attr string) int {
	n, err := strconv.Atoi(attrOf(t, attr))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxRepeat)
}

// table reads a table:table just started: its rows, expanding repeated
// rows and cells that have text (against the cell budget) and counting
// past repeated empty ones, so a sheet declaring a million empty rows
// costs nothing.
func (o *ods) table(t xml.StartElement) error {
	name := cellText(attrOf(t, "name"))
	if o.hidden[attrOf(t, "style-name")] {
		o.notes = append(o.notes, fmt.Sprintf("left out the hidden sheet %q", name))
		return o.s.skip()
	}
	if o.budget.out() {
		return o.s.skip()
	}
	sh := sheet{name: name}
	defer func() { o.sheets = append(o.sheets, sh) }()
	o.cols, o.colEnd = o.cols[:0], 0
	depth := o.s.depth
	row := 0
	for n := 1; o.s.depth >= depth; n++ {
		if n%4096 == 0 {
			if err := o.ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := o.s.inside()
		if err != nil {
			return err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch t.Name.Local {
		case "table-row":
			rep := repeat(t, "number-rows-repeated")
			cells, err := o.row(name)
			if err != nil {
				return err
			}
			for i := 0; i < rep && len(cells) > 0 && row < maxRepeat; i++ {
				if o.budget.take(len(cells), name) < len(cells) {
					return o.s.skip() // the rest of the table
				}
				sh.rows = append(sh.rows, sheetRow{row: row, cells: cells})
				row++
			}
			if len(cells) == 0 {
				row = min(row+rep, maxRepeat)
			}
		case "table-header-rows", "table-rows", "table-row-group", "table-columns", "table-header-columns", "table-column-group":
			// Their rows and columns are read as they come.
		case "table-column":
			// A column's default cell style: a cell without a style of
			// its own has it (LibreOffice writes a style most cells of
			// a column share there).
			rep := repeat(t, "number-columns-repeated")
			if st := attrOf(t, "default-cell-style-name"); st != "" && len(o.cols) < maxStyles {
				o.cols = append(o.cols, colStyle{from: o.colEnd, to: o.colEnd + rep, style: st})
			}
			o.colEnd = min(o.colEnd+rep, maxRepeat)
			if err := o.s.skip(); err != nil {
				return err
			}
		default:
			// Columns' declarations, shapes, named ranges, a nested table.
			if err := o.s.skip(); err != nil {
				return err
			}
		}
	}
	return nil
}

// row reads a table:table-row just started and returns its cells with text,
// a repeated cell repeated (at most maxRepeat columns in all).
func (o *ods) row(sheet string) ([]sheetCell, error) {
	var cells []sheetCell
	depth := o.s.depth
	col := 0
	for o.s.depth >= depth {
		tok, err := o.s.inside()
		if err != nil {
			return nil, err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch t.Name.Local {
		case "table-cell", "covered-table-cell":
			rep := repeat(t, "number-columns-repeated")
			text, err := o.cell(t, col)
			if err != nil {
				return nil, err
			}
			if text != "" {
				// A row's cells are at most the budget left: the caller
				// takes them from it.
				for i := 0; i < rep && col+i < maxRepeat && len(cells) <= o.budget.left; i++ {
					cells = append(cells, sheetCell{col: col + i, text: text})
				}
			}
			col = min(col+rep, maxRepeat)
		default:
			if err := o.s.skip(); err != nil {
				return nil, err
			}
		}
	}
	return cells, nil
}

// cell reads a table cell just started and returns its text: a date as
// its office:date-value (2006-01-02, with the time when it has one), else
// the text the cell shows (its text:p paragraphs, joined by spaces; the
// cached result of a formula), else its value. Annotations (comments) are
// not text.
func (o *ods) cell(c xml.StartElement, col int) (string, error) {
	var paras []string
	var sb strings.Builder
	inP := 0
	depth := o.s.depth
	for o.s.depth >= depth {
		tok, err := o.s.inside()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p", "h":
				inP++
			case "s":
				n, err := strconv.Atoi(attrOf(t, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				sb.WriteString(strings.Repeat(" ", min(n, 64)))
			case "tab", "line-break":
				sb.WriteByte(' ')
			case "annotation", "note-citation":
				if err := o.s.skip(); err != nil {
					return "", err
				}
			}
		case xml.EndElement:
			if (t.Name.Local == "p" || t.Name.Local == "h") && inP > 0 {
				inP--
				if inP == 0 {
					paras = append(paras, sb.String())
					sb.Reset()
				}
			}
		case xml.CharData:
			if inP > 0 {
				sb.Write(t)
			}
		}
	}
	if attrOf(c, "value-type") == "date" {
		if v := attrOf(c, "date-value"); v != "" {
			// 2026-11-27T13:30:00 as 2026-11-27 13:30, as XLSX dates show.
			v = strings.TrimSuffix(v, "T00:00:00")
			if len(v) == len("2006-01-02T15:04:00") && strings.HasSuffix(v, ":00") {
				v = strings.TrimSuffix(v, ":00")
			}
			return cellText(strings.Replace(v, "T", " ", 1)), nil
		}
	}
	if text := cellText(strings.Join(paras, " ")); text != "" {
		return text, nil
	}
	if text, ok := o.formatted(c, col); ok {
		return text, nil
	}
	for _, a := range []string{"string-value", "value", "boolean-value", "time-value"} {
		if v := cellText(attrOf(c, a)); v != "" {
			return v, nil
		}
	}
	return "", nil
}

// commonStyles reads the data styles and cell styles of styles.xml, where
// LibreOffice writes most data styles (content.xml's automatic styles
// refer to them).
func (o *ods) commonStyles(z *zipDoc) error {
	if !z.has("styles.xml") {
		return nil
	}
	b, err := z.read("styles.xml")
	if err != nil {
		return err
	}
	s := newXMLStream(b, z.limits.MaxDepth, "styles.xml")
	for {
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch t.Name.Local {
		case "style":
			if ds := attrOf(t, "data-style-name"); attrOf(t, "family") == "table-cell" && ds != "" && len(o.cellData) < maxStyles {
				o.cellData[attrOf(t, "name")] = ds
			}
		case "number-style", "currency-style", "percentage-style", "time-style", "boolean-style", "date-style", "text-style":
			code, maps, ok := odsDataStyle(s, t)
			if ok && len(o.codes) < maxStyles {
				o.keep(t, code, maps)
			}
		}
	}
}

// keep keeps the data style started by t, of format code and maps, with
// its language if it names one.
func (o *ods) keep(t xml.StartElement, code string, maps []odsMap) {
	name := attrOf(t, "name")
	o.codes[name] = code
	o.maps[name] = maps
	if l, ok := langOf(t); ok {
		o.langs[name] = l
	}
}

// odsLang is a language a data style shows its numbers in: its
// separators, nil for "." and ",".
type odsLang struct{ sep *separators }

// langOf returns the language of a data style (number:language and
// number:country); ok is false when it names none.
func langOf(t xml.StartElement) (odsLang, bool) {
	lang := attrOf(t, "language")
	if lang == "" {
		return odsLang{}, false
	}
	return odsLang{langSeparators(lang, attrOf(t, "country"))}, true
}

// colStyle is the default cell style of columns [from, to).
type colStyle struct {
	from, to int
	style    string
}

// colStyle returns the default cell style of column col, "" for none.
func (o *ods) colStyle(col int) string {
	// The runs are in column order.
	i := sort.Search(len(o.cols), func(i int) bool { return o.cols[i].to > col })
	if i < len(o.cols) && col >= o.cols[i].from {
		return o.cols[i].style
	}
	return ""
}

// maxStyles bounds the cell and data styles kept.
const maxStyles = 1 << 16

// formatted renders the value of a cell without text by its style's data
// style, where it has one cite renders (see [odsDataStyle]).
func (o *ods) formatted(c xml.StartElement, col int) (string, bool) {
	var v float64
	switch attrOf(c, "value-type") {
	case "float", "percentage", "currency":
		n, err := strconv.ParseFloat(attrOf(c, "value"), 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return "", false
		}
		v = n
	case "time":
		n, ok := odsDuration(attrOf(c, "time-value"))
		if !ok {
			return "", false
		}
		v = n
	case "boolean":
		switch attrOf(c, "boolean-value") {
		case "true":
			return "TRUE", true
		case "false":
			return "FALSE", true
		}
		return "", false
	default:
		return "", false
	}
	if o.formats == nil {
		o.formats = odsFormats(o.codes, o.maps)
		// A style without a language shows its numbers in the
		// reader's (LibreOffice: the system's, not the document's
		// default language): "." and ",".
		for name, f := range o.formats {
			o.formats[name] = f.localized(o.langs[name].sep)
		}
	}
	style := attrOf(c, "style-name")
	if style == "" {
		style = o.colStyle(col)
	}
	f := o.formats[o.cellData[style]]
	if f == nil {
		return general(v), true
	}
	if s, ok := f.number(v, false); ok {
		return s, true
	}
	return general(v), true
}
