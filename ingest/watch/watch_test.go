package watch

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/ingest"
)

// waitFor is how long a change may take to reach the index in these tests:
// far above the debounce, so that only a lost change fails them, and above
// what a machine loaded by other work (-race, other packages' tests) needs
// (a passing test waits only for its change).
const waitFor = time.Minute

type fixture struct {
	dir   string // watched
	w     *Watcher
	store *index.Store
	stop  func() // cancels the watcher and waits for it
}

// start indexes dir into a new index (outside dir) and watches it, with
// mod's changes to the options.
func start(t *testing.T, dir string, mod func(*Options)) *fixture {
	return startWith(t, dir, ingest.Options{Prune: true, Workers: 2, Skip: Skip}, mod)
}

// startWith is start with an indexer of these options.
func startWith(t *testing.T, dir string, iopts ingest.Options, mod func(*Options)) *fixture {
	t.Helper()
	ctx := t.Context()
	st, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix, err := ingest.New(ctx, st, iopts)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Indexer: ix, Quiet: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond,
		Lock: func(ctx context.Context) (func() error, error) { return index.LockWriter(ctx, st.Dir(), nil) },
		OnBatch: func(paths []string, _ ingest.Stats, err error) {
			if err != nil {
				t.Errorf("indexing %v: %v", paths, err)
			}
		}}
	if mod != nil {
		mod(&opts)
	}
	w, err := New([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, dir); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx); w.Close() }()
	f := &fixture{dir: dir, w: w, store: st}
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(f.stop)
	return f
}

