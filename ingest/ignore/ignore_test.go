package ignore

import (
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestListMatch(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		dir   string // the file's folder
		path  string
		isDir bool
		want  Result
	}{
		{"name any depth", "*.log", "", "a/b/c.log", false, Ignored},
		{"name at root", "*.log", "", "c.log", false, Ignored},
		{"no match", "*.log", "", "c.md", false, NoMatch},
		{"inner slash anchors", "doc/frotz", "", "doc/frotz", false, Ignored},
		{"inner slash anchors, not deeper", "doc/frotz", "", "a/doc/frotz", false, NoMatch},
		{"leading slash anchors", "/c.log", "", "c.log", false, Ignored},
		{"leading slash, not deeper", "/c.log", "", "sub/c.log", false, NoMatch},
		{"dir only: folder", "build/", "", "build", true, Ignored},
		{"dir only: folder deeper", "build/", "", "src/build", true, Ignored},
		{"dir only: not a file", "build/", "", "build", false, NoMatch},
		{"negation", "*.md\n!keep.md", "", "keep.md", false, Included},
		{"negation then pattern: last wins", "!keep.md\n*.md", "", "keep.md", false, Ignored},
		{"negated folder name does not re-include below", "*/\n!a/", "", "a/x", true, Ignored},
		{"negated folder name re-includes itself", "*/\n!a/", "", "a", true, Included},
		{"leading **", "**/foo/bar", "", "x/y/foo/bar", false, Ignored},
		{"leading ** at root", "**/foo/bar", "", "foo/bar", false, Ignored},
		{"inner ** zero folders", "a/**/b", "", "a/b", false, Ignored},
		{"inner ** many folders", "a/**/b", "", "a/x/y/b", false, Ignored},
		{"trailing ** inside", "abc/**", "", "abc/d/e", false, Ignored},
		{"trailing ** not the folder itself", "abc/**", "", "abc", true, NoMatch},
		{"trailing ** then re-include", "abc/**\n!abc/keep", "", "abc/keep", false, Included},
		{"question mark", "q?.md", "", "q1.md", false, Ignored},
		{"question mark one char", "q?.md", "", "q22.md", false, NoMatch},
		{"class", "[ab].txt", "", "b.txt", false, Ignored},
		{"escaped bang", `\!x`, "", "!x", false, Ignored},
		{"escaped hash", `\#x`, "", "#x", false, Ignored},
		{"comment", "# x", "", "# x", false, NoMatch},
		{"trailing spaces dropped", "a.md   ", "", "a.md", false, Ignored},
		{"escaped trailing space kept", `sp\ `, "", "sp ", false, Ignored},
		{"CRLF", "a.md\r\n", "", "a.md", false, Ignored},
		{"blank and bare bang", "\n!\n", "", "x", false, NoMatch},
		{"relative to its folder", "*.log", "sub", "sub/c.log", false, Ignored},
		{"not outside its folder", "*.log", "sub", "c.log", false, NoMatch},
		{"anchored in its folder", "/doc", "x", "x/doc", true, Ignored},
		{"anchored in its folder, not deeper", "/doc", "x", "x/y/doc", true, NoMatch},
		{"the folder itself is never matched", "*", "sub", "sub", true, NoMatch},
		{"star everything", "*", "", "a/b", false, Ignored},
		{"double star alone", "**", "", "a/b", false, Ignored},
		{"anchored: not what is below the folder", "/build", "", "build/out.md", false, NoMatch},
		{"inner slash: not what is below the folder", "docs/drafts/", "", "docs/drafts/x/a.md", false, NoMatch},
		{"inner slash with a star: not below", "a/*", "", "a/b/c", true, NoMatch},
		{"inner slash with a star", "a/*", "", "a/b", true, Ignored},
		{"anchored in its folder: not below", "/doc", "x", "x/doc/a.md", false, NoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, errs := Parse([]byte(tt.lines), tt.dir)
			if len(errs) > 0 {
				t.Fatalf("Parse: %v", errs)
			}
			if got := l.Match(tt.path, tt.isDir); got != tt.want {
				t.Errorf("%q in %q: Match(%q, %v) = %v, want %v", tt.lines, tt.dir, tt.path, tt.isDir, got, tt.want)
			}
		})
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		wantLines []int
		wantPats  int
		wantErr   error
	}{
		{"unclosed class", "a.md\n[abc\nb.md\n", []int{2}, 2, nil},
		{"unfinished escape", "x\\\n", []int{1}, 0, nil},
		{"binary", "a.md\x00\n", nil, 0, ErrBinary},
		{"fine", "# comment\n\n*.md\n", nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, errs := Parse([]byte(tt.data), "")
			if l.Len() != tt.wantPats {
				t.Errorf("%d patterns, want %d", l.Len(), tt.wantPats)
			}
			var lines []int
			for _, err := range errs {
				var le *LineError
				switch {
				case errors.As(err, &le):
					lines = append(lines, le.Line)
					if !strings.Contains(err.Error(), "line ") {
						t.Errorf("error %q names no line", err)
					}
				case tt.wantErr == nil || !errors.Is(err, tt.wantErr):
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
			}
			if !slices.Equal(lines, tt.wantLines) {
				t.Errorf("bad lines %v, want %v", lines, tt.wantLines)
			}
		})
	}
}

