package office

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestNumFormat(t *testing.T) {
	tests := []struct {
		code string
		v    float64
		want string
	}{
		{"General", 0.1 + 0.2, "0.3"},
		{"0", 2.5, "3"},
		{"0", -2.5, "-3"},
		{"0.00", 3.1, "3.10"},
		{"0.00", 2.675, "2.68"}, // its float is 2.67499…: rounded on 15 digits
		{"0.00", -0.001, "0.00"},
		{"#,##0", 1234567, "1,234,567"},
		{"#,##0", 0, "0"},
		{"#,##0.00", -9876.5, "-9,876.50"},
		{"#,##0.00", 999.999, "1,000.00"},
		{"#,###", 0, ""},
		{"[$$-409]#,##0.00", 1234.5, "$1,234.50"},
		{`[$$-409]#,##0.00;\([$$-409]#,##0.00\)`, -1234.5, "($1,234.50)"},
		{`#,##0.00\ [$€-407]`, 12, "12.00 €"},
		{`#,##0.00\ "€";[Red]\-#,##0.00\ "€"`, -3, "-3.00 €"},
		{`$#,##0_);($#,##0)`, -1500, "($1,500)"},
		{`_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`, 0, "$-"},
		{`_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`, 1234.5, "$1,234.50"}, // a fill (*) has no width here
		{"0%", 0.25, "25%"},
		{"0.0%", 0.125, "12.5%"},
		{"0.00%", 0.12345, "12.35%"},
		{"#,##0.0%", 0.5, "50.0%"},
		{"0.0%", -0.0333, "-3.3%"},
		{"[hh]:mm:ss", 1.5 + 65.0/86400, "36:01:05"},
		{"[h]:mm", 2.25, "54:00"},
		{"[mm]:ss", 0.0625, "90:00"},
		{"mm:ss.0", 1.0 / 86400 * 61.25, "01:01.3"},
		{"h:mm AM/PM", 0.5625, "1:30 PM"},
		{"h:mm:ss AM/PM", 0.0, "12:00:00 AM"},
		{"hh:mm", 0.25, "06:00"},
		{"h:mm", 0.75, "18:00"},
		{"# ?/?", 1.5, "1 1/2"},
		{"# ??/??", 3.14159, "3 14/99"},
		{"# ?/4", 2.8, "2 3/4"},
		{"# ?/?", 4, "4"},
		{"# ?/?", 0.3333333, "1/3"},
		{"?/?", 1.5, "3/2"},
		{"# ?/?", -1.5, "-1 1/2"},
		{"0.00E+00", 123456, "1.23E+05"},
		{"0.00E+00", 0.000123, "1.23E-04"},
		{"0.00E+00", 0, "0.00E+00"},
		{"0.00E+00", 9.999, "1.00E+01"},
		{"##0.0E+0", 12345, "12.3E+3"},
		{`"Qty "0`, 5, "Qty 5"},
		{`"in "0.000`, 2.5, "in 2.500"},
		{"00000", 123, "00123"},
		{`000\-00\-0000`, 123456789, "123-45-6789"},
		{`#,##0,\K`, 1234567, "1,235K"},
		{`0.0,,"M"`, 2500000, "2.5M"},
		{"0.00;[RED]\\-0.00", -42.5, "-42.50"},
		{"0.##", 7.5, "7.5"},
		{"0.##", 7, "7."},
		{"#.00", 0.5, ".50"},
		{"#.00", 12.5, "12.50"},
		{`"TRUE";"TRUE";"FALSE"`, 1, "TRUE"},
		{`"TRUE";"TRUE";"FALSE"`, 0, "FALSE"},
		{"0;-0;;@", 0, ""},
		{"[>=100]#,##0;[<0]\\-0.0;0.00", 1500, "1,500"},
		{"[>=100]#,##0;[<0]\\-0.0;0.00", 5, "5.00"},
		{"[Blue]0.0", 1, "1.0"},
		{"@", 12, "12"},
		{"yyyy-mm-dd", 46353, "2026-11-27"},
		{"[$-409]mmmm d, yyyy;@", 46353, "2026-11-27"},
		{"mmm-yy", 46353, "2026-11-27"},
		{"d/m/yyyy h:mm", 46353.5625, "2026-11-27 13:30"},
		{"dd/mm/yyyy hh:mm:ss", 46353.5625, "2026-11-27 13:30:00"},
		{"yyyy-mm-dd", -1, "-1"}, // no date before 1900: General
		// A locale alone is the section's language; a currency's is not.
		{"[$-407]#,##0.00", 1234.5, "1.234,50"},
		{"[$-407]General", 1234.5, "1234,5"},
		{"[$-807]#,##0.00", -1234.5, "-1'234.50"},
		{"[$-40C]0.0%", 0.125, "12,5%"},
		{"[$-409]#,##0.00", 1234.5, "1,234.50"},
		{"[$-F800]#,##0.00", 1234.5, "1,234.50"},
		{"[$€-407]#,##0.00", 1234.5, "€1,234.50"},
		{"[$-407]mm:ss.00", 0.0001, "00:08,64"},
		// India's lakhs and crores, by the locale, not the code
		// (LibreOffice: "#,##,##0" alone groups by three).
		{"[$-4009]#,##0.00", 123456789.5, "12,34,56,789.50"},
		{"[$-4009]#,##0", -100000, "-1,00,000"},
		{"[$-4009]#,##0", 999, "999"},
		{"[$-439]#,##0.00", 1234567.5, "12,34,567.50"},
		{"[$-4009]#,##,##0.00", 123456789.5, "12,34,56,789.50"},
		{"#,##,##0.00", 123456789.5, "123,456,789.50"},
	}
	for _, tt := range tests {
		var got string
		if f := parseNumFormat(tt.code); f == nil {
			got = general(tt.v)
		} else if s, ok := f.number(tt.v, false); ok {
			got = s
		} else {
			got = general(tt.v)
		}
		if got != tt.want {
			t.Errorf("%q of %v = %q, want %q", tt.code, tt.v, got, tt.want)
		}
	}
}

