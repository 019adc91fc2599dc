package ingest

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cite-rag/cite/ingest/ignore"
)

// maxGitConfig bounds the git config files read for core.excludesFile.
const maxGitConfig = 1 << 20

// maxGitIncludeDepth is how deep git follows includes (its own limit).
const maxGitIncludeDepth = 10

// GitExcludes returns the function [Options.GitExcludes] takes: the path
// of git's global excludes file in the repository whose git folder is
// gitDir (an absolute path; "" for none), as git finds it from the
// environment getenv reads (os.Getenv). core.excludesFile is read from
// git's config files in git's order, the last one set winning: the
// system's (/etc/gitconfig, or $GIT_CONFIG_SYSTEM; none with
// $GIT_CONFIG_NOSYSTEM), the user's ($GIT_CONFIG_GLOBAL if set, else
// $XDG_CONFIG_HOME/git/config, or ~/.config/git/config without it, then
// ~/.gitconfig), the repository's (gitDir/config, or that of the folder
// gitDir/commondir names in a linked work tree) and the variables
// $GIT_CONFIG_COUNT, $GIT_CONFIG_KEY_n and $GIT_CONFIG_VALUE_n. Each file's
// include.path and includeIf "gitdir:…", "gitdir/i:…" and "onbranch:…"
// paths are read where they stand, as git reads them ("~/" is $HOME, a
// relative path is from the including file's folder; other conditions,
// such as hasconfig, do not hold). "~/" in the value means $HOME. Unset,
// it is $XDG_CONFIG_HOME/git/ignore, or ~/.config/git/ignore. The
// function returns "" if it names none (set empty, or no $HOME to find it
// in). The path is absolute, or relative to the top of the work tree it
// applies in, as a relative core.excludesFile is for git run there; the
// file need not exist. A $GIT_CONFIG_GLOBAL set empty is taken as unset
// (git reads no global config then).
func GitExcludes(getenv func(string) string) func(gitDir string) string {
	return func(gitDir string) string {
		g := gitConfig{home: getenv("HOME"), gitDir: gitDir}
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && g.home != "" {
			xdg = filepath.Join(g.home, ".config")
		}
		if !envBool(getenv("GIT_CONFIG_NOSYSTEM")) {
			sys := getenv("GIT_CONFIG_SYSTEM")
			if sys == "" {
				sys = "/etc/gitconfig"
			}
			g.read(sys, 0)
		}
		if c := getenv("GIT_CONFIG_GLOBAL"); c != "" {
			g.read(c, 0)
		} else {
			if xdg != "" {
				g.read(filepath.Join(xdg, "git", "config"), 0)
			}
			if g.home != "" {
				g.read(filepath.Join(g.home, ".gitconfig"), 0)
			}
		}
		if gitDir != "" {
			// A linked work tree's config is its repository's: the
			// folder its commondir names.
			common := gitDir
			if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				if c := strings.TrimSpace(string(c)); c != "" {
					common = c
					if !filepath.IsAbs(c) {
						common = filepath.Join(gitDir, c)
					}
				}
			}
			g.read(filepath.Join(common, "config"), 0)
		}
		n, _ := strconv.Atoi(getenv("GIT_CONFIG_COUNT"))
		for i := range min(n, 1000) {
			if strings.EqualFold(getenv("GIT_CONFIG_KEY_"+strconv.Itoa(i)), "core.excludesFile") {
				g.value, g.set = getenv("GIT_CONFIG_VALUE_"+strconv.Itoa(i)), true
			}
		}
		if !g.set {
			if xdg == "" {
				return ""
			}
			return filepath.Join(xdg, "git", "ignore")
		}
		switch {
		case g.value == "~" || strings.HasPrefix(g.value, "~/"):
			if g.home == "" {
				return ""
			}
			return filepath.Join(g.home, g.value[1:])
		case g.value == "":
			return ""
		}
		return filepath.Clean(g.value)
	}
}

// GitExcludesFile returns the global excludes file of [GitExcludes] outside
// any repository: what the system's and the user's config files set.
func GitExcludesFile(getenv func(string) string) string {
	return GitExcludes(getenv)("")
}

// gitConfig reads core.excludesFile through git's config files.
type gitConfig struct {
	home   string
	gitDir string // the repository's, "" for none
	value  string
	set    bool
}

// read reads the config file name, and the files it includes, depth deep
// in includes.
func (g *gitConfig) read(name string, depth int) {
	f, err := os.Open(name)
	if err != nil {
		return // none, mostly
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGitConfig))
	f.Close()
	if err != nil {
		return
	}
	for _, e := range ignore.ExcludesConfig(data) {
		switch {
		case !e.Include:
			g.value, g.set = e.Value, true
		case depth >= maxGitIncludeDepth || e.Value == "":
		case e.Condition == "" || g.holds(e.Condition, name):
			if p := g.includePath(e.Value, name); p != "" {
				g.read(p, depth+1)
			}
		}
	}
}

// includePath returns the path of a file included by the config file from.
func (g *gitConfig) includePath(p, from string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		if g.home == "" {
			return "" // no home to find it in: none
		}
		return filepath.Join(g.home, p[2:])
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(filepath.Dir(from), p)
}

// holds reports whether an includeIf condition of the config file from
// holds in the repository: gitdir (gitdir/i, ignoring case) matches its git
// folder, onbranch its branch checked out.
func (g *gitConfig) holds(cond, from string) bool {
	kind, pattern, _ := strings.Cut(cond, ":")
	if g.gitDir == "" || pattern == "" {
		return false
	}
	switch kind {
	case "gitdir", "gitdir/i":
		fold := kind == "gitdir/i"
		switch {
		case strings.HasPrefix(pattern, "~/"):
			if g.home == "" {
				return false
			}
			pattern = filepath.ToSlash(g.home) + pattern[1:]
		case strings.HasPrefix(pattern, "./"):
			dir := filepath.Dir(from)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			pattern = filepath.ToSlash(dir) + pattern[1:]
		case !strings.HasPrefix(pattern, "/"):
			pattern = "**/" + pattern
		}
		if strings.HasSuffix(pattern, "/") {
			pattern += "**"
		}
		dirs := []string{g.gitDir}
		if real, err := filepath.EvalSymlinks(g.gitDir); err == nil && real != g.gitDir {
			dirs = []string{real, g.gitDir}
		}
		for _, d := range dirs {
			d = filepath.ToSlash(d)
			p := pattern
			if fold {
				d, p = strings.ToLower(d), strings.ToLower(p)
			}
			if ok, _ := doublestar.Match(p, d); ok {
				return true
			}
		}
	case "onbranch":
		head, err := os.ReadFile(filepath.Join(g.gitDir, "HEAD"))
		if err != nil {
			return false
		}
		branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
		if !ok {
			return false // detached
		}
		if strings.HasSuffix(pattern, "/") {
			pattern += "**"
		}
		ok, _ = doublestar.Match(pattern, branch)
		return ok
	}
	return false
}

// envBool reads an environment variable as git reads a boolean one.
func envBool(v string) bool {
	switch strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}
