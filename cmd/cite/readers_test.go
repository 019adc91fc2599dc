package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestDamagedDocuments: a Word file cut short fails as damaged, naming the
// file, as a damaged PDF does; a zip of another kind named .docx (an
// OpenDocument drawing) is skipped as a format cite does not read. The run
// goes on.
func TestDamagedDocuments(t *testing.T) {
	dir := t.TempDir()
	docx, err := os.ReadFile(filepath.Join(documents, "lighthouse.docx"))
	if err != nil {
		t.Fatal(err)
	}
	var drawing bytes.Buffer
	z := zip.NewWriter(&drawing)
	for name, body := range map[string]string{"mimetype": "application/vnd.oasis.opendocument.graphics", "content.xml": "<x/>"} {
		w, _ := z.Create(name)
		w.Write([]byte(body))
	}
	z.Close()
	for name, data := range map[string][]byte{"cut.docx": docx[:len(docx)/2], "drawing.docx": drawing.Bytes(), "whole.docx": docx} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := cite(t, "index", "--index", filepath.Join(t.TempDir(), "idx"), dir)
	all := out + errOut
	for _, want := range []string{"1 added", "1 skipped", "1 failed", "cut.docx: read Word (zip): damaged: zip: not a valid zip file",
		"drawing.docx: unreadable as Word: named .docx, its content is not Word"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q:\n%s", want, all)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}

// TestChangedPDF: cite index starts pdfium early for a PATH that is, or a
// folder that holds, a PDF modified since the index was last written, and
// not for unchanged PDFs, hidden ones, or a folder whose PDF lies past the
// scan's limit.
func TestChangedPDF(t *testing.T) {
	dir := t.TempDir()
	indexed := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) // the index's last write
	old, changed := indexed.Add(-time.Hour), indexed.Add(time.Hour)
	files := map[string]time.Time{
		"new.PDF":              changed,
		"old.pdf":              old,
		"tree/a/b/deep.pdf":    changed,
		"tree/a/notes.md":      changed,
		"oldtree/x.pdf":        old,
		"oldtree/y.md":         changed,
		"hidden/.h/x.pdf":      changed,
		"hidden/.x.pdf":        changed,
		"late/a.md":            changed,
		"late/b.md":            changed,
		"late/c.md":            changed,
		"late/z.pdf":           changed,
		"markdown/readme.md":   changed,
		"markdown/old.pdf.txt": changed,
	}
	for name, mtime := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("%PDF-1.7"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	in := func(names ...string) []string {
		for i, n := range names {
			names[i] = filepath.Join(dir, n)
		}
		return names
	}
	for _, tc := range []struct {
		name  string
		paths []string
		since time.Time
		limit int
		want  bool
	}{
		{"changed file", in("new.PDF"), indexed, 100, true},
		{"unchanged file", in("old.pdf"), indexed, 100, false},
		{"unchanged file, new index", in("old.pdf"), time.Time{}, 100, true},
		{"changed file in a folder", in("tree"), indexed, 100, true},
		{"unchanged file in a folder", in("oldtree"), indexed, 100, false},
		{"hidden", in("hidden"), indexed, 100, false},
		{"past the limit", in("late"), indexed, 3, false},
		{"within the limit", in("late"), indexed, 10, true},
		{"no PDF", in("markdown"), indexed, 100, false},
		{"pattern, new index", in("tree/**/*.pdf"), time.Time{}, 100, true},
		{"pattern", in("tree/**/*.pdf"), indexed, 100, false},
		{"missing", in("gone"), time.Time{}, 100, false},
		{"second PATH", in("markdown", "old.pdf", "tree"), indexed, 100, true},
	} {
		if got := changedPDF(tc.paths, tc.since, tc.limit); got != tc.want {
			t.Errorf("%s: changedPDF = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLastWrite: the index folder's last write is its newest file's
// modification time, and zero for a folder that does not exist.
func TestLastWrite(t *testing.T) {
	dir := t.TempDir()
	want := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"index.db", "vectors.cache", "index.lock"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o644)
		mtime := want.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if got := lastWrite(dir); !got.Equal(want) {
		t.Errorf("lastWrite = %v, want %v", got, want)
	}
	if got := lastWrite(filepath.Join(dir, "none")); !got.IsZero() {
		t.Errorf("lastWrite of no folder = %v, want zero", got)
	}
}
