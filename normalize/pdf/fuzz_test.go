package pdf

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzRead reads arbitrary bytes as a PDF with small limits: it must return
// a document or an error, never panic, and a document's pages must point
// into its text in order.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"report.pdf", "damaged.pdf", "encrypted.pdf", "scanned.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := &Reader{MaxPages: 4, Timeout: 10 * time.Second, OCR: OCRNever}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _, err := r.Read(t.Context(), data)
		if err != nil {
			return
		}
		if !utf8.ValidString(d.Text) {
			t.Fatal("text is not UTF-8")
		}
		last := -1
		for _, p := range d.Pages {
			if p.Offset < last || p.Offset > len(d.Text) {
				t.Fatalf("pages out of order: %+v", d.Pages)
			}
			last = p.Offset
		}
	})
}

// TestFuzzSeeds writes the interesting inputs of FuzzRead's corpus with
// -update: a header alone, a truncated cross-reference table, a page tree
// that points at itself, a huge page count.
func TestFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("writes testdata/fuzz with -update")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{
		"header":    "%PDF-1.7\n",
		"xref":      "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\nxref\n0 3\n0000000000 65535 f \n00000",
		"selfpages": "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
		"count":     "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 2000000000>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
	}
	for name, s := range seeds {
		body := "go test fuzz v1\n[]byte(" + quote(s) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func quote(s string) string { return strconv.Quote(s) }
