package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/ingest/watch"
)

// watchUsage checks the PATHs of --watch: folders and files, not glob
// patterns.
func watchUsage(paths []string) error {
	if len(paths) == 0 {
		return errors.New("--watch: no PATH given")
	}
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[") {
			return fmt.Errorf("--watch %s: watch folders and files, not glob patterns", p)
		}
	}
	return nil
}

// openWatch starts watching paths for changes to index into st through ix
// (an indexer that prunes), before the first pass, so that no change made
// during it is missed. Each batch takes the index's writer lock and
// releases it, so uploads and other writers interleave; say prints what is
// worth saying.
func openWatch(st *index.Store, paths []string, ix *ingest.Indexer, say func(string)) (*watch.Watcher, error) {
	dir, err := filepath.Abs(st.Dir())
	if err != nil {
		return nil, err
	}
	w, err := watch.New(paths, watch.Options{
		Indexer: ix,
		Ignore:  []string{dir},
		Lock: func(ctx context.Context) (func() error, error) {
			return index.LockWriter(ctx, dir, nil)
		},
		OnBatch: func(_ []string, _ ingest.Stats, err error) {
			for _, e := range unjoin(err) {
				var pe *ingest.PathError
				if !errors.As(e, &pe) { // files are reported as they are met
					say("watch: " + e.Error())
				}
			}
		},
	})
	if err != nil {
		return nil, err
	}
	if err := w.Open(); err != nil {
		return nil, err
	}
	return w, nil
}
