package office

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

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
	lost     bool     // a cell referred past the shared strings kept
	formats  []numFmt // by style (cellXfs) index
	date1904 bool     // dates count from 1904-01-01
	budget   cellBudget
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
		if !ok || !strings.HasSuffix(r.typ, relWorksheet) || !z.has(r.target) {
			continue // a chart sheet, or a sheet missing
		}
		if x.budget.out() {
			break
		}
		rows, err := x.readSheet(r.target, name)
		if err != nil {
			return nil, err
		}
		sheets = append(sheets, sheet{name: name, rows: rows})
	}
	if n := budgetNote(&x.budget); n != "" {
		notes = append(notes, n)
	}
	if x.lost {
		notes = append(notes, fmt.Sprintf("cells referring past the first %d shared strings are left out", maxSharedStrings))
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

// numFmt is how a number format shows a number, as far as cite tells.
type numFmt struct {
	kind     fmtKind
	decimals int  // fmtFixed, fmtPercent
	seconds  bool // fmtDate, fmtTime: the format shows seconds
}

type fmtKind uint8

const (
	fmtGeneral  fmtKind = iota
	fmtFixed            // a set number of decimals
	fmtPercent          // ×100, with a "%"
	fmtDate             // a date
	fmtDateTime         // a date and a time of day
	fmtTime             // a time of day
)

// builtinFormats are the number formats SpreadsheetML numbers without
// writing them (ECMA-376 Part 1, 18.8.30); the others are General.
var builtinFormats = map[int]numFmt{
	1: {kind: fmtFixed}, 2: {kind: fmtFixed, decimals: 2}, 3: {kind: fmtFixed}, 4: {kind: fmtFixed, decimals: 2},
	9: {kind: fmtPercent}, 10: {kind: fmtPercent, decimals: 2},
	14: {kind: fmtDate}, 15: {kind: fmtDate}, 16: {kind: fmtDate}, 17: {kind: fmtDate},
	18: {kind: fmtTime}, 19: {kind: fmtTime, seconds: true}, 20: {kind: fmtTime}, 21: {kind: fmtTime, seconds: true},
	22: {kind: fmtDateTime},
	37: {kind: fmtFixed}, 38: {kind: fmtFixed}, 39: {kind: fmtFixed, decimals: 2}, 40: {kind: fmtFixed, decimals: 2},
	45: {kind: fmtTime, seconds: true}, 47: {kind: fmtTime, seconds: true},
	// East Asian locales' dates.
	27: {kind: fmtDate}, 28: {kind: fmtDate}, 29: {kind: fmtDate}, 30: {kind: fmtDate}, 31: {kind: fmtDate},
	32: {kind: fmtTime}, 33: {kind: fmtTime}, 34: {kind: fmtTime}, 35: {kind: fmtTime}, 36: {kind: fmtDate},
	50: {kind: fmtDate}, 51: {kind: fmtDate}, 52: {kind: fmtDate}, 53: {kind: fmtDate}, 54: {kind: fmtDate},
	55: {kind: fmtTime}, 56: {kind: fmtTime}, 57: {kind: fmtDate}, 58: {kind: fmtDate},
}

// parseFormat classifies a format code by its first section: a date or a
// time when it has date or time letters outside quotes and brackets, a
// percentage, a number with a set count of decimals, else General. An
// elapsed time ([h]:mm) is General: the number of days it holds.
func parseFormat(code string) numFmt {
	code, _, _ = strings.Cut(code, ";")
	if strings.EqualFold(strings.TrimSpace(code), "general") {
		return numFmt{}
	}
	var plain strings.Builder
	elapsed := false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				i = len(code)
			} else {
				i += j + 1
			}
		case '\\', '_', '*':
			i++ // an escaped or padding character
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				break
			}
			in := strings.ToLower(code[i+1 : i+j])
			if in != "" && strings.Trim(in, "hms") == "" {
				elapsed = true
			}
			i += j
		default:
			plain.WriteByte(c)
		}
	}
	p := strings.ToLower(plain.String())
	if elapsed {
		return numFmt{}
	}
	hasDate := strings.ContainsAny(p, "yd")
	hasTime := strings.ContainsAny(p, "hs")
	switch {
	case hasDate && hasTime:
		return numFmt{kind: fmtDateTime, seconds: strings.Contains(p, "s")}
	case hasDate:
		return numFmt{kind: fmtDate}
	case hasTime:
		return numFmt{kind: fmtTime, seconds: strings.Contains(p, "s")}
	case strings.Contains(p, "m") && !strings.ContainsAny(p, "0#?"):
		return numFmt{kind: fmtDate} // a month ("mmmm")
	}
	decimals := 0
	if i := strings.IndexByte(p, '.'); i >= 0 {
		for _, c := range p[i+1:] {
			if c != '0' && c != '#' && c != '?' {
				break
			}
			decimals++
		}
	}
	switch {
	case strings.Contains(p, "%"):
		return numFmt{kind: fmtPercent, decimals: decimals}
	case strings.ContainsAny(p, "0#?") && !strings.ContainsAny(p, "e/"):
		return numFmt{kind: fmtFixed, decimals: decimals}
	}
	return numFmt{}
}

