package normalize

import (
	"testing"

	"github.com/cite-rag/cite/internal/testenv"

	"github.com/yuin/goldmark/text"
)

func benchmarkCorpus(b *testing.B, sub, ext string, f Format, o Options) {
	files := loadCorpus(b, testenv.SharedData(b, sub), ext)
	total := 0
	for _, f := range files {
		total += len(f.src)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, file := range files {
			NormalizeWith(f, file.src, o)
		}
	}
}

// BenchmarkMarkdownCorpus normalizes the 3,112 files (33 MB) of
// ../shared/data/markdown per iteration; MB/s is normalize throughput.
func BenchmarkMarkdownCorpus(b *testing.B) {
	benchmarkCorpus(b, "markdown", ".md", Markdown, Options{})
}

// BenchmarkHTMLCorpus normalizes the 129 pages (25 MB) of ../shared/data/html
// per iteration, their content alone (the scan for it included).
func BenchmarkHTMLCorpus(b *testing.B) { benchmarkCorpus(b, "html", ".html", HTML, Options{}) }

// BenchmarkHTMLCorpusWhole is BenchmarkHTMLCorpus reading the whole pages
// (Options.KeepBoilerplate): no scan for the content.
func BenchmarkHTMLCorpusWhole(b *testing.B) {
	benchmarkCorpus(b, "html", ".html", HTML, Options{KeepBoilerplate: true})
}

// BenchmarkMarkdownCorpusParseOnly is the baseline for BenchmarkMarkdownCorpus:
// goldmark's parse alone (same extensions), without extracting any text.
func BenchmarkMarkdownCorpusParseOnly(b *testing.B) {
	files := loadCorpus(b, testenv.SharedData(b, "markdown"), ".md")
	total := 0
	for _, f := range files {
		total += len(f.src)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	p := mdParser()
	for b.Loop() {
		for _, f := range files {
			p.Parse(text.NewReader(f.src))
		}
	}
}
