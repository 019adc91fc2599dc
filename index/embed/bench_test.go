package embed

import (
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// BenchmarkHashEmbed measures the default hash embedder on 500-token
// chunks of real Markdown: one goroutine (vector, the query path without
// idf; doc, the document path cite index takes), and EmbedDocuments on
// all cores (batch).
func BenchmarkHashEmbed(b *testing.B) {
	chunks := testenv.SplitAtSpace(testenv.MarkdownSample(b, 2<<20), 2100)
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
		b.Run(spec+"/doc", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range chunks {
					h.docVector(nil, c, nil)
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
