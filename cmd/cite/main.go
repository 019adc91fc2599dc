// Command cite indexes documents and answers questions about them with
// citations. Run "cite help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/provider"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// env is what a command may touch of the outside world; tests fill it in.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	in             io.Reader // standard input; nil means os.Stdin
}

// embedder returns the embedder spec names, reaching model providers
// where OPENAI_BASE_URL, OPENAI_API_KEY and OLLAMA_HOST say.
func (e *env) embedder(spec string) (*embed.Embedder, error) {
	return embed.New(spec, e.embedConfig())
}

// embedConfig is how embedders reach model providers: where
// OPENAI_BASE_URL, OPENAI_API_KEY and OLLAMA_HOST say.
func (e *env) embedConfig() embed.Config {
	return embed.Config{Provider: provider.ConfigFromEnv(e.getenv)}
}

// stdin is the command's standard input.
func (e *env) stdin() io.Reader {
	if e.in != nil {
		return e.in
	}
	return os.Stdin
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran, but something failed
	exitUsage   = 2 // bad command line
	// exitInterrupted is the status of a command stopped by SIGINT or
	// SIGTERM, as shells report a process killed by SIGINT (128 + 2).
	exitInterrupted = 130
)

// errUsage marks command-line mistakes; the message has been printed.
var errUsage = errors.New("usage")

type command struct {
	name, args, summary string
	run                 func(ctx context.Context, e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"index", "PATH...", "index files, folders and globs (incrementally)", runIndex},
		{"sources", "", "list data sources", runSources},
		{"docs", "", "list indexed documents", runDocs},
		{"show", "PATH|ID", "show a document's normalized text or its chunks", runShow},
		{"rm", "PATH|ID...", "remove documents from the index", runRm},
		{"search", `"QUERY"`, "search the index (hybrid, bm25 or vector)", runSearch},
		{"check", "", "check the index's consistency (--repair fixes it)", runCheck},
		{"reindex", "", "re-embed every chunk with another embedder", runReindex},
		{"ask", `"QUESTION"`, "answer a question with citations (offline by default)", runAsk},
		{"chat", "", "a conversation with citations, in the terminal", runChat},
		{"serve", "", "serve the question-answering HTTP API on loopback", runServe},
		{"mcp", "", "serve cite's search to AI agents over MCP (stdio)", runMCP},
		{"eval", "--qa DIR", "measure retrieval on a question-answering set", runEval},
		{"bench", "", "measure speed and size at scale against other engines", runBench},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "cite indexes your documents and answers questions about them with citations.\n\nUsage: cite COMMAND [flags] [args]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %-11s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "  %-8s %-11s %s\n", "version", "", "print cite's version")
	fmt.Fprintf(w, "\nRun cite COMMAND --help for a command's flags. The index lives in %s/ in the\nworking directory unless --index DIR or CITE_INDEX says otherwise.\n", index.DefaultDir)
}

func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(e.stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintln(e.stdout, version())
		return exitOK
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errUsage):
			return exitUsage
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			if msg := err.Error(); strings.HasPrefix(msg, "interrupted") {
				// Said in words: not "…: context canceled".
				fmt.Fprintf(e.stderr, "cite %s: %s\n", name, shown(strings.TrimSuffix(msg, ": "+ctx.Err().Error())))
			} else {
				fmt.Fprintf(e.stderr, "cite %s: interrupted\n", name)
			}
			return exitInterrupted
		}
		// An error may quote what cite did not write: a file, a model
		// server's answer.
		fmt.Fprintf(e.stderr, "cite %s: %s\n", name, shown(err.Error()))
		return exitFailure
	}
	if strings.HasPrefix(name, "-") {
		// A flag before the command ("cite --index DIR search q"): its
		// name may be a command's ("index"), which is not what was meant.
		for _, a := range args[1:] {
			if isCommand(a) {
				fmt.Fprintf(e.stderr, "cite: flags go after the command: cite %s %s …\n\n", a, name)
				usage(e.stderr)
				return exitUsage
			}
		}
	}
	if c := closest(name); c != "" {
		fmt.Fprintf(e.stderr, "cite: unknown command %q (did you mean %q?)\n\n", name, c)
	} else {
		fmt.Fprintf(e.stderr, "cite: unknown command %q\n\n", name)
	}
	usage(e.stderr)
	return exitUsage
}

// isCommand reports whether name is one of cite's commands.
func isCommand(name string) bool {
	if name == "version" {
		return true
	}
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}

// needIndex returns the error of opening an index where there is none
// (with the nearest index above, if any), before a command that writes
// takes the writer lock, which would make the folder.
func (f *flags) needIndex(ctx context.Context) error {
	if index.Exists(f.index) {
		return nil
	}
	st, err := f.openIndex(ctx, readIndex)
	if err == nil {
		st.Close()
	}
	return err
}

