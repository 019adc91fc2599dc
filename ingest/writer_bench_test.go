package ingest

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/internal/testenv"
)

// writerBatchBytes is the text of each batch BenchmarkWriter writes:
// cite index hands the writer a batch whenever it is free, 15 to 18 of
// them for the corpus, about 2 MB of text each.
const writerBatchBytes = 2 << 20

// BenchmarkWriter measures the single writer of cite index alone: the
// corpus is read, normalized, chunked, analyzed and embedded (hash
// embedder) once, untimed, as the workers do; each iteration then writes
// it into a new index in batches of about 2 MB of text, as cite index's
// writer does (PutDocuments), saves the vector cache and closes the index.
// With nothing else running, its cpu-s/op is the writer's CPU time.
func BenchmarkWriter(b *testing.B) {
	e, err := embed.New("hash", embed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	_, total := loadCorpus(b)
	md := testenv.SharedData(b, "markdown")
	batches := writerBatches(b, e, md)
	b.SetBytes(total)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		c0 := cpuTime()
		st, err := index.Open(b.Context(), dir, index.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.UseEmbedder(b.Context(), e); err != nil {
			b.Fatal(err)
		}
		if err := st.LoadVectors(b.Context()); err != nil {
			b.Fatal(err)
		}
		for _, batch := range batches {
			if _, err := st.PutDocuments(b.Context(), batch); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.SaveVectorCache(b.Context()); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(batches)), "batches")
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// writerBatches prepares the documents of the corpus in md as cite index's
// workers do, in batches of about writerBatchBytes of text, by path.
func writerBatches(b *testing.B, e *embed.Embedder, md string) [][]index.DocumentChunks {
	st, err := index.Open(b.Context(), b.TempDir(), index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ix, err := New(b.Context(), st, Options{Embedder: e})
	if err != nil {
		b.Fatal(err)
	}
	name, err := ix.name(md)
	if err != nil {
		b.Fatal(err)
	}
	var jobs []*job
	for f, err := range Walk(b.Context(), ix.fsys, []string{name}) {
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, &job{file: f, path: ix.storedPath(f.Name)})
	}
	var wg sync.WaitGroup
	work := make(chan *job)
	for range ix.opts.Workers {
		wg.Go(func() {
			var rb readBuffer
			for j := range work {
				ix.prepare(b.Context(), j, &rb)
			}
		})
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	slices.SortFunc(jobs, func(a, b *job) int { return strings.Compare(a.path, b.path) })
	var out [][]index.DocumentChunks
	var batch []index.DocumentChunks
	var size int
	now := time.Now()
	for _, j := range jobs {
		if j.out != Added {
			continue
		}
		j.doc.IndexedAt = now
		batch = append(batch, index.DocumentChunks{Doc: j.doc, Chunks: j.chunk})
		for _, c := range j.chunk {
			size += len(c.Text)
		}
		if size >= writerBatchBytes {
			out = append(out, batch)
			batch, size = nil, 0
		}
	}
	if len(batch) > 0 {
		out = append(out, batch)
	}
	return out
}