func TestNumFormatText(t *testing.T) {
	for _, tt := range []struct{ code, s, want string }{
		{`"Code "@`, "A17", "Code A17"},
		{"@", "x", "x"},
		{"0.00", "x", "x"},
		{`0;0;0;"<"@">"`, "x", "<x>"},
		{`_(@_)`, "Lamp", "Lamp"},
	} {
		if got := parseNumFormat(tt.code).textOf(tt.s); got != tt.want {
			t.Errorf("%q of %q = %q, want %q", tt.code, tt.s, got, tt.want)
		}
	}
}

// The number formats of testdata/src/formats.fods (thousands, currencies,
// percentages, decimals, elapsed times, fractions, scientific, literals,
// scaling, sections) as LibreOffice shows them, and the spreadsheets it
// makes of it:
//
//	soffice --headless --convert-to xlsx --outdir testdata testdata/src/formats.fods
//	soffice --headless --convert-to ods --outdir testdata testdata/src/formats.fods
//	soffice --headless --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true' --outdir testdata testdata/formats.xlsx
//
// The CSV filter's ninth option ("true") saves the cells as shown: the
// last line gives formats.csv, the text LibreOffice shows for the XLSX
// (its format codes in an English locale: "12.00 €"; the ODS says its
// euro style is German and shows "12,00 €", which the ODS reader keeps).
// TestNumFormatLibreOffice runs them again when soffice is installed.
var formatsOracle = "formats.csv"

// TestNumFormatAsShown reads formats.xlsx and formats.ods and compares
// every value cell with the text LibreOffice shows (formats.csv), runs of
// spaces (the padding of "?" and "_") collapsed and trimmed.
func TestNumFormatAsShown(t *testing.T) {
	want := oracleCells(t, readTB(t, formatsOracle))
	for _, f := range []struct {
		file string
		kind Kind
	}{{"formats.xlsx", XLSX}, {"formats.ods", ODS}} {
		t.Run(f.file, func(t *testing.T) {
			compareAsShown(t, readFixture(t, readTB(t, f.file), f.kind).Text, want, f.kind)
		})
	}
}

