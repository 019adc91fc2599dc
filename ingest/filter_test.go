package ingest

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// project is a folder as users index it: a repository with dependencies,
// build output and drafts its ignore files leave out.
func project() fstest.MapFS {
	return fstest.MapFS{
		"p/.git/info/exclude":           file("secret.md\n"),
		"p/.gitignore":                  file("node_modules/\n/build\n*.log\n!keep.log\ndocs/drafts/\n"),
		"p/README.md":                   file("# Readme"),
		"p/secret.md":                   file("# Secret"),
		"p/notes.log":                   file("a log"),
		"p/keep.log":                    file("a log kept"),
		"p/node_modules/pkg/README.md":  file("# Pkg"),
		"p/build/out.md":                file("# Out"),
		"p/src/build/notes.md":          file("# Src build: only /build is anchored"),
		"p/docs/guide.md":               file("# Guide"),
		"p/docs/drafts/wip.md":          file("# WIP"),
		"p/docs/.ignore":                file("*.tmp.md\n"),
		"p/docs/x.tmp.md":               file("# Temp"),
		"p/docs/api/.gitignore":         file("generated/\n!generated.md\n"),
		"p/docs/api/generated/a.md":     file("# Gen"),
		"p/docs/api/generated.md":       file("# Generated, kept"),
		"p/vendor/lib/doc.md":           file("# Vendored"),
		"p/vendor/.gitignore":           file("*\n"),
		"other/.gitignore":              file("*.md\n"), // not in p's tree
		"other/x.md":                    file("# X"),
		"p/docs/broken/.gitignore":      file("ok.md\n[unclosed\n"),
		"p/docs/broken/ok.md":           file("# Ignored still: the good lines stand"),
		"p/docs/broken/fine.md":         file("# Fine"),
		"p/.ignore":                     file("!notes.log\n"), // .ignore wins over .gitignore
		"p/docs/drafts-not-a-folder.md": file("# Not the drafts folder"),
	}
}

