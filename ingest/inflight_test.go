package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index/embed"
)

// TestChunkBudget: a take waits until enough is given back, a take of
// more than the budget takes all of it, a waiting taker is not overtaken,
// and cancelling wakes a waiting taker with ctx's error.
func TestChunkBudget(t *testing.T) {
	b := newChunkBudget(10)
	waiting := make(chan struct{}, 1)
	b.onWait = func() { waiting <- struct{}{} }
	if n, err := b.take(t.Context(), 7); n != 7 || err != nil {
		t.Fatalf("take 7 of 10 = %d, %v", n, err)
	}
	if _, ok := b.tryTake(4); ok {
		t.Fatal("tryTake 4 with 3 free succeeded")
	}
	took := make(chan int)
	go func() {
		n, err := b.take(t.Context(), 25) // more than the budget: all of it
		if err != nil {
			t.Error(err)
		}
		took <- n
	}()
	<-waiting
	// 3 are free, but the large taker waits first.
	if n, ok := b.tryTake(1); ok {
		t.Fatalf("tryTake 1 overtook a waiting taker (took %d)", n)
	}
	b.give(5)
	select {
	case n := <-took:
		t.Fatalf("took %d with 8 of 10 free", n)
	case <-waiting:
		t.Fatal("onWait called again for the same taker")
	default:
	}
	b.give(2)
	if n := <-took; n != 10 {
		t.Fatalf("take 25 of a budget of 10 took %d, want 10", n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error)
	go func() {
		_, err := b.take(ctx, 1)
		errc <- err
	}()
	<-waiting
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled take: %v, want context.Canceled", err)
	}
	b.give(10)
	if n, ok := b.tryTake(10); !ok || n != 10 {
		t.Fatalf("tryTake 10 of 10 free = %d, %v", n, ok)
	}
}

// readsFS counts the files read, and closes all when every file was.
type readsFS struct {
	fstest.MapFS
	mu   sync.Mutex
	read map[string]bool
	all  chan struct{}
}

func (r *readsFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".md") {
		r.mu.Lock()
		if !r.read[name] {
			r.read[name] = true
			if len(r.read) == len(r.MapFS) {
				close(r.all)
			}
		}
		r.mu.Unlock()
	}
	return r.MapFS.Open(name)
}

func (r *readsFS) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.read)
}

// TestChunksInFlightBounded holds the writer at its first batch: the
// workers prepare files until the chunks prepared and not yet written
// reach the bound, and wait; none reads more than one file beyond it.
// (Before the bound, they prepared every file of the run into the
// batches waiting for the writer.) Once the writer goes on, every file is
// indexed, events in order of writing. A file of more chunks than the
// bound is indexed alone. Cancelling while workers wait interrupts the run
// without failures.
func TestChunksInFlightBounded(t *testing.T) {
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := embed.New("hash", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	para := strings.Repeat("Words of a paragraph that fills a chunk of text here. ", 30) + "\n\n"
	text := strings.Repeat(para, 3)
	cs, _ := sp.Split(text, nil)
	const files, bound, workers = 200, 24, 2
	perFile := len(cs)
	if perFile < 2 || bound%perFile != 0 {
		t.Fatalf("a file is %d chunks; the test wants several, dividing %d", perFile, bound)
	}
	newFS := func() *readsFS {
		fsys := &readsFS{MapFS: fstest.MapFS{}, read: map[string]bool{}, all: make(chan struct{})}
		for i := range files {
			fsys.MapFS[fmt.Sprintf("d/f%03d.md", i)] = file(text)
		}
		fsys.MapFS["d/large.md"] = file(strings.Repeat(para, 3*bound))
		return fsys
	}
	for _, cancelled := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancelled=%v", cancelled), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fsys := newFS()
			st := newStore(t)
			var events []Event
			ix, err := New(ctx, st, Options{FS: fsys, Workers: workers, Embedder: e, OnEvent: func(e Event) { events = append(events, e) }})
			if err != nil {
				t.Fatal(err)
			}
			ix.inFlight = bound
			ix.batchDelay = 0
			waiting := make(chan struct{})
			var once sync.Once
			ix.onWait = func() { once.Do(func() { close(waiting) }) }
			read := -1
			ix.onBatch = func(batchSize) {
				if read >= 0 {
					return
				}
				// The first batch: held until a worker waits for the
				// writer (or, unbounded, every file is read).
				select {
				case <-waiting:
				case <-fsys.all:
				}
				read = fsys.count()
				if cancelled {
					cancel()
				}
			}
			stats, err := ix.Index(ctx, "d")
			if max := bound/perFile + workers; read > max {
				t.Errorf("%d files read with the writer held, want at most %d (%d chunks in flight, %d a file, %d workers)", read, max, bound, perFile, workers)
			}
			if cancelled {
				if !errors.Is(err, context.Canceled) || stats.Failed != 0 || stats.Interrupted == 0 {
					t.Fatalf("cancelled: %+v, %v; want interrupted files, none failed, context.Canceled", stats, err)
				}
				return
			}
			if err != nil || stats.Added != files+1 || stats.Chunks != files*perFile+len(mustSplit(t, sp, fsys.MapFS["d/large.md"].Data)) {
				t.Fatalf("%+v, %v", stats, err)
			}
			for i, ev := range events {
				if ev.Stats.Seen != i+1 || ev.Outcome != Added {
					t.Fatalf("event %d: %+v", i, ev)
				}
			}
			checkIndex(t, st)
		})
	}
}

func mustSplit(t *testing.T, sp *chunk.Splitter, data []byte) []chunk.Chunk {
	t.Helper()
	cs, _ := sp.Split(string(data), nil)
	return cs
}
