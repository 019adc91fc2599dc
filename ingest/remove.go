package ingest

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/cite-rag/cite/index"
)

// removeBatchSize and removeBatchBytes bound the documents that one
// transaction of [RemoveDocuments] removes: their number, and the size
// their files had. A transaction each made removing a folder take a commit
// and a look at the full-text segments each (cite index --prune of the
// corpus's 3,088 files: 10.8 s, against 3.6 in batches of 1,024); the
// bytes keep a transaction of large files (their chunks, vectors and
// postings) from growing without bound.
const (
	removeBatchSize  = 1024
	removeBatchBytes = 64 << 20
)

// pruneBatchSize is the batch of a prune, for its tests.
const pruneBatchSize = removeBatchSize

// RemoveDocuments removes docs from store, in transactions of up to batch
// documents (1,024 when batch <= 0) or 64 MB of their files, and calls removed (if not nil) for
// each document removed, with the number of its chunks, in the order of
// docs. A document no longer in the index is passed over. When a batch
// fails, its documents are removed one at a time, so that each error names
// its document; the error returned joins them. Cancelled, it stops at the
// next batch and returns the context's error: what it removed stays removed.
func RemoveDocuments(ctx context.Context, store *index.Store, docs []index.Stamp, batch int, removed func(d index.Stamp, chunks int)) error {
	if batch <= 0 {
		batch = removeBatchSize
	}
	var errs []error
	for len(docs) > 0 {
		n, size := 0, int64(0)
		for n < len(docs) && n < batch && (n == 0 || size < removeBatchBytes) {
			size += docs[n].Size
			n++
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		errs = append(errs, removeBatch(ctx, store, docs[:n], removed)...)
		docs = docs[n:]
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// removeBatch removes the documents of batch, all in one transaction; if
// that fails, one at a time.
func removeBatch(ctx context.Context, store *index.Store, batch []index.Stamp, removed func(index.Stamp, int)) []error {
	ids := make([]string, len(batch))
	for i, d := range batch {
		ids[i] = d.ID
	}
	chunks, err := store.DeleteDocuments(ctx, ids)
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: the caller says so
	}
	if err != nil && len(batch) > 1 && chunks == nil {
		var errs []error
		for _, d := range batch {
			errs = append(errs, removeBatch(ctx, store, []index.Stamp{d}, removed)...)
		}
		return errs
	}
	for i, d := range batch {
		if chunks != nil && chunks[i] != nil && removed != nil {
			removed(d, len(chunks[i]))
		}
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// Stored returns the documents of the Indexer's data source stored at or
// under paths, sorted by path, each once: a path is a file's, a folder's
// (every document whose path lies under it) or a pattern (as [Indexer.Index]
// takes, matched against the stored paths), named as Index names them.
// The files need not exist any more; nothing on disk is read. The error
// joins a *[PathError] for each path under which no document is stored.
func (ix *Indexer) Stored(ctx context.Context, paths ...string) ([]index.Stamp, error) {
	names, args, errs := ix.names(paths)
	if len(names) == 0 {
		return nil, errors.Join(errs...)
	}
	existing, err := ix.store.Stamps(ctx, ix.opts.Source, ix.stampPaths(names))
	if err != nil {
		return nil, err
	}
	matched := make([]bool, len(names))
	var out []index.Stamp
	for _, d := range existing {
		in := false
		for i, n := range names {
			if ix.coversOne(n, d.Path) {
				matched[i], in = true, true
			}
		}
		if in {
			out = append(out, d)
		}
	}
	for i, ok := range matched {
		if !ok {
			errs = append(errs, &PathError{args[i], errNothingStored})
		}
	}
	slices.SortFunc(out, func(a, b index.Stamp) int { return strings.Compare(a.Path, b.Path) })
	return out, errors.Join(errs...)
}

// errNothingStored is the error of a path under which no document of the
// data source is stored.
var errNothingStored = errors.New("no document of the data source is stored at or under it")
