package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cite-rag/cite/ingest/ignore"
)

// Ignore files read in each folder walked, and the kind each is.
var ignoreFiles = []struct {
	name string
	kind ignore.Kind
}{{".gitignore", ignore.GitIgnore}, {".ignore", ignore.IgnoreFile}}

// maxIgnoreFile bounds the ignore files read: a larger one is reported and
// left out.
const maxIgnoreFile = 4 << 20

// CheckExclude reports whether pattern is a valid --exclude glob
// ([Options.Exclude]).
func CheckExclude(pattern string) error {
	p := strings.TrimSuffix(strings.TrimPrefix(pattern, "./"), "/")
	if p == "" || p == "." {
		return fmt.Errorf("%q matches nothing", pattern)
	}
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("%q: %w", pattern, doublestar.ErrBadPattern)
	}
	return nil
}

// exclusion is a compiled [Options.Exclude] pattern.
type exclusion struct {
	glob     string
	anchored bool // holds a "/": matched against the path from the walked folder
	dirOnly  bool // ended in "/": folders only
}

func compileExclude(patterns []string) []exclusion {
	var out []exclusion
	for _, p := range patterns {
		if CheckExclude(p) != nil {
			continue // the command line checks them first
		}
		x := exclusion{glob: strings.TrimPrefix(p, "./"), anchored: strings.HasPrefix(p, "./")}
		if strings.HasSuffix(x.glob, "/") {
			x.glob, x.dirOnly = strings.TrimSuffix(x.glob, "/"), true
		}
		x.anchored = x.anchored || strings.Contains(x.glob, "/")
		out = append(out, x)
	}
	return out
}

// filter leaves out of a run's walk what ignore files and [Options.Exclude]
// say, each path judged from the folder it was found walking (a PATH
// given, or the [Options.Roots] one lies under). A nil filter leaves out
// nothing.
type filter struct {
	fsys      fs.FS
	readFiles bool // honour ignore files (not Options.NoIgnore)
	exclude   []exclusion
	roots     []string // names in fsys
	// global returns git's global excludes file (core.excludesFile) of
	// the repository whose git folder is gitDir (an absolute path, "" for
	// none): an operating system's path (the one fsys it is read in) if
	// absolute, else relative to a work tree's top; "" for none. Nil
	// reads none.
	global func(gitDir string) string
	warn   func(name string, err error)

	mu    sync.Mutex
	trees map[string]*tree // by the folder they start from
}

// tree is the ignore rules met walking down from one folder: each folder
// below it that has been asked about, whether it is left out, and the
// rules in force for its entries.
type tree struct {
	f      *filter
	base   string // the folder walked
	top    string // the folder the rules' paths are relative to: the git work tree's, else base
	levels map[string]*level
}

type level struct {
	ignored bool // the folder is left out, or lies in one that is
	rules   *ignore.Rules
}

// base returns the folder that name is judged from, and whether name is
// named explicitly (a PATH, or a root itself): such a path is never left
// out itself.
func (f *filter) base(name string) (string, bool) {
	best := ""
	for _, r := range f.roots {
		if name == r {
			return r, true
		}
		if (r == "." || strings.HasPrefix(name, r+"/")) && len(r) >= len(best) {
			best = r
		}
	}
	if best != "" {
		return best, false
	}
	return name, true
}

// tree returns the rules met walking down from folder base.
func (f *filter) tree(base string) *tree {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.trees[base]; t != nil {
		return t
	}
	t := &tree{f: f, base: base, top: base, levels: map[string]*level{}}
	f.trees[base] = t
	return t
}

// ignored reports whether name is left out: named explicitly, never;
// else judged from the folder it lies in ([filter.base]).
func (f *filter) ignored(name string, isDir bool) bool {
	if f == nil {
		return false
	}
	b, explicit := f.base(name)
	if explicit {
		return false
	}
	return f.tree(b).ignored(name, isDir)
}

// ignored reports whether name, at or below t.base, is left out: it, or a
// folder it lies in below t.base, is ignored or excluded.
func (t *tree) ignored(name string, isDir bool) bool {
	if name == t.base || !within(name, t.base) {
		return false
	}
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	parent := t.level(path.Dir(name))
	return parent.ignored || t.judge(parent, name, isDir)
}

// judge reports whether name, an entry of a folder not left out whose
// level is parent, is left out itself.
func (t *tree) judge(parent *level, name string, isDir bool) bool {
	return t.f.excluded(rel(t.base, name), isDir) || parent.rules.Ignored(rel(t.top, name), isDir) ||
		t.f.readFiles && isDir && savedPageFiles(t.f.fsys, name)
}