// readStyles reads the number format of each cell style (cellXfs).
func (x *xlsx) readStyles(name string) error {
	b, err := x.z.read(name)
	if err != nil {
		return err
	}
	s := newXMLStream(b, x.z.limits.MaxDepth, name)
	custom := map[int]numFmt{}
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
					custom[id] = parseFormat(attrOf(t, "formatCode"))
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
					f = builtinFormats[id]
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
			r, err := strconv.Atoi(attrOf(t, "r"))
			if err != nil || r < 1 || r > maxRepeat {
				r = row + 1
			}
			row, col = r, -1
		case "c":
			c, ok := colOf(attrOf(t, "r"))
			if !ok {
				c = col + 1
			}
			col = c
			text, err := x.cell(s, t)
			if err != nil {
				return nil, err
			}
			if text == "" || c >= maxRepeat {
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

// colOf returns the 0-based column of a cell reference ("B6" is 1).
func colOf(ref string) (int, bool) {
	c := 0
	i := 0
	for ; i < len(ref) && i < 4; i++ {
		ch := ref[i] | 0x20
		if ch < 'a' || ch > 'z' {
			break
		}
		c = c*26 + int(ch-'a'+1)
	}
	if i == 0 {
		return 0, false
	}
	return c - 1, true
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
	switch typ {
	case "s":
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return "", nil
		}
		if i >= len(x.strings) {
			x.lost = x.lost || len(x.strings) == maxSharedStrings
			return "", nil
		}
		return x.strings[i], nil
	case "inlineStr":
		if hasInline {
			return cellText(inline), nil
		}
		return cellText(v), nil
	case "str", "e":
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
	var f numFmt
	if style >= 0 && style < len(x.formats) {
		f = x.formats[style]
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

// number shows a cached number v as its format f does, as far as cite
// tells formats apart: dates as 2006-01-02 (with the time of day when the
// format has one), times as 15:04 (15:04:05 with seconds), percentages ×100
// with "%", a set count of decimals, else the number with up to 15
// significant digits (as Excel shows General). Thousands separators,
// currency symbols and colours are left out.
func (x *xlsx) number(v string, f numFmt) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return cellText(v)
	}
	switch f.kind {
	case fmtDate, fmtDateTime, fmtTime:
		if t, ok := x.serialTime(n); ok {
			clock := "15:04"
			if f.seconds {
				clock = "15:04:05"
			}
			switch f.kind {
			case fmtDate:
				return t.Format("2006-01-02")
			case fmtTime:
				return t.Format(clock)
			}
			return t.Format("2006-01-02 " + clock)
		}
	case fmtPercent:
		if math.Abs(n) < 1e13 {
			return fixed(n*100, f.decimals) + "%"
		}
	case fmtFixed:
		if math.Abs(n) < 1e15 {
			return fixed(n, f.decimals)
		}
	}
	return general(n)
}

// fixed shows n with d decimals, a half rounded away from zero as Excel
// rounds (strconv rounds it to even: 12.5 would be 12).
func fixed(n float64, d int) string {
	d = min(d, 15)
	p := math.Pow10(d)
	if r := math.Round(n*p) / p; !math.IsInf(n*p, 0) {
		n = r
	}
	return strconv.FormatFloat(n, 'f', d, 64)
}

// general shows n with up to 15 significant digits, without an exponent
// between 1e-9 and 1e15.
func general(n float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(n, 'g', 15, 64), 64)
	if a := math.Abs(r); r == 0 || a >= 1e-9 && a < 1e15 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// serialTime turns a date serial number into a time: days since the
// workbook's epoch (1899-12-30 in the 1900 system, which counts a
// 1900-02-29 that never was, or 1904-01-01), the fraction the time of day,
// rounded to the second. ok is false outside years 1900–9999.
func (x *xlsx) serialTime(n float64) (time.Time, bool) {
	if n < 0 || n >= 2958466 {
		return time.Time{}, false
	}
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case x.date1904:
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case n < 61:
		// Before Lotus's 1900-02-29 (serial 60, shown as 1900-02-28).
		epoch = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
		if n >= 60 {
			n--
		}
	}
	days := math.Floor(n)
	secs := math.Round((n - days) * 86400)
	return epoch.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second), true
}