// docs returns the indexed documents' paths, relative to the watched
// folder, sorted.
func (f *fixture) docs(t *testing.T) []string {
	t.Helper()
	ds, err := f.store.Documents(context.Background(), index.DefaultSource)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		rel, _ := filepath.Rel(f.dir, d.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// finds reports whether a full-text search for word finds it in the
// document at rel.
func (f *fixture) finds(t *testing.T, word, rel string) bool {
	t.Helper()
	hits, err := f.store.SearchText(context.Background(), word, index.Filter{Path: filepath.Join(f.dir, rel)}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return len(hits) > 0
}

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", waitFor, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWatch makes each kind of change while the watcher runs and checks
// the index after each, within a bounded wait.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "# A\n\nalpha words here.\n")
	f := start(t, dir, nil)
	if got := f.docs(t); !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("first pass: %v", got)
	}
	p := func(rel string) string { return filepath.Join(dir, rel) }
	steps := []step{
		{"edit", func() { write(t, p("a.md"), "# A\n\nbravo words here.\n") },
			[]string{"a.md"}, [][2]string{{"bravo", "a.md"}}, [][2]string{{"alpha", "a.md"}}},
		{"create", func() { write(t, p("b.md"), "charlie is new.\n") },
			[]string{"a.md", "b.md"}, [][2]string{{"charlie", "b.md"}}, nil},
		{"ignored files", func() {
			write(t, p(".hidden.md"), "hotel hidden.\n")
			write(t, p("b.md~"), "hotel backup.\n")
			write(t, p(".b.md.swp"), "hotel swap.\n")
			write(t, p("x.tmp"), "hotel temp.\n")
			write(t, p("4913"), "hotel vim.\n")
			write(t, p(".git/HEAD.md"), "hotel git.\n")
			write(t, p("b.md"), "charlie is new, india too.\n") // a change to wait for
		}, []string{"a.md", "b.md"}, [][2]string{{"india", "b.md"}}, nil},
		{"delete", func() { do(t, os.Remove(p("b.md"))) },
			[]string{"a.md"}, nil, [][2]string{{"charlie", "b.md"}}},
		{"atomic save", func() {
			write(t, p("a.md.tmp"), "# A\n\ndelta words here.\n")
			do(t, os.Rename(p("a.md.tmp"), p("a.md")))
		}, []string{"a.md"}, [][2]string{{"delta", "a.md"}}, [][2]string{{"bravo", "a.md"}}},
		{"rename", func() { do(t, os.Rename(p("a.md"), p("c.md"))) },
			[]string{"c.md"}, [][2]string{{"delta", "c.md"}}, nil},
		{"new folder", func() { write(t, p("sub/deep/e.md"), "echo in a new folder.\n") },
			[]string{"c.md", "sub/deep/e.md"}, [][2]string{{"echo", "sub/deep/e.md"}}, nil},
		{"file in the new folder", func() { write(t, p("sub/deep/f.md"), "foxtrot, watched.\n") },
			[]string{"c.md", "sub/deep/e.md", "sub/deep/f.md"}, [][2]string{{"foxtrot", "sub/deep/f.md"}}, nil},
		{"rename folder", func() { do(t, os.Rename(p("sub"), p("moved"))) },
			[]string{"c.md", "moved/deep/e.md", "moved/deep/f.md"}, [][2]string{{"echo", "moved/deep/e.md"}}, nil},
		{"edit in the renamed folder", func() { write(t, p("moved/deep/f.md"), "golf, after the move.\n") },
			[]string{"c.md", "moved/deep/e.md", "moved/deep/f.md"}, [][2]string{{"golf", "moved/deep/f.md"}}, nil},
		{"delete folder", func() { do(t, os.RemoveAll(p("moved"))) },
			[]string{"c.md"}, nil, nil},
		{"a file replaced by a folder of its name", func() {
			do(t, os.Remove(p("c.md")))
			write(t, p("c.md/inner.md"), "hotel, inside.\n")
		}, []string{"c.md/inner.md"}, [][2]string{{"hotel", "c.md/inner.md"}}, nil},
		{"and the folder by a file again", func() {
			do(t, os.RemoveAll(p("c.md")))
			write(t, p("c.md"), "juliett, a file again.\n")
		}, []string{"c.md"}, [][2]string{{"juliett", "c.md"}}, nil},
	}
	f.run(t, steps)
}

// TestWatchIgnoreFiles: files appearing in an ignored folder, or matching
// an ignored name, stay out of the index; a change to a .gitignore is
// walked again: what it no longer ignores enters, and what it ignores now
// stays indexed unless the indexer prunes ignored documents (--prune).
func TestWatchIgnoreFiles(t *testing.T) {
	for _, pruneIgnored := range []bool{false, true} {
		t.Run(fmt.Sprintf("prune ignored %v", pruneIgnored), func(t *testing.T) {
			dir := t.TempDir()
			p := func(rel string) string { return filepath.Join(dir, rel) }
			write(t, p(".gitignore"), "node_modules/\n*.log\n")
			write(t, p("a.md"), "alpha.\n")
			write(t, p("node_modules/pkg/r.md"), "bravo dependency.\n")
			f := startWith(t, dir, ingest.Options{Prune: true, PruneIgnored: pruneIgnored, Workers: 2, Skip: Skip,
				Roots: []string{dir}, Exclude: []string{"drafts"}}, nil)
			if got := f.docs(t); !slices.Equal(got, []string{"a.md"}) {
				t.Fatalf("first pass: %v", got)
			}
			// Ignored by the last two steps: pruned, or kept.
			again := []string{"a.md", "b.md", "notes.log", "sub/s.md", "x.log"}
			kept := again
			if pruneIgnored {
				again = []string{"a.md", "b.md", "notes.log", "sub/s.md"}
				kept = []string{"a.md", "b.md"}
			}
			steps := []step{
				{"new files ignored", func() {
					write(t, p("node_modules/pkg/new.md"), "charlie dependency.\n")
					write(t, p("node_modules/other/x.md"), "charlie other.\n")
					write(t, p("x.log"), "charlie log.\n")
					write(t, p("drafts/d.md"), "charlie draft.\n")
					write(t, p("b.md"), "delta.\n") // a change to wait for
				}, []string{"a.md", "b.md"}, [][2]string{{"delta", "b.md"}}, nil},
				{"edit an ignored file", func() {
					write(t, p("node_modules/pkg/r.md"), "echo dependency.\n")
					write(t, p("b.md"), "foxtrot.\n")
				}, []string{"a.md", "b.md"}, [][2]string{{"foxtrot", "b.md"}}, nil},
				{"the .gitignore no longer ignores", func() { write(t, p(".gitignore"), "node_modules/\n") },
					[]string{"a.md", "b.md", "x.log"}, [][2]string{{"charlie", "x.log"}}, nil},
				{"more files", func() {
					write(t, p("notes.log"), "golf log.\n")
					write(t, p("sub/s.md"), "golf sub.\n")
				}, []string{"a.md", "b.md", "notes.log", "sub/s.md", "x.log"}, [][2]string{{"golf", "notes.log"}}, nil},
				{"the .gitignore ignores again", func() { write(t, p(".gitignore"), "node_modules/\nx.log\n") },
					again, nil, nil},
				{"a new .ignore and a subfolder's .gitignore", func() {
					write(t, p(".ignore"), "notes.log\n")
					write(t, p("sub/.gitignore"), "*.md\n")
					write(t, p("b.md"), "hotel.\n") // a change to wait for
				}, kept, [][2]string{{"hotel", "b.md"}}, nil},
			}
			f.run(t, steps)
		})
	}
}

// TestWatchIgnoredFolders: folders that ignore files or exclude globs
// leave out are not watched, however many folders they hold (each would
// count against fs.inotify.max_user_watches); a change to an ignore file,
// in the tree or above it (.gitignore files up to the work tree's top,
// .git/info/exclude, git's global excludes file), watches the folders it no longer leaves out and
// indexes their files, and stops watching those it leaves out now, whose
// documents stay indexed (the indexer does not prune ignored ones).
func TestWatchIgnoredFolders(t *testing.T) {
	// deps writes a folder of 10 folders of 10 folders, a file in each.
	deps := func(t *testing.T, dir string) {
		for i := range 10 {
			for j := range 10 {
				write(t, filepath.Join(dir, fmt.Sprintf("p%d/s%d/f.md", i, j)), fmt.Sprintf("kilo dependency %d %d.\n", i, j))
			}
		}
	}
	var depDocs []string
	for i := range 10 {
		for j := range 10 {
			depDocs = append(depDocs, fmt.Sprintf("node_modules/p%d/s%d/f.md", i, j))
		}
	}
	with := func(docs []string, more ...string) []string {
		out := slices.Concat(docs, more)
		slices.Sort(out)
		return out
	}
	type step struct {
		name    string
		change  func(p func(string) string)
		docs    []string
		finds   [][2]string
		watches int
	}
	for _, c := range []struct {
		name    string
		files   map[string]string // under the temporary folder
		links   map[string]string // symbolic links under it, to their targets
		root    string            // the folder watched, under it
		global  string            // git's global excludes file, under it
		iopts   ingest.Options
		watches int // at the start
		steps   []step
	}{
		{
			name:  "ignore files in the tree",
			files: map[string]string{".gitignore": "node_modules/\n", "a.md": "alpha.\n", "docs/b.md": "bravo.\n", ".venv/lib/v.md": "hidden.\n"},
			root:  ".", watches: 2, // the root and docs
			steps: []step{
				{"a file in the ignored folder", func(p func(string) string) {
					write(t, p("node_modules/p1/s1/g.md"), "lima, ignored.\n")
					write(t, p("a.md"), "alpha and charlie.\n") // a change to wait for
				}, []string{"a.md", "docs/b.md"}, [][2]string{{"charlie", "a.md"}}, 2},
				{"the .gitignore no longer ignores", func(p func(string) string) { write(t, p(".gitignore"), "# nothing\n") },
					with(depDocs, "a.md", "docs/b.md", "node_modules/p1/s1/g.md"), [][2]string{{"kilo", "node_modules/p9/s9/f.md"}}, 2 + 111},
				{"a file in a folder watched now", func(p func(string) string) { write(t, p("node_modules/p3/s4/new.md"), "mike, watched.\n") },
					with(depDocs, "a.md", "docs/b.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md"), [][2]string{{"mike", "node_modules/p3/s4/new.md"}}, 2 + 111},
				{"ignored again: kept, not watched", func(p func(string) string) { write(t, p(".gitignore"), "node_modules/\n") },
					with(depDocs, "a.md", "docs/b.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md"), nil, 2},
				{"a subfolder's .gitignore", func(p func(string) string) {
					write(t, p("docs/.gitignore"), "gen/\n")
					write(t, p("docs/gen/x/y/z.md"), "november, generated.\n")
					write(t, p("a.md"), "alpha and delta.\n")
				}, with(depDocs, "a.md", "docs/b.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md"), [][2]string{{"delta", "a.md"}}, 2},
				{"the subfolder's .gitignore removed", func(p func(string) string) { do(t, os.Remove(p("docs/.gitignore"))) },
					with(depDocs, "a.md", "docs/b.md", "docs/gen/x/y/z.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md"), [][2]string{{"november", "docs/gen/x/y/z.md"}}, 5},
				{"a folder with its own .gitignore", func(p func(string) string) {
					write(t, p("sub/.gitignore"), "gen/\n")
					write(t, p("sub/gen/g.md"), "oscar, generated.\n")
					write(t, p("sub/s.md"), "papa.\n")
				}, with(depDocs, "a.md", "docs/b.md", "docs/gen/x/y/z.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md", "sub/s.md"), [][2]string{{"papa", "sub/s.md"}}, 6},
				{"moved away, and another with other rules moved in", func(p func(string) string) {
					away := filepath.Join(filepath.Dir(p(".")), "away")
					do(t, os.Rename(p("sub"), away))
					other := filepath.Join(filepath.Dir(p(".")), "other")
					write(t, filepath.Join(other, ".gitignore"), "*.log\n")
					write(t, filepath.Join(other, "gen/h.md"), "quebec, in a folder moved in.\n")
					do(t, os.Rename(other, p("sub")))
				}, with(depDocs, "a.md", "docs/b.md", "docs/gen/x/y/z.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md", "sub/gen/h.md"), [][2]string{{"quebec", "sub/gen/h.md"}}, 7},
				{"a file in the folder its new rules do not leave out", func(p func(string) string) { write(t, p("sub/gen/r.md"), "romeo, watched.\n") },
					with(depDocs, "a.md", "docs/b.md", "docs/gen/x/y/z.md", "node_modules/p1/s1/g.md", "node_modules/p3/s4/new.md", "sub/gen/h.md", "sub/gen/r.md"), [][2]string{{"romeo", "sub/gen/r.md"}}, 7},
			},
		},
		{
			name:  "a link into an ignored folder",
			files: map[string]string{".gitignore": "node_modules/\n", "node_modules/pkg/README.md": "sierra.\n", "node_modules/other/o.md": "other.\n"},
			links: map[string]string{"link.md": "node_modules/pkg/README.md"},
			root:  ".", watches: 2, // the root, and the target's folder
			steps: []step{
				{"the target edited", func(p func(string) string) { write(t, p("node_modules/pkg/README.md"), "tango.\n") },
					[]string{"link.md"}, [][2]string{{"tango", "link.md"}}, 2},
				{"an ignore file in the target's folder", func(p func(string) string) {
					write(t, p("node_modules/pkg/.gitignore"), "*.log\n")
					write(t, p("node_modules/pkg/sub/deep/d.md"), "ignored still.\n")
					write(t, p("b.md"), "uniform.\n") // a change to wait for
				}, []string{"b.md", "link.md"}, [][2]string{{"uniform", "b.md"}}, 2},
			},
		},
		{
			name:  "exclude globs without ignore files",
			files: map[string]string{".gitignore": "a.md\n", "a.md": "alpha.\n", "docs/b.md": "bravo.\n"},
			root:  ".", iopts: ingest.Options{NoIgnore: true, Exclude: []string{"node_modules"}}, watches: 2,
			steps: []step{
				{"a file in the excluded folder", func(p func(string) string) {
					write(t, p("node_modules/p1/s1/g.md"), "lima, excluded.\n")
					write(t, p("a.md"), "alpha and charlie.\n")
				}, []string{"a.md", "docs/b.md"}, [][2]string{{"charlie", "a.md"}}, 2},
			},
		},
		{
			name:  ".git/info/exclude of the folder watched",
			files: map[string]string{".git/info/exclude": "drafts/\n", "a.md": "alpha.\n", "drafts/d.md": "echo draft.\n"},
			root:  ".", watches: 2, // the root, .git/info
			steps: []step{
				{"no longer ignores", func(p func(string) string) { write(t, p(".git/info/exclude"), "") },
					[]string{"a.md", "drafts/d.md"}, [][2]string{{"echo", "drafts/d.md"}}, 3},
				{"ignores again", func(p func(string) string) { write(t, p(".git/info/exclude"), "drafts/\n") },
					[]string{"a.md", "drafts/d.md"}, nil, 2},
				{"and again no longer", func(p func(string) string) { write(t, p(".git/info/exclude"), "# none\n") },
					[]string{"a.md", "drafts/d.md"}, nil, 3},
			},
		},
		{
			name: "git's global excludes file",
			files: map[string]string{"repo/.git/info/exclude": "", "repo/a.md": "alpha.\n", "repo/drafts/d.md": "echo draft.\n",
				"home/git/ignore": "drafts/\n"},
			root: "repo", global: "home/git/ignore", watches: 3, // the root, .git/info, home/git
			steps: []step{
				{"no longer ignores", func(p func(string) string) { write(t, p("../home/git/ignore"), "# nothing\n") },
					[]string{"a.md", "drafts/d.md"}, [][2]string{{"echo", "drafts/d.md"}}, 4},
				{"ignores again", func(p func(string) string) { write(t, p("../home/git/ignore"), "drafts/\n") },
					[]string{"a.md", "drafts/d.md"}, nil, 3},
				{"removed", func(p func(string) string) { do(t, os.Remove(p("../home/git/ignore"))) },
					[]string{"a.md", "drafts/d.md"}, nil, 4},
			},
		},
		{
			name: "rules above the folder watched",
			files: map[string]string{".git/info/exclude": "drafts/\n", ".gitignore": "docs/old/\n", "docs/b.md": "bravo.\n",
				"docs/drafts/d.md": "echo draft.\n", "docs/old/o.md": "foxtrot old.\n", "docs/old/deep/o2.md": "golf older.\n"},
			root: "docs", watches: 3, // docs, its parent, .git/info
			steps: []step{
				{".git/info/exclude no longer ignores", func(p func(string) string) { write(t, p("../.git/info/exclude"), "# nothing\n") },
					[]string{"b.md", "drafts/d.md"}, [][2]string{{"echo", "drafts/d.md"}}, 4},
				{"the .gitignore above no longer ignores", func(p func(string) string) { write(t, p("../.gitignore"), "") },
					[]string{"b.md", "drafts/d.md", "old/deep/o2.md", "old/o.md"}, [][2]string{{"golf", "old/deep/o2.md"}}, 6},
				{"a new .ignore above ignores", func(p func(string) string) {
					write(t, p("../.ignore"), "old/\n")
				}, []string{"b.md", "drafts/d.md", "old/deep/o2.md", "old/o.md"}, nil, 4},
				{"a file in the folder ignored now", func(p func(string) string) {
					write(t, p("old/new.md"), "hotel, ignored.\n")
					write(t, p("b.md"), "bravo and india.\n")
				}, []string{"b.md", "drafts/d.md", "old/deep/o2.md", "old/o.md"}, [][2]string{{"india", "b.md"}}, 4},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			for rel, text := range c.files {
				write(t, filepath.Join(top, rel), text)
			}
			for rel, target := range c.links {
				do(t, os.Symlink(target, filepath.Join(top, rel)))
			}
			if c.name == "ignore files in the tree" || c.name == "exclude globs without ignore files" {
				deps(t, filepath.Join(top, "node_modules"))
			}
			dir := filepath.Join(top, c.root)
			iopts := c.iopts
			iopts.Prune, iopts.Workers, iopts.Skip, iopts.Roots = true, 2, Skip, []string{dir}
			if c.global != "" {
				g := filepath.Join(top, c.global)
				iopts.GitExcludes = func(string) string { return g }
			}
			f := startWith(t, dir, iopts, nil)
			if got := f.w.Watches(); got != c.watches {
				t.Errorf("%d folders watched at the start, want %d", got, c.watches)
			}
			p := func(rel string) string { return filepath.Join(dir, rel) }
			for _, s := range c.steps {
				t.Run(s.name, func(t *testing.T) {
					s.change(p)
					eventually(t, fmt.Sprintf("documents %v, found %v, %d folders watched", s.docs, s.finds, s.watches), func() bool {
						if !slices.Equal(f.docs(t), s.docs) || f.w.Watches() != s.watches {
							return false
						}
						for _, w := range s.finds {
							if !f.finds(t, w[0], w[1]) {
								return false
							}
						}
						return true
					})
				})
			}
		})
	}
}

// countingIndexer records the paths each indexing call is given.
type countingIndexer struct {
	*ingest.Indexer // and its Filter
	mu              sync.Mutex
	paths           []string
}

func (c *countingIndexer) Index(ctx context.Context, paths ...string) (ingest.Stats, error) {
	c.mu.Lock()
	c.paths = append(c.paths, paths...)
	c.mu.Unlock()
	return c.Indexer.Index(ctx, paths...)
}

// TestWatchIgnoredFileWrites: a file the ignore files leave out, written
// on and on (a log), costs no indexing call; deleted, it is handed to the
// indexer, which prunes a document kept from before it was ignored.
func TestWatchIgnoredFileWrites(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p("a.md"), "alpha.\n")
	write(t, p("old.log"), "oscar, indexed before it was ignored.\n")
	var c *countingIndexer
	f := startWith(t, dir, ingest.Options{Prune: true, Workers: 2, Skip: Skip, Roots: []string{dir}}, func(o *Options) {
		c = &countingIndexer{Indexer: o.Indexer.(*ingest.Indexer)}
		o.Indexer = c
	})
	f.run(t, []step{
		{"ignored", func() {
			write(t, p(".gitignore"), "*.log\n")
			write(t, p("a.md"), "alpha and charlie.\n") // a change to wait for
		}, []string{"a.md", "old.log"}, [][2]string{{"charlie", "a.md"}}, nil},
		{"a log written on and on", func() {
			for i := range 5 {
				write(t, p("app.log"), strings.Repeat("log line\n", i+1))
				time.Sleep(20 * time.Millisecond)
			}
			write(t, p("old.log"), "oscar, edited.\n")
			write(t, p("a.md"), "alpha and bravo.\n") // a change to wait for
		}, []string{"a.md", "old.log"}, [][2]string{{"bravo", "a.md"}}, nil},
		{"the ignored file of a document deleted", func() { do(t, os.Remove(p("old.log"))) }, []string{"a.md"}, nil, nil},
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	var logs, old int
	for _, q := range c.paths {
		switch q {
		case p("app.log"):
			logs++
		case p("old.log"):
			old++
		}
	}
	if logs != 0 || old != 1 {
		t.Errorf("indexing calls were given app.log %d times, want none, and old.log %d times, want once (its removal): %q", logs, old, c.paths)
	}
}

// TestWatchOverflow: when the system's event queue overflows, the events
// lost are made up for: folders made meanwhile are watched and their
// files indexed, and those removed are pruned and no longer watched.
func TestWatchOverflow(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p("a.md"), "alpha.\n")
	write(t, p("old/deep/er/o.md"), "oscar.\n")
	ctx := t.Context()
	st, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix, err := ingest.New(ctx, st, ingest.Options{Prune: true, Workers: 2, Skip: Skip, Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var logs syncLog
	w, err := New([]string{dir}, Options{Indexer: ix, Quiet: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, dir); err != nil {
		t.Fatal(err)
	}
	// The changes' events are lost: read and dropped before Run.
	write(t, p("new/deep/n.md"), "november.\n")
	do(t, os.RemoveAll(p("old")))
	for quiet := false; !quiet; {
		select {
		case <-w.fsw.Events:
		case <-time.After(200 * time.Millisecond):
			quiet = true
		}
	}
	f := &fixture{dir: dir, w: w, store: st}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx); w.Close() }()
	t.Cleanup(func() { cancel(); <-done })
	w.fsw.Errors <- fsnotify.ErrEventOverflow
	eventually(t, "the lost changes indexed, 3 folders watched", func() bool {
		return slices.Equal(f.docs(t), []string{"a.md", "new/deep/n.md"}) && w.Watches() == 3
	})
	write(t, p("new/deep/m.md"), "mike, in a folder made while events were lost.\n")
	eventually(t, "a change in the folder made meanwhile indexed", func() bool {
		return slices.Equal(f.docs(t), []string{"a.md", "new/deep/m.md", "new/deep/n.md"})
	})
	if !strings.Contains(logs.String(), "overflowed") {
		t.Errorf("the overflow not said:\n%s", logs.String())
	}
}

// TestWatchSymlinks: a symbolic link to a file is indexed under its own
// name with its target's text, so a change to the target (in the folder,
// through a chain of links, or outside the watched folder) updates the
// link's document too, though no event names the link.
func TestWatchSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p("target.md"), "alpha in the target.\n")
	write(t, filepath.Join(outside, "out.md"), "bravo outside.\n")
	do(t, os.Symlink("target.md", p("link.md")))
	do(t, os.Symlink("link.md", p("chain.md")))
	do(t, os.Symlink(filepath.Join(outside, "out.md"), p("out-link.md")))
	f := startWith(t, dir, ingest.Options{Prune: true, Workers: 2, Skip: Skip, Roots: []string{dir}}, nil) // as cite index --watch
	if got, want := f.docs(t), []string{"chain.md", "link.md", "out-link.md", "target.md"}; !slices.Equal(got, want) {
		t.Fatalf("first pass: %v, want %v", got, want)
	}
	steps := []step{
		{"edit the target", func() { write(t, p("target.md"), "charlie in the target.\n") },
			[]string{"chain.md", "link.md", "out-link.md", "target.md"},
			[][2]string{{"charlie", "target.md"}, {"charlie", "link.md"}, {"charlie", "chain.md"}},
			[][2]string{{"alpha", "link.md"}, {"alpha", "chain.md"}}},
		{"edit a target outside the folder", func() { write(t, filepath.Join(outside, "out.md"), "delta outside.\n") },
			[]string{"chain.md", "link.md", "out-link.md", "target.md"},
			[][2]string{{"delta", "out-link.md"}}, [][2]string{{"bravo", "out-link.md"}}},
		{"atomic save of the target", func() {
			write(t, p("target.md.tmp"), "echo in the target.\n")
			do(t, os.Rename(p("target.md.tmp"), p("target.md")))
		}, []string{"chain.md", "link.md", "out-link.md", "target.md"},
			[][2]string{{"echo", "link.md"}, {"echo", "chain.md"}}, [][2]string{{"charlie", "link.md"}}},
		{"a new link", func() {
			do(t, os.Symlink("target.md", p("new-link.md")))
		}, []string{"chain.md", "link.md", "new-link.md", "out-link.md", "target.md"},
			[][2]string{{"echo", "new-link.md"}}, nil},
		{"edit the target again", func() { write(t, p("target.md"), "foxtrot in the target.\n") },
			[]string{"chain.md", "link.md", "new-link.md", "out-link.md", "target.md"},
			[][2]string{{"foxtrot", "new-link.md"}, {"foxtrot", "chain.md"}}, [][2]string{{"echo", "new-link.md"}}},
		{"a link to a folder: not followed, as by the first pass", func() {
			do(t, os.Symlink(outside, p("folder-link")))
			write(t, p("target.md"), "golf in the target.\n") // a change to wait for
		}, []string{"chain.md", "link.md", "new-link.md", "out-link.md", "target.md"},
			[][2]string{{"golf", "target.md"}}, nil},
		{"delete the target", func() { do(t, os.Remove(p("target.md"))) },
			[]string{"out-link.md"}, nil, nil},
	}
	f.run(t, steps)
}

