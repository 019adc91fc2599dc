package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/cite-rag/cite/internal/testenv"
)

// startup starts a pool on cacheDir and opens the first PDF: what the
// first PDF of a run costs.
func startup(b *testing.B, cacheDir string, data []byte) {
	p, err := newPool(cacheDir)
	if err != nil {
		b.Fatal(err)
	}
	in, err := p.GetInstanceWithContext(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	doc, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		b.Fatal(err)
	}
	in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	in.Close()
	p.Close()
}

// BenchmarkStartup measures the first PDF of a process with the compiled
// module cached (warm) and without (cold: the one-time compile).
func BenchmarkStartup(b *testing.B) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			startup(b, b.TempDir(), data)
		}
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		startup(b, dir, data)
		for b.Loop() {
			startup(b, dir, data)
		}
	})
}

// BenchmarkExtract reads the same PDF with this package and with poppler's
// pdftotext (a process per read, as a user would run it); compare ns/op.
func BenchmarkExtract(b *testing.B) {
	path := "testdata/report.pdf"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pdfium", func(b *testing.B) {
		if _, _, err := (&Reader{}).Read(b.Context(), data); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, _, err := (&Reader{OCR: OCRNever}).Read(b.Context(), data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pdftotext", func(b *testing.B) {
		bin := need(b, "pdftotext", "poppler-utils")
		for b.Loop() {
			if err := exec.Command(bin, path, os.DevNull).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPeakRSS reads a 500-page PDF (report.pdf's pages again and again,
// put together by qpdf) in a child process and reports its peak RSS; it
// fails above 300 MB.
func TestPeakRSS(t *testing.T) {
	if path := os.Getenv("CITE_PDF_RSS"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, rep, err := (&Reader{OCR: OCRNever}).Read(t.Context(), data)
		if err != nil {
			t.Fatal(err)
		}
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Printf("pages=%d text=%d maxrss_kb=%d\n", rep.Pages, len(d.Text), ru.Maxrss)
		return
	}
	if testing.Short() || testenv.Race {
		// The race detector multiplies memory: the limit holds without it,
		// in CI's race-free step.
		t.Skip("reads a 500-page PDF and measures memory: no -short, no -race")
	}
	qpdf := need(t, "qpdf", "qpdf")
	dir := t.TempDir()
	big := filepath.Join(dir, "500.pdf")
	args := []string{"--empty", "--pages"}
	for range 167 {
		args = append(args, "testdata/report.pdf")
	}
	args = append(args, "--", big)
	if out, err := exec.Command(qpdf, args...).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestPeakRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "CITE_PDF_RSS="+big)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var pages, text, rss int
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "pages=") {
			fmt.Sscanf(l, "pages=%d text=%d maxrss_kb=%d", &pages, &text, &rss)
		}
	}
	t.Logf("%d pages, %d bytes of text, peak RSS %d MB", pages, text, rss/1024)
	if pages != 501 || rss == 0 {
		t.Fatalf("child said\n%s", out)
	}
	if rss > 300*1024 {
		t.Errorf("peak RSS %d MB reading a %d-page PDF, the limit is 300 MB", rss/1024, pages)
	}
}
