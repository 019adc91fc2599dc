package office

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/normalize"
)

const (
	xNS       = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	xlsxTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`
)

// xlsxSheet is a worksheet of a hand-made XLSX: its name, state ("" or
// "hidden") and sheetData contents.
type xlsxSheet struct{ name, state, data string }

// xlsxOf builds a minimal XLSX (hand-written XML, for what LibreOffice
// does not write): shared strings, the styles' cellXfs and numFmts, the
// workbookPr, and its sheets in order.
func xlsxOf(t testing.TB, shared, styles, wbPr string, sheets ...xlsxSheet) []byte {
	t.Helper()
	list, rels := "", ""
	entries := []string{"[Content_Types].xml", xlsxTypes}
	for i, s := range sheets {
		state := ""
		if s.state != "" {
			state = ` state="` + s.state + `"`
		}
		list += fmt.Sprintf(`<sheet name="%s" sheetId="%d"%s r:id="rId%d"/>`, s.name, i+1, state, i+1)
		rels += fmt.Sprintf(`<Relationship Id="rId%d" Type="%s/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, relNS, i+1)
		entries = append(entries, fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), `<worksheet `+xNS+`><dimension ref="A1"/><sheetData>`+s.data+`</sheetData><pageMargins left="1"/></worksheet>`)
	}
	rels += `<Relationship Id="rS" Type="` + relNS + `/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rT" Type="` + relNS + `/styles" Target="/xl/styles.xml"/>`
	entries = append(entries,
		"xl/workbook.xml", `<workbook `+xNS+`>`+wbPr+`<sheets>`+list+`</sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+rels+`</Relationships>`,
		"xl/sharedStrings.xml", `<sst `+xNS+`>`+shared+`</sst>`,
		"xl/styles.xml", `<styleSheet `+xNS+`>`+styles+`</styleSheet>`)
	return zipOf(t, entries...)
}

// odsOf builds a minimal ODS: automatic styles and the spreadsheet's
// tables.
func odsOf(t testing.TB, auto, tables string) []byte {
	t.Helper()
	return zipOf(t,
		"mimetype", "application/vnd.oasis.opendocument.spreadsheet",
		"content.xml", `<?xml version="1.0"?><office:document-content `+oNS+`><office:automatic-styles>`+auto+`</office:automatic-styles><office:body><office:spreadsheet>`+tables+`</office:spreadsheet></office:body></office:document-content>`,
	)
}

// sheetFixtures are the spreadsheets LibreOffice makes from
// testdata/src/budget.fods (a flat ODS written by hand: three sheets, one
// hidden; dates, percentages, fixed decimals, a formula, a cell of two
// paragraphs, a table starting at B2), and the kind Detect must find:
//
//	soffice --headless --convert-to xlsx --outdir testdata testdata/src/budget.fods
//	soffice --headless --convert-to ods --outdir testdata testdata/src/budget.fods
//	soffice --headless --convert-to xls --outdir testdata testdata/src/budget.fods
//
// (LibreOffice 7.4, Debian 12's libreoffice-calc-nogui; TestLibreOffice
// runs them when soffice is installed). budget.xls is read by TestProtected.
var sheetFixtures = []struct {
	file string
	kind Kind
}{
	{"budget.xlsx", XLSX},
	{"budget.ods", ODS},
}

// TestSheetGolden reads the committed LibreOffice spreadsheets and
// compares their text with testdata/golden (go test -update rewrites it).
func TestSheetGolden(t *testing.T) {
	for _, f := range sheetFixtures {
		t.Run(f.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			d := readFixture(t, data, f.kind)
			checkGolden(t, f.file, render(d)+fmt.Sprintf("notes: %q\n", d.Notes))
		})
	}
}

// TestLibreOffice makes each spreadsheet again with the LibreOffice
// installed and checks that it reads as the golden file says. Without
// soffice it skips (TestSheetGolden checks the committed files).
func TestLibreOffice(t *testing.T) {
	if _, err := exec.LookPath("soffice"); err != nil {
		t.Skip("LibreOffice is not installed (Debian: apt-get install --no-install-recommends libreoffice-calc-nogui)")
	}
	if testing.Short() {
		t.Skip("starts LibreOffice")
	}
	dir := t.TempDir()
	for _, f := range sheetFixtures {
		t.Run(f.file, func(t *testing.T) {
			ext := strings.TrimPrefix(filepath.Ext(f.file), ".")
			cmd := exec.CommandContext(t.Context(), "soffice", "--headless", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
				"--convert-to", ext, "--outdir", dir, filepath.Join("testdata", "src", "budget.fods"))
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("soffice: %v\n%s", err, b)
			}
			data, err := os.ReadFile(filepath.Join(dir, f.file))
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(filepath.Join("testdata", f.file), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			d := readFixture(t, data, f.kind)
			checkGolden(t, f.file, render(d)+fmt.Sprintf("notes: %q\n", d.Notes))
		})
	}
}

func TestXLSX(t *testing.T) {
	shared := `<si><t>Name</t></si><si><r><t>Rich </t></r><r><rPr><b/></rPr><t>text</t></r><rPh><t>PHONETIC</t></rPh></si><si><t xml:space="preserve">  two
lines  </t></si>`
	styles := `<numFmts><numFmt numFmtId="164" formatCode="dd/mm/yyyy\ hh:mm"/><numFmt numFmtId="165" formatCode="&quot;in &quot;0.000"/><numFmt numFmtId="166" formatCode="[h]:mm"/><numFmt numFmtId="167" formatCode="mmm\ yyyy;@"/><numFmt numFmtId="168" formatCode="#,##0.0%"/></numFmts>` +
		`<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="10"/><xf numFmtId="20"/><xf numFmtId="167"/><xf numFmtId="168"/><xf numFmtId="49"/></cellXfs>`
	c := func(ref, attrs, inner string) string { return `<c r="` + ref + `"` + attrs + `>` + inner + `</c>` }
	v := func(s string) string { return `<v>` + s + `</v>` }
	tests := []struct {
		name   string
		wbPr   string
		sheets []xlsxSheet
		text   string
		notes  []string
	}{
		{
			name: "cell types",
			sheets: []xlsxSheet{{name: "Types", data: `<row r="1">` +
				c("A1", ` t="s"`, v("0")) + c("B1", ` t="s"`, v("1")) + c("C1", ` t="s"`, v("2")) +
				c("D1", ` t="inlineStr"`, `<is><t>inline</t></is>`) + c("E1", ` t="b"`, v("1")) + c("F1", ` t="b"`, v("0")) +
				c("G1", ` t="e"`, `<f>1/0</f>`+v("#DIV/0!")) + c("H1", ` t="str"`, `<f>A1&amp;"!"</f>`+v("Name!")) +
				c("I1", ` t="d"`, v("2026-11-27T00:00:00")) + c("J1", ` t="s"`, v("99")) + `</row>`}},
			text:  "Types\n\nName | Rich text | two lines | inline | TRUE | FALSE | #DIV/0! | Name! | 2026-11-27",
			notes: []string{"1 cell refers to shared strings the file lacks: left out"},
		},
		{
			name: "numbers and formats",
			sheets: []xlsxSheet{{name: "Numbers", data: `<row r="1">` +
				c("A1", ``, `<f>0.1+0.2</f>`+v("0.30000000000000004")) + c("B1", ` s="1"`, v("46353")) + c("C1", ` s="2"`, v("46353.5625")) +
				c("D1", ` s="3"`, v("2.5")) + c("E1", ` s="4"`, v("1.25")) + c("F1", ` s="5"`, v("0.12345")) + c("G1", ` s="6"`, v("0.75")) +
				c("H1", ` s="7"`, v("46353")) + c("I1", ` s="8"`, v("0.5")) + c("J1", ` s="9"`, v("12")) + c("K1", ` s="99"`, v("1e20")) +
				c("L1", ``, v("-3")) + c("M1", ` s="5"`, v("0.000125")) + c("N1", ` s="3"`, v("-2.0005")) + `</row>`}},
			text: "Numbers\n\n0.3 | 2026-11-27 | 2026-11-27 13:30 | in 2.500 | 30:00 | 12.35% | 18:00 | 2026-11-27 | 50.0% | 12 | 1e+20 | -3 | 0.01% | -in 2.001",
		},
		{
			name:   "1904 dates and Lotus's 1900-02-29",
			wbPr:   `<workbookPr date1904="1"/>`,
			sheets: []xlsxSheet{{name: "D", data: `<row r="1">` + c("A1", ` s="1"`, v("0")) + c("B1", ` s="1"`, v("44891")) + c("C1", ` s="1"`, v("-1")) + `</row>`}},
			text:   "D\n\n1904-01-01 | 2026-11-27 | -1",
		},
		{
			name:   "1900 dates",
			sheets: []xlsxSheet{{name: "D", data: `<row r="1">` + c("A1", ` s="1"`, v("1")) + c("B1", ` s="1"`, v("59")) + c("C1", ` s="1"`, v("61")) + c("D1", ` s="1"`, v("2958466")) + `</row>`}},
			text:   "D\n\n1900-01-01 | 1900-02-28 | 1900-03-01 | 2958466",
		},
		{
			name: "empty rows and columns trimmed, references missing",
			sheets: []xlsxSheet{
				{name: "Empty", data: `<row r="1"><c r="A1"/><c r="B1" t="s"><v></v></c></row>`},
				{name: "Offset", data: `<row r="3">` + c("C3", ` t="inlineStr"`, `<is><t>a</t></is>`) + c("E3", ` t="inlineStr"`, `<is><t>b</t></is>`) + `</row><row r="9"></row>` +
					`<row>` + `<c t="inlineStr"><is><t>x</t></is></c>` + `<c/><c/><c/><c t="inlineStr"><is><t>y</t></is></c>` + `</row>` +
					`<row r="12">` + c("E12", ` t="inlineStr"`, `<is><t>last</t></is>`) + `</row>`},
			},
			text: "Offset\n\n| a | b\nx | | y\n| | last",
		},
		{
			// A damaged or hostile sheet: a column past XFD, a row past
			// 1,048,576, references no reading allocates by (they were
			// read where they said, or after the cell before).
			name: "references past the sheet's last column or row",
			sheets: []xlsxSheet{{name: "Refs", data: `<row r="1">` +
				c("A1", ` t="inlineStr"`, `<is><t>Name</t></is>`) + c("XFD1", ` t="inlineStr"`, `<is><t>last column</t></is>`) +
				c("XFE1", ` t="inlineStr"`, `<is><t>past XFD</t></is>`) + c("ZZZZZZ1", ` t="inlineStr"`, `<is><t>six letters</t></is>`) + `</row>` +
				`<row r="2">` + c("A99999999999", ` t="inlineStr"`, `<is><t>huge row</t></is>`) + c("1A", ``, v("1")) + c("B2", ``, v("2")) + c("C2", ``, `<v></v>`) + `</row>` +
				`<row r="1048576">` + c("A1048576", ``, v("3")) + `</row>` +
				`<row r="1048577">` + c("A1048577", ``, v("4")) + `</row>` +
				`<row r="99999999999999999999">` + c("A1", ``, v("5")) + `</row>`}},
			text:  "Refs\n\nName | | last column\n| 2\n3",
			notes: []string{`sheet "Refs": 6 cells with text left out, their references past column XFD or row 1048576 or not a cell's (the first: "XFE1")`},
		},
		{
			name: "hidden sheets left out",
			sheets: []xlsxSheet{
				{name: "Shown", data: `<row r="1">` + c("A1", ` t="s"`, v("0")) + `</row>`},
				{name: "Secret", state: "hidden", data: `<row r="1">` + c("A1", ` t="inlineStr"`, `<is><t>salary</t></is>`) + `</row>`},
				{name: "Deep", state: "veryHidden", data: `<row r="1">` + c("A1", ` t="inlineStr"`, `<is><t>salary</t></is>`) + `</row>`},
			},
			text:  "Shown\n\nName",
			notes: []string{`left out the hidden sheet "Secret"`, `left out the hidden sheet "Deep"`},
		},
	}
	// A sheet the workbook lists that the file lacks, its part or its
	// relationship (it was left out silently), and cells whose shared
	// strings are not there.
	missing := rezip(t, xlsxOf(t, shared, styles, "", xlsxSheet{name: "Kept", data: `<row r="1">` + c("A1", ` t="s"`, v("0")) + c("B1", ` t="s"`, v("7")) + c("C1", ` t="s"`, v("x")) + `</row>`}),
		"xl/workbook.xml", `<workbook `+xNS+`><sheets><sheet name="Kept" sheetId="1" r:id="rId1"/><sheet name="Gone" sheetId="2" r:id="rId9"/><sheet name="Ghost" sheetId="3" r:id="rS9"/></sheets></workbook>`)
	missing = rezip(t, missing, "xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+relNS+`/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rS9" Type="`+relNS+`/worksheet" Target="worksheets/sheet9.xml"/><Relationship Id="rS" Type="`+relNS+`/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)
	readSheet(t, XLSX, missing, "Kept\n\nName", []string{`the sheet "Gone" is missing from the file: left out`, `the sheet "Ghost" is missing from the file: left out`, "2 cells refer to shared strings the file lacks: left out"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := readSheet(t, XLSX, xlsxOf(t, shared, styles, tt.wbPr, tt.sheets...), tt.text, tt.notes)
			if d.Title != "" {
				t.Errorf("title %q: a sheet's name is not the workbook's title", d.Title)
			}
		})
	}
}

