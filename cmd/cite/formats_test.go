package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// officeFixtures are documents pandoc made (see normalize/office).
const officeFixtures = "../../normalize/office/testdata"

// TestDocumentFormats indexes Word, OpenDocument, EPUB and PowerPoint
// files with cite index and follows them to the answer: their formats in
// cite docs, slides marked in cite show, a hit's slide in search --json,
// and an answer's reference to the slide its quote is on.
func TestDocumentFormats(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	var files []string
	for _, f := range []string{"report.docx", "report.odt", "book.epub", "slides.pptx"} {
		files = append(files, filepath.Join(officeFixtures, f))
	}
	if code, out, errOut := cite(t, append([]string{"index", "--index", idx}, files...)...); code != 0 || !strings.Contains(errOut+out, "4 added") {
		t.Fatalf("index: %d\n%s%s", code, out, errOut)
	}
	_, out, _ := cite(t, "docs", "--index", idx, "--json")
	for _, f := range []string{"docx", "odt", "epub", "pptx"} {
		if !strings.Contains(out, `"format": "`+f+`"`) {
			t.Errorf("docs: no document of format %s:\n%s", f, out)
		}
	}
	slides := filepath.Join(officeFixtures, "slides.pptx")
	if _, out, _ := cite(t, "show", "--index", idx, slides); !strings.Contains(out, "── slide 2 ──\nGoals") {
		t.Errorf("show does not mark the slides:\n%s", out)
	}
	_, out, _ = cite(t, "search", "--index", idx, "--json", "Stress the beta date")
	var res struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if h := res.Hits[0]; h["slide"] != float64(1) || h["slide_end"] != float64(4) {
		t.Errorf("hit slides %v-%v, want 1-4", h["slide"], h["slide_end"])
	}
	_, out, _ = cite(t, "ask", "--index", idx, "what is stressed about the beta")
	if !strings.Contains(out, "Stress the beta date") || !strings.Contains(out, ", slide 2](file://") || !strings.Contains(out, "slides.pptx#slide=2)") {
		t.Errorf("ask does not cite the quote's slide:\n%s", out)
	}
	_, out, _ = cite(t, "ask", "--index", idx, "--json", "what is stressed about the beta")
	if !strings.Contains(out, `"slide": 2`) {
		t.Errorf("ask --json: no slide 2:\n%s", out)
	}
}

// pdfFixtures are PDFs Chromium printed (see normalize/pdf).
const pdfFixtures = "../../normalize/pdf/testdata"

// TestPDF indexes PDFs with cite index: a good one is read with its pages
// (running headers noted, not indexed), an encrypted one is skipped and a
// damaged one fails, each named; an answer cites the page its quote is on,
// with a #page=N link.
func TestPDF(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, filepath.Join(pdfFixtures, "report.pdf"), filepath.Join(pdfFixtures, "encrypted.pdf"), filepath.Join(pdfFixtures, "damaged.pdf"))
	all := out + errOut
	if code != 1 || !strings.Contains(all, "1 added") || !strings.Contains(all, "encrypted.pdf: encrypted: a password is required") ||
		!strings.Contains(all, "damaged.pdf: read PDF: damaged PDF") || !strings.Contains(all, `note `) {
		t.Fatalf("index: exit %d\n%s", code, all)
	}
	report := filepath.Join(pdfFixtures, "report.pdf")
	_, out, _ = cite(t, "show", "--index", idx, report)
	if !strings.Contains(out, "── page 2 ──\nKeepers and Their Lives") || !strings.Contains(out, `note: left out the page numbers ("1/3" … "3/3") on pages 1–3`) || strings.Contains(out, "\n2/3\n") {
		t.Errorf("show:\n%s", out)
	}
	_, out, _ = cite(t, "ask", "--index", idx, "when was the lamp lit each evening")
	if !strings.Contains(out, "sunset") || !strings.Contains(out, ", p. 2](file://") || !strings.Contains(out, "report.pdf#page=2)") {
		t.Errorf("ask does not cite page 2:\n%s", out)
	}
}

// TestDocumentsByContent: cite index knows a document by its content, not
// its name: a DOCX named .doc and a PPTX named .ppt are read as what they
// are, and password-protected DOCX and PPTX files (officecrypto-tool's,
// see normalize/office) are skipped, each named.
func TestDocumentsByContent(t *testing.T) {
	dir := officeCopies(t, map[string]string{"report.docx": "report.doc", "slides.pptx": "slides.ppt", "encrypted.docx": "encrypted.docx", "encrypted.pptx": "encrypted.pptx"})
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, dir)
	all := out + errOut
	for _, want := range []string{"2 added", "2 skipped",
		filepath.Join(dir, "encrypted.docx") + ": encrypted: a password is required",
		filepath.Join(dir, "encrypted.pptx") + ": encrypted: a password is required"} {
		if !strings.Contains(all, want) {
			t.Errorf("index (exit %d) does not say %q:\n%s", code, want, all)
		}
	}
	_, out, _ = cite(t, "docs", "--index", idx, "--json")
	for _, want := range []string{`"format": "docx"`, `"format": "pptx"`, `report.doc"`, `slides.ppt"`} {
		if !strings.Contains(out, want) {
			t.Errorf("docs: no %s:\n%s", want, out)
		}
	}
}

