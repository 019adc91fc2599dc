package embed

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

// BenchmarkHashEmbed measures the default hash embedder on 500-token
// chunks of real Markdown: one goroutine (vector), and EmbedDocuments on
// all cores (batch).
func BenchmarkHashEmbed(b *testing.B) {
	chunks := embedChunks(embedCorpusSample(b, 2<<20), 2100)
	for _, spec := range []string{"hash:1024", "hash:2048", "hash:4096", "hash:4096?ngrams=0"} {
		e, err := New(spec, Config{})
		if err != nil {
			b.Fatal(err)
		}
		h := e.impl.(*hashEmbedder)
		b.Run(spec+"/vector", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range chunks {
					h.vector(c, nil, false)
				}
			}
			b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
		})
		b.Run(spec+"/batch", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.EmbedDocuments(b.Context(), chunks); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