// step is a change to a watched folder and what the index holds after it:
// its documents, words found in some of them, and words no longer found.
type step struct {
	name   string
	change func()
	docs   []string
	finds  [][2]string // word, document
	misses [][2]string
}

// run makes each step's change in turn and waits until the index shows it.
func (f *fixture) run(t *testing.T, steps []step) {
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			eventually(t, fmt.Sprintf("documents %v, found %v, not %v", s.docs, s.finds, s.misses), func() bool {
				if !slices.Equal(f.docs(t), s.docs) {
					return false
				}
				for _, w := range s.finds {
					if !f.finds(t, w[0], w[1]) {
						return false
					}
				}
				for _, w := range s.misses {
					if f.finds(t, w[0], w[1]) {
						return false
					}
				}
				return true
			})
		})
	}
}

// TestWatchRootRemoved: a watched folder that is removed, or moved away,
// leaves the index, is said to be gone, and is watched again when it comes
// back.
func TestWatchRootRemoved(t *testing.T) {
	for _, c := range []struct {
		name   string
		remove func(dir string) error
	}{
		{"removed", os.RemoveAll},
		{"moved away", func(dir string) error { return os.Rename(dir, dir+"-moved") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "notes")
			write(t, filepath.Join(dir, "a.md"), "alpha.\n")
			write(t, filepath.Join(dir, "sub/b.md"), "bravo.\n")
			var logs syncLog
			f := start(t, dir, func(o *Options) {
				o.PollInterval = 50 * time.Millisecond
				o.Logger = logs.logger()
			})
			do(t, c.remove(dir))
			eventually(t, "the folder's documents gone", func() bool { return len(f.docs(t)) == 0 })
			write(t, filepath.Join(dir, "c.md"), "charlie, in the folder made again.\n")
			eventually(t, "the folder made again indexed", func() bool {
				return slices.Equal(f.docs(t), []string{"c.md"}) && f.finds(t, "charlie", "c.md")
			})
			write(t, filepath.Join(dir, "new/d.md"), "delta, watched again.\n")
			eventually(t, "a change in it indexed", func() bool {
				return slices.Equal(f.docs(t), []string{"c.md", "new/d.md"})
			})
			f.stop()
			for _, want := range []string{dir + " was removed or moved away", dir + " is back"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("%q not said:\n%s", want, logs.String())
				}
			}
		})
	}
}