func TestODS(t *testing.T) {
	tests := []struct {
		name, auto, tables, text string
		notes                    []string
	}{
		{
			name: "repeated rows and columns",
			tables: `<table:table table:name="Big"><table:table-column table:number-columns-repeated="16384"/>` +
				`<table:table-row table:number-rows-repeated="3"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>` +
				`<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="2"/><table:table-cell table:number-columns-repeated="3" office:value-type="string"><text:p>x</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>y</text:p></table:table-cell></table:table-row>` +
				`<table:table-row table:number-rows-repeated="1048571"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>` +
				`<table:table-row table:number-rows-repeated="9999999999999"><table:table-cell table:number-columns-repeated="-4"/></table:table-row></table:table>`,
			text: "Big\n\nx | x | x | y\nx | x | x | y", // the covered cell's column is empty
		},
		{
			name: "values, formulas, comments and paragraphs",
			tables: `<table:table table:name="V"><table:table-header-rows><table:table-row><table:table-cell><text:p>Head</text:p></table:table-cell></table:table-row></table:table-header-rows><table:table-row>` +
				`<table:table-cell office:value-type="date" office:date-value="2026-11-27"><text:p>27/11/26</text:p></table:table-cell>` +
				`<table:table-cell office:value-type="date" office:date-value="2026-11-27T13:30:00"><text:p>27/11/26 13:30</text:p></table:table-cell>` +
				`<table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell>` +
				`<table:table-cell office:value-type="float" office:value="7"/>` +
				`<table:table-cell><office:annotation><text:p>COMMENT</text:p></office:annotation><text:p>a<text:s text:c="3"/>b<text:line-break/>c</text:p><text:p><text:span>d</text:span></text:p></table:table-cell>` +
				`</table:table-row></table:table>`,
			text: "V\n\nHead\n2026-11-27 | 2026-11-27 13:30 | 2 | 7 | a b c d",
		},
		{
			name: "values without their text, by their data styles",
			auto: `<number:number-style style:name="N1"><number:number number:decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:number-style><style:style style:name="ce1" style:family="table-cell" style:data-style-name="N1"/>` +
				`<number:time-style style:name="N2" number:truncate-on-overflow="false"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style><style:style style:name="ce2" style:family="table-cell" style:data-style-name="N2"/>` +
				`<number:percentage-style style:name="N3"><number:number number:decimal-places="1" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style><style:style style:name="ce3" style:family="table-cell" style:data-style-name="N3"/>` +
				`<number:date-style style:name="N4"><number:day/><number:text>.</number:text><number:month/></number:date-style><style:style style:name="ce4" style:family="table-cell" style:data-style-name="N4"/>`,
			tables: `<table:table table:name="F"><table:table-columns><table:table-column table:default-cell-style-name="ce1"/></table:table-columns><table:table-column table:number-columns-repeated="3"/><table:table-column table:default-cell-style-name="ce3"/><table:table-row>` +
				`<table:table-cell office:value-type="float" office:value="1234.5"/>` +
				`<table:table-cell table:style-name="ce2" office:value-type="time" office:time-value="PT36H30M00S"/>` +
				`<table:table-cell office:value-type="boolean" office:boolean-value="false"/>` +
				`<table:table-cell table:style-name="ce4" office:value-type="float" office:value="0.1"/>` +
				`<table:table-cell office:value-type="percentage" office:value="0.125"/>` +
				`<table:table-cell table:style-name="nostyle" office:value-type="float" office:value="0.30000000000000004"/>` +
				`</table:table-row></table:table>`,
			text: "F\n\n1,234.50 | 36:30 | FALSE | 0.1 | 12.5% | 0.3",
		},
		{
			name:   "hidden table",
			auto:   `<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>`,
			tables: `<table:table table:name="Secret" table:style-name="ta2"><table:table-row><table:table-cell><text:p>salary</text:p></table:table-cell></table:table-row></table:table><table:table table:name="Empty"/><table:table table:name="Shown"><table:table-row><table:table-cell><text:p>ok</text:p></table:table-cell></table:table-row></table:table>`,
			text:   "Shown\n\nok",
			notes:  []string{`left out the hidden sheet "Secret"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readSheet(t, ODS, odsOf(t, tt.auto, tt.tables), tt.text, tt.notes)
		})
	}
}

// TestSheetLimits: a sheet of more cells than MaxCells is read up to it
// and says where it stopped; a row repeated a million times with text
// costs no more; a workbook past MaxTotal is refused as a zip bomb; bad
// XML is damaged.
func TestSheetLimits(t *testing.T) {
	small := Reader{Limits: Limits{MaxCells: 10}}
	var rows strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>a%d</t></is></c><c r="B%d"><v>%d</v></c></row>`, i, i, i, i, i)
	}
	xl := xlsxOf(t, "", "", "", xlsxSheet{name: "One", data: rows.String()}, xlsxSheet{name: "Two", data: rows.String()})
	od := odsOf(t, "", `<table:table table:name="One"><table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="3"><text:p>x</text:p></table:table-cell></table:table-row></table:table><table:table table:name="Two"><table:table-row><table:table-cell><text:p>y</text:p></table:table-cell></table:table-row></table:table>`)
	for _, tc := range []struct {
		name string
		kind Kind
		data []byte
		rows int
		note string
	}{
		{"xlsx", XLSX, xl, 5, `read the first 10 cells with text (the limit): the rest of sheet "One" and the sheets after it are left out`},
		{"ods", ODS, od, 3, `read the first 10 cells with text (the limit): the rest of sheet "One" and the sheets after it are left out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			d, err := small.Read(t.Context(), tc.kind, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(d.Text, "\n") - 1; n != tc.rows {
				t.Errorf("%d rows, want %d:\n%s", n, tc.rows, d.Text)
			}
			if !slices.Contains(d.Notes, tc.note) {
				t.Errorf("notes %q lack %q", d.Notes, tc.note)
			}
			t.Logf("%v, %d bytes of text", time.Since(start), len(d.Text))
		})
	}
	t.Run("default limit", func(t *testing.T) {
		d, err := Read(t.Context(), ODS, od)
		if err != nil {
			t.Fatal(err)
		}
		if want := DefaultMaxCells / 3; strings.Count(d.Text, "x | x | x") != want {
			t.Errorf("%d rows, want %d", strings.Count(d.Text, "x | x | x"), want)
		}
	})
	t.Run("zip budget", func(t *testing.T) {
		for _, f := range sheetFixtures {
			tiny := Reader{Limits: Limits{MaxTotal: 2048}}
			if _, err := tiny.Read(t.Context(), f.kind, readTB(t, f.file)); !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s: %v, want ErrTooLarge", f.file, err)
			}
		}
	})
	t.Run("damaged", func(t *testing.T) {
		for _, tc := range []struct {
			kind Kind
			data []byte
		}{
			{XLSX, xlsxOf(t, "", "", "", xlsxSheet{name: "S", data: `<row><c><v>1</row>`})},
			{XLSX, xlsxOf(t, `<si><t>x</si>`, "", "")},
			{XLSX, zipOf(t, "[Content_Types].xml", xlsxTypes, "xl/workbook.xml", `<notaworkbook/>`)},
			{ODS, odsOf(t, "", `<table:table><table:table-row><table:table-cell>`)},
			{ODS, zipOf(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", `<office:document-content `+oNS+`/>`)},
		} {
			if _, err := Read(t.Context(), tc.kind, tc.data); !errors.Is(err, ErrDamaged) {
				t.Errorf("%v: %v, want ErrDamaged", tc.kind, err)
			}
		}
	})
}

// readSheet reads data, which Detect must take for kind, and checks its
// text and notes; it returns the document for further checks.
func readSheet(t *testing.T, kind Kind, data []byte, text string, notes []string) *normalize.Document {
	t.Helper()
	if k, ok := Detect(data); !ok || k != kind {
		t.Fatalf("Detect = %v, %v", k, ok)
	}
	d, err := Read(t.Context(), kind, data)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != text {
		t.Errorf("text:\n got %q\nwant %q", d.Text, text)
	}
	if !slices.Equal(d.Notes, notes) {
		t.Errorf("notes = %q, want %q", d.Notes, notes)
	}
	return d
}

func TestCellRef(t *testing.T) {
	for _, tt := range []struct {
		ref      string
		col, row int
		ok       bool
	}{
		{"A1", 0, 1, true},
		{"b6", 1, 6, true},
		{"Z9", 25, 9, true},
		{"AA10", 26, 10, true},
		{"XFD1048576", 16383, 1048576, true},
		{"XFE1", 0, 0, false},
		{"ZZZ1", 0, 0, false},
		{"AAAA1", 0, 0, false},
		{"ZZZZZZ1", 0, 0, false},
		{"A1048577", 0, 0, false},
		{"A99999999999", 0, 0, false},
		{"A99999999999999999999999", 0, 0, false},
		{"A0", 0, 0, false},
		{"A01", 0, 0, false},
		{"A", 0, 0, false},
		{"1A", 0, 0, false},
		{"$A$1", 0, 0, false},
		{"A1 ", 0, 0, false},
		{"A-1", 0, 0, false},
		{"", 0, 0, false},
	} {
		col, row, ok := cellRef(tt.ref)
		if col != tt.col || row != tt.row || ok != tt.ok {
			t.Errorf("cellRef(%q) = %d, %d, %v; want %d, %d, %v", tt.ref, col, row, ok, tt.col, tt.row, tt.ok)
		}
	}
}

// FuzzCellRef checks that cellRef reads a reference as the one it would
// write for its column and row (upper case) and nothing past the sheet's
// last column and row, whatever it is given (seeds in
// testdata/fuzz/FuzzCellRef: "ZZZZZZ1", "A99999999999", XFD's neighbours).
func FuzzCellRef(f *testing.F) {
	for _, s := range []string{"A1", "XFD1048576", "XFE1", "a1", "A0", "1A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		col, row, ok := cellRef(ref)
		if !ok {
			if col != 0 || row != 0 {
				t.Fatalf("cellRef(%q) = %d, %d, false", ref, col, row)
			}
			return
		}
		if col < 0 || col >= maxCols || row < 1 || row > maxRows {
			t.Fatalf("cellRef(%q) = %d, %d: past the sheet", ref, col, row)
		}
		var letters []byte
		for c := col + 1; c > 0; c = (c - 1) / 26 {
			letters = append([]byte{byte('A' + (c-1)%26)}, letters...)
		}
		if want := string(letters) + strconv.Itoa(row); !strings.EqualFold(ref, want) {
			t.Fatalf("cellRef(%q) = %d, %d, which is %s", ref, col, row, want)
		}
	})
}
