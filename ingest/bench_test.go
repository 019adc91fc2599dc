package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/normalize"
	"github.com/tmc/langchaingo/textsplitter"
)

// The ingest benchmarks run on the shared Markdown corpus (33 MB, 3,112
// files):
//
//	go test -run '^$' -bench . -benchtime 3x ./ingest
//
// BenchmarkNormalizeChunk and BenchmarkIndex cover the whole corpus.
// BenchmarkChunkers compares cite's splitter with langchaingo's
// TokenSplitter (500 tokens, 50 overlap, o200k_base) on the same fixed
// subset of normalized documents (every 16th file: langchaingo needs about
// 6 minutes for the whole corpus), one document at a time on one goroutine
// each, and reports the chunks each one gets wrong.

type corpusDoc struct {
	name string
	src  []byte
}

func loadCorpus(b *testing.B) ([]corpusDoc, int64) {
	files := corpusFiles(b, "markdown", ".md")
	docs := make([]corpusDoc, len(files))
	var total int64
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = corpusDoc{f, src}
		total += int64(len(src))
	}
	return docs, total
}

// BenchmarkNormalizeChunk normalizes and chunks the whole corpus with
// GOMAXPROCS workers, as cite index does, without writing anything.
func BenchmarkNormalizeChunk(b *testing.B) {
	docs, total := loadCorpus(b)
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	var chunks atomic.Int64
	var cpu time.Duration
	for b.Loop() {
		c0 := cpuTime()
		chunks.Store(0)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
					format, _ := detect(docs[i].name, docs[i].src)
					nd := normalize.Normalize(format, docs[i].src)
					cs, _ := sp.Split(nd.Text, headingsOf(nd))
					chunks.Add(int64(len(cs)))
				}
			})
		}
		wg.Wait()
		cpu += cpuTime() - c0
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(chunks.Load()), "chunks")
}

// BenchmarkIndex runs the whole of cite index on the corpus into a new
// index each time, with the default hash embedder as cite index does, and
// without vectors, and reports the process's peak resident memory.
func BenchmarkIndex(b *testing.B) {
	b.Run("hash", func(b *testing.B) {
		e, err := embed.New("hash", embed.Config{})
		if err != nil {
			b.Fatal(err)
		}
		benchIndex(b, e)
	})
	b.Run("no-vectors", func(b *testing.B) { benchIndex(b, nil) })
}

