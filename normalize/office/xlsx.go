package office

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

const (
	relWorksheet     = "/worksheet"
	relSharedStrings = "/sharedStrings"
)

// maxSharedStrings bounds the shared strings kept: a cell referring past
// them reads as empty (and the document says so).
const maxSharedStrings = 1 << 20

type xlsx struct {
	z        *zipDoc
	strings  []string
	lost     bool         // a cell referred past the shared strings kept
	dangling int          // cells referring to shared strings the file lacks
	formats  []*numFormat // by style (cellXfs) index; nil is General
	date1904 bool         // dates count from 1904-01-01
	budget   cellBudget
	// Of the sheet being read: its cells with text left out for a
	// reference (theirs or their row's) past the last column or row, or
	// malformed, and the first such reference.
	badRefs  int
	firstBad string
}

func readXLSX(z *zipDoc, maxCells int) (*normalize.Document, error) {
	root, rels, err := z.openMain(XLSX, "xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	wb := root.child("workbook")
	if wb == nil {
		return nil, fmt.Errorf("%w: part %q is not a workbook", ErrDamaged, "xl/workbook.xml")
	}
	x := &xlsx{z: z, budget: cellBudget{left: maxCells, max: maxCells}}
	if v := wb.path("workbookPr").attr("date1904"); v == "1" || v == "true" {
		x.date1904 = true
	}
	for _, r := range rels {
		switch {
		case strings.HasSuffix(r.typ, relSharedStrings) && z.has(r.target):
			if err := x.readSharedStrings(r.target); err != nil {
				return nil, err
			}
		case strings.HasSuffix(r.typ, relStyles) && z.has(r.target):
			if err := x.readStyles(r.target); err != nil {
				return nil, err
			}
		}
	}
	var sheets []sheet
	var notes []string
	for _, s := range wb.path("sheets").all("sheet") {
		name := cellText(s.attr("name"))
		if st := s.attr("state"); st == "hidden" || st == "veryHidden" {
			notes = append(notes, fmt.Sprintf("left out the hidden sheet %q", name))
			continue
		}
		r, ok := rels[relID(s)]
		switch {
		case ok && !strings.HasSuffix(r.typ, relWorksheet):
			continue // a chart sheet: no cells
		case !ok || !z.has(r.target):
			notes = append(notes, fmt.Sprintf("the sheet %q is missing from the file: left out", name))
			continue
		}
		if x.budget.out() {
			break
		}
		x.badRefs, x.firstBad = 0, ""
		rows, err := x.readSheet(r.target, name)
		if err != nil {
			return nil, err
		}
		sheets = append(sheets, sheet{name: name, rows: rows})
		if x.badRefs > 0 {
			notes = append(notes, fmt.Sprintf("sheet %q: %d %s with text left out, %s past column XFD or row %d or not a cell's (the first: %q)",
				name, x.badRefs, map[bool]string{true: "cell", false: "cells"}[x.badRefs == 1],
				map[bool]string{true: "its reference", false: "their references"}[x.badRefs == 1], maxRows, x.firstBad))
		}
	}
	if n := budgetNote(&x.budget); n != "" {
		notes = append(notes, n)
	}
	if x.lost {
		notes = append(notes, fmt.Sprintf("cells referring past the first %d shared strings are left out", maxSharedStrings))
	}
	if x.dangling > 0 {
		notes = append(notes, fmt.Sprintf("%d %s to shared strings the file lacks: left out", x.dangling, map[bool]string{true: "cell refers", false: "cells refer"}[x.dangling == 1]))
	}
	return emitSheets(sheets, docTitle(z, "docProps/core.xml"), notes), nil
}

// richText collects the text of the t elements of a shared or inline
// string (si, is), leaving out phonetic runs (rPh). The start element has
// been read.
func richText(s *xmlStream) (string, error) {
	var sb strings.Builder
	depth := s.depth
	inT := 0
	for s.depth >= depth {
		tok, err := s.inside()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "rPh", "phoneticPr":
				if err := s.skip(); err != nil {
					return "", err
				}
			case "t":
				inT++
			}
		case xml.EndElement:
			if t.Name.Local == "t" && inT > 0 {
				inT--
			}
		case xml.CharData:
			if inT > 0 {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

func (x *xlsx) readSharedStrings(name string) error {
	b, err := x.z.read(name)
	if err != nil {
		return err
	}
	s := newXMLStream(b, x.z.limits.MaxDepth, name)
	for {
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "si" {
			text, err := richText(s)
			if err != nil {
				return err
			}
			if len(x.strings) < maxSharedStrings {
				x.strings = append(x.strings, cellText(text))
			}
		}
	}
}

// readStyles reads the number format of each cell style (cellXfs).
func (x *xlsx) readStyles(name string) error {
	b, err := x.z.read(name)
	if err != nil {
		return err
	}
	s := newXMLStream(b, x.z.limits.MaxDepth, name)
	custom := map[int]*numFormat{}
	inXfs := false
	for {
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				if id, err := strconv.Atoi(attrOf(t, "numFmtId")); err == nil {
					custom[id] = parseNumFormat(attrOf(t, "formatCode"))
				}
			case "cellXfs":
				inXfs = true
			case "xf":
				if !inXfs || len(x.formats) >= maxRepeat {
					continue
				}
				id, _ := strconv.Atoi(attrOf(t, "numFmtId"))
				f, ok := custom[id]
				if !ok {
					f = builtin(id)
				}
				x.formats = append(x.formats, f)
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
	}
}

// readSheet reads a worksheet's cells with text (their cached values:
// formulas are not read).
func (x *xlsx) readSheet(name, sheetName string) ([]sheetRow, error) {
	b, err := x.z.read(name)
	if err != nil {
		return nil, err
	}
	s := newXMLStream(b, x.z.limits.MaxDepth, name)
	var rows []sheetRow
	row, col := 0, -1
	badRow := "" // the r of the row being read, when it is no row's
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := x.z.ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := s.next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch t.Name.Local {
		case "row":
			// r is optional: a row without it follows the one before.
			row, col, badRow = row+1, -1, ""
			if v := attrOf(t, "r"); v != "" {
				if r, err := strconv.Atoi(v); err == nil && r >= 1 && r <= maxRows {
					row = r
				} else {
					badRow = "row " + v
				}
			}
		case "c":
			// r is optional too: a cell without it follows the one
			// before.
			bad := badRow
			c := col + 1
			if ref := attrOf(t, "r"); ref != "" {
				var ok bool
				if c, _, ok = cellRef(ref); !ok {
					c, bad = col+1, cmp.Or(bad, ref)
				}
			} else if c >= maxCols {
				bad = cmp.Or(bad, "a cell past column XFD")
			}
			col = c
			text, err := x.cell(s, t)
			if err != nil {
				return nil, err
			}
			if text == "" {
				continue
			}
			if bad != "" {
				// A damaged or hostile sheet: Excel refuses such a
				// reference, and where it would go is not known.
				if x.badRefs++; x.firstBad == "" {
					x.firstBad = bad
				}
				continue
			}
			if x.budget.take(1, sheetName) == 0 {
				return rows, nil
			}
			if len(rows) == 0 || rows[len(rows)-1].row != row {
				rows = append(rows, sheetRow{row: row})
			}
			last := &rows[len(rows)-1]
			last.cells = append(last.cells, sheetCell{col: c, text: text})
		case "sheetData":
		case "worksheet":
		default:
			if s.depth <= 2 {
				// Not sheet data: views, formatting, page setup.
				if err := s.skip(); err != nil {
					return nil, err
				}
			}
		}
	}
}

// The last row and column of a sheet (Excel's, LibreOffice's since 7.4):
// row 1,048,576 and column XFD.
const (
	maxRows = 1 << 20
	maxCols = 1 << 14
)

// cellRef reads a cell reference ("B6"): its 0-based column (1) and its
// row (6). ok is false for anything else: a reference with "$", spaces or
// other bytes, no letters or no digits, a row 0, and a column past XFD or
// a row past 1,048,576 ("XFE1", "A1048577", "ZZZZZZ1", "A99999999999"),
// which it refuses after reading at most three letters and seven digits.
// Letters may be lower case.
func cellRef(ref string) (col, row int, ok bool) {
	i := 0
	for ; i < len(ref); i++ {
		ch := ref[i] | 0x20
		if ch < 'a' || ch > 'z' {
			break
		}
		if i == 3 {
			return 0, 0, false // four letters: past XFD
		}
		col = col*26 + int(ch-'a'+1)
	}
	if i == 0 || i == len(ref) || col > maxCols {
		return 0, 0, false
	}
	digits := ref[i:]
	if len(digits) > 7 || digits[0] == '0' {
		return 0, 0, false
	}
	for j := 0; j < len(digits); j++ {
		if digits[j] < '0' || digits[j] > '9' {
			return 0, 0, false
		}
		row = row*10 + int(digits[j]-'0')
	}
	if row > maxRows {
		return 0, 0, false
	}
	return col - 1, row, true
}

// cell reads the c element just started and returns its text: the cached
// value as its type and number format show it.
func (x *xlsx) cell(s *xmlStream, c xml.StartElement) (string, error) {
	typ := attrOf(c, "t")
	style, _ := strconv.Atoi(attrOf(c, "s"))
	var v, inline string
	hasInline := false
	depth := s.depth
	for s.depth >= depth {
		tok, err := s.inside()
		if err != nil {
			return "", err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch t.Name.Local {
		case "v":
			text, err := richTextOf(s)
			if err != nil {
				return "", err
			}
			v = text
		case "is":
			text, err := richText(s)
			if err != nil {
				return "", err
			}
			inline, hasInline = text, true
		default:
			// f (the formula: its cached value is v), extLst.
			if err := s.skip(); err != nil {
				return "", err
			}
		}
	}
	v = strings.TrimSpace(v)
	var f *numFormat
	if style >= 0 && style < len(x.formats) {
		f = x.formats[style]
	}
	switch typ {
	case "s":
		if v == "" {
			return "", nil
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			x.dangling++
			return "", nil
		}
		if i >= len(x.strings) {
			if len(x.strings) == maxSharedStrings {
				x.lost = true
			} else {
				x.dangling++
			}
			return "", nil
		}
		return f.textOf(x.strings[i]), nil
	case "inlineStr":
		if hasInline {
			return f.textOf(cellText(inline)), nil
		}
		return f.textOf(cellText(v)), nil
	case "str":
		return f.textOf(cellText(v)), nil
	case "e":
		return cellText(v), nil
	case "b":
		switch v {
		case "1", "true":
			return "TRUE", nil
		case "0", "false":
			return "FALSE", nil
		}
		return cellText(v), nil
	case "d":
		return strings.TrimSuffix(strings.TrimSuffix(v, "T00:00:00Z"), "T00:00:00"), nil
	}
	if v == "" {
		return "", nil
	}
	return x.number(v, f), nil
}

// richTextOf returns the character data of the element just started.
func richTextOf(s *xmlStream) (string, error) {
	var sb strings.Builder
	depth := s.depth
	for s.depth >= depth {
		tok, err := s.inside()
		if err != nil {
			return "", err
		}
		if cd, ok := tok.(xml.CharData); ok {
			sb.Write(cd)
		}
	}
	return sb.String(), nil
}

// number shows a cached number v as its format f shows it (see
// [numFormat]), else as General does: up to 15 significant digits.
func (x *xlsx) number(v string, f *numFormat) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return cellText(v)
	}
	if f != nil {
		if s, ok := f.number(n, x.date1904); ok {
			return s
		}
	}
	return general(n)
}
