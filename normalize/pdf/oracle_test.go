package pdf

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/cite-rag/cite/normalize"
)

var update = flag.Bool("update", false, "write the fixtures made by Chromium and qpdf to testdata")

// need returns the path of a tool the test needs; it skips the test when
// the tool is missing, and fails it under CI.
func need(t testing.TB, tool, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian: %s)", tool, pkg)
		}
		t.Skipf("%s is not installed (Debian: %s)", tool, pkg)
	}
	return p
}

// words returns the words of s, lowercased, with hyphens and ligatures
// folded, so two extractions of a page can be compared.
func words(s string) map[string]int {
	s = strings.NewReplacer("\u00ad", "", "\u2010\n", "", "-\n", "-").Replace(fold.Replace(s))
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w]++
	}
	return out
}

func pageText(d *normalize.Document, i int) string {
	end := len(d.Text)
	if i+1 < len(d.Pages) {
		end = d.Pages[i+1].Offset
	}
	return d.Text[d.Pages[i].Offset:end]
}

// TestPageOracle checks each page's text against poppler's pdftotext for
// that page: every word the reader puts on page N is on page N for
// pdftotext, and the reader keeps all of pdftotext's words but those it
// reports as running headers, footers and page numbers.
func TestPageOracle(t *testing.T) {
	pdftotext := need(t, "pdftotext", "poppler-utils")
	for _, name := range []string{"report.pdf", "flow.pdf", "paragraphs.pdf"} {
		path := filepath.Join("testdata", name)
		d, rep, err := read(t, &Reader{}, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, pg := range d.Pages {
			n := strconv.Itoa(pg.Number)
			out, err := exec.Command(pdftotext, "-f", n, "-l", n, path, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			oracle := words(string(out))
			for _, x := range rep.dropped(pg.Number) {
				for w, c := range words(x.Text) {
					oracle[w] -= c
				}
			}
			got := words(pageText(d, i))
			for w, c := range got {
				if oracle[w] < c {
					t.Errorf("%s page %s: %q %d times, pdftotext has it %d times", name, n, w, c, oracle[w])
				}
			}
			for w, c := range oracle {
				if c > got[w] {
					t.Errorf("%s page %s: %q missing (%d in pdftotext, %d here)", name, n, w, c, got[w])
				}
			}
		}
	}
}

// TestFixtures makes the fixtures again with the tools a user's PDFs come
// from (headless Chromium, qpdf) and checks the reader reads them as it
// reads the committed ones; -update writes them to testdata.
func TestFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	chromium := need(t, "chromium", "chromium")
	qpdf := need(t, "qpdf", "qpdf")
	dir := t.TempDir()
	if *update {
		dir = "testdata"
	}
	abs, _ := filepath.Abs("testdata")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	headless := []string{"--headless", "--no-sandbox", "--disable-gpu"}
	// With its running header and footer, and an outline from the headings.
	run(chromium, append(headless, "--generate-pdf-document-outline", "--print-to-pdf="+filepath.Join(dir, "report.pdf"), filepath.Join(abs, "report.html"))...)
	// A paragraph cut by a page break, kerned spaces, justified text.
	run(chromium, append(headless, "--generate-pdf-document-outline", "--print-to-pdf="+filepath.Join(dir, "flow.pdf"), filepath.Join(abs, "flow.html"))...)
	// Letter-spaced text, and text set without spacing beside it.
	run(chromium, append(headless, "--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(dir, "spaced.pdf"), filepath.Join(abs, "spaced.html"))...)
	// Inline code and code blocks; lists; one-line paragraphs and verse;
	// an address, code and verse; nested lists; text set turned a quarter
	// turn clockwise, a half turn and a quarter turn anticlockwise, and
	// upright, a page each; footnote markers in headings, and exponents.
	for _, name := range []string{"code", "lists", "paragraphs", "breaks", "nested", "sideways", "notes", "exponents"} {
		run(chromium, append(headless, "--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(dir, name+".pdf"), filepath.Join(abs, name+".html"))...)
	}
	// A scanned page: a picture of text, printed.
	png := filepath.Join(t.TempDir(), "scan.png")
	run(chromium, append(headless, "--screenshot="+png, "--window-size=1000,300", filepath.Join(abs, "scan.html"))...)
	html := filepath.Join(filepath.Dir(png), "scanned.html")
	if err := os.WriteFile(html, []byte(`<!doctype html><html><body><img src="scan.png" style="width:100%"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(chromium, append(headless, "--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(dir, "scanned.pdf"), html)...)
	// report.pdf scanned: its pages as pictures at 150 DPI, printed.
	pdftoppm := need(t, "pdftoppm", "poppler-utils")
	pics := filepath.Join(t.TempDir(), "s")
	run(pdftoppm, "-r", "150", "-gray", "-png", filepath.Join(dir, "report.pdf"), pics)
	html = filepath.Join(filepath.Dir(pics), "scanned-report.html")
	if err := os.WriteFile(html, []byte(`<!doctype html><html><head><style>@page{size:letter;margin:0}body{margin:0}img{width:8.5in;height:11in;display:block;page-break-after:always}</style></head><body><img src="s-1.png"><img src="s-2.png"><img src="s-3.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(chromium, append(headless, "--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(dir, "scanned-report.pdf"), html)...)
	// The same pictures fed turned: the first upside down, the second a
	// quarter turn clockwise and the third anticlockwise, on landscape pages.
	html = filepath.Join(filepath.Dir(pics), "scanned-turned.html")
	if err := os.WriteFile(html, []byte(`<!doctype html><html><head><style>@page{size:letter;margin:0}@page wide{size:11in 8.5in;margin:0}body{margin:0}`+
		`div{page-break-after:always;overflow:hidden;position:relative;width:8.5in;height:11in}div.wide{page:wide;width:11in;height:8.5in}`+
		`img{width:8.5in;height:11in;display:block;position:absolute}.wide img{left:1.25in;top:-1.25in}</style></head><body>`+
		`<div><img src="s-1.png" style="transform:rotate(180deg)"></div><div class="wide"><img src="s-2.png" style="transform:rotate(90deg)"></div>`+
		`<div class="wide"><img src="s-3.png" style="transform:rotate(270deg)"></div></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(chromium, append(headless, "--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(dir, "scanned-turned.pdf"), html)...)
	run(qpdf, "--encrypt", "secret", "owner", "256", "--", filepath.Join(dir, "report.pdf"), filepath.Join(dir, "encrypted.pdf"))
	report, err := os.ReadFile(filepath.Join(dir, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	// A damaged PDF: the file cut short after its first objects.
	if err := os.WriteFile(filepath.Join(dir, "damaged.pdf"), report[:3000], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.pdf", "flow.pdf", "spaced.pdf", "code.pdf", "lists.pdf", "paragraphs.pdf", "breaks.pdf", "nested.pdf", "sideways.pdf"} {
		want, _, err := read(t, &Reader{}, name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := (&Reader{}).Read(t.Context(), data)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text {
			t.Errorf("a new print of %s reads\n%s\nthe committed one\n%s", name, got.Text, want.Text)
		}
	}
}
