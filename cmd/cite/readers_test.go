package main

import (
	"slices"
	"strconv"
	"testing"

	"github.com/cite-rag/cite/normalize/pdf"
)

// TestPDFNotes: what a PDF's reader left out is said once per running
// line, and page numbers and pages without text once for all their pages,
// so that a long document's notes stay a few lines.
func TestPDFNotes(t *testing.T) {
	const install = "no text layer; install tesseract (Debian: apt-get install tesseract-ocr tesseract-ocr-eng) to read it by OCR"
	var numbers, scanned []pdf.Dropped
	var noText []pdf.NoText
	for p := 1; p <= 500; p++ {
		numbers = append(numbers, pdf.Dropped{Page: p, Text: strconv.Itoa(p) + "/500", Why: "page number"})
		scanned = append(scanned, pdf.Dropped{Page: p, Text: "Annual Report", Why: "running header"})
		noText = append(noText, pdf.NoText{Page: p, Reason: install})
	}
	for _, tc := range []struct {
		name string
		rep  *pdf.Report
		want []string
	}{
		{"none", &pdf.Report{}, nil},
		{"running lines and page numbers", &pdf.Report{Dropped: append(scanned, numbers...)}, []string{
			`left out the running header "Annual Report" on pages 1–500`,
			`left out the page numbers ("1/500" … "500/500") on pages 1–500`,
		}},
		{"one page number", &pdf.Report{Dropped: numbers[6:7]}, []string{`left out the page number "7/500" on page 7`}},
		{"page numbers with gaps", &pdf.Report{Dropped: []pdf.Dropped{numbers[0], numbers[1], numbers[4]}}, []string{
			`left out the page numbers ("1/500" … "5/500") on pages 1–2, 5`,
		}},
		{"a scanned book without tesseract", &pdf.Report{NoText: noText}, []string{"pages 1–500 have no text: " + install}},
		{"one scanned page", &pdf.Report{NoText: noText[4:5], OCR: []int{2, 3}}, []string{
			"read by OCR (tesseract): pages 2–3",
			"page 5 has no text: " + install,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pdfNotes(tc.rep); !slices.Equal(got, tc.want) {
				t.Errorf("pdfNotes:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
