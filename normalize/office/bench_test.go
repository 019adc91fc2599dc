package office

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDOCXvsPandoc reads the same DOCX with Read and with
// `pandoc -t plain`, interleaved in one run, and reports each one's time
// and the ratio pandoc/office (above 1: office is faster). The DOCX is
// made by pandoc from testdata/src/report.md repeated 200 times (about
// 3,000 paragraphs, list items and table rows).
func BenchmarkDOCXvsPandoc(b *testing.B) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		b.Skip("pandoc is not installed")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "src", "report.md"))
	if err != nil {
		b.Fatal(err)
	}
	body := string(src)
	if i := strings.Index(body[3:], "---"); i >= 0 {
		body = body[i+6:] // drop the front matter
	}
	var md strings.Builder
	for i := range 200 {
		md.WriteString(strings.ReplaceAll(body, "[^", "[^n"+itoa(i)))
		md.WriteString("\n\n")
	}
	dir := b.TempDir()
	in, docx := filepath.Join(dir, "big.md"), filepath.Join(dir, "big.docx")
	if err := os.WriteFile(in, []byte(md.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("pandoc", in, "-o", docx).CombinedOutput(); err != nil {
		b.Fatalf("pandoc: %v\n%s", err, out)
	}
	data, err := os.ReadFile(docx)
	if err != nil {
		b.Fatal(err)
	}
	var office, pandoc time.Duration
	var chars int
	for b.Loop() {
		t0 := time.Now()
		d, err := Read(b.Context(), DOCX, data)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		out, err := exec.Command("pandoc", docx, "-t", "plain").Output()
		if err != nil {
			b.Fatal(err)
		}
		office += t1.Sub(t0)
		pandoc += time.Since(t1)
		chars = len(d.Text)
		_ = out
	}
	b.ReportMetric(float64(office.Milliseconds())/float64(b.N), "office-ms/op")
	b.ReportMetric(float64(pandoc.Milliseconds())/float64(b.N), "pandoc-ms/op")
	b.ReportMetric(float64(pandoc)/float64(office), "pandoc/office")
	b.ReportMetric(float64(len(data)), "docx-bytes")
	b.ReportMetric(float64(chars), "text-bytes")
}
