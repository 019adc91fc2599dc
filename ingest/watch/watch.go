// Package watch keeps the index in sync with folders: an event loop over
// fsnotify that only decides which paths changed, and hands them, debounced,
// to the same [ingest.Indexer] a normal cite index runs. The indexer is
// incremental (an unchanged file costs a stat and a hash) and writes each
// document's new chunks in one transaction, so a file saved again, or
// replaced by an editor's rename of a temporary file over it, is never
// missing from search; with [ingest.Options.Prune] it removes the documents
// of files that are gone.
//
// It imports ingest and index; it is the only home of
// github.com/fsnotify/fsnotify.
//
// Folders the indexer's walks leave out (its ignore files and exclude
// globs, when it is a [Filterer]) are not watched, so that a node_modules
// of thousands of folders costs no watches; a change to an ignore file
// that applies (in a watched folder, above a root in its git work tree,
// .git/info/exclude, or git's global excludes file) watches again what it no longer leaves out. When
// the event queue overflows, the folders made or removed meanwhile are
// found by a walk.
//
// Where the system's limit on watches is reached (Linux inotify's
// fs.inotify.max_user_watches), [Watcher] says so once, with the sysctl that
// raises it, and polls the folders it could not watch: a walk comparing
// sizes and modification times every [Options.PollInterval].
package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cite-rag/cite/ingest"
)

// Defaults of [Options].
const (
	DefaultQuiet        = 300 * time.Millisecond
	DefaultMaxDelay     = 2 * time.Second
	DefaultPollInterval = 2 * time.Second
)

// flushGroup is how many changed paths one indexing call takes: a signal
// waits for at most this many paths (a folder counts as one) to be indexed.
const flushGroup = 16

// LimitHint is what the watcher says, once, when the system's watch limit is
// reached.
const LimitHint = "the system's limit on watched folders is reached (inotify's fs.inotify.max_user_watches); " +
	"polling the folders not watched every %s instead; raise the limit with: sudo sysctl fs.inotify.max_user_watches=524288"

// GoneHint is what the watcher says when a folder it was given is removed
// or moved away; BackHint when it is back.
const (
	GoneHint = "watch: %s was removed or moved away: its documents leave the index; it is watched again if it comes back"
	BackHint = "watch: %s is back: watching it again"
)

// Indexer indexes paths: [ingest.Indexer] with Prune set, and Roots set to
// the watched paths, so that a changed file below one that its ignore files
// leave out stays out.
//
// An Indexer that is also a [Filterer] (as [ingest.Indexer] is) has the
// folders it leaves out (ignore files, exclude globs) left unwatched:
// their changes cost no watch and no event.
type Indexer interface {
	Index(ctx context.Context, paths ...string) (ingest.Stats, error)
}

// Filterer is an [Indexer] that says which paths its walks leave out.
// Filter is called again whenever an ignore file that applies changes.
type Filterer interface {
	Filter() *ingest.Filter
}

var (
	_ Indexer  = (*ingest.Indexer)(nil)
	_ Filterer = (*ingest.Indexer)(nil)
)

// Options configure a [Watcher].
type Options struct {
	// Indexer brings the index up to date with the changed paths; it
	// should prune (ingest.Options.Prune), so that deleted files leave the
	// index, and prune ignored files (ingest.Options.PruneIgnored), so
	// that the files an ignore file's change leaves out do too: their
	// folders are no longer watched, and documents kept from them would
	// go stale.
	Indexer Indexer
	// Lock, if set, is taken around each indexing call and released after
	// it (index.LockWriter), so that uploads and other writers interleave
	// with the watcher.
	Lock func(ctx context.Context) (unlock func() error, err error)
	// Ignore lists folders whose contents are never indexed (the index
	// folder), as absolute paths.
	Ignore []string
	// Quiet is how long no event may arrive before the changes are indexed;
	// 0 means DefaultQuiet.
	Quiet time.Duration
	// MaxDelay bounds how long a change waits while events keep coming;
	// 0 means DefaultMaxDelay.
	MaxDelay time.Duration
	// PollInterval is how often folders that could not be watched are
	// walked; 0 means DefaultPollInterval.
	PollInterval time.Duration
	// OnBatch, if set, is called after each indexing call with the paths it
	// was given, its stats and its error (files that vanished before they
	// were indexed are not errors).
	OnBatch func(paths []string, stats ingest.Stats, err error)
	// Logger says when the watch limit is reached; nil means slog.Default().
	Logger *slog.Logger

	// add replaces fsnotify's Add in tests, to inject its failures.
	add func(w *fsnotify.Watcher, dir string) error
}