func indexed(t *testing.T, events map[string]Event) []string {
	t.Helper()
	var got []string
	for p, e := range events {
		if e.Outcome == Added || e.Outcome == Updated || e.Outcome == Unchanged {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	return got
}

func TestIgnoreFiles(t *testing.T) {
	tests := []struct {
		name        string
		opts        Options
		paths       []string
		want        []string
		wantIgnored int
	}{
		{"honoured", Options{}, []string{"p"}, []string{
			"p/README.md", "p/docs/api/generated.md", "p/docs/broken/fine.md", "p/docs/drafts-not-a-folder.md",
			"p/docs/guide.md", "p/keep.log", "p/notes.log", "p/src/build/notes.md",
		}, 8}, // secret.md, node_modules, build, docs/drafts, docs/x.tmp.md, docs/api/generated, vendor/lib, docs/broken/ok.md
		{"no-ignore", Options{NoIgnore: true}, []string{"p"}, []string{
			"p/README.md", "p/build/out.md", "p/docs/api/generated.md", "p/docs/api/generated/a.md",
			"p/docs/broken/fine.md", "p/docs/broken/ok.md", "p/docs/drafts-not-a-folder.md", "p/docs/drafts/wip.md",
			"p/docs/guide.md", "p/docs/x.tmp.md", "p/keep.log", "p/node_modules/pkg/README.md", "p/notes.log",
			"p/secret.md", "p/src/build/notes.md", "p/vendor/lib/doc.md",
		}, 0},
		{"a subfolder: the rules above it apply", Options{}, []string{"p/docs"}, []string{
			"p/docs/api/generated.md", "p/docs/broken/fine.md", "p/docs/drafts-not-a-folder.md", "p/docs/guide.md",
		}, 4},
		{"a folder named is walked though an anchored pattern above ignores it", Options{}, []string{"p/build", "p/docs/drafts"}, []string{
			"p/build/out.md", "p/docs/drafts/wip.md",
		}, 0},
		{"a file named is indexed though ignored", Options{}, []string{"p/build/out.md", "p/secret.md"}, []string{
			"p/build/out.md", "p/secret.md",
		}, 0},
		{"an ignored folder named is walked", Options{}, []string{"p/node_modules"}, []string{"p/node_modules/pkg/README.md"}, 0},
		{"a glob", Options{}, []string{"p/**/*.md"}, []string{
			"p/README.md", "p/docs/api/generated.md", "p/docs/broken/fine.md", "p/docs/drafts-not-a-folder.md",
			"p/docs/guide.md", "p/src/build/notes.md",
		}, 8},
		{"no work tree: its own files only", Options{}, []string{"other"}, nil, 1},
		{"exclude a name at any depth", Options{Exclude: []string{"build", "*.log"}}, []string{"p"}, []string{
			"p/README.md", "p/docs/api/generated.md", "p/docs/broken/fine.md", "p/docs/drafts-not-a-folder.md",
			"p/docs/guide.md",
		}, 11},
		{"exclude a path from the folder", Options{Exclude: []string{"docs/api", "docs/**/fine.md"}}, []string{"p"}, []string{
			"p/README.md", "p/docs/drafts-not-a-folder.md", "p/docs/guide.md", "p/keep.log", "p/notes.log", "p/src/build/notes.md",
		}, 9},
		{"exclude anchored with ./", Options{Exclude: []string{"./README.md"}, NoIgnore: true}, []string{"p/docs/api"}, []string{
			"p/docs/api/generated.md", "p/docs/api/generated/a.md",
		}, 0},
		{"exclude folders only", Options{Exclude: []string{"generated/"}, NoIgnore: true}, []string{"p/docs/api"}, []string{
			"p/docs/api/generated.md",
		}, 1},
		{"exclude with no-ignore", Options{Exclude: []string{"node_modules"}, NoIgnore: true}, []string{"p/node_modules", "p/build"}, []string{
			"p/build/out.md", "p/node_modules/pkg/README.md",
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warnings []string
			tt.opts.OnWarning = func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }
			stats, events, err := run(t, newStore(t), project(), tt.opts, tt.paths...)
			if err != nil && len(tt.want) > 0 {
				t.Fatal(err)
			}
			if got := indexed(t, events); !slices.Equal(got, tt.want) {
				t.Errorf("indexed\n%q\nwant\n%q", got, tt.want)
			}
			if stats.Ignored != tt.wantIgnored {
				t.Errorf("%d ignored, want %d", stats.Ignored, tt.wantIgnored)
			}
			for _, w := range warnings {
				if !strings.HasPrefix(w, "p/docs/broken/.gitignore: line 2: \"[unclosed\"") {
					t.Errorf("warning %q", w)
				}
			}
		})
	}
}

// TestIgnoreWarnings: an ignore file that cannot be read or has bad lines
// is said once, naming it, and the run goes on.
func TestIgnoreWarnings(t *testing.T) {
	fsys := fstest.MapFS{
		"d/.gitignore":     file("a.md\n[bad\n"),
		"d/a.md":           file("# A"),
		"d/b.md":           file("# B"),
		"d/bin/.gitignore": file("x\x00y"),
		"d/bin/c.md":       file("# C"),
		"d/dir/.ignore":    &fstest.MapFile{Mode: 0o755 | 1<<31}, // a folder named .ignore
		"d/dir/e.md":       file("# E"),
	}
	fsys["d/dir/.ignore/x"] = file("")
	delete(fsys, "d/dir/.ignore")
	fsys["d/locked/.gitignore"] = file("*")
	fsys["d/locked/f.md"] = file("# F")
	unreadable := unreadableFS{failFS{MapFS: fsys, fail: map[string]bool{"d/locked/.gitignore": true}}}
	st := newStore(t)
	var warnings []string
	opts := Options{FS: unreadable, OnWarning: func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }}
	ix, err := New(t.Context(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // said once in the Indexer's life
		if _, err := ix.Index(t.Context(), "d"); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(warnings)
	want := []string{
		`d/.gitignore: line 2: "[bad": syntax error in pattern: left out`,
		`d/bin/.gitignore: not a text file (it holds NUL bytes): left out`,
		`d/dir/.ignore: ignore file not read: a folder, not an ignore file: left out`,
		`d/locked/.gitignore: ignore file not read: permission denied`,
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", warnings, want)
	}
}

// unreadableFS fails to read the files failFS fails to open.
type unreadableFS struct{ failFS }

func (u unreadableFS) ReadFile(name string) ([]byte, error) {
	f, err := u.Open(name)
	if err != nil {
		return nil, err
	}
	f.Close()
	return u.MapFS.ReadFile(name)
}

// TestIgnoredIndexed: documents indexed before their files were ignored are
// kept and counted, not said to be missing, unless PruneIgnored removes
// them (with or without Prune); documents under no path walked, another
// path's and another source's, stay.
func TestIgnoredIndexed(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         Options
		paths        []string
		wantKept     int
		wantPruned   []string
		wantRemained []string
	}{
		{"kept", Options{}, []string{"p"}, 2, nil, []string{"p/drafts/a.md", "p/x.log"}},
		{"kept by a prune of gone files only", Options{Prune: true}, []string{"p"}, 2, []string{"p/gone.md"}, []string{"p/drafts/a.md", "p/x.log"}},
		{"pruned", Options{Prune: true, PruneIgnored: true}, []string{"p"}, 0, []string{"p/drafts/a.md", "p/gone.md", "p/x.log"}, []string{"q/x.log"}},
		// cite index without --prune: the ignored leave, the gone stay.
		{"pruned ignored only", Options{PruneIgnored: true}, []string{"p"}, 0, []string{"p/drafts/a.md", "p/x.log"}, []string{"p/gone.md", "q/x.log"}},
		// Another PATH of the run walks what p's rules leave out.
		{"a path the path above ignores", Options{PruneIgnored: true}, []string{"p", "p/drafts"}, 0, []string{"p/x.log"}, []string{"p/drafts/a.md", "q/x.log"}},
		{"another source's stay", Options{Source: "other", PruneIgnored: true}, []string{"p"}, 0, nil, []string{"p/drafts/a.md", "p/x.log"}},
		{"pruned by exclude", Options{Prune: true, PruneIgnored: true, NoIgnore: true, Exclude: []string{"drafts"}}, []string{"p"}, 0, []string{"p/drafts/a.md", "p/gone.md"}, []string{"p/x.log"}},
		{"a file named is not ignored", Options{Prune: true, PruneIgnored: true}, []string{"p/x.log"}, 0, nil, []string{"p/x.log"}},
		{"under a root", Options{Prune: true, Roots: []string{"p"}}, []string{"p/drafts"}, 1, nil, []string{"p/drafts/a.md"}},
		{"under a root, pruned", Options{Prune: true, PruneIgnored: true, Roots: []string{"p"}}, []string{"p/drafts/a.md"}, 0, []string{"p/drafts/a.md"}, nil},
		// cite index --watch p p/drafts: the folder p's rules ignore is a
		// root itself, walked; p's walk leaves it to it.
		{"a root the root above ignores", Options{Prune: true, PruneIgnored: true, Roots: []string{"p", "p/drafts"}}, []string{"p"}, 0, []string{"p/gone.md", "p/x.log"}, []string{"p/drafts/a.md"}},
		{"a root file the root above ignores", Options{Prune: true, PruneIgnored: true, Roots: []string{"p", "p/x.log"}}, []string{"p"}, 0, []string{"p/drafts/a.md", "p/gone.md"}, []string{"p/x.log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			fsys := fstest.MapFS{"p/a.md": file("# A"), "p/drafts/a.md": file("# Draft"), "p/x.log": file("log"), "p/gone.md": file("# Gone"), "q/x.log": file("log")}
			if _, _, err := run(t, st, fsys, Options{}, "p", "q"); err != nil {
				t.Fatal(err)
			}
			fsys = maps.Clone(fsys)
			delete(fsys, "p/gone.md")
			fsys["p/.gitignore"] = file("drafts/\n*.log\n")
			fsys[".gitignore"] = file("*.log\n") // q's, and p's: not a path walked
			stats, events, err := run(t, st, fsys, tc.opts, tc.paths...)
			if err != nil {
				t.Fatal(err)
			}
			var pruned []string
			for p, e := range events {
				switch e.Outcome {
				case Pruned:
					pruned = append(pruned, p)
					if p != "p/gone.md" && e.Reason != ignoredReason {
						t.Errorf("%s pruned: reason %q", p, e.Reason)
					}
				case Missing:
					if p != "p/gone.md" {
						t.Errorf("%s said missing: its file is there, ignored", p)
					}
				}
			}
			slices.Sort(pruned)
			if !slices.Equal(pruned, tc.wantPruned) {
				t.Errorf("pruned %q, want %q", pruned, tc.wantPruned)
			}
			if stats.IgnoredIndexed != tc.wantKept {
				t.Errorf("%d ignored kept, want %d", stats.IgnoredIndexed, tc.wantKept)
			}
			for _, p := range tc.wantRemained {
				if _, err := st.Document(t.Context(), "", p); err != nil {
					t.Errorf("%s removed: %v", p, err)
				}
			}
		})
	}
}

// TestRootsJudgeNamedPaths: a path below a root (cite index --watch's
// changed files) is judged as the root's walk would, not as named.
func TestRootsJudgeNamedPaths(t *testing.T) {
	fsys := project()
	_, events, err := run(t, newStore(t), fsys, Options{Roots: []string{"p"}}, "p/build/out.md", "p/node_modules/pkg", "p/README.md", "p/docs/drafts/wip.md")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := indexed(t, events), []string{"p/README.md"}; !slices.Equal(got, want) {
		t.Errorf("indexed %q, want %q", got, want)
	}
}

func TestCheckExclude(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		ok      bool
	}{
		{"drafts", true}, {"*.tmp", true}, {"docs/**/x", true}, {"./a", true}, {"a/", true},
		{"[", false}, {"", false}, {"./", false}, {".", false},
	} {
		if err := CheckExclude(tc.pattern); (err == nil) != tc.ok {
			t.Errorf("CheckExclude(%q) = %v, want ok %v", tc.pattern, err, tc.ok)
		}
	}
}

