package main

import (
	"encoding/json"
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