// savedPageFiles reports whether the folder name holds the files of a web
// page a browser saved whole beside it ("Save Page As", Webpage, Complete:
// Chromium and Firefox write page.html and its stylesheets, scripts,
// images and frames in page_files): they are the page's parts, not
// documents, and their text (minified scripts and stylesheets) would only
// crowd out the page's own in searches.
func savedPageFiles(fsys fs.FS, name string) bool {
	stem, ok := strings.CutSuffix(path.Base(name), "_files")
	if !ok || stem == "" {
		return false
	}
	for _, ext := range []string{".html", ".htm", ".xhtml", ".shtml"} {
		if info, err := fs.Stat(fsys, path.Join(path.Dir(name), stem+ext)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// level returns folder dir's level, reading the ignore files of the folders
// from t.base down to it as needed. t.f.mu is held.
func (t *tree) level(dir string) *level {
	if l := t.levels[dir]; l != nil {
		return l
	}
	if dir == t.base || !within(dir, t.base) {
		return t.baseLevel()
	}
	p := t.level(path.Dir(dir))
	l := &level{ignored: p.ignored || t.judge(p, dir, true), rules: p.rules}
	if !l.ignored {
		l.rules = t.read(dir, l.rules)
	}
	t.levels[dir] = l
	return l
}

// baseLevel makes the level of t.base: the rules of its own ignore files
// and, when it lies in a git work tree, those of the folders above it up to
// the work tree's top and of the repository's .git/info/exclude. t.f.mu is
// held.
func (t *tree) baseLevel() *level {
	if l := t.levels[t.base]; l != nil {
		return l
	}
	l := &level{}
	t.levels[t.base] = l
	if !t.f.readFiles {
		return l
	}
	above := []string{t.base} // from t.base up, to the work tree's top
	if wt, ok := t.f.workTree(t.base); ok {
		top := wt.top
		t.top = top
		if name := t.f.globalName(wt); name != "" {
			l.rules = t.readFile(name, top, ignore.GlobalExclude, l.rules)
		}
		if wt.commonDir != "" {
			l.rules = t.readFile(join(wt.commonDir, "info/exclude"), top, ignore.InfoExclude, l.rules)
		}
		for d := t.base; d != top; {
			d = path.Dir(d)
			above = append(above, d)
		}
	}
	for i := len(above) - 1; i >= 0; i-- {
		l.rules = t.read(above[i], l.rules)
	}
	return l
}

// globalName returns the name in fsys of git's global excludes file in
// the work tree wt, "" for none.
func (f *filter) globalName(wt workTree) string {
	if f.global == nil {
		return ""
	}
	gitDir := ""
	if wt.gitDir != "" {
		gitDir = "/" + strings.TrimPrefix(wt.gitDir, "/")
		if wt.gitDir == "." {
			gitDir = "/"
		}
	}
	g := filepath.ToSlash(f.global(gitDir))
	switch {
	case g == "":
		return ""
	case strings.HasPrefix(g, "/"):
		if n := path.Clean(g); n != "/" {
			return n[1:]
		}
		return ""
	}
	return path.Clean(join(wt.top, g))
}

// workTree is a git work tree, as names in fsys.
type workTree struct {
	top string // the folder holding .git
	// gitDir is its git folder: top/.git, or the folder a .git file names
	// (a linked work tree's, a submodule's); "" if the file names none.
	gitDir string
	// commonDir is the git folder that holds the repository's config and
	// info/exclude: gitDir, or the one its commondir file names (a linked
	// work tree's); "" when gitDir is.
	commonDir string
}

// workTree returns the git work tree that folder dir lies in (the nearest
// folder at or above it holding a .git); ok is false outside a work tree.
func (f *filter) workTree(dir string) (wt workTree, ok bool) {
	for d := dir; ; d = path.Dir(d) {
		fi, err := fs.Stat(f.fsys, join(d, ".git"))
		if err != nil {
			if d == "." {
				return workTree{}, false
			}
			continue
		}
		wt.top = d
		if fi.IsDir() {
			wt.gitDir = join(d, ".git")
		} else if data, err := fs.ReadFile(f.fsys, join(d, ".git")); err == nil && len(data) < 4096 {
			if g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
				wt.gitDir = f.fsysName(d, strings.TrimSpace(g))
			}
		}
		if wt.gitDir == "" {
			return wt, true
		}
		wt.commonDir = wt.gitDir
		if data, err := fs.ReadFile(f.fsys, join(wt.gitDir, "commondir")); err == nil && len(data) < 4096 {
			if c := strings.TrimSpace(string(data)); c != "" {
				wt.commonDir = f.fsysName(wt.gitDir, c)
			}
		}
		return wt, true
	}
}

// fsysName returns the name in fsys of p, a path git wrote in a file of
// folder dir: absolute (an operating system's path, the fsys's root), or
// relative to dir.
func (f *filter) fsysName(dir, p string) string {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") {
		if n := path.Clean(p); n != "/" {
			return n[1:]
		}
		return "."
	}
	return path.Clean(join(dir, p))
}

// read adds the ignore files of folder dir to rules.
func (t *tree) read(dir string, rules *ignore.Rules) *ignore.Rules {
	if !t.f.readFiles {
		return rules
	}
	for _, f := range ignoreFiles {
		rules = t.readFile(join(dir, f.name), dir, f.kind, rules)
	}
	return rules
}

// readFile adds the ignore file name, whose patterns are relative to
// folder dir, to rules; its problems are warned of.
func (t *tree) readFile(name, dir string, kind ignore.Kind, rules *ignore.Rules) *ignore.Rules {
	fi, err := fs.Stat(t.f.fsys, name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) { // none, or dir is a file
		return rules
	}
	var data []byte
	switch {
	case err != nil:
	case fi.IsDir():
		err = errors.New("a folder, not an ignore file: left out")
	case fi.Size() > maxIgnoreFile:
		err = fmt.Errorf("%s, more than an ignore file's %s: left out", FormatSize(fi.Size()), FormatSize(maxIgnoreFile))
	default:
		data, err = fs.ReadFile(t.f.fsys, name)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // deleted since: nothing to say
			t.f.warn(name, fmt.Errorf("ignore file not read: %w", unwrapPathErr(err)))
		}
		return rules
	}
	l, errs := ignore.Parse(data, rel(t.top, dir))
	for _, e := range errs {
		t.f.warn(name, e)
	}
	return rules.Add(kind, l)
}