// TestWatchAtomicSaveNeverMissing saves a file atomically, again and
// again, while a reader searches for a word every version has: the
// document is never missing.
func TestWatchAtomicSaveNeverMissing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.md")
	write(t, p, "kilo version 0\n")
	f := start(t, dir, func(o *Options) { o.Quiet = 5 * time.Millisecond })
	stop := make(chan struct{})
	var missing int
	var reads int
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			reads++
			if !f.finds(t, "kilo", "notes.md") {
				missing++
			}
		}
	})
	saves := 30
	for i := 1; i <= saves; i++ {
		tmp := filepath.Join(dir, fmt.Sprintf(".goutputstream-%d", i))
		write(t, tmp, fmt.Sprintf("kilo version %d lima%d\n", i, i))
		do(t, os.Rename(tmp, p))
		eventually(t, fmt.Sprintf("version %d", i), func() bool { return f.finds(t, fmt.Sprintf("lima%d", i), "notes.md") })
	}
	close(stop)
	wg.Wait()
	if missing > 0 {
		t.Errorf("the document was missing from %d of %d searches during %d atomic saves", missing, reads, saves)
	}
	t.Logf("%d searches during %d atomic saves, none missing", reads, saves)
}

// TestWatchDebounce writes a file in pieces: it is indexed once. The
// pieces are written 10 ms apart, well inside the quiet period; a gap the
// test itself measured at over the quiet period (the machine stalled it)
// may rightly split the indexing, once per such gap. (With a quiet period
// of 200 ms and no such allowance, 1 in 20 runs under the race detector on
// a loaded 2-core machine was indexed in 3 calls.)
func TestWatchDebounce(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var batches [][]string
	const quiet = time.Second
	f := start(t, dir, func(o *Options) {
		o.Quiet = quiet
		o.MaxDelay = 10 * time.Second
		next := o.OnBatch
		o.OnBatch = func(paths []string, st ingest.Stats, err error) {
			mu.Lock()
			batches = append(batches, slices.Clone(paths))
			mu.Unlock()
			next(paths, st, err)
		}
	})
	p := filepath.Join(dir, "piece.md")
	fh, err := os.Create(p)
	do(t, err)
	stalls := 0 // gaps between two pieces over the quiet period
	var last time.Time
	for i := range 10 {
		fmt.Fprintf(fh, "mike piece %d\n", i)
		if gap := time.Since(last); i > 0 && gap >= quiet {
			t.Logf("%v between pieces %d and %d", gap, i-1, i)
			stalls++
		}
		last = time.Now()
		fh.Sync()
		time.Sleep(10 * time.Millisecond) // pieces written well inside the quiet period
	}
	do(t, fh.Close())
	eventually(t, "the last piece", func() bool { return f.finds(t, "9", "piece.md") })
	f.stop()
	mu.Lock()
	defer mu.Unlock()
	if len(batches) < 1 || len(batches) > 1+stalls {
		t.Errorf("indexed in %d calls %v, want 1 (%d stalls)", len(batches), batches, stalls)
	}
}

