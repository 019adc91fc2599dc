package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/cite-rag/cite/internal/testenv"
)

// startup starts a pool on cacheDir, compiling on workers goroutines when
// the cache misses, and opens the first PDF: what the first PDF of a run
// of cite index costs (its pdfium code is the uninterruptible one).
func startup(tb testing.TB, cacheDir string, workers int, data []byte) {
	p, err := newPool(cacheDir, workers, false)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := p.GetInstanceWithContext(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		tb.Fatal(err)
	}
	in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	in.Close()
	p.Close()
}

// usage is the CPU time the process has used, user and system, and its
// page faults.
type usage struct {
	user, sys time.Duration
	faults    int64 // minor and major
}

func getUsage() usage {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return usage{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), ru.Minflt + ru.Majflt}
}

// BenchmarkStartup measures the first PDF of a process: without the
// compiled module cached (cold: the one-time compile, on one goroutine
// and on all cores), and with it cached, in this process (warm) and in a
// fresh process per iteration (process: what `cite index x.pdf` pays;
// first-pdf-ms, cpu-ms, sys-ms (the system part of cpu-ms) and faults
// (page faults) are measured inside the child, from the first call into
// pdfium to the document opened). The machine's load changes wall times
// several-fold: compare within a run.
func BenchmarkStartup(b *testing.B) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("cold/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				startup(b, b.TempDir(), workers, data)
			}
		})
	}
	dir := b.TempDir()
	startup(b, dir, runtime.GOMAXPROCS(0), data)
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			startup(b, dir, 1, data)
		}
	})
	b.Run("process", func(b *testing.B) {
		var wall, cpu, sys time.Duration
		var faults int64
		for b.Loop() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestStartupChild$")
			cmd.Env = append(os.Environ(), "CITE_PDF_STARTUP="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("child: %v\n%s", err, out)
			}
			var w, u, s, f int64
			if _, err := fmt.Sscanf(string(out), "startup wall=%d user=%d sys=%d faults=%d", &w, &u, &s, &f); err != nil {
				b.Fatalf("child said %q: %v", out, err)
			}
			wall += time.Duration(w)
			cpu += time.Duration(u + s)
			sys += time.Duration(s)
			faults += f
		}
		n := float64(b.N)
		b.ReportMetric(float64(wall.Milliseconds())/n, "first-pdf-ms")
		b.ReportMetric(float64(cpu.Milliseconds())/n, "cpu-ms")
		b.ReportMetric(float64(sys.Milliseconds())/n, "sys-ms")
		b.ReportMetric(float64(faults)/n, "faults")
	})
}

// TestStartupChild is BenchmarkStartup's child process: it starts pdfium
// on the cache folder in $CITE_PDF_STARTUP and opens a PDF, and prints the
// wall time, CPU time and page faults that took.
func TestStartupChild(t *testing.T) {
	dir := os.Getenv("CITE_PDF_STARTUP")
	if dir == "" {
		t.Skip("run by BenchmarkStartup")
	}
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	start, u0 := time.Now(), getUsage()
	startup(t, dir, 1, data)
	wall, u := time.Since(start), getUsage()
	fmt.Printf("startup wall=%d user=%d sys=%d faults=%d\n", wall, u.user-u0.user, u.sys-u0.sys, u.faults-u0.faults)
}

// BenchmarkExtract reads the same PDF with this package and with poppler's
// pdftotext (a process per read, as a user would run it); compare ns/op.
func BenchmarkExtract(b *testing.B) {
	path := "testdata/report.pdf"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		r    Reader
	}{
		{"pdfium", Reader{OCR: OCRNever}},
		{"pdfium-uninterruptible", Reader{OCR: OCRNever, Uninterruptible: true}},
	} {
		b.Run(r.name, func(b *testing.B) {
			if _, _, err := r.r.Read(b.Context(), data); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := r.r.Read(b.Context(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
	child := func(path string) (pages, text, rss int) {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestPeakRSS$", "-test.v")
		cmd.Env = append(os.Environ(), "CITE_PDF_RSS="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "pages=") {
				fmt.Sscanf(l, "pages=%d text=%d maxrss_kb=%d", &pages, &text, &rss)
			}
		}
		if rss == 0 {
			t.Fatalf("child said\n%s", out)
		}
		return pages, text, rss
	}
	// The first PDF a machine reads compiles pdfium (once: the compiled
	// module is cached in the user's cache folder), which takes far more
	// memory than reading; on a fresh machine this test may be the first.
	// A process that reads the 3-page PDF first leaves the cache warm, so
	// that the one measured reads the 500 pages as every later run does.
	_, _, first := child("testdata/report.pdf")
	t.Logf("3 pages first: peak RSS %d MB (with pdfium's compile, if the cache was cold)", first/1024)
	pages, text, rss := child(big)
	t.Logf("%d pages, %d bytes of text, peak RSS %d MB", pages, text, rss/1024)
	if pages != 501 {
		t.Fatalf("read %d pages of 501", pages)
	}
	if rss > 300*1024 {
		t.Errorf("peak RSS %d MB reading a %d-page PDF, the limit is 300 MB", rss/1024, pages)
	}
}
