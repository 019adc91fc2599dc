package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/normalize"
)

// DefaultMaxSize is the largest file indexed unless Options say otherwise:
// 50 MB (SI, as every size cite reads and writes; see [ParseSize]).
const DefaultMaxSize = 50_000_000

// pipelineVersion changes whenever normalize or chunk would cut the same
// file differently; documents indexed by another version are redone.
// Version 2 bounds heading paths and titles (chunk.MaxHeadingBytes);
// version 3 shows spreadsheets' numbers as their formats do, leaves
// footnote markers out of heading paths and keeps where an extracted
// document's sections start (index.Layout.Sections). A change to one
// format alone changes that format's pipeline instead (pipelineOf: HTML
// pages read by their content), so that the others (PDFs read by OCR) are
// not read again.
const pipelineVersion = 3

// Options configure an [Indexer]. The zero value indexes the operating
// system's files into the default source with default settings.
type Options struct {
	// Source is the data source documents go to; "" means index.DefaultSource.
	Source string
	// FS is where names are looked up. Nil means the operating system's file
	// system: names are paths, made absolute, and documents are stored under
	// their absolute path. With an FS, names are fs.FS paths and stored as is.
	FS fs.FS
	// MaxSize is the largest file indexed, in bytes; 0 means DefaultMaxSize.
	MaxSize int64
	// Workers is how many files are read, normalized and chunked at once;
	// 0 means GOMAXPROCS.
	Workers int
	// Prune removes documents of the source that lie under the given paths
	// (or, with no paths, anywhere) and whose files are gone.
	Prune bool
	// Force re-indexes files even when their content is unchanged.
	Force bool
	// Splitter cuts documents into chunks; nil means chunk.New's defaults.
	Splitter *chunk.Splitter
	// Embedder makes the chunks' vectors; nil indexes for full-text search
	// only. It must be the index's embedder ([index.Store.UseEmbedder]
	// records it in a new index). Only chunks the index does not have yet
	// are embedded. If embedding fails, documents are stored without
	// vectors (full-text search finds them), the run reports the error, and
	// no more embedding is tried until the next run, which makes the
	// missing vectors.
	Embedder *embed.Embedder
	// OnEvent, if set, is called for every file as it is finished, from one
	// goroutine at a time.
	OnEvent func(Event)
	// Readers read binary document formats (PDF, Word, ...), tried in
	// order on each file that is not Markdown or HTML by name; without
	// them such files are skipped.
	Readers []Reader
	// KeepBoilerplate reads HTML pages whole, their navigation, banners,
	// footers, sidebars and hidden elements included, instead of their
	// content alone (normalize.Options.KeepBoilerplate). Pages indexed
	// the other way are read again. Readers of saved pages (.mhtml) take
	// their own setting.
	KeepBoilerplate bool
	// Skip, if set, leaves out the files for which it returns true, given
	// their stored path, as if they were not there (cite index --watch
	// leaves out editors' temporary files this way; a document of such a
	// file already indexed is kept).
	Skip func(path string) bool
	// NoIgnore walks folders without reading their ignore files. By
	// default the .gitignore and .ignore files of each folder walked are
	// honoured (with git's syntax; .ignore wins), and, for a folder in a git
	// work tree, those of the folders above it up to the work tree's top
	// and the repository's .git/info/exclude (see package ingest/ignore),
	// and so is the folder NAME_files beside a page NAME.html that a
	// browser saved whole (its stylesheets, scripts and frames), which
	// NoIgnore walks too.
	NoIgnore bool
	// GitExcludes, if set, returns git's global excludes file
	// (core.excludesFile; [GitExcludes] finds it as git does) for the
	// repository whose git folder is gitDir (an absolute path; "" for a
	// work tree whose .git cannot be read), read, when it exists, in the
	// folders of a git work tree as git reads it: below the repository's
	// .git/info/exclude and the .gitignore files, which may re-include
	// what it ignores; outside a work tree it is not read (as ripgrep and
	// fd). It returns an absolute path, or one relative to the work
	// tree's top; "" reads none. Only on the operating system's files (FS
	// nil), and not with NoIgnore.
	GitExcludes func(gitDir string) string
	// Exclude leaves out the files and folders that match one of these
	// globs (doublestar's syntax, ** for any number of folders): a glob
	// with a "/" (or starting "./") is matched against the path from the
	// folder walked (for a glob PATH, its folder before the first
	// wildcard), one without against the name alone, at any depth; a
	// trailing "/" matches folders only. Check them with [CheckExclude].
	Exclude []string
	// Roots, if set, are the folders (or files) the paths given to
	// [Indexer.Index] lie in (cite index --watch's PATHs): a path given
	// below a root is judged by the ignore files and Exclude as if the
	// root's walk had found it. Any other path given is named explicitly,
	// and a file named explicitly is indexed even if ignored.
	Roots []string
	// PruneIgnored removes the documents of the source under the paths
	// whose files the walk leaves out now (ignore files, Exclude), with or
	// without Prune: the documents a fresh walk of the paths would not
	// find though their files are there. A document is judged as the walk
	// of the path (or root, [Options.Roots]) it lies under judges its file:
	// a file named as a path is never ignored, and documents under no path
	// given (with no paths, any) or of other sources are never touched.
	// Without it they are kept and counted (Stats.IgnoredIndexed).
	PruneIgnored bool
	// OnWarning, if set, is told of an ignore file that could not be read
	// or has lines that are not patterns (each problem once in the
	// Indexer's life); the run goes on without them. It is called from one
	// goroutine at a time, never at once with OnEvent.
	OnWarning func(path string, err error)
}

// Outcome is what happened to one file.
type Outcome int

// Outcomes of a file.
const (
	Added     Outcome = iota // new document
	Updated                  // changed document, chunks replaced
	Unchanged                // same content: nothing rewritten
	Skipped                  // not indexable (binary, empty, too large, ...), with a reason
	Failed                   // an error: unreadable, or the store failed
	Pruned                   // document removed because its file is gone
	// Gone: the file was deleted after the walk found it, before it was
	// read. Not a failure: there is nothing left to index. A version
	// indexed before is kept, as for any file that is gone, unless
	// Options.Prune is set.
	Gone
	// Missing: a document indexed before, under the paths walked, whose
	// file is gone. It is kept (Options.Prune removes it), and said, so that
	// answers citing a file that is no longer there do not surprise.
	Missing
)

var outcomeNames = [...]string{"added", "updated", "unchanged", "skipped", "failed", "pruned", "gone", "missing"}

func (o Outcome) String() string { return outcomeNames[o] }