// TestWatchDocumentWritten: a PDF written for longer than MaxDelay (a slow
// copy) is indexed once its writes are quiet, not cut short every MaxDelay
// (which reported it damaged two or three times before it was added); a
// text file written so is indexed as it grows.
func TestWatchDocumentWritten(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	seen := map[string][]time.Time{} // when each path was in a batch
	// Writes 20 ms apart, and a Quiet far longer: a loaded machine
	// holds the writer for 100 ms and more.
	const quiet, maxDelay = 300 * time.Millisecond, 800 * time.Millisecond
	f := start(t, dir, func(o *Options) {
		o.Quiet = quiet
		o.MaxDelay = maxDelay
		next := o.OnBatch
		o.OnBatch = func(paths []string, st ingest.Stats, err error) {
			mu.Lock()
			for _, p := range paths {
				seen[filepath.Base(p)] = append(seen[filepath.Base(p)], time.Now())
			}
			mu.Unlock()
			next(paths, st, err)
		}
	})
	pdf, err := os.Create(filepath.Join(dir, "slow.pdf"))
	do(t, err)
	txt, err := os.Create(filepath.Join(dir, "slow.txt"))
	do(t, err)
	begin := time.Now()
	var writes [][2]time.Time // before and after each write of the PDF
	for time.Since(begin) < 3*maxDelay {
		before := time.Now()
		fmt.Fprintf(pdf, "%%PDF piece %d\n", before.UnixNano())
		writes = append(writes, [2]time.Time{before, time.Now()})
		fmt.Fprintf(txt, "piece %d\n", time.Now().UnixNano())
		time.Sleep(20 * time.Millisecond)
	}
	written := time.Now()
	do(t, pdf.Close())
	do(t, txt.Close())
	eventually(t, "the PDF's batch", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen["slow.pdf"]) > 0
	})
	f.stop()
	mu.Lock()
	defer mu.Unlock()
	// paused returns the longest the PDF may have gone unwritten before
	// at (from before a write to after the next): a machine loaded
	// enough to hold the writer for Quiet made the file quiet, and
	// indexing it then was right.
	paused := func(at time.Time) time.Duration {
		var longest time.Duration
		for i := 1; i < len(writes) && writes[i-1][1].Before(at); i++ {
			longest = max(longest, writes[i][1].Sub(writes[i-1][0]))
		}
		return longest
	}
	for _, at := range seen["slow.pdf"] {
		if at.Before(written) {
			if p := paused(at); p >= quiet {
				t.Logf("slow.pdf indexed %v before its writes ended, after the writer paused %v (the machine is loaded)", written.Sub(at), p)
				continue
			}
			t.Errorf("slow.pdf indexed %v before its writes ended", written.Sub(at))
		}
	}
	if len(seen["slow.txt"]) < 2 {
		t.Errorf("slow.txt indexed %d times while written for %v, want it indexed as it grows", len(seen["slow.txt"]), written.Sub(begin))
	}
}

