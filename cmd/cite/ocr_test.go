package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install is what cite says to install when a page needs OCR.
const install = "apt-get install tesseract-ocr tesseract-ocr-eng"

// noTesseract sets PATH to a folder without tesseract for the rest of the
// test (cite itself needs no program on PATH).
func noTesseract(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	if _, err := exec.LookPath("tesseract"); err == nil {
		t.Fatal("tesseract is still found")
	}
}

// mixedPDF writes a PDF of report.pdf's three pages of text and a fourth,
// scanned page without text (qpdf joins them), and returns its path.
func mixedPDF(t *testing.T) string {
	t.Helper()
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		t.Skip("qpdf is not installed (Debian: apt-get install qpdf)")
	}
	out := filepath.Join(t.TempDir(), "mixed.pdf")
	cmd := exec.Command(qpdf, "--empty", "--pages", filepath.Join(pdfFixtures, "report.pdf"), filepath.Join(pdfFixtures, "scanned.pdf"), "--", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, b)
	}
	return out
}

// TestOCR indexes a scanned PDF (a picture of a page, printed by Chromium)
// with cite index: with tesseract its text is found by cite search on its
// page; without it (a PATH without tesseract) the file and page are
// reported with what to install, and the file is not indexed as empty.
func TestOCR(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	scanned := filepath.Join(pdfFixtures, "scanned.pdf")
	t.Run("tesseract", func(t *testing.T) {
		if _, err := exec.LookPath("tesseract"); err != nil {
			t.Skip("tesseract is not installed (Debian: " + install + ")")
		}
		idx := filepath.Join(t.TempDir(), "idx")
		code, out, errOut := cite(t, "index", "--index", idx, scanned)
		if code != 0 || !strings.Contains(out, "1 added") || !strings.Contains(errOut, "scanned.pdf: read by OCR (tesseract): page 1") {
			t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
		}
		_, out, _ = cite(t, "search", "--index", idx, "--json", "lighthouse keeper Grace Darling")
		var res struct {
			Hits []struct {
				Text     string `json:"text"`
				Page     int    `json:"page"`
				Document struct {
					Path string `json:"path"`
				} `json:"document"`
			} `json:"hits"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
			t.Fatalf("search: %v\n%s", err, out)
		}
		if h := res.Hits[0]; !strings.Contains(h.Text, "Grace Darling") || h.Page != 1 || filepath.Base(h.Document.Path) != "scanned.pdf" {
			t.Errorf("hit %+v", h)
		}
	})
	t.Run("no tesseract", func(t *testing.T) {
		noTesseract(t)
		idx := filepath.Join(t.TempDir(), "idx")
		code, out, errOut := cite(t, "index", "--index", idx, scanned)
		all := out + errOut
		want := "scanned.pdf: no text: page 1 has no text: no text layer; install tesseract (Debian: " + install + ")"
		if code != 1 || !strings.Contains(all, "skipped ") || !strings.Contains(all, want) || strings.Count(all, install) != 1 ||
			!strings.Contains(all, "nothing indexed: every file found was skipped (no text: 1)") {
			t.Errorf("index: exit %d, want 1, the file and page with what to install, once:\n%s", code, all)
		}
		if _, out, _ := cite(t, "docs", "--index", idx, "--json"); !strings.Contains(out, `"documents": []`) {
			t.Errorf("a scanned PDF read without tesseract is in the index:\n%s", out)
		}
	})
	t.Run("no tesseract, then tesseract", func(t *testing.T) {
		// A PDF of text and a scanned page: indexed with a note naming the
		// page; once tesseract is installed, the next cite index reads the
		// unchanged file again and finds the scanned page's text.
		mixed := mixedPDF(t)
		path := os.Getenv("PATH")
		noTesseract(t)
		idx := filepath.Join(t.TempDir(), "idx")
		code, out, errOut := cite(t, "index", "--index", idx, mixed)
		if code != 0 || !strings.Contains(out, "1 added") || !strings.Contains(errOut, "note "+mixed+": page 4 has no text: no text layer; install tesseract (Debian: "+install+")") {
			t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
		}
		if _, out, _ := cite(t, "show", "--index", idx, mixed); !strings.Contains(out, "note: page 4 has no text") {
			t.Errorf("show does not say page 4 was not read:\n%s", out)
		}
		if code, out, _ := cite(t, "index", "--index", idx, mixed); code != 0 || !strings.Contains(out, "1 unchanged") {
			t.Errorf("re-run without tesseract: exit %d, want the file unchanged:\n%s", code, out)
		}
		t.Setenv("PATH", path)
		if _, err := exec.LookPath("tesseract"); err != nil {
			t.Skip("tesseract is not installed (Debian: " + install + ")")
		}
		code, out, errOut = cite(t, "index", "--index", idx, mixed)
		if code != 0 || !strings.Contains(out, "1 updated") || !strings.Contains(errOut, "read by OCR (tesseract): page 4") {
			t.Fatalf("index with tesseract: exit %d, want the file read again\n%s%s", code, out, errOut)
		}
		if _, out, _ := cite(t, "search", "--index", idx, "Grace Darling"); !strings.Contains(out, "Grace Darling") {
			t.Errorf("search does not find the scanned page:\n%s", out)
		}
		if _, out, _ := cite(t, "ask", "--index", idx, "who rowed out in a storm"); !strings.Contains(out, "Grace Darling") || !strings.Contains(out, "mixed.pdf#page=4)") {
			t.Errorf("ask does not cite the scanned page 4:\n%s", out)
		}
		if code, out, _ := cite(t, "index", "--index", idx, mixed); code != 0 || !strings.Contains(out, "1 unchanged") {
			t.Errorf("re-run with tesseract: exit %d, want the file unchanged:\n%s", code, out)
		}
	})
}

// scannedPicture writes scanned.pdf's page as a PNG, as a scanner or a
// phone would give it (pdftoppm renders it), and returns its path in a
// folder of its own.
func scannedPicture(t *testing.T) string {
	t.Helper()
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm is not installed (Debian: apt-get install poppler-utils)")
	}
	dir := t.TempDir()
	cmd := exec.Command(pdftoppm, "-r", "200", "-gray", "-png", "-singlefile", filepath.Join(pdfFixtures, "scanned.pdf"), filepath.Join(dir, "scan"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	return filepath.Join(dir, "scan.png")
}

// TestOCRPictures indexes a picture of a page: with tesseract its text is
// found and cited as the picture's (no page); without it, or with --ocr
// never, the picture is skipped saying why, and a picture cut short fails
// naming the file.
func TestOCRPictures(t *testing.T) {
	pic := scannedPicture(t)
	t.Run("tesseract", func(t *testing.T) {
		if _, err := exec.LookPath("tesseract"); err != nil {
			t.Skip("tesseract is not installed (Debian: " + install + ")")
		}
		idx := filepath.Join(t.TempDir(), "idx")
		code, out, errOut := cite(t, "index", "--index", idx, pic)
		if code != 0 || !strings.Contains(out, "1 added") || !strings.Contains(errOut, "scan.png: read by OCR (tesseract)") {
			t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
		}
		_, out, _ = cite(t, "docs", "--index", idx, "--json")
		if !strings.Contains(out, `"format": "png"`) {
			t.Errorf("docs does not say the document is a PNG:\n%s", out)
		}
		_, out, _ = cite(t, "ask", "--index", idx, "who rowed out in a storm")
		if !strings.Contains(out, "Grace Darling") || !strings.Contains(out, "scan.png)") {
			t.Errorf("ask does not cite the picture (its file, no page):\n%s", out)
		}
		if code, out, _ := cite(t, "index", "--index", idx, pic); code != 0 || !strings.Contains(out, "1 unchanged") {
			t.Errorf("re-run: exit %d, want the picture unchanged:\n%s", code, out)
		}
	})
	for _, c := range []struct {
		name, flag, want string
	}{
		{"no tesseract", "", "scan.png: unsupported format: a picture, read only by OCR; install tesseract (Debian: " + install + ") to read it"},
		{"ocr never", "--ocr=never", "scan.png: unsupported format: a picture, read only by OCR, and OCR is off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.flag == "" {
				noTesseract(t)
			}
			idx := filepath.Join(t.TempDir(), "idx")
			args := []string{"index", "--index", idx, pic}
			if c.flag != "" {
				args = append(args, c.flag)
			}
			code, out, errOut := cite(t, args...)
			if code != 1 || !strings.Contains(out+errOut, c.want) {
				t.Errorf("index: exit %d, want 1 and %q:\n%s%s", code, c.want, out, errOut)
			}
		})
	}
	t.Run("cut short", func(t *testing.T) {
		data, err := os.ReadFile(pic)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(t.TempDir(), "cut.png")
		if err := os.WriteFile(cut, data[:20], 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := cite(t, "index", "--index", filepath.Join(t.TempDir(), "idx"), cut)
		if code != 1 || !strings.Contains(out+errOut, "cut.png: read PNG: damaged picture") {
			t.Errorf("index: exit %d, want the file named as damaged:\n%s%s", code, out, errOut)
		}
	})
}