// Watcher watches folders and files and indexes what changes in them.
type Watcher struct {
	opts    Options
	roots   []string        // absolute
	dirs    map[string]bool // the roots that are folders
	gone    map[string]bool // root folders removed or moved away, looked for again every PollInterval
	fsw     *fsnotify.Watcher
	watched map[string]bool // folders watched through fsnotify
	polled  map[string]bool // folders walked instead (limit reached)
	snap    map[string]stamp
	links   map[string]map[string]bool // a symbolic link's target (each hop) → the links under the roots to it
	warned  bool
	pending map[string]time.Time // the paths to index, with when each last changed
	filter  *ingest.Filter       // the indexer's (nil: it leaves out nothing), made again when rules change
	rules   map[string][]string  // an ignore file outside the roots (above one, .git/info/exclude) → the roots it rules
	count   atomic.Int64         // len(watched), for Watches
	first   time.Time            // of the oldest pending change
	last    time.Time            // of the newest event
	// writing holds, for each pending document a reader reads whole (a
	// PDF), when its changes began and when the last one came: one still
	// being written when MaxDelay is up waits until it is quiet.
	writing map[string]writes
}

// writes are the times of a pending document's changes.
type writes struct{ first, last time.Time }

// maxWriting bounds how long a document that keeps changing waits to be
// indexed (a file written for longer is indexed as it is, every MaxDelay).
const maxWriting = 30 * time.Second

// stamp is what polling compares.
type stamp struct {
	size  int64
	mtime time.Time
	dir   bool
}

// New returns a watcher of paths (folders, watched recursively, and
// files). Run starts it.
func New(paths []string, opts Options) (*Watcher, error) {
	if opts.Indexer == nil {
		return nil, errors.New("watch: no indexer")
	}
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.add == nil {
		opts.add = func(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }
	}
	w := &Watcher{opts: opts, watched: map[string]bool{}, polled: map[string]bool{}, snap: map[string]stamp{},
		links: map[string]map[string]bool{}, pending: map[string]time.Time{}, dirs: map[string]bool{}, gone: map[string]bool{},
		writing: map[string]writes{}, rules: map[string][]string{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", p, err)
		}
		w.roots = append(w.roots, abs)
	}
	return w, nil
}

// Open starts watching: changes from then on are queued for [Watcher.Run].
// Callers open the watcher before the first full indexing pass, so that no
// change made during it is missed. Close releases the watches.
func (w *Watcher) Open() error {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	w.fsw = fsw
	w.refilter()
	for _, r := range w.roots {
		fi, err := os.Stat(r)
		if err != nil {
			fsw.Close()
			return fmt.Errorf("watch %s: %w", r, err)
		}
		if fi.IsDir() {
			w.dirs[r] = true
			w.addTree(r, false)
			w.watchRules(r)
		} else {
			// A file is watched through its folder, whose other files are
			// left out (ignored).
			w.addDir(filepath.Dir(r))
		}
	}
	return nil
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fsw.Close() }

// Watches returns how many folders are watched through the system's
// watches (inotify's count against fs.inotify.max_user_watches): those
// under the roots that are not left out, and the folders of the ignore
// files that rule them from outside. It may be called while Run runs.
func (w *Watcher) Watches() int { return int(w.count.Load()) }

// refilter asks the indexer, if it is a [Filterer], for a new filter,
// which reads the ignore files afresh.
func (w *Watcher) refilter() {
	if f, ok := w.opts.Indexer.(Filterer); ok {
		w.filter = f.Filter()
	}
}

// leftOut reports whether p, under a root, is left out: hidden, an
// editor's temporary file, in the index folder, or left out by the
// indexer's ignore files and exclude globs.
func (w *Watcher) leftOut(p string, isDir bool) bool {
	return w.ignored(p) || w.filter != nil && w.filter.Ignored(p, isDir)
}

