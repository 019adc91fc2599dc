package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
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

// openWatch starts watching paths for changes to index into st with opts
// (Prune and PruneIgnored set), before the first pass, so that no change made during it is
// missed. Each batch takes the index's writer lock and releases it, so
// uploads and other writers interleave; a batch after a cite reindex embeds
// with the index's new embedder, made with cfg. say prints what is worth
// saying.
func openWatch(ctx context.Context, st *index.Store, paths []string, opts ingest.Options, cfg embed.Config, say func(string)) (*watch.Watcher, error) {
	dir, err := filepath.Abs(st.Dir())
	if err != nil {
		return nil, err
	}
	ix, err := ingest.New(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	w, err := watch.New(paths, watch.Options{
		Indexer: &followIndexer{st: st, opts: opts, ix: ix, embedders: embed.NewFollower(opts.Embedder, cfg)},
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

// followIndexer is the watch's indexer: an [ingest.Indexer] made again with
// the embedder the index records when a cite reindex has changed it since
// the last batch (its Index is called under the writer lock).
type followIndexer struct {
	st        *index.Store
	opts      ingest.Options
	ix        *ingest.Indexer
	embedders *embed.Follower
}

func (f *followIndexer) Index(ctx context.Context, paths ...string) (ingest.Stats, error) {
	if f.opts.Embedder != nil {
		info, err := f.st.Embedder(ctx)
		if err != nil {
			return ingest.Stats{}, err
		}
		if info.Name != "" && info.Name != f.opts.Embedder.Name() {
			emb, err := f.embedders.Embedder(info.Name)
			if err != nil {
				return ingest.Stats{}, err
			}
			opts := f.opts
			opts.Embedder = emb
			ix, err := ingest.New(ctx, f.st, opts)
			if err != nil {
				return ingest.Stats{}, err
			}
			f.opts, f.ix = opts, ix
		}
	}
	return f.ix.Index(ctx, paths...)
}

// Filter is the indexer's: folders its walks leave out are not watched.
func (f *followIndexer) Filter() *ingest.Filter { return f.ix.Filter() }

var _ watch.Filterer = (*followIndexer)(nil)
