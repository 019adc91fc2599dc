package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkIndexFirstPDF measures what a user waits for when cite index
// meets a PDF with pdfium's compiled module cached: a fresh `cite index`
// process per op (the test binary run as cite), with pdfium started at
// once because a PATH names a PDF (-on) and only when the first PDF is
// read (-off), in turn in each op, on
//
//   - pdf: one 3-page PDF (report.pdf), into a new index;
//   - folder: that PDF (the walk's first file) and 200 Markdown files,
//     into a new index;
//   - unchanged: the same folder again, every file unchanged (pdfium is
//     started for nothing when prestart is on);
//   - markdown: the 200 Markdown files alone (prestart has nothing to
//     start): what the folder costs without its PDF.
//
// wall-ms-* is the process's wall time, cpu-ms-* its user and system
// time.
// The machine's load changes wall times several-fold: compare within a
// run.
//
// go test -run '^$' -bench IndexFirstPDF -benchtime 5x ./cmd/cite
func BenchmarkIndexFirstPDF(b *testing.B) {
	pdfData, err := os.ReadFile(filepath.Join(pdfFixtures, "report.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	md, err := os.ReadFile("../../testdata/corpus/honeybees.md")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	folder, mdOnly := filepath.Join(dir, "folder"), filepath.Join(dir, "markdown")
	for _, d := range []string{folder, mdOnly} {
		os.Mkdir(d, 0o755)
		for i := range 200 {
			text := fmt.Appendf(nil, "# Note %d\n\n", i)
			text = append(text, md...)
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("note%03d.md", i)), text, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	pdfPath := filepath.Join(folder, "0-report.pdf") // first in the walk
	if err := os.WriteFile(pdfPath, pdfData, 0o644); err != nil {
		b.Fatal(err)
	}
	// One run first, so that pdfium's compiled module is cached.
	run := func(b *testing.B, prestart bool, idx string, paths ...string) (wall, cpu time.Duration) {
		cmd := citeCommand(append([]string{"index", "--quiet", "--index", idx}, paths...)...)
		if !prestart {
			cmd.Env = append(cmd.Env, "CITE_TEST_NO_PDF_PRESTART=1")
		}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall = time.Since(start)
		if err != nil {
			b.Fatalf("cite index %s: %v\n%s", paths, err, out)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	run(b, false, filepath.Join(dir, "warm"), pdfPath)
	cases := []struct {
		name  string
		paths []string
		fresh bool // a new index each op
	}{
		{"pdf", []string{pdfPath}, true},
		{"folder", []string{folder}, true},
		{"unchanged", []string{folder}, false},
		{"markdown", []string{mdOnly}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var wall, cpu [2]time.Duration // prestart off, on
			idx := [2]string{filepath.Join(b.TempDir(), "off"), filepath.Join(b.TempDir(), "on")}
			if !c.fresh {
				run(b, false, idx[0], c.paths...)
				run(b, false, idx[1], c.paths...)
			}
			for i := 0; b.Loop(); i++ {
				// Off and on in turn, first one then the other, so that
				// both see the same load.
				for _, on := range [][2]int{{0, 1}, {1, 0}}[i%2] {
					if c.fresh {
						os.RemoveAll(idx[on])
					}
					w, u := run(b, on == 1, idx[on], c.paths...)
					wall[on] += w
					cpu[on] += u
				}
			}
			n := float64(b.N)
			for on, name := range []string{"off", "on"} {
				b.ReportMetric(float64(wall[on].Milliseconds())/n, "wall-ms-"+name)
				b.ReportMetric(float64(cpu[on].Milliseconds())/n, "cpu-ms-"+name)
			}
		})
	}
}
