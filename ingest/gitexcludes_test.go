package ingest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestGitGlobalExcludes: in a git work tree, a walk leaves out what git's
// global excludes file ignores, found as git finds it (core.excludesFile
// in ~/.config/git/config or ~/.gitconfig, else ~/.config/git/ignore,
// $XDG_CONFIG_HOME for ~/.config), below .git/info/exclude and the
// .gitignore files, which may re-include; outside a work tree, and with
// NoIgnore, it is not read. Where git is installed, git ls-files leaves
// out the same files.
func TestGitGlobalExcludes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		xdg    bool              // XDG_CONFIG_HOME set, to HOME/xdg
		global string            // GIT_CONFIG_GLOBAL set, to this file under HOME
		home   map[string]string // files under HOME
		repo   bool              // the folder walked holds a .git
		opts   Options
		want   []string // indexed, under the folder walked
	}{
		{"none", false, "", nil, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md", "x.md"}},
		{"~/.config/git/ignore", false, "", map[string]string{".config/git/ignore": "*.secret.md\nlogs/\n"}, true, Options{},
			[]string{"a.md", "keep.secret.md", "x.md"}},
		{"$XDG_CONFIG_HOME/git/ignore", true, "", map[string]string{"xdg/git/ignore": "*.secret.md\n", ".config/git/ignore": "a.md\n"}, true, Options{},
			[]string{"a.md", "keep.secret.md", "logs/l.md", "x.md"}},
		{"core.excludesFile in ~/.gitconfig", false, "", map[string]string{
			".gitconfig":         "[user]\n\tname = A\n[core]\n\texcludesFile = ~/.gitignore_global\n",
			".gitignore_global":  "logs/\n",
			".config/git/ignore": "a.md\n", // not read: core.excludesFile names another
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"~/.gitconfig wins over ~/.config/git/config", false, "", map[string]string{
			".config/git/config": "[core]\n\texcludesFile = ~/one\n",
			".gitconfig":         "[core]\n\texcludesFile = \"~/two\"\n",
			"one":                "a.md\n",
			"two":                "x.md\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md"}},
		{"a relative core.excludesFile: from the work tree's top", false, "", map[string]string{
			".gitconfig": "[core]\n\texcludesFile = rules/ignore\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md"}},
		{"set empty: none", false, "", map[string]string{".gitconfig": "[core]\nexcludesFile =\n", ".config/git/ignore": "a.md\n"}, true, Options{},
			[]string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md", "x.md"}},
		{"GIT_CONFIG_GLOBAL", false, "cfg", map[string]string{
			"cfg":        "[core]\n\texcludesFile = ~/g\n",
			"g":          "logs/\n",
			".gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n", // not read
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"the system's config", false, "", map[string]string{
			"etc/gitconfig": "[core]\n\texcludesFile = ~/sys\n",
			"sys":           "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"the user's config wins over the system's", false, "", map[string]string{
			"etc/gitconfig": "[core]\n\texcludesFile = ~/sys\n",
			"sys":           "logs/\n",
			".gitconfig":    "[core]\n\texcludesFile = ~/g\n",
			"g":             "x.md\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md"}},
		{"the repository's config wins over the user's", false, "", map[string]string{
			".gitconfig":  "[core]\n\texcludesFile = ~/g\n",
			"g":           "x.md\n",
			"r":           "logs/\n",
			"repo-config": "[core]\n\texcludesFile = ~/r\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"an include, from the including file's folder", false, "", map[string]string{
			".gitconfig": "[core]\n\texcludesFile = ~/none\n[include]\n\tpath = inc/more\n",
			"inc/more":   "[core]\n\texcludesFile = ~/g\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"set after an include: wins", false, "", map[string]string{
			".gitconfig": "[include]\n\tpath = ~/more\n[core]\n\texcludesFile = ~/g\n",
			"more":       "[core]\n\texcludesFile = ~/none\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"includeIf gitdir that holds", false, "", map[string]string{
			".gitconfig": "[includeIf \"gitdir:repo/\"]\n\tpath = w.inc\n",
			"w.inc":      "[core]\n\texcludesFile = ~/g\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"includeIf gitdir/i that holds", false, "", map[string]string{
			".gitconfig": "[includeIf \"gitdir/i:REPO/\"]\n\tpath = w.inc\n",
			"w.inc":      "[core]\n\texcludesFile = ~/g\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"includeIf gitdir that does not", false, "", map[string]string{
			".gitconfig": "[includeIf \"gitdir:~/elsewhere/\"]\n\tpath = w.inc\n",
			"w.inc":      "[core]\n\texcludesFile = ~/g\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md", "x.md"}},
		{"includeIf onbranch", false, "", map[string]string{
			".gitconfig": "[includeIf \"onbranch:ma*\"]\n\tpath = m.inc\n[includeIf \"onbranch:other\"]\n\tpath = o.inc\n",
			"m.inc":      "[core]\n\texcludesFile = ~/g\n",
			"o.inc":      "[core]\n\texcludesFile = ~/none\n",
			"g":          "logs/\n",
		}, true, Options{}, []string{"a.md", "b.secret.md", "keep.secret.md", "x.md"}},
		{"outside a work tree: not read", false, "", map[string]string{".config/git/ignore": "*.secret.md\nlogs/\n"}, false, Options{},
			[]string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md", "x.md"}},
		{"--no-ignore: not read", false, "", map[string]string{".config/git/ignore": "*.secret.md\nlogs/\n"}, true, Options{NoIgnore: true},
			[]string{"a.md", "b.secret.md", "keep.secret.md", "logs/l.md", "x.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_GLOBAL", "") // for git below too: taken as unset
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			if _, ok := tc.home["etc/gitconfig"]; ok {
				t.Setenv("GIT_CONFIG_NOSYSTEM", "")
				t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(home, "etc", "gitconfig"))
			}
			if tc.global != "" {
				t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, tc.global))
			}
			if tc.xdg {
				t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
			}
			dir := filepath.Join(t.TempDir(), "repo")
			files := map[string]string{
				"a.md": "# A", "x.md": "# X", "b.secret.md": "# Secret", "keep.secret.md": "# Kept", "logs/l.md": "# Log",
				".gitignore":   "!keep.secret.md\n", // re-includes what the global file ignores
				"rules/ignore": "x.md\n",            // a relative core.excludesFile's
			}
			_, noGit := exec.LookPath("git")
			if tc.repo {
				files[".git/info/exclude"] = "# nothing\n"
				if noGit == nil { // a repository git reads too
					if out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput(); err != nil {
						t.Fatalf("git init: %v: %s", err, out)
					}
				}
			}
			if c, ok := tc.home["repo-config"]; ok {
				cfg := filepath.Join(dir, ".git", "config")
				old, _ := os.ReadFile(cfg) // git init's, if git made it
				files[".git/config"] = string(old) + c
			}
			if tc.repo {
				if _, err := os.Stat(filepath.Join(dir, ".git", "HEAD")); err != nil {
					files[".git/HEAD"] = "ref: refs/heads/main\n"
				}
			}
			for base, fs := range map[string]map[string]string{home: tc.home, dir: files} {
				for rel, text := range fs {
					text = strings.ReplaceAll(text, "REPO", strings.ToUpper(dir))
					p := filepath.Join(base, filepath.FromSlash(rel))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var warnings []string
			opts := tc.opts
			opts.GitExcludes = GitExcludes(os.Getenv)
			opts.OnWarning = func(p string, err error) { warnings = append(warnings, p+": "+err.Error()) }
			ix, err := New(t.Context(), newStore(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			ix.opts.OnEvent = func(e Event) {
				if rel, _ := filepath.Rel(dir, e.Path); e.Outcome == Added && !strings.HasPrefix(rel, "rules") {
					got = append(got, filepath.ToSlash(rel))
				}
			}
			if _, err := ix.Index(t.Context(), dir); err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || len(warnings) > 0 {
				t.Errorf("indexed %q, want %q; warnings %q", got, tc.want, warnings)
			}
			if !tc.repo || tc.opts.NoIgnore || noGit != nil {
				return
			}
			cmd := exec.Command("git", "-C", dir, "ls-files", "--others", "--exclude-standard", "--", ".", ":!rules", ":!.gitignore")
			cmd.Env = os.Environ()
			if tc.global == "" {
				// Unset for git, which reads none when it is set empty.
				cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") })
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			lines := strings.Fields(string(out))
			slices.Sort(lines)
			if !slices.Equal(lines, tc.want) {
				t.Errorf("git ls-files keeps %q, cite %q", lines, got)
			}
		})
	}
}

// TestLinkedWorkTreeExclude: in a linked work tree (git worktree add) or a
// submodule, whose .git is a file naming its git folder, the repository's
// info/exclude is the one of the folder its commondir names, as git reads
// it; a .git file naming nothing reads none.
func TestLinkedWorkTreeExclude(t *testing.T) {
	for _, tc := range []struct {
		name, gitFile string
		want          []string
	}{
		{"absolute gitdir", "gitdir: /main/.git/worktrees/wt\n", []string{"wt/a.md"}},
		{"relative gitdir", "gitdir: ../main/.git/worktrees/wt\n", []string{"wt/a.md"}},
		{"a submodule's, without commondir", "gitdir: ../main/.git/modules/sub\n", []string{"wt/a.md", "wt/x.md"}},
		{"naming nothing", "not git\n", []string{"wt/a.md", "wt/x.md", "wt/y.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"main/.git/info/exclude":             file("x.md\n"),
				"main/.git/worktrees/wt/commondir":   file("../..\n"),
				"main/.git/modules/sub/info/exclude": file("y.md\n"),
				"wt/.git":                            file(tc.gitFile),
				"wt/a.md":                            file("# A"),
				"wt/x.md":                            file("# X"),
				"wt/y.md":                            file("# Y"),
			}
			if tc.name == "absolute gitdir" || tc.name == "relative gitdir" {
				fsys["wt/y.md"] = file("# Y")
				tc.want = append(tc.want, "wt/y.md")
			}
			_, events, err := run(t, newStore(t), fsys, Options{}, "wt")
			if err != nil {
				t.Fatal(err)
			}
			if got := indexed(t, events); !slices.Equal(got, tc.want) {
				t.Errorf("indexed %q, want %q", got, tc.want)
			}
		})
	}
}
