package ingest

import (
	"context"
	"sync"
)

// chunkBudget bounds the chunks prepared and not yet written: a worker
// takes a file's share before it embeds and analyzes the chunks (their
// vectors, terms and quantized vectors are most of what a run holds), and
// the writer gives it back once the file is written. A file of more
// chunks than the budget takes all of it. Takers wait in turn, so that a
// large file is not overtaken for ever by small ones.
type chunkBudget struct {
	size  int
	turn  sync.Mutex    // held by the one taker that may wait
	freed chan struct{} // a give back since the waiting taker last looked
	mu    sync.Mutex
	free  int
	// onWait, if set (by tests), is called when a taker has to wait.
	onWait func()
}

func newChunkBudget(size int) *chunkBudget {
	return &chunkBudget{size: size, free: size, freed: make(chan struct{}, 1)}
}

// take takes n chunks of the budget (all of it, if n is larger), waiting
// until they are free or ctx is done, and returns how many it took.
func (b *chunkBudget) take(ctx context.Context, n int) (int, error) {
	n = min(n, b.size)
	if n <= 0 {
		return 0, nil
	}
	b.turn.Lock()
	defer b.turn.Unlock()
	for waited := false; ; waited = true {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return n, nil
		}
		b.mu.Unlock()
		if !waited && b.onWait != nil {
			b.onWait()
		}
		select {
		case <-b.freed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// tryTake takes n chunks as take does if they are free now, and reports
// whether it did.
func (b *chunkBudget) tryTake(n int) (int, bool) {
	n = min(n, b.size)
	if !b.turn.TryLock() {
		return 0, false
	}
	defer b.turn.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free < n {
		return 0, false
	}
	b.free -= max(n, 0)
	return max(n, 0), true
}

// give gives back n chunks taken.
func (b *chunkBudget) give(n int) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	select {
	case b.freed <- struct{}{}:
	default:
	}
}