// belowAnIndex returns an error if the index folder is the default, holds
// no index, and a folder above holds one: a command that creates the index
// would make a second one here, which the other commands, run from above,
// never read.
func (f *flags) belowAnIndex() error {
	if f.indexChosen() || index.Exists(f.index) {
		return nil
	}
	if wd, err := os.Getwd(); err == nil {
		if up := nearestIndex(filepath.Dir(wd)); up != "" {
			return fmt.Errorf("no index in this folder, and the nearest index above it is %s: run cite there, or pass --index %s (--index %s makes a new one here)", up, up, index.DefaultDir)
		}
	}
	return nil
}

// indexChosen reports whether the index folder was chosen, by --index or
// CITE_INDEX, rather than the default.
func (f *flags) indexChosen() bool {
	chosen := f.indexEnv
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == "index" {
			chosen = true
		}
	})
	return chosen
}

// notAFile returns an error if dir, given as the index folder, is a file
// (the database file itself, say).
func notAFile(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file, not an index folder (--index and CITE_INDEX take the folder that holds %s)", dir, "index.db")
	}
	return nil
}

// nearestIndex returns the index folder (.cite) of dir or of the nearest
// folder above it that has one, or "".
func nearestIndex(dir string) string {
	for {
		if p := filepath.Join(dir, index.DefaultDir); index.Exists(p) {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// flags is a command's flag set with the flags every command has.
type flags struct {
	*flag.FlagSet
	index    string
	indexEnv bool   // the index folder came from CITE_INDEX
	store    string // --store: "" for the embedded index, or weaviate://...
	json     bool

	remote *weaviate.Store // the --store collection, once openIndex opened it
	warned bool            // the collection's server warning was printed

	name, text string // the command, and its free text argument (QUERY), if any
	paths      bool   // its arguments are paths (PATH...)
}

func newFlags(e *env, name, args, about string, withJSON bool) *flags {
	fs := flag.NewFlagSet("cite "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	f := &flags{FlagSet: fs, name: name}
	if args == `"QUERY"` || args == `"QUESTION"` {
		f.text = strings.Trim(args, `"`)
	}
	f.paths = strings.HasPrefix(args, "PATH")
	def := index.DefaultDir
	if v := e.getenv("CITE_INDEX"); v != "" {
		def = v
		f.indexEnv = true
	}
	fs.StringVar(&f.index, "index", def, "index `folder` (default from CITE_INDEX, else "+index.DefaultDir+")")
	fs.StringVar(&f.store, "store", e.getenv("CITE_STORE"), "where chunks are searched (`STORE`): embedded (the index folder, the default) or weaviate://HOST:PORT[?collection=NAME&shards=N&replicas=N] (default from CITE_STORE); the index folder stays the writer's manifest")
	if withJSON {
		fs.BoolVar(&f.json, "json", false, "print JSON")
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: cite %s [flags] %s\n\n%s\n\nFlags:\n", name, args, about)
		fs.PrintDefaults()
	}
	return f
}

// onceFlag is a flag of one value that refuses a second: the flag package
// would keep the last silently, and where cite ask and cite chat take
// several (--source, --doc), a second one given to cite search looks meant,
// and its filter was lost without a word.
type onceFlag struct {
	value string
	set   bool
}

func (o *onceFlag) String() string { return o.value }

func (o *onceFlag) Set(s string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): it takes one value", o.value, s)
	}
	o.value, o.set = s, true
	return nil
}

// once defines a flag of one value ([onceFlag]); usage names its value
// in backquotes, as the flag package reads it.
func (f *flags) once(name, usage string) *string {
	o := &onceFlag{}
	f.Var(o, name, usage)
	return &o.value
}

// parse parses args, allowing flags after the positional arguments too.
func (f *flags) parse(args []string) error {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			// A search for a PowerShell parameter (-Recurse) is read as
			// a flag: say how to give it.
			if arg, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok && f.text != "" {
				fmt.Fprintf(f.Output(), "cite: %q is taken for a flag; a %s, or words of it, starting with \"-\" go after --: cite %s -- %q\n", arg, f.text, f.name, arg)
			} else if ok && f.paths && fileExists(arg) {
				// A file named -notes.md is there: say how to name it
				// (it said only that the flag is not defined).
				fmt.Fprintf(f.Output(), "cite: %q is taken for a flag; a PATH starting with \"-\" goes after -- or as ./%s: cite %s -- %q\n", arg, arg, f.name, arg)
			}
			return errUsage
		}
		args = f.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	f.Parse(append([]string{"--"}, pos...))
	return nil
}

// fileExists reports whether a file or folder named name is there (a
// symbolic link too, even a broken one).
func fileExists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

func (f *flags) usageError(format string, args ...any) error {
	fmt.Fprintf(f.Output(), "cite: "+format+"\n", args...)
	f.Usage()
	return errUsage
}

// What a command does with the index, for openIndex.
type access int

const (
	readIndex   access = iota // read only: works on an index the user may not write
	writeIndex                // read and write an existing index
	createIndex               // write, creating the index if there is none
	repairIndex               // write, even if the database is damaged (check --repair)
	queryIndex                // read only, to search: with --store, works on a machine without the index folder
)

// openIndex opens the index named by the flags. Commands that write verify
// the database first (index.Options.Verify), so as not to write into a
// damaged one; the check is skipped when the last of them to write it
// verified it too and closed it cleanly, and the file has not changed
// since.
//
// With --store weaviate://..., the collection is attached as the index's
// replica (every write is pushed to it) and is what searches read
// ([flags.reader]).
func (f *flags) openIndex(ctx context.Context, a access) (*index.Store, error) {
	if err := notAFile(f.index); err != nil {
		return nil, err
	}
	st, err := index.Open(ctx, f.index, index.Options{
		Create:   a == createIndex,
		ReadOnly: a == readIndex || a == queryIndex,
		Verify:   a == writeIndex || a == createIndex,
		Checking: f.checking,
	})
	if errors.Is(err, index.ErrNoIndex) && f.index == index.DefaultDir {
		// Run from a folder below the one indexed: say where the index is
		// (cite does not go looking for it, so that where it reads and
		// writes is always what the working directory or --index says).
		if wd, werr := os.Getwd(); werr == nil {
			if up := nearestIndex(filepath.Dir(wd)); up != "" {
				err = fmt.Errorf("%w; the nearest index above this folder is %s: run cite there, or pass --index %s", err, up, up)
			}
		}
	}
	if f.store == "" || f.store == "embedded" {
		return st, err
	}
	cfg, perr := weaviate.ParseURL(f.store)
	if perr != nil {
		if st != nil {
			st.Close()
		}
		return nil, f.usageError("--store: %v", perr)
	}
	manifest := err == nil
	if a == queryIndex && errors.Is(err, index.ErrNoIndex) {
		// A query node: the collection is all it reads, and an empty
		// index of its own, in the user's cache, stands in for the
		// writer's folder it does not have.
		st, err = index.Open(ctx, queryNodeDir(cfg), index.Options{Create: true})
	}
	if err != nil {
		return nil, err
	}
	w, err := weaviate.Open(ctx, cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	if msg := w.Warning(); msg != "" && !f.warned {
		f.warned = true // once, however often the command reopens
		fmt.Fprintf(f.Output(), "cite: warning: %s\n", msg)
	}
	if err := st.SetReplica(ctx, w); err != nil {
		st.Close()
		return nil, err
	}
	if manifest {
		// The index folder holds the same chunks' document frequencies,
		// which Weaviate can only count slowly.
		w.SetTermStats(st.TermStats)
	}
	f.remote = w
	return st, nil
}

// queryNodeDir is the stand-in index folder of a machine that only
// queries a collection.
func queryNodeDir(cfg weaviate.Config) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	name := strings.NewReplacer(":", "_", "/", "_").Replace(cfg.Addr + "_" + cfg.Collection)
	return filepath.Join(dir, "cite", "query-node", name)
}

// reader is what searches read: the --store collection, or st.
func (f *flags) reader(st *index.Store) index.Reader {
	if f.remote != nil {
		return f.remote
	}
	return st
}

// displayPath shows a stored path to a person: relative to the working
// directory when it lies under it, and escaped by [index.EscapePath] (a name
// that is not UTF-8 or holds a newline shows as \xNN or \n).
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rest, ok := strings.CutPrefix(p, wd+string(os.PathSeparator)); ok {
			p = rest
		}
	}
	return index.EscapePath(p)
}

// checkingDelay is how long the quick_check of a writable open runs before
// the command says why it waits; 0 says it at once.
var checkingDelay = time.Second

// checking is [index.Options.Checking]: once the check has run for
// checkingDelay (on a large index after an unclean close it reads every
// page, a minute or more at a million chunks), it says what the command
// is waiting for.
func (f *flags) checking(size int64) func() {
	var mu sync.Mutex
	stopped := false
	out := f.Output()
	say := func() {
		fmt.Fprintf(out, "cite: checking the index (%.1f MB) before writing to it: it was not closed cleanly, or another program changed it; this reads the whole file\n", float64(size)/1e6)
	}
	if checkingDelay <= 0 {
		say()
		return nil
	}
	t := time.AfterFunc(checkingDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			say()
		}
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}