// TestODSDataStyles: an ODS whose cells have their values alone (no
// text:p, as some producers write them) reads as LibreOffice shows them,
// each rendered by its cell's data style: formats.ods with the text of its
// value cells taken out, against the XLSX's oracle, the euros in the
// German of their style ("12,00 €", as LibreOffice shows the ODS).
func TestODSDataStyles(t *testing.T) {
	want := oracleCells(t, readTB(t, formatsOracle))
	content := unzipEntry(t, readTB(t, "formats.ods"), "content.xml")
	styles := unzipEntry(t, readTB(t, "formats.ods"), "styles.xml")
	valueOnly := regexp.MustCompile(`(<table:table-cell [^>]*office:(?:value|boolean-value|time-value)="[^"]*"[^>]*>)<text:p>.*?</text:p>`)
	stripped := valueOnly.ReplaceAllString(content, "$1")
	if n := strings.Count(content, "<text:p>") - strings.Count(stripped, "<text:p>"); n < 30 {
		t.Fatalf("%d cells' text taken out", n)
	}
	data := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", stripped, "styles.xml", styles)
	compareAsShown(t, readFixture(t, data, ODS).Text, want, ODS)
}

// The number formats of testdata/src/locales.fods in thirteen languages
// (India's English and Hindi grouping lakhs and crores: "12,34,567.50")
// (their data styles' number:language and number:country; in the XLSX
// LibreOffice makes of it, [$-407] and the like) as LibreOffice shows them
// (the same for both), made as formats.csv is (see formatsOracle):
//
//	soffice --headless --convert-to ods --outdir testdata testdata/src/locales.fods
//	soffice --headless --convert-to xlsx --outdir testdata testdata/src/locales.fods
//	soffice --headless --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true' --outdir testdata testdata/locales.xlsx
//
// A style without a language, and General, show "." and ",": LibreOffice
// takes the system's language for them (en-US where locales.csv was
// made), not the document's default, which locales.fods sets to German.
var localesOracle = "locales.csv"

// TestNumFormatLocales reads locales.xlsx, locales.ods and locales.ods
// with its cells' text taken out (rendered by their data styles), and
// compares every value cell with the text LibreOffice shows: "1.234,50" in
// German, "1 234,50" in French (a no-break space, a space once runs of
// spaces are collapsed), "1'234.50" in Swiss German.
func TestNumFormatLocales(t *testing.T) {
	want := oracleCells(t, readTB(t, localesOracle))
	ods := readTB(t, "locales.ods")
	content := unzipEntry(t, ods, "content.xml")
	valueOnly := regexp.MustCompile(`(<table:table-cell [^>]*office:(?:value|boolean-value|time-value)="[^"]*"[^>]*>)<text:p>.*?</text:p>`)
	stripped := valueOnly.ReplaceAllString(content, "$1")
	if n := strings.Count(content, "<text:p>") - strings.Count(stripped, "<text:p>"); n < 40 {
		t.Fatalf("%d cells' text taken out", n)
	}
	valuesOnly := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", stripped, "styles.xml", unzipEntry(t, ods, "styles.xml"))
	for _, f := range []struct {
		name string
		data []byte
		kind Kind
	}{{"locales.xlsx", readTB(t, "locales.xlsx"), XLSX}, {"locales.ods", ods, ODS}, {"locales.ods, values only", valuesOnly, ODS}} {
		t.Run(f.name, func(t *testing.T) {
			compareAsShown(t, readFixture(t, f.data, f.kind).Text, want, f.kind)
		})
	}
}