// TestWatchPolling fails every watch as a full inotify table does: the
// watcher says so once, with the sysctl, and polls.
func TestWatchPolling(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "alpha.\n")
	write(t, filepath.Join(dir, "old/b.md"), "bravo.\n")
	var logs syncLog
	f := start(t, dir, func(o *Options) {
		o.PollInterval = 50 * time.Millisecond
		o.Logger = logs.logger()
		o.add = func(*fsnotify.Watcher, string) error { return fmt.Errorf("add: %w", syscall.ENOSPC) }
	})
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p("a.md"), "alpha and charlie.\n")
	write(t, p("new/deep/c.md"), "delta, in a new folder.\n")
	do(t, os.Remove(p("old/b.md")))
	eventually(t, "the changes polled", func() bool {
		return slices.Equal(f.docs(t), []string{"a.md", "new/deep/c.md"}) && f.finds(t, "charlie", "a.md") && f.finds(t, "delta", "new/deep/c.md")
	})
	write(t, p("new/deep/e.md"), "echo.\n")
	do(t, os.Rename(p("a.md"), p("new/a.md")))
	eventually(t, "more changes polled", func() bool {
		return slices.Equal(f.docs(t), []string{"new/a.md", "new/deep/c.md", "new/deep/e.md"})
	})
	f.stop()
	if n := strings.Count(logs.String(), "sudo sysctl fs.inotify.max_user_watches=524288"); n != 1 {
		t.Errorf("the sysctl was said %d times, want once:\n%s", n, logs.String())
	}
}

