package ingest

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cite-rag/cite/ingest/ignore"
)

// maxGitConfig bounds the git config files read for core.excludesFile.
const maxGitConfig = 1 << 20

// GitExcludesFile returns the path of git's global excludes file
// ([Options.GitExcludesFile]), as git finds it from the environment
// getenv reads (os.Getenv): core.excludesFile in the user's git config
// ($GIT_CONFIG_GLOBAL if set, else $XDG_CONFIG_HOME/git/config, or
// ~/.config/git/config without it, then ~/.gitconfig, the last one set
// winning), "~/" in it meaning $HOME; else $XDG_CONFIG_HOME/git/ignore, or
// ~/.config/git/ignore. It returns "" if it names none (set empty, or no
// $HOME to find it in). The path is absolute, or relative to the top of
// the work tree it applies in, as a relative core.excludesFile is for git
// run there. The system's config (/etc/gitconfig), a repository's own and
// the files they include are not read, and a $GIT_CONFIG_GLOBAL set empty
// is taken as unset (git reads no global config then). The file need not
// exist.
func GitExcludesFile(getenv func(string) string) string {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = []string{g}
	} else {
		if xdg != "" {
			configs = append(configs, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			configs = append(configs, filepath.Join(home, ".gitconfig"))
		}
	}
	value, set := "", false
	for _, c := range configs {
		f, err := os.Open(c)
		if err != nil {
			continue // none, mostly
		}
		data, err := io.ReadAll(io.LimitReader(f, maxGitConfig))
		f.Close()
		if err != nil {
			continue
		}
		if v, ok := ignore.ExcludesFile(data); ok {
			value, set = v, true
		}
	}
	if !set {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	switch {
	case value == "~" || strings.HasPrefix(value, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, value[1:])
	case value == "":
		return ""
	}
	return filepath.Clean(value)
}