func TestRulesPrecedence(t *testing.T) {
	parse := func(data, dir string) *List {
		l, errs := Parse([]byte(data), dir)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return l
	}
	tests := []struct {
		name  string
		rules *Rules
		path  string
		want  bool
	}{
		{"nil rules", nil, "a.md", false},
		{"deeper gitignore wins", (*Rules)(nil).Add(GitIgnore, parse("*.md", "")).Add(GitIgnore, parse("!keep.md", "abc")), "abc/keep.md", false},
		{"deeper gitignore only below", (*Rules)(nil).Add(GitIgnore, parse("*.md", "")).Add(GitIgnore, parse("!keep.md", "abc")), "keep.md", true},
		{".ignore wins over a deeper .gitignore", (*Rules)(nil).Add(IgnoreFile, parse("*.md", "")).Add(GitIgnore, parse("!keep.md", "abc")), "abc/keep.md", true},
		{".ignore re-includes", (*Rules)(nil).Add(GitIgnore, parse("*.md", "")).Add(IgnoreFile, parse("!keep.md", "")), "keep.md", false},
		{"gitignore wins over info/exclude", (*Rules)(nil).Add(InfoExclude, parse("*.md", "")).Add(GitIgnore, parse("!a.md", "")), "a.md", false},
		{"info/exclude alone", (*Rules)(nil).Add(InfoExclude, parse("*.md", "")), "a.md", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rules.Ignored(tt.path, false); got != tt.want {
				t.Errorf("Ignored(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestAddShares checks that Add leaves the rules it extends as they were:
// a folder's rules are its subfolders' starting point.
func TestAddShares(t *testing.T) {
	a, _ := Parse([]byte("*.md"), "a")
	b, _ := Parse([]byte("*.txt"), "b")
	c, _ := Parse([]byte("*.log"), "c")
	base := (*Rules)(nil).Add(GitIgnore, a)
	rb := base.Add(GitIgnore, b)
	rc := base.Add(GitIgnore, c)
	if rb.Ignored("c/x.log", false) || !rc.Ignored("c/x.log", false) || rc.Ignored("b/x.txt", false) || !rb.Ignored("b/x.txt", false) {
		t.Error("rules added to one copy leak into another")
	}
}

// gitCases are trees of ignore files for TestAgainstGit.
var gitCases = []struct {
	name    string
	ignores map[string]string // folder → .gitignore
}{
	{"simple", map[string]string{".": "*.txt\n"}},
	{"anchored", map[string]string{".": "doc/frotz.md\n/c.log\n"}},
	{"unanchored", map[string]string{".": "c.log\nfrotz.md\n"}},
	{"dir only", map[string]string{".": "foo/\nbuild/\n"}},
	{"negation", map[string]string{".": "n/*\n!n/important.md\n"}},
	{"negation order", map[string]string{".": "!a.md\n*.md\n"}},
	{"negation under an ignored folder", map[string]string{".": "n/\n!n/important.md\n"}},
	{"double stars", map[string]string{".": "**/foo/bar.md\na/**/b.md\ndeep/**/d.md\n"}},
	{"trailing double star", map[string]string{".": "abc/**\n!abc/keep.md\n"}},
	{"globs", map[string]string{".": "q?.md\n[ab].*\n"}},
	{"escapes", map[string]string{".": "\\#h.md\nlit\\!x.md\nsp\\ .md\n"}},
	{"subfolder files", map[string]string{"sub": "*.log\n", "x": "/doc\n"}},
	{"deeper re-includes", map[string]string{".": "*.md\n", "abc": "!keep.md\n"}},
	{"folder names", map[string]string{".": "*/\n!a/\n"}},
	{"node_modules", map[string]string{".": "node_modules/\n/build\n"}},
	{"star slash", map[string]string{".": "a/*/b.md\n"}},
}

var gitFiles = []string{"a.md", "b.txt", "doc/frotz.md", "x/doc/frotz.md", "foo/bar.md", "x/foo/bar.md",
	"abc/keep.md", "abc/d/e.md", "a/b.md", "a/x/b.md", "a/x/y/b.md", "build/out.md", "src/build/out.md",
	"n/important.md", "n/other.md", "sub/c.log", "c.log", "lit!x.md", "#h.md", "sp .md", "q1.md", "q22.md",
	"node_modules/p/readme.md", "sub/node_modules/q.md", "deep/a/b/c/d.md"}

// TestAgainstGit compares the files a walk with these rules leaves out with
// those git itself lists as ignored (git ls-files --others --ignored
// --exclude-standard), on trees of .gitignore files. It skips without git.
func TestAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range gitFiles {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for d, s := range c.ignores {
				if err := os.WriteFile(filepath.Join(dir, d, ".gitignore"), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
			out, err := exec.Command("git", "-C", dir, "-c", "core.excludesFile=/dev/null", "ls-files", "-z", "--others", "--ignored", "--exclude-standard").Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if len(out) == 0 {
				want = nil
			}
			slices.Sort(want)
			got := walkIgnored(t, dir)
			if !slices.Equal(got, want) {
				t.Errorf("ignored files:\n got %q\nwant %q (git)", got, want)
			}
		})
	}
}

// walkIgnored walks dir as cite does, reading each folder's .gitignore, and
// returns the files left out: ignored, or in an ignored folder.
func walkIgnored(t *testing.T, root string) []string {
	var out []string
	var walk func(rel string, r *Rules)
	walk = func(rel string, r *Rules) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if data, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
			l, errs := Parse(data, rel)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			r = r.Add(GitIgnore, l)
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == ".git" || e.Name() == ".gitignore" {
				continue
			}
			p := path.Join(rel, e.Name())
			ign := r.Ignored(p, e.IsDir())
			switch {
			case ign && e.IsDir():
				filepath.WalkDir(filepath.Join(root, p), func(q string, d os.DirEntry, _ error) error {
					if !d.IsDir() {
						rq, _ := filepath.Rel(root, q)
						out = append(out, filepath.ToSlash(rq))
					}
					return nil
				})
			case ign:
				out = append(out, p)
			case e.IsDir():
				walk(p, r)
			}
		}
	}
	walk("", nil)
	slices.Sort(out)
	return out
}