// TestWatchPollingIgnoreFiles: where folders are polled (the watch limit
// reached), an ignored folder is not polled, and a change to an ignore
// file is seen by the poll and polls what it no longer leaves out.
func TestWatchPollingIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p(".gitignore"), "gen/\n")
	write(t, p("a.md"), "alpha.\n")
	write(t, p("gen/x/y/g.md"), "golf, generated.\n")
	var logs syncLog
	f := startWith(t, dir, ingest.Options{Prune: true, Workers: 2, Skip: Skip, Roots: []string{dir}}, func(o *Options) {
		o.PollInterval = 50 * time.Millisecond
		o.Logger = logs.logger()
		o.add = func(*fsnotify.Watcher, string) error { return fmt.Errorf("add: %w", syscall.ENOSPC) }
	})
	f.run(t, []step{
		{"a file in the ignored folder", func() {
			write(t, p("gen/x/y/h.md"), "hotel, ignored.\n")
			write(t, p("a.md"), "alpha and bravo.\n")
		}, []string{"a.md"}, [][2]string{{"bravo", "a.md"}}, nil},
		{"the .gitignore no longer ignores", func() { write(t, p(".gitignore"), "# none\n") },
			[]string{"a.md", "gen/x/y/g.md", "gen/x/y/h.md"}, [][2]string{{"hotel", "gen/x/y/h.md"}}, nil},
		{"a file in a folder polled now", func() { write(t, p("gen/x/y/i.md"), "india, polled.\n") },
			[]string{"a.md", "gen/x/y/g.md", "gen/x/y/h.md", "gen/x/y/i.md"}, [][2]string{{"india", "gen/x/y/i.md"}}, nil},
	})
}

