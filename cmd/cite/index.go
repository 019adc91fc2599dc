package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	sessions "github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/ingest/watch"
	"github.com/cite-rag/cite/normalize/pdf"
	"golang.org/x/term"
)

func runIndex(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "index", "PATH...", `Index files, folders (recursively) and glob patterns (** matches any depth).
Markdown, HTML and text files, PDF, Word (.docx), OpenDocument (.odt, .ods),
EPUB, PowerPoint (.pptx), Excel (.xlsx), web pages saved as one file (.mhtml,
.mht) and pictures of pages (PNG, JPEG, TIFF, GIF, BMP, WebP: by OCR with
tesseract, see --ocr) are read, normalized, cut into chunks of at most
--chunk-size o200k_base tokens and stored. Unchanged files are skipped; changed
files have their chunks replaced. Other binary files, empty files, text that is
not UTF-8 (but UTF-16 with its byte-order mark, and windows-1252 or Latin-1)
and oversized files are skipped with a reason. Exit status 1 if any file or path failed, or if
no document could be indexed from the PATHs (every file skipped, or none
found); files unchanged since the last run count as indexed.

Walking a folder leaves out hidden files and folders (names starting with a
dot), what the .gitignore and .ignore files of the folder and its subfolders
ignore (git's syntax; .ignore wins) and, in a git work tree, what those of
the folders above it up to the work tree's top, .git/info/exclude and git's
global excludes file (core.excludesFile, else ~/.config/git/ignore) ignore,
the NAME_files folder a browser saves beside a page NAME.html (--no-ignore
reads no ignore files and walks those folders), and what matches an --exclude glob: with a "/"
(or starting "./") it is matched against the path from the PATH (for a glob
PATH, from its folder before the first wildcard), without one against the
name at any depth ('drafts', '*.tmp'); ending in "/" it matches folders only.
A file named as a PATH is indexed even if ignored. Documents under the PATHs
indexed before whose files are ignored now leave the index, said as pruned
(an ignore file's change does the same while --watch watches); documents of
files deleted are kept, and said missing, unless --prune is given.`, true)
	source := f.String("source", index.DefaultSource, "data source (named collection) to index into")
	prune := f.Bool("prune", false, "remove documents under PATHs (all, with no PATH) whose files are gone (those ignored now are removed without it)")
	keepBoilerplate := f.Bool("keep-boilerplate", false, "read web pages (.html, .mhtml) whole, their menus, banners, footers, sidebars and hidden elements included, not their content alone")
	noIgnore := f.Bool("no-ignore", false, "do not read .gitignore, .ignore and .git/info/exclude files or git's global excludes file, and walk the _files folders of saved web pages")
	var excludes listFlag
	f.Var(&excludes, "exclude", "leave out files and folders matching this `GLOB`: 'drafts', '*.tmp' (a name, any depth), 'docs/old/**' (a path from the PATH) (repeatable)")
	force := f.Bool("force", false, "re-index files even if unchanged")
	maxSize := f.String("max-size", "50MB", "skip files larger than this: 500kB, 50MB, 1GB (SI units: 1MB = 1,000,000 bytes; KiB, MiB, GiB for powers of 1024)")
	workers := f.Int("workers", 0, "files processed at once (default: number of CPUs)")
	ocr := f.String("ocr", "auto", "when PDF pages are read by OCR (tesseract): auto (pages without text, and pictures of pages), always, never (pictures skipped)")
	maxPages := f.Int("max-pages", pdf.DefaultMaxPages, "PDFs and TIFF pictures with more pages are not read: each is skipped, named, with its page count")
	pdfTimeout := f.Duration("pdf-timeout", pdf.DefaultTimeout, "the most time spent reading one PDF")
	size := f.Int("chunk-size", chunk.DefaultSize, "maximum tokens per chunk")
	overlap := f.Int("chunk-overlap", chunk.DefaultOverlap, "tokens shared by consecutive chunks (0 for none)")
	quiet := f.Bool("quiet", false, "print only problems and the summary")
	watching := f.Bool("watch", false, "after indexing, keep watching the PATHs (folders recursively) and index every change within a couple of seconds, until SIGINT or SIGTERM")
	embedder := f.String("embedder", "", "embedder of a new index: hash[:DIM], ollama:MODEL or openai:MODEL (default: the index's, else hash)")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() == 0 && !*prune {
		return f.usageError("index: no PATH given")
	}
	// A run that ends when its files are read leaves a PDF over its time
	// budget behind rather than stop it mid-page, and reads PDFs several
	// times faster for it; --watch runs on, and stops them.
	oneShot := !*watching
	startPDF(&pdf.Reader{Uninterruptible: oneShot}, f.index, *force, f.Args())
	chunk.Preload() // while the index opens; chunk.New below waits for it
	if *watching {
		if err := watchUsage(f.Args()); err != nil {
			return f.usageError("%v", err)
		}
	}
	if *source == "" {
		return f.usageError("--source: want a data source's name (the default is %q)", index.DefaultSource)
	}
	if !sessions.Public.Sees(*source) {
		return f.usageError("--source %s: the names that start with %q are cite serve's sessions'", *source, sessions.Source(""))
	}
	limit, err := ingest.ParseSize(*maxSize)
	if err != nil {
		return f.usageError("--max-size: %v", err)
	}
	// chunk.Options reads 0 as the default and a negative overlap as none:
	// on the command line the flags mean what they say.
	if *size < chunk.MinSize {
		return f.usageError("--chunk-size %d is below the minimum of %d tokens", *size, chunk.MinSize)
	}
	if *overlap < 0 || *overlap >= *size {
		return f.usageError("--chunk-overlap %d: want 0 (none) up to --chunk-size - 1 (%d)", *overlap, *size-1)
	}
	chunkOverlap := *overlap
	if chunkOverlap == 0 {
		chunkOverlap = -1 // chunk.Options: -1 means none, 0 the default
	}
	ocrMode, err := pdf.ParseOCR(*ocr)
	if err != nil {
		return f.usageError("--%v", err)
	}
	if *maxPages < 1 {
		return f.usageError("--max-pages %d: want at least 1", *maxPages)
	}
	if *pdfTimeout <= 0 {
		return f.usageError("--pdf-timeout %v: want a positive duration", *pdfTimeout)
	}
	for _, x := range excludes {
		if err := ingest.CheckExclude(x); err != nil {
			return f.usageError("--exclude %v", err)
		}
	}
	pdfOpts := &pdf.Reader{MaxPages: *maxPages, Timeout: *pdfTimeout, OCR: ocrMode, Uninterruptible: oneShot}
	// One cite index at a time: a second waits, then finds the files the
	// first indexed unchanged.
	if err := f.belowAnIndex(); err != nil {
		return err
	}
	unlock, err := lockIndex(ctx, e, f.index)
	if err != nil {
		return err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	st, err := f.openIndex(ctx, createIndex)
	if err != nil {
		return err
	}
	defer st.Close()

	emb, err := indexEmbedder(ctx, e, st, *embedder)
	if err != nil {
		if *embedder != "" {
			return f.usageError("--embedder: %v", err)
		}
		return err
	}
	sp, err := chunk.New(chunk.Options{Size: *size, Overlap: chunkOverlap})
	if err != nil {
		if errors.Is(err, chunk.ErrOptions) {
			return f.usageError("%v", err)
		}
		return err
	}
	out := newProgress(e.stderr, *quiet || f.json)
	var problems []problem
	watched := false // the first pass is done: say what changes
	opts := ingest.Options{
		Source: *source, Prune: *prune, Force: *force, MaxSize: limit, Workers: *workers, Splitter: sp, Embedder: emb,
		Readers: documentReaders(pdfOpts), NoIgnore: *noIgnore, Exclude: excludes, PruneIgnored: true,
		GitExcludes:     ingest.GitExcludes(e.getenv),
		KeepBoilerplate: *keepBoilerplate,
		OnWarning: func(p string, err error) {
			problems = append(problems, problem{index.EscapePath(p), "warning", err.Error()})
			out.line(fmt.Sprintf("warning %s: %v", displayPath(p), err))
		},
		OnEvent: func(ev ingest.Event) {
			if ev.Warning != nil {
				out.line(fmt.Sprintf("warning %s: %v", displayPath(ev.Path), ev.Warning))
			}
			// A file skipped for having no text gives its notes as its
			// reason: said once; a copy's are not said again.
			for _, n := range ev.Notes {
				if ev.Outcome == ingest.Skipped || ev.From != "" {
					break // a copy's were said when its bytes were read
				}
				out.line(fmt.Sprintf("note %s: %s", displayPath(ev.Path), shown(n)))
			}
			switch ev.Outcome {
			case ingest.Skipped, ingest.Failed:
				reason := ev.Reason
				if ev.Err != nil {
					reason = strings.TrimPrefix(ev.Err.Error(), index.EscapePath(ev.Path)+": ")
				}
				problems = append(problems, problem{index.EscapePath(ev.Path), ev.Outcome.String(), reason})
				out.line(fmt.Sprintf("%-7s %s: %s", ev.Outcome, displayPath(ev.Path), reason))
			case ingest.Pruned:
				line := "pruned  " + displayPath(ev.Path)
				if ev.Reason != "" { // ignored now, not gone
					line += ": " + ev.Reason
				}
				out.line(line)
			case ingest.Missing:
				problems = append(problems, problem{index.EscapePath(ev.Path), ev.Outcome.String(), ev.Reason})
				out.line(fmt.Sprintf("%-7s %s: %s", ev.Outcome, displayPath(ev.Path), ev.Reason))
			case ingest.Gone:
				out.line(fmt.Sprintf("%-7s %s: %s", ev.Outcome, displayPath(ev.Path), ev.Reason))
			case ingest.Added, ingest.Updated:
				if watched {
					line := fmt.Sprintf("%-7s %s", ev.Outcome, displayPath(ev.Path))
					if ev.From != "" {
						line += " (copied from " + displayPath(ev.From) + ")"
					}
					out.line(line)
				}
			}
			if !watched {
				out.update(ev.Stats, ev.Path)
			}
		},
	}
	if *keepBoilerplate {
		opts.Readers = wholePages(opts.Readers)
	}
	if *watching {
		// Editors' temporary files, as the watcher; and the files this
		// run's output goes to (cite index --watch . > watch.log), which
		// it would index again after each line it wrote there.
		own := ownOutput(e)
		opts.Skip = func(p string) bool { return watch.Skip(p) || own[p] }
		// A changed path below a PATH is judged by the ignore files as
		// the PATH's walk would judge it, not as a file named.
		opts.Roots = f.Args()
	}
	ix, err := ingest.New(ctx, st, opts)
	if err != nil {
		return err
	}
	var w *watch.Watcher
	if *watching {
		// The watcher's changes prune: a document leaves the index when
		// its file is deleted, with or without --prune, which rules the
		// first pass only; and when an ignore file's change leaves its
		// file out (git no longer counts it in the tree), as the first
		// pass does.
		wopts := opts
		wopts.Prune, wopts.PruneIgnored, wopts.Force = true, true, false
		if w, err = openWatch(ctx, st, f.Args(), wopts, e.embedConfig(), func(s string) { out.line(s) }); err != nil {
			return err
		}
		defer w.Close()
	}
	stats, err := ix.Index(ctx, f.Args()...)
	out.done()
	// Files and paths that failed (a PATH that matches nothing is reported
	// like a file) are counted together; the other errors are the run's
	// own (embedding failed, the vector cache was not written) and are
	// printed in full.
	var runErrs []error
	for _, e := range unjoin(err) {
		var pe *ingest.PathError
		if !errors.As(e, &pe) {
			runErrs = append(runErrs, e)
			continue
		}
		if p := index.EscapePath(pe.Path); !isProblem(problems, p) {
			problems = append(problems, problem{p, "failed", pe.Err.Error()})
			out.line(fmt.Sprintf("%-7s %s: %v", "failed", displayPath(pe.Path), pe.Err))
		}
	}
	failed := 0
	for _, p := range problems {
		if p.Outcome == "failed" {
			failed++
		}
	}
	if f.json {
		errTexts := []string{}
		for _, e := range runErrs {
			errTexts = append(errTexts, e.Error())
		}
		if problems == nil {
			problems = []problem{} // an array, as in every --json output
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Index    string    `json:"index"`
			Source   string    `json:"source"`
			Stats    any       `json:"stats"`
			Failed   int       `json:"failed"` // files and paths
			MBPerSec float64   `json:"mb_per_s"`
			Problems []problem `json:"problems"`
			Errors   []string  `json:"errors"`
		}{f.index, *source, stats, failed, stats.MBPerSecond(), problems, errTexts}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s: %d added, %d updated, %d unchanged, %d skipped, %d failed", nof(stats.Seen, "file"), stats.Added, stats.Updated, stats.Unchanged, stats.Skipped, failed)
		if stats.Gone > 0 {
			fmt.Fprintf(e.stdout, ", %d gone (deleted during the run)", stats.Gone)
		}
		switch {
		case *prune && stats.PrunedIgnored > 0:
			fmt.Fprintf(e.stdout, ", %d pruned (%d ignored now)", stats.Pruned, stats.PrunedIgnored)
		case *prune:
			fmt.Fprintf(e.stdout, ", %d pruned", stats.Pruned)
		case stats.PrunedIgnored > 0:
			fmt.Fprintf(e.stdout, ", %d pruned (files ignored now)", stats.PrunedIgnored)
		}
		if stats.Missing > 0 {
			fmt.Fprintf(e.stdout, ", %d missing (files gone, still indexed: --prune removes them)", stats.Missing)
		}
		if stats.Ignored > 0 {
			fmt.Fprintf(e.stdout, ", %d ignored (ignore files, --exclude, saved pages' _files)", stats.Ignored)
		}
		if stats.IgnoredIndexed > 0 {
			fmt.Fprintf(e.stdout, ", %d ignored but still indexed (--prune removes them)", stats.IgnoredIndexed)
		}
		if stats.Copied > 0 {
			fmt.Fprintf(e.stdout, "; %d copied from indexed files with the same content, not read again", stats.Copied)
		}
		if ctx.Err() != nil || stats.Interrupted > 0 {
			fmt.Fprintf(e.stdout, ", interrupted (%d under way)", stats.Interrupted)
		}
		tokens := humanCount(stats.Tokens) + " tokens"
		if stats.Tokens == 1 {
			tokens = "1 token"
		}
		fmt.Fprintf(e.stdout, "\n%s, %s, %s (%s) written", nof(stats.Chunks, "chunk"), tokens, nof(stats.Vectors+stats.CopiedVectors, "vector"), emb.Name())
		if stats.CopiedVectors > 0 {
			fmt.Fprintf(e.stdout, " (%d copied, not embedded)", stats.CopiedVectors)
		}
		if stats.MissingVectors > 0 {
			fmt.Fprintf(e.stdout, ", %d chunks without vectors", stats.MissingVectors)
		}
		fmt.Fprintf(e.stdout, "; %s read in %s (%.1f MB/s) -> %s (source %q)\n",
			ingest.FormatSize(stats.Bytes), stats.Elapsed.Round(time.Millisecond), stats.MBPerSecond(), f.index, *source)
	}
	if w != nil {
		// The first pass's problems are said; watching goes on. A signal
		// during the first pass or later ends the run with status 0.
		if ctx.Err() != nil {
			return nil
		}
		unlock()
		locked = false
		watched = true
		fmt.Fprintf(e.stderr, "watching %s for changes (%s; SIGINT or SIGTERM stops) ...\n", strings.Join(f.Args(), " "), nof(w.Watches(), "folder"))
		return w.Run(ctx)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %d files under way and those not reached are left for the next cite index: %w", stats.Interrupted, err)
	}
	var errs []error
	if failed > 0 {
		errs = append(errs, fmt.Errorf("%d failed", failed))
	}
	if len(runErrs) == 0 {
		// (A run that failed as a whole, on an index it cannot read,
		// found no files because it looked for none.)
		if err := nothingIndexed(f.NArg(), stats, failed, problems); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, runErrs...)...)
}