// watchRules watches the folders of the ignore files outside root folder
// r whose rules apply in it (those above it in its git work tree, and
// .git/info/exclude), so that a change to one is walked again as a change
// to an ignore file in r is. A folder that is not there (a repository
// without .git/info) is not watched: a change there is seen at the next
// run.
func (w *Watcher) watchRules(r string) {
	if w.filter == nil {
		return
	}
	for _, f := range w.filter.RuleFiles(r) {
		if !slices.Contains(w.rules[f], r) {
			w.rules[f] = append(w.rules[f], r)
		}
		if fi, err := os.Stat(filepath.Dir(f)); err == nil && fi.IsDir() {
			w.addDir(filepath.Dir(f))
		}
	}
}

// rescan brings the watches under folder dir in line with its ignore
// files, one of which changed (or with those above a root, for a root),
// and with the folders there (events were lost): folders left out now, or
// gone, are no longer watched, folders no longer left out, or made
// meanwhile, are, and dir is marked, so that the indexer walks it again
// under the new rules.
func (w *Watcher) rescan(dir string) {
	w.refilter()
	prefix := dir + string(filepath.Separator)
	for _, m := range []map[string]bool{w.watched, w.polled} {
		for d := range m {
			if !strings.HasPrefix(d, prefix) || !m[d] || w.rulesDir(d) {
				continue
			}
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() || w.leftOut(d, true) {
				w.forget(d)
			}
		}
	}
	w.addTree(dir, false)
	for l := range w.linked() {
		w.link(l) // a target's folder may have been left
	}
	w.mark(dir)
}

// rulesDir reports whether d is watched for the ignore files in it that
// rule a root from outside (a root's .git/info).
func (w *Watcher) rulesDir(d string) bool {
	for f := range w.rules {
		if filepath.Dir(f) == d {
			return true
		}
	}
	return false
}

// linked returns the symbolic links recorded.
func (w *Watcher) linked() map[string]bool {
	ls := map[string]bool{}
	for _, m := range w.links {
		for l := range m {
			ls[l] = true
		}
	}
	return ls
}

// Run indexes changes as they come until ctx is done, and returns nil then.
// A signal (ctx done) lets the indexing call under way finish. Open must
// have been called.
func (w *Watcher) Run(ctx context.Context) error {
	// fsnotify's reader holds its lock while it hands over an event or an
	// error, and Add and Remove take that lock: the loop below, which adds
	// and removes watches, must not be the one that receives from it. A
	// pump keeps its queue (unbounded) moving.
	var mu sync.Mutex
	var queue []fsnotify.Event
	var errs []error
	ready := make(chan struct{}, 1)
	pumpDone := make(chan struct{})
	pctx, stopPump := context.WithCancel(ctx)
	defer func() { stopPump(); <-pumpDone }()
	go func() {
		defer close(pumpDone)
		for {
			select {
			case <-pctx.Done():
				return
			case ev, ok := <-w.fsw.Events:
				if !ok {
					return
				}
				mu.Lock()
				queue = append(queue, ev)
				mu.Unlock()
			case err, ok := <-w.fsw.Errors:
				if !ok {
					return
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	}()
	poll := time.NewTicker(w.opts.PollInterval)
	defer poll.Stop()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ready:
			mu.Lock()
			evs, es := queue, errs
			queue, errs = nil, nil
			mu.Unlock()
			for _, err := range es {
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					// Events were lost: look at everything again,
					// and watch the folders made meanwhile.
					w.opts.Logger.Warn("watch: the event queue overflowed; checking every watched path again")
					for _, r := range w.roots {
						if w.dirs[r] && !w.gone[r] {
							w.rescan(r)
						} else {
							w.mark(r)
						}
					}
					continue
				}
				w.opts.Logger.Warn("watch", "err", err)
			}
			for _, ev := range evs {
				w.event(ev)
			}
		case <-poll.C:
			if len(w.polled) > 0 {
				w.pollOnce()
			}
			if len(w.gone) > 0 {
				w.returned()
			}
		case <-timer.C:
		}
		if len(w.pending) == 0 {
			continue
		}
		now := time.Now()
		due := w.last.Add(w.opts.Quiet)
		if limit := w.first.Add(w.opts.MaxDelay); limit.Before(due) {
			due = limit
		}
		if now.Before(due) {
			timer.Reset(due.Sub(now))
			continue
		}
		w.flush(ctx)
	}
}