// TestWatchPollingFileIgnoreFile: an ignore file written next to a
// watched file, in its polled folder, does not index the folder's other
// files.
func TestWatchPollingFileIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	write(t, p("a.md"), "alpha.\n")
	write(t, p("b.md"), "bravo, not watched.\n")
	f := startWith(t, p("a.md"), ingest.Options{Prune: true, Workers: 2, Skip: Skip, Roots: []string{p("a.md")}}, func(o *Options) {
		o.PollInterval = 50 * time.Millisecond
		o.add = func(*fsnotify.Watcher, string) error { return fmt.Errorf("add: %w", syscall.ENOSPC) }
	})
	f.run(t, []step{
		{"an ignore file next to the file", func() {
			write(t, p(".gitignore"), "*.log\n")
			time.Sleep(200 * time.Millisecond) // polled
			write(t, p("a.md"), "alpha and charlie, a longer line.\n")
		}, []string{"."}, [][2]string{{"charlie", ""}}, nil},
	})
}

// syncLog is a watcher's log, written by its goroutine and read by the
// test's.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// logger returns a logger that writes to l.
func (l *syncLog) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func TestTemporary(t *testing.T) {
	for name, want := range map[string]bool{
		"notes.md~": true, ".#notes.md": true, "#notes.md#": true, ".notes.md.swp": true, "a.SWP": true,
		"4913": true, ".goutputstream-XY12": true, "x.tmp": true, "x.md___jb_tmp___": true, "a.crdownload": true,
		"~$report.docx": true, "~$port.xlsx": true,
		"notes.md": false, "4914": false, "tmp.md": false, "#notes.md": false, "a~$b.docx": false, "~notes.md": false,
	} {
		if got := Temporary(name); got != want {
			t.Errorf("Temporary(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWatchSoak makes 1,000 random changes (fewer with -short or -race)
// while the watcher runs; then the index must equal a fresh index of the
// folder: the same documents with the same chunk texts.
func TestWatchSoak(t *testing.T) {
	changes := 1000
	if testing.Short() || raceEnabled {
		changes = 200
	}
	dir := t.TempDir()
	f := start(t, dir, func(o *Options) { o.Quiet = 20 * time.Millisecond; o.MaxDelay = 200 * time.Millisecond })
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	text := func() string {
		var b strings.Builder
		for range 5 + rng.IntN(400) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	folders := []string{"", "a", "a/b", "c"}
	name := func() string {
		return filepath.Join(dir, folders[rng.IntN(len(folders))], fmt.Sprintf("f%d.md", rng.IntN(40)))
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for i := range changes {
		p := name()
		switch k := rng.IntN(10); {
		case k < 4: // create or edit
			write(t, p, text())
		case k < 5: // append
			if exists(p) {
				fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				do(t, err)
				fh.WriteString(text())
				fh.Close()
			}
		case k < 6: // delete
			os.Remove(p)
		case k < 7: // atomic save
			tmp := p + ".tmp"
			write(t, tmp, text())
			do(t, os.MkdirAll(filepath.Dir(p), 0o755))
			do(t, os.Rename(tmp, p))
		case k < 8: // rename
			if exists(p) {
				q := name()
				do(t, os.MkdirAll(filepath.Dir(q), 0o755))
				do(t, os.Rename(p, q))
			}
		case k < 9: // a folder renamed, or removed now and then
			d := filepath.Join(dir, folders[1+rng.IntN(len(folders)-1)])
			if rng.IntN(4) == 0 {
				os.RemoveAll(d)
			} else if exists(d) {
				tmp := filepath.Join(dir, fmt.Sprintf("moving%d", i))
				do(t, os.Rename(d, tmp))
				do(t, os.MkdirAll(filepath.Dir(d), 0o755))
				if !exists(d) {
					do(t, os.Rename(tmp, d))
				}
			}
		default: // hidden and temporary files, never indexed
			write(t, filepath.Join(filepath.Dir(p), "."+filepath.Base(p)), text())
			write(t, p+"~", text())
		}
		if rng.IntN(50) == 0 {
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond) // let some batches run mid-way
		}
	}
	// Editors remove their backups; cite index would read them, the
	// watcher never does (nor their removal).
	do(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, "~") {
			return os.Remove(p)
		}
		return err
	}))
	// The reference: a fresh index of the folder as it ends.
	fresh, err := index.Open(t.Context(), t.TempDir(), index.Options{Create: true})
	do(t, err)
	defer fresh.Close()
	ix, err := ingest.New(t.Context(), fresh, ingest.Options{})
	do(t, err)
	_, err = ix.Index(t.Context(), dir)
	do(t, err)
	want := contents(t, fresh)
	var got map[string][]string
	deadline := time.Now().Add(waitFor)
	for got = contents(t, f.store); !equal(got, want); got = contents(t, f.store) {
		if time.Now().After(deadline) {
			for p, w := range want {
				if g, ok := got[p]; !ok {
					t.Errorf("missing %s", p)
				} else if !slices.Equal(g, w) {
					t.Errorf("%s: chunks differ", p)
				}
			}
			for p := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("extra %s", p)
				}
			}
			t.Fatalf("not within %s: the index equal to a fresh one", waitFor)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d changes: %d documents, equal to a fresh index", changes, len(want))
}

// contents maps each document's path to its chunks' texts.
func contents(t *testing.T, st *index.Store) map[string][]string {
	ctx := context.Background()
	ds, err := st.Documents(ctx, index.DefaultSource)
	do(t, err)
	out := map[string][]string{}
	for _, d := range ds {
		cs, err := st.Chunks(ctx, d.ID)
		do(t, err)
		texts := []string{}
		for _, c := range cs {
			texts = append(texts, c.Text)
		}
		out[d.Path] = texts
	}
	return out
}

func equal(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}