// BenchmarkIndexFile runs cite index, with the hash embedder, on one file
// of 4 MB of ordinary prose (PATHOLOGICAL_MB sets the size) into a new index
// each time: one document, which the pipeline splits across the cores. Its
// MB/s is to compare with BenchmarkIndex/hash's.
func BenchmarkIndexFile(b *testing.B) {
	size := 4 << 20
	if mb, err := strconv.Atoi(os.Getenv("PATHOLOGICAL_MB")); err == nil && mb > 0 {
		size = mb << 20
	}
	e, err := embed.New("hash", embed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "prose.md")
	if err := os.WriteFile(file, proseOf(size), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	var stats Stats
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		st, err := index.Open(b.Context(), dir, index.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		ix, err := New(b.Context(), st, Options{Embedder: e})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		stats, err = ix.Index(b.Context(), file)
		cpu += cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	reportCPU(b, cpu)
	if stats.Added != 1 {
		b.Fatalf("%+v", stats)
	}
	b.ReportMetric(float64(stats.Chunks), "chunks")
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

func benchIndex(b *testing.B, e *embed.Embedder) {
	_, total := loadCorpus(b)
	b.SetBytes(total)
	md := testenv.SharedData(b, "markdown")
	var stats Stats
	var cpu time.Duration
	batches := 0
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		st, err := index.Open(b.Context(), dir, index.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		ix, err := New(b.Context(), st, Options{Embedder: e})
		if err != nil {
			b.Fatal(err)
		}
		ix.onBatch = func(batchSize) { batches++ }
		b.StartTimer()
		c0 := cpuTime()
		rg := trace.StartRegion(b.Context(), "Index")
		stats, err = ix.Index(b.Context(), md)
		rg.End()
		cpu += cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	reportCPU(b, cpu)
	// cite index does not walk into hidden folders (.github holds 16 of
	// the corpus's 3,112 files).
	want := 0
	for _, f := range corpusFiles(b, "markdown", ".md") {
		if !strings.Contains(strings.TrimPrefix(f, md), "/.") {
			want++
		}
	}
	if stats.Added != want || stats.Failed != 0 {
		b.Fatalf("indexed %d files, want %d: %+v", stats.Added, want, stats)
	}
	b.ReportMetric(float64(stats.Chunks), "chunks")
	b.ReportMetric(float64(batches)/float64(b.N), "batches")
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// reportCPU reports cpu-s/op, the CPU time (user and system, all threads)
// of one operation, and cores, the CPU time over the elapsed time: how many
// cores the operation kept busy. On a loaded machine the elapsed time grows
// with the load; the CPU time much less.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(cpu.Seconds()/b.Elapsed().Seconds(), "cores")
}

// peakRSSMB reads the process's peak resident set size (VmHWM) on Linux.
func peakRSSMB() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkChunkers compares cite's splitter with langchaingo's
// TokenSplitter on the same normalized documents.
func BenchmarkChunkers(b *testing.B) {
	docs, _ := loadCorpus(b)
	var texts []string
	var total int64
	for i := 0; i < len(docs); i += 16 {
		format, _ := detect(docs[i].name, docs[i].src)
		text := normalize.Normalize(format, docs[i].src).Text
		texts = append(texts, text)
		total += int64(len(text))
	}
	sp, err := chunk.New(chunk.Options{Size: 500, Overlap: 50})
	if err != nil {
		b.Fatal(err)
	}
	tok := sp.Tokenizer()
	b.Run("cite", func(b *testing.B) {
		b.SetBytes(total)
		var chunks [][]string
		for b.Loop() {
			chunks = chunks[:0]
			for _, t := range texts {
				cs, _ := sp.Split(t, nil)
				var out []string
				for _, c := range cs {
					out = append(out, c.Text)
				}
				chunks = append(chunks, out)
			}
		}
		reportQuality(b, tok, texts, chunks)
	})
	b.Run("langchaingo-TokenSplitter", func(b *testing.B) {
		ts := textsplitter.NewTokenSplitter(textsplitter.WithChunkSize(500), textsplitter.WithChunkOverlap(50), textsplitter.WithEncodingName(chunk.Encoding))
		b.SetBytes(total)
		var chunks [][]string
		for b.Loop() {
			chunks = chunks[:0]
			for _, t := range texts {
				out, err := ts.SplitText(t)
				if err != nil {
					b.Fatal(err)
				}
				chunks = append(chunks, out)
			}
		}
		reportQuality(b, tok, texts, chunks)
	})
}

// reportQuality counts, over all documents, chunks that are not valid
// UTF-8, exceed 500 tokens encoded on their own, or lie wholly inside the
// previous chunk of their document (redundant tails).
func reportQuality(b *testing.B, tok *chunk.Tokenizer, texts []string, chunks [][]string) {
	var n, broken, over, redundant int
	for d, cs := range chunks {
		prevEnd := 0
		searchFrom := 0
		for i, c := range cs {
			n++
			if !utf8.ValidString(c) {
				broken++
			}
			if tok.Count(c) > 500 {
				over++
			}
			// Locate the chunk in its text (chunks are in order).
			at := strings.Index(texts[d][searchFrom:], c)
			if at >= 0 {
				start := searchFrom + at
				if i > 0 && start+len(c) <= prevEnd {
					redundant++
				}
				prevEnd = max(prevEnd, start+len(c))
				searchFrom = start + 1
			}
		}
	}
	b.ReportMetric(float64(n), "chunks")
	b.ReportMetric(float64(broken), "broken-utf8")
	b.ReportMetric(float64(over), "over-500")
	b.ReportMetric(float64(redundant), "redundant")
}

// BenchmarkReadCorpus reads the corpus's files as a worker does
// (readStable), into new memory for each file and into one readBuffer.
func BenchmarkReadCorpus(b *testing.B) {
	files := corpusFiles(b, "markdown", ".md")
	_, total := loadCorpus(b)
	for _, reuse := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "reused"}[reuse]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(total)
			var cpu time.Duration
			var rb readBuffer
			for b.Loop() {
				c0 := cpuTime()
				for _, f := range files {
					buf := new(bytes.Buffer)
					if reuse {
						buf = rb.next()
					}
					if _, _, err := readStable(b.Context(), osFS{}, strings.TrimPrefix(f, "/"), DefaultMaxSize, buf); err != nil {
						b.Fatal(err)
					}
				}
				cpu += cpuTime() - c0
			}
			reportCPU(b, cpu)
		})
	}
}