// event records one fsnotify event.
func (w *Watcher) event(ev fsnotify.Event) {
	p := ev.Name
	if rs := w.rules[p]; ev.Op != fsnotify.Chmod && len(rs) > 0 {
		// An ignore file above a root, or .git/info/exclude, changed:
		// the roots it rules are walked again.
		for _, r := range rs {
			if !w.gone[r] {
				w.rescan(r)
			}
		}
		return
	}
	if dir := filepath.Dir(p); ev.Op != fsnotify.Chmod && IgnoreFile(filepath.Base(p)) && !w.leftOut(dir, true) && (w.watched[dir] || w.polled[dir]) {
		// An ignore file changed: its folder is walked again under the
		// new rules (files no longer ignored are added; those ignored now
		// leave the index only if the indexer prunes them), and the
		// folders below it it leaves out now are no longer watched.
		w.rescan(dir)
		return
	}
	if w.ignored(p) {
		if ev.Op != fsnotify.Chmod {
			w.markLinks(p) // the target of a link, outside the roots
		}
		return
	}
	if w.filter != nil && (ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		// A file the indexer leaves out (a log its ignore files name,
		// written on and on) costs no indexing call; a folder it leaves
		// out is not watched. Its removal is marked: a document kept
		// from before it was ignored is pruned.
		if fi, err := os.Lstat(p); err == nil && w.filter.Ignored(p, fi.IsDir()) {
			w.markLinks(p) // a link's target, in an ignored folder
			return
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			// A new folder: its files may have been made before its
			// watch, so the folder itself is indexed.
			w.addTree(p, true)
		} else if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			w.link(p)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.watched[p] || w.polled[p] {
			// The filter keeps the rules it read under p: a folder
			// moved in at p later has its own.
			w.refilter()
		}
		w.forget(p)
		w.unlink(p)
		if w.dirs[p] && !w.gone[p] {
			if _, err := os.Stat(p); err != nil {
				w.gone[p] = true
				w.opts.Logger.Warn(fmt.Sprintf(GoneHint, p))
			}
		}
	}
	if ev.Op == fsnotify.Chmod {
		return // permissions or times only; a real edit also writes
	}
	w.mark(p)
}

// mark adds p to the paths to index, and the links to p.
func (w *Watcher) mark(p string) {
	now := time.Now()
	if len(w.pending) == 0 {
		w.first = now
	}
	w.last = now
	w.pending[p] = now
	if ingest.IsDocumentName(p) {
		wr := w.writing[p]
		if wr.first.IsZero() {
			wr.first = now
		}
		wr.last = now
		w.writing[p] = wr
	}
	w.markLinks(p)
}

// markLinks adds the symbolic links to p to the paths to index: a link to
// a file is indexed under its own name with its target's text, which an
// edit of the target changes without an event for the link.
func (w *Watcher) markLinks(p string) {
	for l := range w.links[p] {
		if _, ok := w.pending[l]; !ok {
			w.mark(l)
		}
	}
}

// maxHops bounds how far a chain of links is followed.
const maxHops = 8

// link records the symbolic link l (under a root) by the paths it leads
// through, each hop's name as the link spells it, so that events on them
// (which name the paths as they are watched) mark it. A target outside the
// roots has its folder watched, its other files ignored.
func (w *Watcher) link(l string) {
	p := l
	for range maxHops {
		dest, err := os.Readlink(p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = filepath.Clean(dest)
		if w.links[p] == nil {
			w.links[p] = map[string]bool{}
		}
		w.links[p][l] = true
		if w.ignored(p) || w.filter != nil && w.filter.Ignored(p, false) {
			w.addDir(filepath.Dir(p))
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return
		}
	}
}

// unlink forgets the symbolic link l, removed or renamed away.
func (w *Watcher) unlink(l string) {
	for t, ls := range w.links {
		delete(ls, l)
		if len(ls) == 0 {
			delete(w.links, t)
		}
	}
}

// returned watches again the root folders that were removed and are back,
// and indexes what they hold.
func (w *Watcher) returned() {
	for r := range w.gone {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			delete(w.gone, r)
			w.opts.Logger.Warn(fmt.Sprintf(BackHint, r))
			w.addTree(r, true)
			w.watchRules(r)
			w.mark(r)
		}
	}
}

// forget stops watching folder p and everything under it (it was removed or
// renamed away; a renamed folder reappears as a Create at its new name).
func (w *Watcher) forget(p string) {
	prefix := p + string(filepath.Separator)
	for d := range w.watched {
		if d == p || strings.HasPrefix(d, prefix) {
			w.fsw.Remove(d) // fails if the kernel already dropped it
			delete(w.watched, d)
			w.count.Add(-1)
		}
	}
	for d := range w.polled {
		if d == p || strings.HasPrefix(d, prefix) {
			delete(w.polled, d)
		}
	}
}

