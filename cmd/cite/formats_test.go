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
