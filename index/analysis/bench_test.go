package analysis

import (
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// BenchmarkAnalyze measures the analyzer on real Markdown (MB/s).
func BenchmarkAnalyze(b *testing.B) {
	text := testenv.MarkdownSample(b, 4<<20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Analyze(text)
	}
}

// BenchmarkAnalyzeChunks analyzes 500-token chunks one by one, as indexing
// does (MB/s).
func BenchmarkAnalyzeChunks(b *testing.B) {
	chunks := testenv.SplitAtSpace(testenv.MarkdownSample(b, 4<<20), 2100)
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