// Event reports one finished file.
type Event struct {
	Outcome Outcome
	Path    string // as stored: absolute for the operating system's files
	Reason  string // for Skipped and Gone: why
	Err     error  // for Failed: a *PathError
	Chunks  int    // chunks written (Added, Updated)
	Warning error  // for Added and Updated: stored, but without vectors
	// Notes are what the reader of an extracted format noted (running
	// headers left out, pages it could not read), for Added and Updated;
	// for a copy (From), what it noted when it read the same bytes.
	Notes []string
	// From, for Added and Updated, is the stored path of the document
	// whose chunks (and vectors) were copied: a document indexed before
	// from the same bytes by the same settings (the file renamed, moved or
	// copied), so this file was not read, chunked or embedded again. ""
	// when the file was indexed from its content.
	From  string
	Stats Stats // totals so far
}

// Stats are the totals of a run.
type Stats struct {
	Seen      int `json:"seen"`
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Skipped   int `json:"skipped"`
	Failed    int `json:"failed"`
	// Gone counts the files deleted after the walk found them.
	Gone int `json:"gone"`
	// Interrupted counts the files under way when the run was cancelled:
	// not failed, and not reported as events; the next run does them.
	Interrupted int `json:"interrupted"`
	Pruned      int `json:"pruned"`
	// PrunedIgnored counts the documents of Pruned removed because their
	// files are ignored now (Options.PruneIgnored), not gone.
	PrunedIgnored int `json:"pruned_ignored"`
	// Ignored counts the files and folders left out by ignore files and
	// Options.Exclude (a folder once, its files uncounted).
	Ignored int `json:"ignored"`
	// IgnoredIndexed counts the documents under the paths whose files are
	// ignored now, kept because Options.PruneIgnored was not set.
	IgnoredIndexed int `json:"ignored_indexed"`
	// Missing counts the documents under the paths whose files are gone,
	// kept because Options.Prune was not set (a path itself gone, with
	// documents under it, is a failure that says how many).
	Missing int `json:"missing"`
	// Copied counts the added and updated documents whose chunks and
	// vectors were copied from a document of the same content
	// ([Event.From]) instead of being made again.
	Copied  int   `json:"copied"`
	Chunks  int   `json:"chunks"`  // chunks of added and updated documents
	Tokens  int64 `json:"tokens"`  // tokens of added and updated documents
	Vectors int   `json:"vectors"` // chunks embedded
	// CopiedVectors counts the vectors copied with the chunks of copied
	// documents: stored, not embedded.
	CopiedVectors int `json:"copied_vectors"`
	// MissingVectors counts chunks left without a vector because embedding
	// failed.
	MissingVectors int           `json:"missing_vectors"`
	Bytes          int64         `json:"bytes"` // bytes read and processed
	Elapsed        time.Duration `json:"elapsed_ns"`
	Found          int           `json:"-"` // files the walk has found so far
	Listed         bool          `json:"-"` // the walk is over: Found is the total
}

// MBPerSecond is the processing rate: bytes read per second of the run.
func (s Stats) MBPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Bytes) / 1e6 / s.Elapsed.Seconds()
}

// Indexer brings an index up to date with files.
type Indexer struct {
	store    *index.Store
	opts     Options
	splitter *chunk.Splitter
	pipeline string
	fsys     fs.FS
	prefix   string // turns fs names into stored paths

	embedErr atomic.Pointer[error] // the first embedding failure of a run

	// onBatch, if set (by tests), sees what each batch written holds.
	onBatch func(batchSize)
	// writeErr, if set (by tests), fails the writes of documents whose
	// path it returns an error for, before they reach the store.
	writeErr func(path string) error
	// inFlight is the most chunks prepared and not yet written
	// ([inFlightBatches] batches' worth, unless a test sets it), and onWait,
	// if set (by tests), is called when a worker waits for them to be
	// written.
	inFlight int
	onWait   func()
	// onRecycle, if set (by tests), sees each vector's memory as it is
	// handed back ([Indexer.recycle]).
	onRecycle func(v []float32)
	// batchDelay is how long a batch waits for more files (batchDelay, the
	// constant, unless a test sets it).
	batchDelay time.Duration
	roots      []string                   // Options.Roots as names in fsys
	global     func(gitDir string) string // git's global excludes file ([filter.global]), on the system's files only

	warnMu sync.Mutex
	warned map[string]bool // warnings given, by path and text

	// cpu holds a token for each core ([runtime.GOMAXPROCS]): a worker
	// takes one to prepare a file it has read, and the writer one to
	// write, so that
	// the writer, once it has something to write, gets a core of its own
	// at the next file a worker finishes instead of a share of the cores
	// with all the workers. With a share, it fell behind while the
	// workers prepared files and wrote the last batches alone with the
	// other cores idle (a tenth of a corpus run); now no more than a
	// batch waits for it when the workers are done.
	cpu chan struct{}
}