// TestSheets indexes spreadsheets LibreOffice wrote (see normalize/office):
// an Excel workbook, an OpenDocument one and an old binary .xls, skipped
// saying what to save it as. A cell's text is found by cite search under
// its sheet's name, and cite ask cites its row, each cell named by its
// column's header, under its sheet ("§ Costs"); a workbook without a title
// of its own is named by its file, not by its first sheet.
func TestSheets(t *testing.T) {
	dir := officeCopies(t, map[string]string{"budget.xlsx": "budget.xlsx", "budget.ods": "budget.ods", "budget.xls": "old.xls"})
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, dir)
	all := out + errOut
	for _, want := range []string{"2 added", "1 skipped", "old.xls: unsupported format: old binary Excel format (.xls); save it as .xlsx"} {
		if !strings.Contains(all, want) {
			t.Errorf("index (exit %d) does not say %q:\n%s", code, want, all)
		}
	}
	_, out, _ = cite(t, "docs", "--index", idx, "--json")
	for _, want := range []string{`"format": "xlsx"`, `"format": "ods"`, `"title": "Lighthouse Budget"`} {
		if !strings.Contains(out, want) {
			t.Errorf("docs: no %s:\n%s", want, out)
		}
	}
	_, out, _ = cite(t, "show", "--index", idx, filepath.Join(dir, "budget.xlsx"))
	if !strings.Contains(out, "Keepers\n\nName | Watch\nAda Winter | night and storms") || !strings.Contains(out, `note: left out the hidden sheet "Secret"`) || strings.Contains(out, "salary") {
		t.Errorf("show:\n%s", out)
	}
	_, out, _ = cite(t, "search", "--index", idx, "--json", "Brass polish")
	var res struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if h := res.Hits[0]; h["heading"] != "Costs" || !strings.Contains(h["text"].(string), "Brass polish | 14.00 | 2026-04-02 | 75%") {
		t.Errorf("search: first hit %v", h)
	}
	// A sheet's spans are of its text, not bytes of the file: neither
	// search nor show says "bytes" of it.
	for _, args := range [][]string{
		{"search", "--index", idx, "Brass polish"},
		{"show", "--index", idx, "--chunks", filepath.Join(dir, "budget.xlsx")},
	} {
		if _, out, _ := cite(t, args...); !strings.Contains(out, "budget.") || strings.Contains(out, "bytes 0-") || strings.Contains(out, "file bytes") {
			t.Errorf("%s gives the text's offsets as the file's bytes:\n%s", args[0], out)
		}
	}
	_, out, _ = cite(t, "ask", "--index", idx, "when was the brass polish bought")
	if !strings.Contains(out, "Item: Brass polish; Cost: 14.00; Bought: 2026-04-02") || !strings.Contains(out, "[Lighthouse Budget § Costs](file://") {
		t.Errorf("ask does not cite the row under its sheet:\n%s", out)
	}

	// Without a title of its own (docProps/core.xml left out), a workbook
	// is named by its file.
	untitled := filepath.Join(t.TempDir(), "keepers.xlsx")
	if err := os.WriteFile(untitled, withoutEntry(t, filepath.Join(officeFixtures, "budget.xlsx"), "docProps/core.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx2 := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx2, untitled); code != 0 {
		t.Fatalf("index: %d\n%s%s", code, out, errOut)
	}
	_, out, _ = cite(t, "ask", "--index", idx2, "who has the night watch")
	if !strings.Contains(out, "Name: Ada Winter; Watch: night and storms") || !strings.Contains(out, "[keepers.xlsx § Keepers](file://") {
		t.Errorf("ask does not name the workbook by its file:\n%s", out)
	}
}

// withoutEntry returns the zip file name without its entry drop.
func withoutEntry(t *testing.T, name, drop string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name == drop {
			continue
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// officeCopies copies normalize/office's fixtures into a new folder under
// other names (from → to) and returns the folder.
func officeCopies(t *testing.T, names map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for from, to := range names {
		data, err := os.ReadFile(filepath.Join(officeFixtures, from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