// unzipEntry returns the entry name of the zip data.
func unzipEntry(t *testing.T, data []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNumFormatLibreOffice makes formats.xlsx and formats.ods from
// formats.fods, and locales.xlsx and locales.ods from locales.fods, with
// the LibreOffice installed, has LibreOffice show the XLSX as CSV, and
// compares cite's cells with it (with -update, it rewrites the committed
// fixtures). Without soffice it skips: TestNumFormatAsShown and
// TestNumFormatLocales check the committed files.
func TestNumFormatLibreOffice(t *testing.T) {
	if _, err := exec.LookPath("soffice"); err != nil {
		t.Skip("LibreOffice is not installed (Debian: apt-get install --no-install-recommends libreoffice-calc-nogui)")
	}
	if testing.Short() {
		t.Skip("starts LibreOffice")
	}
	dir := t.TempDir()
	convert := func(to, src string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "soffice", "--headless", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
			"--convert-to", to, "--outdir", dir, src)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("soffice: %v\n%s", err, b)
		}
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, name := range []string{"formats", "locales"} {
		convert("xlsx", filepath.Join("testdata", "src", name+".fods"))
		convert("ods", filepath.Join("testdata", "src", name+".fods"))
		convert("csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true", filepath.Join(dir, name+".xlsx"))
		xl, od, shown := read(name+".xlsx"), read(name+".ods"), read(name+".csv")
		if *update {
			for file, b := range map[string][]byte{name + ".xlsx": xl, name + ".ods": od, name + ".csv": shown} {
				if err := os.WriteFile(filepath.Join("testdata", file), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := oracleCells(t, shown)
		compareAsShown(t, readFixture(t, xl, XLSX).Text, want, XLSX)
		compareAsShown(t, readFixture(t, od, ODS).Text, want, ODS)
	}
}

// oracleCells reads LibreOffice's CSV: a label and the value as shown.
func oracleCells(t *testing.T, b []byte) map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range recs {
		if len(r) == 2 {
			m[r[0]] = strings.Join(strings.Fields(r[1]), " ")
		}
	}
	if len(m) < 30 {
		t.Fatalf("%d cells in LibreOffice's CSV", len(m))
	}
	return m
}

// compareAsShown checks each "label | value" row of a sheet's text against
// the oracle. The euros of the ODS are German (decimal comma), which
// LibreOffice does not keep in the XLSX: the ODS shows them so.
func compareAsShown(t *testing.T, text string, want map[string]string, kind Kind) {
	t.Helper()
	seen := 0
	for line := range strings.Lines(text) {
		label, got, ok := strings.Cut(strings.TrimSpace(line), " | ")
		w, known := want[label]
		if !ok || !known {
			continue
		}
		seen++
		if kind == ODS && strings.HasPrefix(label, "euros") {
			w = strings.NewReplacer(",", ".", ".", ",").Replace(w)
		}
		if got != w {
			t.Errorf("%v %q: cite shows %q, LibreOffice %q", kind, label, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%v: %d of LibreOffice's %d cells compared:\n%s", kind, seen, len(want), text)
	}
}

func FuzzNumFormat(f *testing.F) {
	for _, c := range builtinCodes {
		f.Add(c, 1234.5678)
	}
	for _, c := range []string{`[$$-409]#,##0.00;\([$$-409]#,##0.00\)`, "[hh]:mm:ss", "# ??/??", "##0.0E+0", `#,##0,\K`, "[>=100]0;[<0]0.0;0.00", `"a`, "[", `\`, "0.0.0", "E+", "?/", "/0", "mm:ss.000", ".", ",", ";;;;;", "[$-407]#,##0.00", "[$-807]0.0%;[$-40C]General", "[$-]0", "[$-ZZZZZZZZZ]0"} {
		f.Add(c, -0.5)
	}
	f.Fuzz(func(t *testing.T, code string, v float64) {
		nf := parseNumFormat(code)
		if nf == nil {
			return
		}
		s, _ := nf.number(v, false)
		if strings.ContainsAny(s, "\n\r\t") || s != strings.TrimSpace(s) {
			t.Errorf("%q of %v = %q", code, v, s)
		}
		_ = nf.textOf("x")
	})
}

// BenchmarkNumFormat renders a cell's number by a format code, against
// General's rendering of it (what every number cost before formats were
// rendered).
func BenchmarkNumFormat(b *testing.B) {
	for _, code := range []string{"General", "#,##0.00", `[$$-409]#,##0.00;\([$$-409]#,##0.00\)`, "0.0%", "[hh]:mm:ss", "# ??/??", "yyyy-mm-dd"} {
		f := parseNumFormat(code)
		b.Run(code, func(b *testing.B) {
			for b.Loop() {
				if f == nil {
					_ = general(46353.5625)
				} else {
					_, _ = f.number(46353.5625, false)
				}
			}
		})
	}
}
