package analysis

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/cite-rag/cite/internal/testenv"
)

// embedCorpusSample returns up to maxBytes of the shared Markdown corpus
// (files in lexical order), or skips.
func embedCorpusSample(tb testing.TB, maxBytes int) string {
	tb.Helper()
	dir := testenv.SharedData(tb, "markdown")
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		if b.Len() >= maxBytes {
			return filepath.SkipAll
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// embedChunks cuts text in pieces of about size bytes, after white space.
// The Markdown corpus averages 4.2 bytes per o200k token, so 2,100 bytes is
// about a 500-token chunk.
func embedChunks(text string, size int) []string {
	var out []string
	for len(text) > size {
		cut := size
		for cut < len(text) && !unicode.IsSpace(rune(text[cut])) {
			cut++
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if strings.TrimSpace(text) != "" {
		out = append(out, text)
	}
	return out
}

// BenchmarkAnalyze measures the analyzer on real Markdown (MB/s).
func BenchmarkAnalyze(b *testing.B) {
	text := embedCorpusSample(b, 4<<20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Analyze(text)
	}
}

// BenchmarkAnalyzeChunks analyzes 500-token chunks one by one, as indexing
// does (MB/s).
func BenchmarkAnalyzeChunks(b *testing.B) {
	chunks := embedChunks(embedCorpusSample(b, 4<<20), 2100)
	var n int
	for _, c := range chunks {
		n += len(c)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			Analyze(c)
		}
	}
}