// New returns an Indexer writing to store. With an embedder, it records it
// as the index's embedder, or fails with [index.ErrEmbedderMismatch] if the
// index's vectors were made by another.
func New(ctx context.Context, store *index.Store, opts Options) (*Indexer, error) {
	if opts.Embedder != nil {
		if err := store.UseEmbedder(ctx, opts.Embedder); err != nil {
			return nil, err
		}
	}
	if opts.Source == "" {
		opts.Source = index.DefaultSource
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	sp := opts.Splitter
	if sp == nil {
		var err error
		if sp, err = chunk.New(chunk.Options{}); err != nil {
			return nil, err
		}
	}
	ix := &Indexer{store: store, opts: opts, splitter: sp, fsys: opts.FS, batchDelay: batchDelay, inFlight: inFlightBatches * batchLimits.chunks}
	ix.cpu = make(chan struct{}, runtime.GOMAXPROCS(0))
	ix.pipeline = fmt.Sprintf("v%d/%s/%d/%d", pipelineVersion, chunk.Encoding, sp.Size(), sp.Overlap())
	if ix.fsys == nil {
		ix.fsys = osFS{}
		ix.prefix = "/"
		ix.global = opts.GitExcludes
	}
	for _, x := range opts.Exclude {
		if err := CheckExclude(x); err != nil {
			return nil, fmt.Errorf("exclude: %w", err)
		}
	}
	roots, _, errs := ix.names(opts.Roots)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ix.roots = roots
	ix.warned = map[string]bool{}
	return ix, nil
}

// names turns arguments into names in ix.fsys ([Indexer.name]): the
// names, the arguments they came from, and an error for each argument
// that has none.
func (ix *Indexer) names(paths []string) (names, args []string, errs []error) {
	for _, p := range paths {
		n, err := ix.name(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names, args = append(names, n), append(args, p)
	}
	return names, args, errs
}

// name turns an argument into a name in ix.fsys.
func (ix *Indexer) name(arg string) (string, error) {
	if ix.opts.FS != nil {
		return path.Clean(filepath.ToSlash(arg)), nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", &PathError{arg, err}
	}
	name := strings.TrimPrefix(filepath.ToSlash(abs), "/")
	if name == "" {
		name = "."
	}
	return name, nil
}

func (ix *Indexer) storedPath(name string) string {
	if ix.prefix == "" {
		return name
	}
	if name == "." {
		return ix.prefix
	}
	return ix.prefix + name
}

// job is one file on its way through the pipeline.
type job struct {
	file    File
	path    string
	prev    *index.Stamp    // stored version, if any
	doc     *index.Document // to store
	chunk   []index.Chunk
	read    int64 // bytes read
	out     Outcome
	why     string
	err     error
	vectors int   // chunks embedded
	missing int   // chunks left without a vector
	warn    error // embedding failed: stored without vectors
	keep    bool  // Skipped, but keep the stored version (the file was changing)
	notes   []string
	from    string // the stored path of the document copied, if any ([Indexer.copyFrom])
	// stored holds the contents the index has, that this file may be a
	// copy of; nil: none is copied.
	stored *contentSet
	// copiedVectors counts the chunks whose vectors came with the copy.
	copiedVectors int
	budget        *chunkBudget // the run's chunks in flight; nil: no bound
	held          int          // chunks of budget held until the file is written
}

// Index walks paths and brings the index up to date with what it finds.
// Files are read, normalized and chunked in parallel; each document is
// written in its own transaction. A file that cannot be indexed is reported
// through OnEvent and counted, and the run goes on; the returned error
// joins the failures, and is nil when there were none: a *PathError for
// each file or path argument that failed (unreadable, matching nothing, or
// not stored), and errors of the run itself (embedding failed, so chunks
// were stored without vectors; the vector cache could not be written).
// Skipped files are not errors.
func (ix *Indexer) Index(ctx context.Context, paths ...string) (Stats, error) {
	start := time.Now()
	var stats Stats
	var errs []error
	ix.embedErr.Store(nil)
	if ix.opts.Embedder != nil {
		// Hold the vectors in memory during the run, so that the vector
		// cache can be written at its end without reading them back.
		if err := ix.store.LoadVectors(ctx); err != nil {
			return stats, err
		}
	}
	// Documents an earlier run wrote here but could not push to the
	// index's replica (a Weaviate collection) go first.
	if _, err := ix.store.SyncReplica(ctx); err != nil {
		errs = append(errs, err)
	}
	names, _, nerrs := ix.names(paths)
	errs = append(errs, nerrs...)
	// The documents stored at or under the paths walked, to compare the
	// files with: what is read follows the paths, not the index's size.
	existing, err := ix.store.Stamps(ctx, ix.opts.Source, ix.stampPaths(names))
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w (cite check finds what the index holds that cannot be read; cite check --repair fixes it)", err)
		}
		return stats, err
	}
	// The contents stored, that a file of the same bytes may be a copy of
	// ([Indexer.copyFrom]): most files are new content, and are not looked
	// up in the index one by one.
	var stored *contentSet
	if !ix.opts.Force {
		hashes, err := ix.store.ContentHashes(ctx)
		if err != nil {
			return stats, err
		}
		stored = &contentSet{m: hashes}
	}
	known := make(map[string]*index.Stamp, len(existing))
	for i := range existing {
		known[existing[i].Path] = &existing[i]
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan *job, ix.opts.Workers)
	// Finished files wait here while the writer commits a batch, so that
	// the workers go on preparing the next ones meanwhile.
	done := make(chan *job, doneQueue*ix.opts.Workers)
	seen := make(map[string]bool)
	budget := newChunkBudget(ix.inFlight)
	budget.onWait = ix.onWait
	var walkErrs []error
	var gone []string // paths given that are gone, with documents under them
	var found, ignored atomic.Int64
	var listed atomic.Bool
	var evmu sync.Mutex // OnEvent and OnWarning, one at a time
	filter := ix.filter(&evmu)
	go func() { // walker
		defer close(jobs)
		defer listed.Store(true)
		for f, err := range walk(ctx, ix.fsys, names, filter, ix.roots) {
			if err != nil {
				var pe *PathError
				if errors.As(err, &pe) {
					pe.Path = ix.storedPath(pe.Path)
					// A path that is gone, given to --prune, is what
					// pruning is for when documents lie under it;
					// without, they are kept, as the error says.
					if n := ix.countUnder(pe.Path, existing); n > 0 && errors.Is(err, fs.ErrNotExist) {
						if ix.opts.Prune {
							continue
						}
						gone = append(gone, pe.Path)
						err = &PathError{pe.Path, fmt.Errorf("%w; %s indexed from it %s kept (cite index --prune removes %s)", pe.Err, plural(n, "document", "documents"), isAre(n), themIt(n))}
					}
				}
				walkErrs = append(walkErrs, err)
				if ctx.Err() != nil {
					return
				}
				continue
			}
			if f.Ignored {
				ignored.Add(1)
				continue
			}
			p := ix.storedPath(f.Name)
			if ix.opts.Skip != nil && ix.opts.Skip(p) {
				continue
			}
			if len(existing) > 0 {
				seen[p] = true // the files found: the others under the paths are pruned or missing
			}
			found.Add(1)
			select {
			case jobs <- &job{file: f, path: p, prev: known[p], budget: budget, stored: stored}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range ix.opts.Workers {
		wg.Go(func() {
			var rb readBuffer
			for j := range jobs {
				ix.prepare(ctx, j, &rb)
				done <- j
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	emit := func(e Event) {
		stats.Ignored = int(ignored.Load())
		if ix.opts.OnEvent != nil {
			stats.Elapsed = time.Since(start)
			stats.Found, stats.Listed = int(found.Load()), listed.Load()
			e.Stats = stats
			evmu.Lock()
			ix.opts.OnEvent(e)
			evmu.Unlock()
		}
	}
	// The single writer (and, on this goroutine, the batches it is
	// handed). Documents to store are written in batches, one
	// transaction each (each document still all or nothing): a batch is
	// committed when it holds enough chunks, text or documents
	// ([batchLimits]), or when it has waited batchDelay and no finished
	// file is waiting, or when a file needs a write of its own (a touch, a
	// removal). Files with nothing to write wait in the batch too, so that
	// events keep the order in which the files were finished.
	var batch []*job
	var sum batchSize
	var since time.Time // when the batch's first file came
	finish := func(j *job) {
		if j.out == Failed && ctx.Err() != nil {
			// Cancelled under way (reading, embedding, writing): not a
			// broken file.
			stats.Interrupted++
			return
		}
		stats.Seen++
		switch j.out {
		case Added:
			stats.Added++
		case Updated:
			stats.Updated++
		case Unchanged:
			stats.Unchanged++
		case Skipped:
			stats.Skipped++
		case Gone:
			stats.Gone++
		case Failed:
			stats.Failed++
			var pe *PathError
			if !errors.As(j.err, &pe) {
				j.err = &PathError{j.path, j.err}
			}
			errs = append(errs, j.err)
			if se := indexFailed(j.err); se != nil {
				// Every write after it would fail the same way (a
				// full disk): the run stops here rather than read
				// and fail each file that is left.
				cancel(se)
			}
		}
		if j.doc != nil && (j.out == Added || j.out == Updated) {
			j.stored.add(j.doc.Hash) // a later file of the same bytes copies it
			if j.from != "" {
				stats.Copied++
				stats.CopiedVectors += j.copiedVectors
			}
			stats.Chunks += len(j.chunk)
			stats.Tokens += int64(j.doc.Tokens)
			stats.Vectors += j.vectors
			stats.MissingVectors += j.missing
		}
		stats.Bytes += j.read
		emit(Event{Outcome: j.out, Path: j.path, Reason: j.why, Err: j.err, Chunks: len(j.chunk), Warning: j.warn, Notes: j.notes, From: j.from})
	}
	// The writer stores one batch while the next one fills: finished
	// files keep coming (and the workers keep preparing) during a commit.
	// It alone touches stats, errs and the events until it is done.
	type write struct {
		batch []*job
		sum   batchSize
		alone *job // a file that writes in a transaction of its own
	}
	writes := make(chan write, 1)
	var inflight atomic.Int32 // writes handed over and not done
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for w := range writes {
			if w.alone != nil {
				ix.cpu <- struct{}{}
				ix.write(ctx, w.alone)
				<-ix.cpu
				finish(w.alone)
				budget.give(w.alone.held)
			} else {
				if ix.onBatch != nil && w.sum.docs > 0 {
					ix.onBatch(w.sum)
				}
				ix.cpu <- struct{}{}
				ix.writeBatch(ctx, w.batch)
				<-ix.cpu
				for _, j := range w.batch {
					finish(j)
					budget.give(j.held)
				}
			}
			inflight.Add(-1)
		}
	}()
	hand := func(w write) {
		inflight.Add(1)
		writes <- w
	}
	flush := func() {
		if len(batch) > 0 {
			hand(write{batch: batch, sum: sum})
		}
		batch, sum = nil, batchSize{}
	}
	var timer *time.Timer
	for {
		var j *job
		var ok bool
		select {
		case j, ok = <-done:
		default:
			// Nothing is waiting: wait for the next file, or until the
			// batch has waited long enough.
			if len(batch) == 0 {
				j, ok = <-done
				break
			}
			wait := ix.batchDelay - time.Since(since)
			if inflight.Load() > 0 {
				// The writer is busy: the batch goes on filling, and
				// is handed over when the writer is free (a batch
				// handed over now would wait anyway, and a loaded
				// machine would get many small ones).
				wait = max(wait, writerPoll)
			}
			if wait <= 0 {
				flush()
				continue
			}
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case j, ok = <-done:
				timer.Stop()
			case <-timer.C:
				if inflight.Load() == 0 {
					flush()
				}
				continue
			}
		}
		if !ok {
			break
		}
		if ix.writesAlone(j) {
			flush() // keep the events in order
			hand(write{alone: j})
			continue
		}
		if len(batch) == 0 {
			since = time.Now()
		}
		batch = append(batch, j)
		if j.out == Added || j.out == Updated {
			sum.add(j)
			if sum.full() {
				flush()
			}
		}
	}
	flush()
	close(writes)
	<-writerDone
	errs = append(errs, walkErrs...) // the walker is done: done closed after jobs
	stats.Ignored = int(ignored.Load())
	if err := ctx.Err(); err != nil {
		stats.Elapsed = time.Since(start)
		if se := (*StoppedError)(nil); errors.As(context.Cause(ctx), &se) {
			return stats, errors.Join(append(errs, se)...)
		}
		return stats, err
	}
	ix.prune(ctx, names, existing, seen, gone, filter, &stats, &errs, emit)
	if ix.opts.Embedder != nil {
		if ep := ix.embedErr.Load(); ep != nil {
			errs = append(errs, fmt.Errorf("%d chunks were stored without vectors (full-text search finds them; the next cite index makes them): %w", stats.MissingVectors, *ep))
		} else {
			// Vectors a previous run could not make, or that cite check
			// --repair or cite reindex removed.
			n, err := FillVectors(ctx, ix.store, ix.opts.Embedder, nil)
			stats.Vectors += n
			if err != nil {
				errs = append(errs, err)
			}
		}
		if err := ix.store.SaveVectorCache(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	stats.Elapsed = time.Since(start)
	return stats, errors.Join(errs...)
}

// StoppedError is the error of a run that stopped because the index could
// not be written at all (the disk full, the index turned read-only or
// damaged): the files written before it are kept, and those not reached,
// or under way, are left for the next run ([Stats.Interrupted]). The file
// whose write found it failed, with the write's own error.
type StoppedError struct {
	Reason error // index.ErrFull, ErrReadOnly or ErrCorrupt
	Err    error // the write's error, which wraps Reason (not a *PathError)
}

func (e *StoppedError) Error() string {
	fix := "free space, then run cite index again"
	switch e.Reason {
	case index.ErrReadOnly:
		fix = "make it writable, then run cite index again"
	case index.ErrCorrupt:
		fix = "run cite check --repair, then cite index again"
	}
	return fmt.Sprintf("stopped: %v; the documents written before it are kept, and the files not reached are left for the next run: %s", e.Reason, fix)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// indexFailed returns a *StoppedError when err is one of the index as a
// whole rather than of one file (index.ErrFull, ErrReadOnly, ErrCorrupt),
// nil otherwise.
func indexFailed(err error) *StoppedError {
	for _, reason := range []error{index.ErrFull, index.ErrReadOnly, index.ErrCorrupt} {
		if errors.Is(err, reason) {
			// Not the *PathError: the file's failure is counted once,
			// as the file's.
			if pe := (*PathError)(nil); errors.As(err, &pe) {
				err = pe.Err
			}
			return &StoppedError{Reason: reason, Err: err}
		}
	}
	return nil
}

// embedTerms gives c its vector and its full-text terms counted
// ([index.Chunk.SetTermCounts]) in one analysis of its text, if e reads
// texts as analysis terms; ok is false if it does not. The terms are
// counted as they come rather than joined in Terms, which
// [index.PrepareChunks] would split to count them again.
func embedTerms(ctx context.Context, e *embed.Embedder, c *index.Chunk) (ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	tc := index.NewTermCounts()
	mem := vectorMemory.Get().(*[]float32)
	v, ok, err := e.EmbedDocumentTerms(*mem, c.Text, func(t *analysis.Term) { tc.Add(t.Term) })
	if ok && err == nil && c.Terms == "" {
		c.Vector = v
		c.SetTermCounts(tc)
	} else {
		if ok && err == nil {
			c.Vector = v
		} else {
			vectorMemory.Put(mem)
		}
		tc.Release()
	}
	return ok, err
}

// vectorMemory holds the memory of vectors handed back once
// [index.PrepareChunks] has made of them what is stored
// ([Indexer.recycle]), for embedTerms to write the next ones in: 8 KB a
// chunk at 2,048 dimensions that the hash embedder would take anew (and,
// on a machine where memory touched for the first time is dear, fault in)
// for a vector dead as soon as its chunk is prepared.
var vectorMemory = sync.Pool{New: func() any { return new([]float32) }}

// recycle hands back the memory of the vectors of the job's chunks that
// [index.PrepareChunks] has prepared ([index.Chunk.ReleaseVector]): the
// writer stores them as prepared, and the next chunks' vectors are written
// there. Only vectors embedTerms made, whose memory nothing else holds, are
// given back.
func (ix *Indexer) recycle(c *index.Chunk) {
	v := c.ReleaseVector()
	if v == nil {
		return
	}
	if ix.onRecycle != nil {
		ix.onRecycle(v)
	}
	vectorMemory.Put(&v)
}

// needVectors returns which of the job's chunks need a vector (those the
// index does not have yet), nil if none does or nothing is to be embedded,
// and sets j.missing to their number. After an embedding failure in this
// run, nothing more is embedded: the chunks are stored without vectors.
func (ix *Indexer) needVectors(ctx context.Context, j *job) []bool {
	if ix.opts.Embedder == nil {
		return nil
	}
	index.AssignIDs(j.doc, j.chunk)
	have := map[string]bool{}
	if j.prev != nil {
		var err error
		if have, err = ix.store.VectorIDs(ctx, j.doc.ID); err != nil {
			j.out, j.err = Failed, err
			return nil
		}
	}
	need := make([]bool, len(j.chunk))
	n := 0
	for i, c := range j.chunk {
		if !have[c.ID] && c.Vector == nil { // a copy's vectors come with it
			need[i] = true
			n++
		}
	}
	if n == 0 {
		return nil
	}
	j.missing = n
	if ix.embedErr.Load() != nil {
		return nil
	}
	return need
}

// embed gives the chunks of the job that need one a vector, with an
// embedder of models. It runs on the workers.
func (ix *Indexer) embed(ctx context.Context, j *job, need []bool) {
	var texts []string
	var which []int
	for i, c := range j.chunk {
		if need[i] {
			texts = append(texts, c.Text)
			which = append(which, i)
		}
	}
	vs, err := ix.opts.Embedder.EmbedDocuments(ctx, texts)
	if err != nil {
		ix.embedFailed(ctx, j, err)
		return
	}
	for k, i := range which {
		j.chunk[i].Vector = vs[k]
	}
	j.vectors, j.missing = len(texts), 0
}

// embedFailed records that embedding the job's chunks failed: they are
// stored without vectors, and no more embedding is tried in this run.
func (ix *Indexer) embedFailed(ctx context.Context, j *job, err error) {
	if ctx.Err() == nil {
		ix.embedErr.CompareAndSwap(nil, &err)
	}
	for i := range j.chunk {
		j.chunk[i].Vector = nil
	}
	j.warn = fmt.Errorf("stored without vectors: %w", err)
}

// FillVectors embeds the chunks of the index that have no vector, in
// batches, each stored in its own transaction, and returns how many it
// stored. progress, if set, is called after each batch with the running
// total. With the vectors in memory (as [Indexer.Index] has them) it finds
// that none is missing without reading the index
// ([index.Store.ChunksWithoutVectors]).
func FillVectors(ctx context.Context, store *index.Store, e *embed.Embedder, progress func(done int)) (int, error) {
	if err := store.CheckEmbedder(ctx, e); err != nil {
		return 0, err
	}
	const batch = 256
	done := 0
	missing, err := store.ChunksWithoutVectors(ctx)
	if err != nil {
		return 0, err
	}
	for len(missing) > 0 {
		n := min(batch, len(missing))
		cs, err := store.ChunkTexts(ctx, missing[:n])
		if err != nil {
			return done, err
		}
		missing = missing[n:]
		if len(cs) == 0 {
			continue
		}
		texts := make([]string, len(cs))
		for i, c := range cs {
			texts[i] = c.Text
		}
		vs, err := e.EmbedDocuments(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("embed chunks without vectors: %w", err)
		}
		m := make(map[string][]float32, len(cs))
		for i, c := range cs {
			m[c.ID] = vs[i]
		}
		stored, err := store.PutVectors(ctx, m)
		done += stored
		if err != nil {
			return done, err
		}
		if progress != nil {
			progress(done)
		}
	}
	return done, nil
}

// prepare decides what to do with a file and, when it must be indexed,
// reads (into rb, the worker's buffer), normalizes and chunks it. It runs
// on the workers.
func (ix *Indexer) prepare(ctx context.Context, j *job, rb *readBuffer) {
	if err := ctx.Err(); err != nil {
		j.out, j.err = Failed, err
		return
	}
	f := j.file
	skip := func(why string) { j.out, j.why = Skipped, why }
	if f.Gone {
		j.out, j.why = Gone, goneReason
		return
	}
	if f.Skip != "" {
		if strings.HasPrefix(f.Skip, "unreadable") {
			j.out, j.err = Failed, &PathError{j.path, errors.New(f.Skip)}
			return
		}
		skip(f.Skip)
		return
	}
	if why := ix.skipByName(f.Name); why != "" {
		skip(why)
		return
	}
	// A file unchanged since it was indexed stays as it is, whatever the
	// limits of this run (a lower --max-size does not remove it).
	prev := j.prev
	fresh := prev != nil && prev.Pipeline == ix.pipelineOf(prev.Type) && !ix.opts.Force && !ix.readAsText(prev.Type, f.Name)
	if fresh && prev.Size == f.Info.Size() && prev.ModTime.Equal(f.Info.ModTime()) {
		j.out = Unchanged
		return
	}
	if f.Info.Size() > ix.opts.MaxSize {
		skip(tooLarge(f.Info.Size(), ix.opts.MaxSize))
		return
	}
	data, info, err := readStable(ctx, ix.fsys, f.Name, ix.opts.MaxSize, rb.next())
	if errors.Is(err, errChanging) {
		// Skipped, not failed: nothing is wrong with the file, and the next
		// run indexes it. Its old version, if any, is kept until then.
		skip(err.Error() + "; not indexed: run cite index again when it is done changing")
		if prev != nil {
			j.why += " (the version indexed before is kept)"
			j.keep = true
		}
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		j.out, j.why = Gone, goneReason
		return
	}
	if err != nil {
		j.out, j.err = Failed, &PathError{j.path, unwrapPathErr(err)}
		return
	}
	// The rest is work for a core (or a model's wait, which gives it
	// back): reading, which may wait on anything, holds none.
	ix.cpu <- struct{}{}
	defer func() { <-ix.cpu }()
	j.read = int64(len(data))
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if fresh && prev.Hash == hash {
		j.out = Unchanged
		j.doc = &index.Document{ID: prev.ID, Size: int64(len(data)), ModTime: info.ModTime()} // touch only
		return
	}
	if ix.copyFrom(ctx, j, hash, info) {
		return
	}
	var nd *normalize.Document
	var formatName string
	format, why := normalize.PlainText, ""
	if _, byExt := formatByExt[strings.ToLower(path.Ext(f.Name))]; !byExt || notText(data) {
		var read bool
		// A reader may keep the bytes: the next file is read into new
		// memory.
		rb.lent = len(ix.opts.Readers) > 0
		nd, formatName, read, err = ix.readDocument(ctx, data, hash)
		switch {
		case read && err != nil:
			j.readerFailure(formatName, err)
			return
		case !read && documentExts[strings.ToLower(path.Ext(f.Name))]:
			ext := strings.ToLower(path.Ext(f.Name))
			if kind := binaryExts[ext]; len(ix.opts.Readers) > 0 && ext != ".doc" && ext != ".ppt" && ext != ".xls" && kind != "" {
				// A format cite reads, by its name, but not by its
				// content (a spreadsheet renamed .docx, a damaged file).
				if kind == "image" {
					kind = "a picture" // not "its content is not image"
				}
				skip(fmt.Sprintf("unreadable as %s: named %s, its content is not %s (cite reads %s)", kind, ext, kind, ix.formatsRead()))
				return
			}
			if why := skipByName(f.Name, ix.formatsRead()); why != "" {
				skip(why)
				return
			}
		}
	}
	byReader := nd != nil
	if nd == nil {
		format, why = detect(f.Name, data)
		if why != "" {
			skip(why)
			return
		}
		// data is not used past this point: the worker reads its next
		// file into the same memory.
		nd = normalize.NormalizeWith(format, data, normalize.Options{KeepBoilerplate: ix.opts.KeepBoilerplate})
		formatName = format.String()
	}
	j.notes = nd.Notes
	if nd.Text == "" {
		if byReader {
			// A reader's document (OCR of a picture: seconds): the
			// next run does not read the file again while it is
			// unchanged. Only time is lost if the mark is not kept.
			_ = ix.store.SetNoText(ctx, hash, ix.pipelineOf(formatName))
		}
		if len(nd.Notes) > 0 {
			skip("no text: " + strings.Join(nd.Notes, "; "))
			return
		}
		skip("no text after normalization")
		return
	}
	headings := make([]chunk.Heading, len(nd.Headings))
	for i, h := range nd.Headings {
		headings[i] = chunk.Heading{Offset: h.Offset, Level: h.Level, Text: h.Text}
	}
	cs, tokens := ix.splitter.Split(nd.Text, headings)
	j.chunk = make([]index.Chunk, len(cs))
	for i, c := range cs {
		ss, se := nd.SourceSpan(c.Start, c.End)
		j.chunk[i] = index.Chunk{Chunk: c, SourceStart: ss, SourceEnd: se}
		j.chunk[i].Page, j.chunk[i].PageEnd = nd.PageRange(c.Start, c.End)
	}
	j.doc = &index.Document{
		// Ingest reads files (a saved web page too: its spans are bytes of
		// the saved copy), so every document it makes is a file.
		Source: ix.opts.Source, Path: j.path, Title: titleOf(nd, format, formatName, f.Name), Type: formatName, Kind: index.KindFile,
		Size: j.read, ModTime: info.ModTime(), Hash: hash, Pipeline: ix.pipelineOf(formatName),
		TextBytes: len(nd.Text), Tokens: tokens, Layout: layoutOf(nd, byReader),
	}
	j.out = Added
	if prev != nil {
		j.out = Updated
	}
	if err := ix.hold(ctx, j); err != nil {
		j.out, j.err = Failed, err
		return
	}
	ix.analyze(ctx, j)
}

// hold takes the job's chunks from the run's budget of chunks in flight,
// waiting, if they are not free, until the writer has written enough. A
// worker waits with its core given back: the writer needs one to write.
func (ix *Indexer) hold(ctx context.Context, j *job) error {
	if j.budget == nil {
		return nil
	}
	n, ok := j.budget.tryTake(len(j.chunk))
	if !ok {
		<-ix.cpu
		var err error
		n, err = j.budget.take(ctx, len(j.chunk))
		ix.cpu <- struct{}{}
		if err != nil {
			return err
		}
	}
	j.held = n
	return nil
}

// analyze gives the job's chunks their full-text terms and, with an
// embedder, vectors (those the index does not have yet), then does what
// the writer would do without the database ([index.PrepareChunks]). A
// large document's chunks are done on all the cores. An embedder that
// reads texts as analysis terms (the hash embedder) reports the terms as
// it embeds: each chunk is analyzed once.
func (ix *Indexer) analyze(ctx context.Context, j *job) {
	need := ix.needVectors(ctx, j)
	if j.out == Failed {
		return
	}
	e := ix.opts.Embedder
	var failed atomic.Pointer[error]
	var embedded atomic.Int64
	inParts(len(j.chunk), ix.opts.Workers, func(i int) {
		c := &j.chunk[i]
		counted := false
		if need != nil && need[i] && failed.Load() == nil {
			ok, err := embedTerms(ctx, e, c)
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			} else if ok {
				embedded.Add(1)
				counted = true
			}
		}
		if !counted && c.Terms == "" {
			c.Terms = analysis.JoinedTerms(c.Text)
		}
	})
	switch ep := failed.Load(); {
	case ep != nil:
		ix.embedFailed(ctx, j, *ep)
	case need == nil:
	case int(embedded.Load()) == j.missing:
		j.vectors, j.missing = j.missing, 0
	default:
		// An embedder of models: it embeds in batches of its own,
		// waiting on the model, with its core given back meanwhile.
		<-ix.cpu
		ix.embed(ctx, j, need)
		ix.cpu <- struct{}{}
	}
	// Vectors that embedTerms made (all of the job's, or none: with an
	// embedder of models, or after a failure, ix.embed made them or
	// none) are dead once prepared: their memory is used again.
	recycle := embedded.Load() > 0 && embedded.Load() == int64(j.vectors)
	inParts(len(j.chunk), ix.opts.Workers, func(i int) {
		index.PrepareChunks(j.chunk[i : i+1])
		if recycle {
			ix.recycle(&j.chunk[i])
		}
	})
}

// partSize is how many chunks of a document a goroutine of [inParts]
// takes at a time.
const partSize = 32

// inParts calls fn for each of 0..n-1: on the calling goroutine when n is
// small, else on up to workers goroutines, each taking partSize at a time,
// and returns when all are done.
func inParts(n, workers int, fn func(i int)) {
	if workers = min(workers, n/partSize); workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(partSize) - partSize)
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+partSize, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}

// titleOf chooses a document's title: its own (HTML <title>, Markdown
// front matter), else its first heading, else for plain text a short first
// line standing alone as a paragraph, else the file name. A spreadsheet
// (formatName xlsx or ods) without a title of its own takes its file name:
// its first heading is its first sheet's name, not the workbook's. A title is
// clipped as a heading in a chunk's path is, to chunk.MaxHeadingBytes: it
// goes with every search hit and citation of the document.
func titleOf(nd *normalize.Document, format normalize.Format, formatName, name string) string {
	if nd.Title != "" {
		return chunk.Clip(nd.Title, chunk.MaxHeadingBytes)
	}
	if formatName == "xlsx" || formatName == "ods" {
		return index.EscapePath(path.Base(name))
	}
	if len(nd.Headings) > 0 {
		return chunk.Clip(nd.Headings[0].Text, chunk.MaxHeadingBytes)
	}
	if format == normalize.PlainText {
		if first, _, ok := strings.Cut(nd.Text, "\n\n"); ok && len(first) <= 100 && !strings.Contains(first, "\n") {
			return first
		}
	}
	return index.EscapePath(path.Base(name))
}

// doneQueue is how many finished files, per worker, wait for the writer.
const doneQueue = 4

// batchDelay is how long a batch waits for more files when none is
// waiting, before it is committed: the longest the events of written files
// lag behind (unless a batch fills up first).
const batchDelay = 200 * time.Millisecond

// writerPoll is how often a batch past its delay looks whether the writer
// is free to take it.
const writerPoll = 10 * time.Millisecond

// The most a batch holds before it is committed. A transaction's cost is
// partly per batch: each writes a segment of full-text postings (a row per
// distinct term: a segment of 1,024 chunks has far fewer rows than 16
// segments of 64 documents), merged with others later, and a document
// frequency per distinct term. A kill loses the batches not yet committed
// (the next run redoes them).
var batchLimits = batchSize{docs: 512, chunks: 1024, bytes: 2 << 20}

// inFlightBatches is how many batches' chunks may be prepared and not yet
// written: one batch being written, the next filling, and one more, so
// that the workers go on while the writer takes a batch that merges
// full-text segments (about four times a plain batch's time; with room
// for two batches only, both workers waited for it, 0.3-0.4 s of the
// corpus's 3.4). Their vectors, terms and quantized vectors are most of
// what a run holds beyond the index's in-memory vectors (a batch's
// float32 vectors are 8 MB at 2,048 dimensions), and a worker that would
// hold more waits for the writer.
const inFlightBatches = 3

// batchSize counts what a batch holds.
type batchSize struct {
	docs, chunks int
	bytes        int64 // text of the chunks
}

func (b *batchSize) add(j *job) {
	b.docs++
	b.chunks += len(j.chunk)
	for _, c := range j.chunk {
		b.bytes += int64(len(c.Text))
	}
}

func (b *batchSize) full() bool {
	return b.docs >= batchLimits.docs || b.chunks >= batchLimits.chunks || b.bytes >= batchLimits.bytes
}

// writesAlone reports whether a finished job writes in a transaction of
// its own ([Indexer.write]); added and updated documents go in batches,
// and jobs that write nothing wait in the batch for their event.
func (ix *Indexer) writesAlone(j *job) bool {
	switch {
	case j.out == Added || j.out == Updated:
		return false
	case j.out == Unchanged && j.doc != nil:
		return true
	case j.out == Skipped && j.prev != nil && !j.keep:
		return true
	case j.out == Gone && j.prev != nil && ix.opts.Prune:
		return true
	}
	return false
}

// writeBatch stores the documents of the added and updated jobs of a batch
// in one transaction. If it fails, each is written alone, so that one bad
// document fails only itself.
func (ix *Indexer) writeBatch(ctx context.Context, batch []*job) {
	var jobs []*job
	for _, j := range batch {
		if j.out == Added || j.out == Updated {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		return
	}
	now := time.Now()
	docs := make([]index.DocumentChunks, len(jobs))
	for i, j := range jobs {
		j.doc.IndexedAt = now
		docs[i] = index.DocumentChunks{Doc: j.doc, Chunks: j.chunk}
	}
	if len(jobs) > 1 && ix.writeErr == nil {
		_, err := ix.store.PutDocuments(ctx, docs)
		if err == nil {
			return
		}
		// Stored here, but not all pushed to the index's replica: those
		// documents failed (and stay pending), the others are done.
		var re *index.ReplicaError
		if errors.As(err, &re) {
			for _, j := range jobs {
				if e, bad := re.Documents[j.doc.ID]; bad {
					j.out, j.err = Failed, e
				}
			}
			return
		}
	}
	for _, j := range jobs {
		ix.write(ctx, j)
	}
}

// write stores the result of prepare. It runs on the single writer.
func (ix *Indexer) write(ctx context.Context, j *job) {
	switch {
	case j.out == Unchanged && j.doc != nil:
		if err := ix.store.Touch(ctx, j.doc.ID, j.doc.Size, j.doc.ModTime); err != nil {
			j.out, j.err = Failed, err
		}
	case j.out == Added || j.out == Updated:
		j.doc.IndexedAt = time.Now()
		if ix.writeErr != nil {
			if err := ix.writeErr(j.path); err != nil {
				j.out, j.err = Failed, err
				return
			}
		}
		if _, err := ix.store.PutDocument(ctx, j.doc, j.chunk); err != nil {
			j.out, j.err = Failed, err
		}
	case j.out == Skipped && j.prev != nil && !j.keep:
		// The file is still there but no longer indexable: its old chunks
		// would answer for content that is gone.
		if _, err := ix.store.DeleteDocument(ctx, j.prev.ID); err != nil {
			j.out, j.err = Failed, err
			return
		}
		j.why += "; removed its old version from the index"
	case j.out == Gone && j.prev != nil && ix.opts.Prune:
		if _, err := ix.store.DeleteDocument(ctx, j.prev.ID); err != nil {
			j.out, j.err = Failed, err
			return
		}
		j.why += "; pruned its old version from the index"
	}
}

// prune removes, with Options.Prune, the documents under names (all of the
// source's, when names is empty) whose files are gone, and, with
// Options.PruneIgnored, those whose files are ignored now. The others are
// kept and counted: those whose files are gone said as [Missing] (but
// those under a path given that is gone, whose error says so), those
// ignored as Stats.IgnoredIndexed.
func (ix *Indexer) prune(ctx context.Context, names []string, existing []index.Stamp, seen map[string]bool, gone []string, f *filter, stats *Stats, errs *[]error, emit func(Event)) {
	var batch []index.Stamp
	var size int64
	why := map[string]string{} // the reason of the documents pruned as ignored
	flush := func() {
		if len(batch) == 0 || ctx.Err() != nil {
			return
		}
		err := RemoveDocuments(ctx, ix.store, batch, 0, func(d index.Stamp, _ int) {
			stats.Pruned++
			if why[d.Path] != "" {
				stats.PrunedIgnored++
			}
			emit(Event{Outcome: Pruned, Path: d.Path, Reason: why[d.Path]})
		})
		if err != nil && ctx.Err() == nil { // interrupted: prune says so
			*errs = append(*errs, err)
		}
		batch, size = batch[:0], 0
		clear(why)
	}
	for d, left := range ix.missing(names, existing, seen, f) {
		switch {
		case left == leftIgnored && !ix.opts.PruneIgnored:
			stats.IgnoredIndexed++
			continue
		case left == leftIgnored:
			why[d.Path] = ignoredReason
		case !ix.opts.Prune:
			if !ix.under(gone, d.Path) {
				stats.Missing++
				emit(Event{Outcome: Missing, Path: d.Path, Reason: missingReason})
			}
			continue
		}
		batch, size = append(batch, d), size+d.Size
		if len(batch) == removeBatchSize || size >= removeBatchBytes {
			flush()
		}
	}
	flush()
	if err := ctx.Err(); err != nil && (ix.opts.Prune || ix.opts.PruneIgnored) {
		*errs = append(*errs, fmt.Errorf("prune: %w", err)) // interrupted: what is left stays
	}
}

// missingReason is the reason of a [Missing] event.
const missingReason = "its file is gone; still indexed (cite index --prune or cite rm removes it)"

// ignoredReason is the reason of a [Pruned] event of a document whose file
// is ignored now.
const ignoredReason = "its file is ignored (ignore files, --exclude, a saved page's _files)"

// left is why a document under the paths walked was not found.
type left int

const (
	leftGone    left = iota // its file is gone
	leftIgnored             // its file is there, left out by ignore files or Options.Exclude
)

// missing yields the documents of existing under names that the walk did
// not find, whose files are gone or ignored now (f; nil: nothing is). Those
// whose files are still there otherwise (outside the walk, hidden,
// unreadable) are kept and not yielded.
func (ix *Indexer) missing(names []string, existing []index.Stamp, seen map[string]bool, f *filter) iter.Seq2[index.Stamp, left] {
	return func(yield func(index.Stamp, left) bool) {
		for _, d := range existing {
			if seen[d.Path] || !ix.covers(names, d.Path) {
				continue
			}
			name := strings.TrimPrefix(d.Path, ix.prefix)
			why := leftGone
			// A folder at the path now (a file replaced by a folder of its
			// name, a branch checked out), or a file where a folder of the
			// path was, is not the document's file: it is gone.
			if fi, err := fs.Stat(ix.fsys, name); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) && (err != nil || !fi.IsDir()) {
				if !ix.ignoredDoc(f, names, name) {
					continue // still there (outside the walk, hidden, or unreadable): keep it
				}
				why = leftIgnored
			}
			if !yield(d, why) {
				return
			}
		}
	}
}

// ignoredDoc reports whether f leaves out the file name, found under
// names, judged from the folder of each name it lies under: the walk of
// every one of them leaves it out (a walk that does not, but did not find
// it, passed it over for another reason: hidden, or Options.Skip).
func (ix *Indexer) ignoredDoc(f *filter, names []string, name string) bool {
	if f == nil {
		return false
	}
	covered := false
	for _, n := range names {
		if !ix.coversOne(n, ix.storedPath(name)) {
			continue
		}
		if hasMeta(n) {
			n = globBase(n)
		}
		b, explicit := f.base(n)
		if explicit && name == n {
			return false // a file named: indexed even if ignored
		}
		// Under a root (Options.Roots), judged from the deepest one, as
		// the root's walk, and a watcher's filter, judge it: a folder a
		// root's rules ignore may be a root itself (cite index --watch .
		// notes, with notes/ in ./.gitignore).
		if r, exp := f.base(name); !exp {
			b = r
		} else if slices.Contains(f.roots, name) {
			return false // a root: named
		}
		if !f.tree(b).ignored(name, false) {
			return false
		}
		covered = true
	}
	return covered // no names: nothing was walked to judge from
}

// filter returns the run's filter of ignore files and Options.Exclude, nil
// if it has nothing to leave out; its warnings go to OnWarning, each once,
// under mu.
func (ix *Indexer) filter(mu *sync.Mutex) *filter {
	if ix.opts.NoIgnore && len(ix.opts.Exclude) == 0 {
		return nil
	}
	return &filter{
		fsys: ix.fsys, readFiles: !ix.opts.NoIgnore, exclude: compileExclude(ix.opts.Exclude), roots: ix.roots,
		global: ix.global, trees: map[string]*tree{},
		warn: func(name string, err error) {
			p := ix.storedPath(name)
			ix.warnMu.Lock()
			key := p + "\x00" + err.Error()
			seen := ix.warned[key]
			ix.warned[key] = true
			ix.warnMu.Unlock()
			if seen || ix.opts.OnWarning == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ix.opts.OnWarning(p, err)
		},
	}
}

// under reports whether stored path p is one of paths or lies under one.
func (ix *Indexer) under(paths []string, p string) bool {
	for _, q := range paths {
		if p == q || strings.HasPrefix(p, strings.TrimSuffix(q, "/")+"/") {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func themIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// stampPaths returns the stored paths at or under which the documents of
// the walked names lie, for [index.Store.Stamps]: a pattern's folder before
// its first wildcard; "" (all) for no names.
func (ix *Indexer) stampPaths(names []string) []string {
	if len(names) == 0 {
		return []string{""}
	}
	paths := make([]string, 0, len(names))
	for _, n := range names {
		if hasMeta(n) {
			n = n[:strings.IndexAny(n, metaChars)]
			n = n[:strings.LastIndex(n, "/")+1] // its folder, with its "/"
			if n == "" {
				n = "."
			}
		}
		if n == "." {
			paths = append(paths, ix.prefix) // "/" or "": every path
			continue
		}
		paths = append(paths, ix.storedPath(n))
	}
	return paths
}

// countUnder returns how many documents of existing lie at or under the
// stored path p.
func (ix *Indexer) countUnder(p string, existing []index.Stamp) int {
	n := 0
	for _, d := range existing {
		if ix.under([]string{p}, d.Path) {
			n++
		}
	}
	return n
}

// covers reports whether stored path p lies under one of the walked names.
func (ix *Indexer) covers(names []string, p string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if ix.coversOne(n, p) {
			return true
		}
	}
	return false
}

// coversOne reports whether stored path p is name n, lies under it, or
// matches it (a pattern).
func (ix *Indexer) coversOne(n, p string) bool {
	name := strings.TrimPrefix(p, ix.prefix)
	if n == "." || name == n || strings.HasPrefix(name, n+"/") {
		return true
	}
	if hasMeta(n) {
		ok, _ := doublestar.Match(n, name)
		return ok
	}
	return false
}
