package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/ingest/watch"
)

// BenchmarkWatchLatency measures cite index --watch as it runs (the same
// indexer, readers, writer lock and debounce): the time from a change to
// the folder to the moment a search of another connection to the index (as
// cite search is) finds it. Each op is one change, made once the previous
// one was found; p50_s and p99_s are over the run's changes:
//
//   - write: a Markdown file rewritten in place with a new word;
//   - atomic: an editor's save, a temporary file written and renamed over
//     the file;
//   - rename: a finished download (x.part) renamed into its name (x.md);
//   - pdf: a PDF replaced by another (4 and 3 pages, by Chromium), read
//     by pdfium.
//
// go test -run '^$' -bench WatchLatency -benchtime 50x ./cmd/cite
func BenchmarkWatchLatency(b *testing.B) {
	pdfs := [][2]string{ // a PDF and a word only it has
		{filepath.Join(documents, "rivers.pdf"), "Chambord"},
		{filepath.Join(pdfFixtures, "report.pdf"), "Eddystone"},
	}
	for _, kind := range []string{"write", "atomic", "rename", "pdf"} {
		b.Run(kind, func(b *testing.B) {
			dir := b.TempDir()
			for i := range 20 { // a folder of a few files
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%02d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nSome text of note %d.\n", i, i)), 0o644)
			}
			var data [][]byte
			if kind == "pdf" {
				for _, p := range pdfs {
					d, err := os.ReadFile(p[0])
					if err != nil {
						b.Fatal(err)
					}
					data = append(data, d)
				}
				os.WriteFile(filepath.Join(dir, "doc.pdf"), data[1], 0o644)
			}
			find := watchFixture(b, dir)
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				word := fmt.Sprintf("zq%sword", letters(i))
				var path string
				start := time.Now()
				switch kind {
				case "write":
					path = filepath.Join(dir, "edited.md")
					os.WriteFile(path, []byte("# Edited\n\nThe word of this version is "+word+".\n"), 0o644)
				case "atomic":
					path = filepath.Join(dir, "saved.md")
					tmp := path + ".tmp"
					os.WriteFile(tmp, []byte("# Saved\n\nThe word of this version is "+word+".\n"), 0o644)
					start = time.Now()
					os.Rename(tmp, path)
				case "rename":
					path = filepath.Join(dir, fmt.Sprintf("download%d.md", i))
					part := path + ".part"
					os.WriteFile(part, []byte("# Download\n\nIts word is "+word+".\n"), 0o644)
					start = time.Now()
					os.Rename(part, path)
				case "pdf":
					path = filepath.Join(dir, "doc.pdf")
					word = pdfs[i%2][1]
					os.WriteFile(path, data[i%2], 0o644)
				}
				for !find(word, path) {
					if time.Since(start) > time.Minute {
						b.Fatalf("change %d (%s) not found within a minute", i, word)
					}
					time.Sleep(5 * time.Millisecond)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(lat[len(lat)/2].Seconds(), "p50_s")
			b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)].Seconds(), "p99_s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// letters writes n in letters (a word to the analyzer, not a number).
func letters(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n /= 26
		if n == 0 {
			return s
		}
	}
}

// watchFixture indexes dir and watches it as cite index --watch does, in
// the background until the benchmark ends, and returns a search of the
// index through a read-only store: whether word is found in path's
// document.
func watchFixture(b testing.TB, dir string) func(word, path string) bool {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	idx := filepath.Join(b.TempDir(), "idx")
	st, err := index.Open(ctx, idx, index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	opts := ingest.Options{Readers: documentReaders(nil), Skip: watch.Skip}
	first, err := ingest.New(ctx, st, opts)
	if err != nil {
		b.Fatal(err)
	}
	opts.Prune = true
	w, err := openWatch(ctx, st, []string{dir}, opts, embed.Config{}, func(s string) { b.Log(s) })
	if err != nil {
		b.Fatal(err)
	}
	if _, err := first.Index(ctx, dir); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	reader, err := index.Open(ctx, idx, index.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
		w.Close()
		reader.Close()
		st.Close()
	})
	return func(word, path string) bool {
		hits, err := reader.SearchText(ctx, word, index.Filter{Path: path}, 1)
		if err != nil {
			b.Fatal(err)
		}
		return len(hits) > 0
	}
}