// addTree watches folder dir and the folders under it, leaving out those
// left out (hidden, ignored, excluded). With mark, the files found are
// marked as changed too (they may have been made before their folder was
// watched).
func (w *Watcher) addTree(dir string, mark bool) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone or unreadable: the indexer says which
		}
		if p != dir && (w.ignored(p) || d.IsDir() && w.filter != nil && w.filter.Ignored(p, true)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if d.Type()&fs.ModeSymlink != 0 {
				w.link(p)
			}
			if mark {
				w.mark(p)
			}
			return nil
		}
		w.addDir(p)
		return nil
	})
}

// addDir watches one folder, or polls it when the watch limit is reached.
func (w *Watcher) addDir(dir string) {
	if w.watched[dir] || w.polled[dir] {
		return
	}
	err := w.opts.add(w.fsw, dir)
	switch {
	case err == nil:
		w.watched[dir] = true
		w.count.Add(1)
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE):
		if !w.warned {
			w.warned = true
			w.opts.Logger.Warn(fmt.Sprintf(LimitHint, w.opts.PollInterval))
		}
		w.polled[dir] = true
		w.stampDir(dir, w.snap)
	default:
		// Unreadable (permissions) or gone: the indexer reports the files.
		w.opts.Logger.Warn("watch: cannot watch folder", "path", dir, "err", err)
	}
}

// stampDir records the entries of folder dir in snap: those not left out,
// and its ignore files, whose change is walked again, unless dir is only
// a watched file's folder.
func (w *Watcher) stampDir(dir string, snap map[string]stamp) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	rules := !w.ignored(dir) // its ignore files count (not a watched file's folder)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if w.ignored(p) && !(rules && IgnoreFile(e.Name())) || e.IsDir() && w.filter != nil && w.filter.Ignored(p, true) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		snap[p] = stamp{size: fi.Size(), mtime: fi.ModTime(), dir: fi.IsDir()}
	}
}

// pollOnce walks the polled folders and marks what changed since the last
// walk: new, changed and removed entries. A new folder under a polled one
// is watched (or polled) from then on.
func (w *Watcher) pollOnce() {
	dirs := make([]string, 0, len(w.polled))
	for d := range w.polled {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		if !w.polled[dir] {
			continue // left out since (its rules changed)
		}
		now := map[string]stamp{}
		w.stampDir(dir, now)
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			delete(w.polled, dir)
			w.mark(dir)
		}
		prefix := dir + string(filepath.Separator)
		for p, old := range w.snap {
			if !strings.HasPrefix(p, prefix) || strings.ContainsRune(p[len(prefix):], filepath.Separator) {
				continue // not an entry of dir
			}
			if _, ok := now[p]; !ok {
				delete(w.snap, p)
				w.forget(p)
				if IgnoreFile(filepath.Base(p)) {
					w.rescan(dir)
				} else {
					w.mark(p)
				}
				_ = old
			}
		}
		for p, s := range now {
			old, ok := w.snap[p]
			w.snap[p] = s
			switch {
			case IgnoreFile(filepath.Base(p)):
				if !ok || old != s {
					w.rescan(dir)
				}
			case !ok && s.dir:
				w.addTree(p, true)
			case ok && s.dir:
				// A folder's own times change with its entries, which
				// are looked at themselves.
			case !ok || old != s:
				w.mark(p)
			}
		}
	}
}

// ignored reports whether p is left out: under an ignored folder, hidden
// (a name starting with a dot below a root), an editor's temporary file,
// or, next to a watched file, another file of its folder.
func (w *Watcher) ignored(p string) bool {
	for _, ig := range w.opts.Ignore {
		if p == ig || strings.HasPrefix(p, ig+string(filepath.Separator)) {
			return true
		}
	}
	for _, r := range w.roots {
		if p == r {
			return false
		}
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			if strings.HasPrefix(c, ".") {
				return true
			}
		}
		return Temporary(filepath.Base(p))
	}
	return true // not under a root: another file of a watched file's folder
}

// IgnoreFile reports whether a file's name is that of an ignore file
// (.gitignore, .ignore), whose change changes what is indexed in its
// folder.
func IgnoreFile(name string) bool { return name == ".gitignore" || name == ".ignore" }