// ownOutput returns the paths of the regular files the command's standard
// output and error go to, where the system says (Linux's /proc).
func ownOutput(e *env) map[string]bool {
	own := map[string]bool{}
	for fd, w := range map[int]io.Writer{1: e.stdout, 2: e.stderr} {
		f, ok := w.(*os.File)
		if !ok || f.Fd() != uintptr(fd) {
			continue
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil && filepath.IsAbs(p) {
			own[p] = true
		}
	}
	return own
}

// nothingIndexed returns the error of a run given paths that indexed no
// document from them, saying why: no file was found, or every file found
// was skipped (the first reasons are named). A file unchanged since the
// last run counts as indexed (a re-run that finds nothing new succeeds), and
// so does a run that pruned documents; a run where files failed already
// says so.
func nothingIndexed(paths int, stats ingest.Stats, failed int, problems []problem) error {
	if paths == 0 || failed > 0 || stats.Added+stats.Updated+stats.Unchanged+stats.Pruned > 0 {
		return nil
	}
	switch {
	case stats.Seen == 0 && stats.Ignored > 0:
		return fmt.Errorf("nothing indexed: no files found; %d files or folders were left out by ignore files, --exclude or as saved pages' _files folders (--no-ignore reads no ignore files and walks those; folders and files whose name starts with a dot are left out unless named)", stats.Ignored)
	case stats.Seen == 0:
		return errors.New("nothing indexed: no files found (folders and files whose name starts with a dot are left out unless named)")
	case stats.Skipped == 0:
		return fmt.Errorf("nothing indexed: the %d files found were deleted during the run", stats.Seen)
	}
	// The reasons by kind ("binary file" for "binary file (binary); cite
	// reads ..."), in alphabetical order.
	var kinds []string
	count := map[string]int{}
	for _, p := range problems {
		if p.Outcome != ingest.Skipped.String() {
			continue
		}
		kind := p.Reason
		if i := strings.IndexAny(kind, ":;("); i > 0 {
			kind = strings.TrimSpace(kind[:i])
		}
		if count[kind] == 0 {
			kinds = append(kinds, kind)
		}
		count[kind]++
	}
	slices.Sort(kinds)
	var why []string
	for _, k := range kinds {
		why = append(why, fmt.Sprintf("%s: %d", k, count[k]))
	}
	return fmt.Errorf("nothing indexed: every file found was skipped (%s)", strings.Join(why, ", "))
}

// lockIndex takes the index's writer lock, saying so on stderr if it has to
// wait for another writer.
func lockIndex(ctx context.Context, e *env, dir string) (func() error, error) {
	if err := notAFile(dir); err != nil {
		return nil, err
	}
	return index.LockWriter(ctx, dir, func() {
		fmt.Fprintf(e.stderr, "waiting for another cite index to finish with %s ...\n", dir)
	})
}

// problem is a file that was skipped or failed.
type problem struct {
	Path    string `json:"path"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

func isProblem(problems []problem, path string) bool {
	for _, p := range problems {
		if p.Path == path {
			return true
		}
	}
	return false
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// nof is n of noun: "1 chunk", "2 chunks".
func nof(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func humanCount(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}

// progress draws a one-line progress bar on a terminal and nothing
// elsewhere; lines (skips, failures) are printed either way.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	last  time.Time
	drawn bool
	width int
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
		if width, _, err := term.GetSize(int(f.Fd())); err == nil {
			p.width = width
		}
	}
	if p.width <= 0 {
		p.width = 80
	}
	return p
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// line prints a line about a file: a problem's reason may quote the file.
func (p *progress) line(s string) {
	p.clear()
	fmt.Fprintln(p.w, shown(s))
}

func (p *progress) update(s ingest.Stats, path string) {
	if !p.tty || p.quiet || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	total := fmt.Sprintf("%d+", s.Found)
	frac := 0.0
	if s.Listed && s.Found > 0 {
		total = fmt.Sprint(s.Found)
		frac = float64(s.Seen) / float64(s.Found)
	}
	const barWidth = 24
	filled := int(frac * barWidth)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", barWidth-filled)
	if filled < barWidth && s.Listed {
		bar = bar[:filled] + ">" + bar[filled+1:]
	}
	status := fmt.Sprintf("[%s] %d/%s files  %d chunks  %.1f MB/s  ", bar, s.Seen, total, s.Chunks, s.MBPerSecond())
	room := p.width - len(status) - 1
	name := displayPath(path)
	if room < 10 {
		name = ""
	} else if len(name) > room {
		name = "..." + name[len(name)-room+3:]
	}
	p.clear()
	fmt.Fprint(p.w, status+name)
	p.drawn = true
}

func (p *progress) done() { p.clear() }

// indexEmbedder returns the embedder to index with: the one spec names,
// else the one the index records, else the built-in hash embedder. A spec
// other than the index's is refused by ingest.New (cite reindex changes
// it).
func indexEmbedder(ctx context.Context, e *env, st *index.Store, spec string) (*embed.Embedder, error) {
	if spec == "" {
		info, err := st.Embedder(ctx)
		if err != nil {
			return nil, err
		}
		spec = info.Name
	}
	if spec == "" {
		spec = "hash"
	}
	return e.embedder(spec)
}
