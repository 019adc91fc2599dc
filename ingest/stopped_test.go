package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/index"
)

// TestIndexStopsWhenIndexUnwritable: a write that fails for the index as a
// whole (the disk full, the index turned read-only or damaged) stops the
// run: that file fails, the files written before it stay, the others are
// not read and fail one by one (a full disk printed a failure for each of
// 3,083 files), and the error says what to do.
func TestIndexStopsWhenIndexUnwritable(t *testing.T) {
	for _, tc := range []struct {
		reason error
		fix    string
	}{
		{index.ErrFull, "free space, then run cite index again"},
		{index.ErrReadOnly, "make it writable"},
		{index.ErrCorrupt, "cite check --repair"},
	} {
		t.Run(tc.reason.Error(), func(t *testing.T) {
			st := newStore(t)
			fsys := fstest.MapFS{}
			for i := range 200 {
				fsys[fmt.Sprintf("docs/%03d.md", i)] = file(fmt.Sprintf("# Note %d\n\nThe hive number %d is inspected weekly.\n", i, i))
			}
			var events []Event
			ix, err := New(t.Context(), st, Options{FS: fsys, Workers: 2, OnEvent: func(e Event) { events = append(events, e) }})
			if err != nil {
				t.Fatal(err)
			}
			ix.writeErr = func(path string) error {
				if path < "docs/010.md" {
					return nil
				}
				return fmt.Errorf("put document %s: %w: database or disk is full", path, tc.reason)
			}
			stats, err := ix.Index(t.Context(), "docs")
			var se *StoppedError
			if !errors.As(err, &se) || se.Reason != tc.reason || !errors.Is(err, tc.reason) {
				t.Fatalf("error %v: want a *StoppedError for %v", err, tc.reason)
			}
			if !strings.Contains(err.Error(), tc.fix) {
				t.Errorf("error %q: want %q", err, tc.fix)
			}
			var pe *PathError
			if errors.As(se, &pe) {
				t.Errorf("StoppedError unwraps to the file's *PathError %v: the file would be counted twice", pe)
			}
			if stats.Failed != 1 {
				t.Errorf("%d files failed, want 1 (the first write that found it): %+v", stats.Failed, stats)
			}
			nfailed := 0
			for _, e := range events {
				if e.Outcome == Failed {
					nfailed++
				}
			}
			if nfailed != 1 {
				t.Errorf("%d failed events, want 1", nfailed)
			}
			if stats.Seen >= 150 {
				t.Errorf("%d of 200 files seen: the run went on after the index could not be written", stats.Seen)
			}
			docs, err := st.Documents(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != stats.Added || stats.Added > 10 {
				t.Errorf("%d documents stored, %d added: want the same, at most the 10 written before", len(docs), stats.Added)
			}
		})
	}
}
