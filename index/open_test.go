package index

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadWhileCreating opens a new index from writers (Create, under the
// writer lock, as cite index does) and readers (ReadOnly) at once, many
// times: a reader may find no index yet
// (ErrNoIndex), but never the schema half made. It used to find, about
// once in 300 opens, the database its creator had made and not yet
// migrated: "its schema 0 needs an upgrade to 4".
func TestReadWhileCreating(t *testing.T) {
	const rounds, writers, readers = 40, 2, 6
	var notYet atomic.Int64
	opened := 0
	for round := range rounds {
		dir := filepath.Join(t.TempDir(), "idx")
		var start, done sync.WaitGroup
		start.Add(1)
		errs := make(chan error, writers+readers)
		for i := range writers + readers {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				if i < writers {
					// As cite index does, the only command that creates.
					unlock, err := LockWriter(t.Context(), dir, nil)
					if err != nil {
						errs <- err
						return
					}
					defer unlock()
				}
				for {
					st, err := Open(t.Context(), dir, Options{Create: i < writers, ReadOnly: i >= writers})
					if i >= writers && errors.Is(err, ErrNoIndex) {
						notYet.Add(1)
						time.Sleep(time.Millisecond)
						continue // try again: the writers make it
					}
					if err == nil {
						_, err = st.Documents(t.Context(), "")
						st.Close()
					}
					errs <- err
					return
				}
			}()
		}
		start.Done()
		done.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			opened++
		}
	}
	t.Logf("%d opens, %d readers found no index yet and tried again", opened, notYet.Load())
	if opened != rounds*(writers+readers) {
		t.Fatalf("%d opens", opened)
	}
}