// Skip is [ingest.Options.Skip] for a watched folder: it leaves out
// editors' temporary files ([Temporary]).
func Skip(path string) bool { return Temporary(filepath.Base(path)) }

// Temporary reports whether a file's name is one editors and downloaders
// give their temporary files: backups (name~), Emacs' lock and autosave
// files (.#name, #name#), Microsoft Office's owner files (~$name.docx,
// which say who has a document open), Vim's swap files and its write test (4913),
// GNOME's .goutputstream-*, JetBrains' ___jb_tmp___, and *.tmp, *.temp,
// *.part and *.crdownload.
func Temporary(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(name, "~"),
		strings.HasPrefix(name, ".#"),
		strings.HasPrefix(name, "~$"), // Microsoft Office's owner file of a document open: ~$report.docx
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"),
		name == "4913",
		strings.HasPrefix(name, ".goutputstream-"),
		strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"):
		return true
	}
	for _, ext := range []string{".swp", ".swo", ".swx", ".tmp", ".temp", ".part", ".crdownload"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// flush indexes the pending paths, a group at a time. Each call runs to its
// end even if ctx is done (a signal), so that the files under way are
// written; the groups after it are left for the next run, whose first pass
// finds them.
func (w *Watcher) flush(ctx context.Context) {
	paths := make([]string, 0, len(w.pending))
	now := time.Now()
	for p, at := range w.pending {
		// A PDF still being written (copied, downloaded) when MaxDelay
		// is up would be read cut short and reported damaged: it waits
		// until its writes are quiet, up to maxWriting.
		if wr, ok := w.writing[p]; ok && now.Sub(wr.last) < w.opts.Quiet && now.Sub(wr.first) < maxWriting {
			continue
		}
		// A path removed or renamed away just now, when MaxDelay is up,
		// waits for the next batch: the other half of a rename, its new
		// path, comes the next moment, and the two go together, so that
		// the new path copies the document before it is pruned.
		if now.Sub(at) < w.opts.Quiet && goneRank(p) == 1 {
			continue
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		delete(w.pending, p)
		delete(w.writing, p)
	}
	if len(w.pending) > 0 {
		w.first = now // those left wait for their quiet, or the next MaxDelay
	}
	slices.Sort(paths)
	// A path under another pending one is indexed with it.
	kept := paths[:0]
	for _, p := range paths {
		if n := len(kept); n > 0 && strings.HasPrefix(p, kept[n-1]+string(filepath.Separator)) {
			continue
		}
		kept = append(kept, p)
	}
	// Paths that are gone go after those that are there: a file renamed
	// or moved (gone at its old path, new at the other) is copied from its
	// document at the old path, chunks and vectors, instead of being read
	// and embedded again (ingest copies from a document of the same
	// content), and that document is pruned by the group of its path. In
	// one group, pruning comes last; across groups, the old path's must
	// not come first.
	slices.SortStableFunc(kept, func(a, b string) int { return cmp.Compare(goneRank(a), goneRank(b)) })
	for len(kept) > 0 && ctx.Err() == nil {
		n := min(len(kept), flushGroup)
		w.index(ctx, kept[:n])
		kept = kept[n:]
	}
}

// goneRank returns 1 if nothing is at p (it was removed or moved away), else 0.
func goneRank(p string) int {
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return 1
	}
	return 0
}

// index runs the indexer on paths, under the lock.
func (w *Watcher) index(ctx context.Context, paths []string) {
	run := context.WithoutCancel(ctx)
	if w.opts.Lock != nil {
		unlock, err := w.opts.Lock(ctx)
		if err != nil {
			if ctx.Err() == nil && w.opts.OnBatch != nil {
				w.opts.OnBatch(paths, ingest.Stats{}, err)
			}
			return
		}
		defer unlock()
	}
	stats, err := w.opts.Indexer.Index(run, paths...)
	if w.opts.OnBatch != nil {
		w.opts.OnBatch(paths, stats, vanished(err))
	}
}

// vanished drops from err the paths that do not exist: files made and
// removed again before they were indexed (a gone file the index had is
// pruned, not an error).
func vanished(err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var kept []error
	for _, e := range errs {
		var pe *ingest.PathError
		if errors.As(e, &pe) && errors.Is(e, fs.ErrNotExist) {
			continue
		}
		kept = append(kept, e)
	}
	return errors.Join(kept...)
}