// TestIgnoreOSFiles: on the operating system's files, a folder in a git
// work tree reads the ignore files above it and .git/info/exclude, and a
// file named, ignored, is indexed without a warning.
func TestIgnoreOSFiles(t *testing.T) {
	dir := t.TempDir()
	for rel, text := range map[string]string{
		".git/info/exclude": "secret.md\n",
		".gitignore":        "docs/drafts/\n",
		"docs/guide.md":     "# Guide",
		"docs/secret.md":    "# Secret",
		"docs/drafts/a.md":  "# Draft",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		paths []string
		want  []string
	}{
		{[]string{"docs"}, []string{"docs/guide.md"}},
		{[]string{"docs/secret.md", "docs/drafts/a.md"}, []string{"docs/drafts/a.md", "docs/secret.md"}},
	} {
		var warnings []string
		ix, err := New(t.Context(), newStore(t), Options{OnWarning: func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		ix.opts.OnEvent = func(e Event) {
			if e.Outcome == Added {
				rel, _ := filepath.Rel(dir, e.Path)
				got = append(got, filepath.ToSlash(rel))
			}
		}
		var abs []string
		for _, p := range tc.paths {
			abs = append(abs, filepath.Join(dir, p))
		}
		if _, err := ix.Index(t.Context(), abs...); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || len(warnings) > 0 {
			t.Errorf("%v: indexed %q, want %q; warnings %q", tc.paths, got, tc.want, warnings)
		}
	}
}

// TestFilter: a Filter judges paths as the walk of the root they lie under
// does (a watcher watches the folders it does not leave out), and names
// the files above a root whose rules apply in it.
func TestFilter(t *testing.T) {
	fsys := project()
	fsys["p/sub/.gitignore"] = file("x.md\n")
	fsys["linked/.git"] = file("gitdir: /elsewhere/.git/worktrees/linked\n")
	fsys["elsewhere/.git/worktrees/linked/commondir"] = file("../..\n")
	fsys["linked/sub/a.md"] = file("# A")
	for _, tc := range []struct {
		name    string
		opts    Options
		path    string
		dir     bool
		ignored bool
	}{
		{"an ignored folder", Options{}, "p/node_modules", true, true},
		{"a folder in an ignored folder", Options{}, "p/node_modules/pkg", true, true},
		{"an anchored pattern", Options{}, "p/build", true, true},
		{"an anchored pattern, deeper", Options{}, "p/src/build", true, false},
		{"a deeper ignore file", Options{}, "p/docs/api/generated", true, true},
		{"a folder-only pattern on a file", Options{}, "p/docs/drafts", false, false},
		{"everything in a folder", Options{}, "p/vendor/lib", true, true},
		{".git/info/exclude", Options{}, "p/secret.md", false, true},
		{"a folder kept", Options{}, "p/docs", true, false},
		{"the root", Options{}, "p", true, false},
		{"no root above", Options{Roots: []string{"other"}}, "p/node_modules", true, false},
		{"the root named, though its parent ignores it", Options{Roots: []string{"p/node_modules"}}, "p/node_modules", true, false},
		{"inside a root its parent's anchored pattern ignores", Options{Roots: []string{"p/build"}}, "p/build/out.md", false, false},
		{"inside a root its parent's inner-slash pattern ignores", Options{Roots: []string{"p/docs/drafts"}}, "p/docs/drafts/wip.md", false, false},
		{"a root below: the rules above it apply", Options{Roots: []string{"p/docs"}}, "p/docs/drafts", true, true},
		{"no-ignore", Options{NoIgnore: true}, "p/node_modules", true, false},
		{"no-ignore, excluded", Options{NoIgnore: true, Exclude: []string{"node_modules"}}, "p/node_modules", true, true},
		{"excluded by path", Options{Exclude: []string{"docs/api/"}}, "p/docs/api", true, true},
		{"a folder-only exclusion on a file", Options{Exclude: []string{"guide.md/"}}, "p/docs/guide.md", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.FS = fsys
			if opts.Roots == nil {
				opts.Roots = []string{"p"}
			}
			ix, err := New(t.Context(), newStore(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ix.Filter().Ignored(tc.path, tc.dir); got != tc.ignored {
				t.Errorf("Ignored(%q, %v) = %v, want %v", tc.path, tc.dir, got, tc.ignored)
			}
		})
	}
	for _, tc := range []struct {
		name string
		opts Options
		root string
		want []string
	}{
		{"the work tree's top", Options{}, "p", []string{"p/.git/info/exclude"}},
		{"below it", Options{}, "p/docs/api", []string{"p/.git/info/exclude",
			"p/docs/.gitignore", "p/docs/.ignore", "p/.gitignore", "p/.ignore"}},
		{"not in a work tree", Options{}, "other", nil},
		// The repository's info/exclude, in the folder its commondir names.
		{"a linked work tree: its .git is a file", Options{}, "linked/sub", []string{"elsewhere/.git/info/exclude", "linked/.gitignore", "linked/.ignore"}},
		{"no-ignore", Options{NoIgnore: true, Exclude: []string{"x"}}, "p/docs", nil},
	} {
		t.Run("rule files/"+tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.FS, opts.Roots = fsys, []string{tc.root}
			ix, err := New(t.Context(), newStore(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ix.Filter().RuleFiles(tc.root); !slices.Equal(got, tc.want) {
				t.Errorf("RuleFiles(%q) = %q, want %q", tc.root, got, tc.want)
			}
		})
	}
}

// TestSavedPageFiles: the folder of parts a browser writes beside a page it
// saves whole (page.html and page_files/, Chromium's and Firefox's "Save
// Page As") is left out as ignored, its scripts and stylesheets with it;
// a _files folder without its page, or named, is walked, and --no-ignore
// walks it too.
func TestSavedPageFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"web/Rust Ownership.html":             file("<title>Ownership</title><p>Each value has an owner.</p>"),
		"web/Rust Ownership_files/book.css":   file("body{margin:0}"),
		"web/Rust Ownership_files/book.js":    file("var x=1;"),
		"web/Rust Ownership_files/frame.html": file("<p>An ad frame.</p>"),
		"web/old.htm":                         file("<p>Old page.</p>"),
		"web/old_files/jquery.js":             file("(function(){})();"),
		"web/project_files/plan.md":           file("# Plan: no page named project beside it"),
		"web/notes.md_files/x.md":             file("# Not a page's folder"),
		"web/sub/report.html/index.md":        file("# A folder named like a page"),
		"web/sub/report.html_files/y.md":      file("# Kept"),
		"web/_files/z.md":                     file("# No stem"),
	}
	tests := []struct {
		name        string
		opts        Options
		paths       []string
		want        []string
		wantIgnored int
	}{
		{"left out", Options{}, []string{"web"}, []string{
			"web/Rust Ownership.html", "web/_files/z.md", "web/notes.md_files/x.md", "web/old.htm",
			"web/project_files/plan.md", "web/sub/report.html/index.md", "web/sub/report.html_files/y.md",
		}, 2},
		{"named", Options{}, []string{"web/old_files"}, []string{"web/old_files/jquery.js"}, 0},
		{"no-ignore", Options{NoIgnore: true}, []string{"web/old.htm", "web/old_files"}, []string{"web/old.htm", "web/old_files/jquery.js"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stats, events, err := run(t, newStore(t), fsys, tt.opts, tt.paths...)
			if err != nil {
				t.Fatal(err)
			}
			if got := indexed(t, events); !slices.Equal(got, tt.want) {
				t.Errorf("indexed\n%q\nwant\n%q", got, tt.want)
			}
			if stats.Ignored != tt.wantIgnored {
				t.Errorf("%d ignored, want %d", stats.Ignored, tt.wantIgnored)
			}
		})
	}
}