// excluded reports whether a path, relative to the folder walked, matches
// an [Options.Exclude] pattern.
func (f *filter) excluded(rel string, isDir bool) bool {
	if rel == "" || rel == "." {
		return false
	}
	for _, x := range f.exclude {
		if x.dirOnly && !isDir {
			continue
		}
		target := rel
		if !x.anchored {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(x.glob, target); ok {
			return true
		}
	}
	return false
}

// within reports whether name lies at or under folder dir ("." holds all).
func within(name, dir string) bool {
	return dir == "." || name == dir || strings.HasPrefix(name, dir+"/")
}

// rel returns name relative to folder dir, which holds it ("" for dir).
func rel(dir, name string) string {
	if name == dir {
		return ""
	}
	if dir == "." {
		return name
	}
	return strings.TrimPrefix(name, dir+"/")
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// globBase returns the folder of a pattern before its first wildcard.
func globBase(pattern string) string {
	p := pattern[:strings.IndexAny(pattern, metaChars)]
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return path.Clean(p[:i+1])
	}
	return "."
}

// Filter says which paths the walks of an [Indexer] leave out by their
// ignore files and [Options.Exclude], each path judged, as by
// [Indexer.Index], from the folder of [Options.Roots] it lies under. A
// watcher asks it which folders to watch. It reads ignore files as it
// needs them and keeps what it read: after an ignore file changes, make a
// new one. It does not warn of ignore files it cannot read (the indexer
// does, when it walks them). It is safe for use by several goroutines.
type Filter struct {
	ix *Indexer
	f  *filter // nil: nothing is left out
}

// Filter returns a new [Filter] of the indexer's walks.
func (ix *Indexer) Filter() *Filter {
	if ix.opts.NoIgnore && len(ix.opts.Exclude) == 0 {
		return &Filter{ix: ix}
	}
	return &Filter{ix: ix, f: &filter{
		fsys: ix.fsys, readFiles: !ix.opts.NoIgnore, exclude: compileExclude(ix.opts.Exclude), roots: ix.roots,
		global: ix.global, trees: map[string]*tree{}, warn: func(string, error) {},
	}}
}

// Ignored reports whether the indexer's walks leave out p (a path as
// [Indexer.Index] takes it; a folder if isDir): it, or a folder it lies
// in below the root it lies under, is ignored or excluded. A root itself,
// or a path under no root, is never left out: it would be named.
func (x *Filter) Ignored(p string, isDir bool) bool {
	if x.f == nil {
		return false
	}
	name, err := x.ix.name(p)
	if err != nil {
		return false
	}
	return x.f.ignored(name, isDir)
}

// RuleFiles returns the files outside folder root (one of [Options.Roots])
// whose rules apply in it, as stored paths, whether or not they exist: in
// a git work tree, the .gitignore and .ignore files of the folders above
// root up to the work tree's top, the repository's .git/info/exclude, and
// git's global excludes file (core.excludesFile, ~/.config/git/ignore).
// It returns none outside a work tree, or when ignore files are not read
// ([Options.NoIgnore]).
func (x *Filter) RuleFiles(root string) []string {
	if x.f == nil || !x.f.readFiles {
		return nil
	}
	name, err := x.ix.name(root)
	if err != nil {
		return nil
	}
	wt, ok := x.f.workTree(name)
	if !ok {
		return nil
	}
	top := wt.top
	var files []string
	if g := x.f.globalName(wt); g != "" {
		files = append(files, x.ix.storedPath(g))
	}
	if wt.commonDir != "" {
		files = append(files, x.ix.storedPath(join(wt.commonDir, "info/exclude")))
	}
	for d := name; d != top; {
		d = path.Dir(d)
		for _, f := range ignoreFiles {
			files = append(files, x.ix.storedPath(join(d, f.name)))
		}
	}
	return files
}
