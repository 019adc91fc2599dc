package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// FindSharedData returns the folder shared/data/sub found beside the
// working directory or beside any folder above it (a package folder sits
// below the module root, and a git worktree deeper still): the shared data
// the quality tests and benchmarks read (see its README), which CI places
// beside the clone and which is never copied into it. ok is false when
// there is none.
func FindSharedData(sub string) (dir string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(wd, "..", "shared", "data", sub)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return "", false
		}
		wd = parent
	}
}

// SharedData returns the folder shared/data/sub ([FindSharedData]), or
// skips the test or benchmark, saying so, when there is none.
func SharedData(tb testing.TB, sub string) string {
	tb.Helper()
	dir, ok := FindSharedData(sub)
	if !ok {
		tb.Skipf("shared data %s absent (expected at ../shared/data beside the repository, as in CI)", sub)
	}
	return dir
}

// MarkdownSample returns up to about maxBytes of the shared Markdown
// corpus, its .md files in lexical order each followed by a newline, or
// skips as [SharedData] does.
func MarkdownSample(tb testing.TB, maxBytes int) string {
	tb.Helper()
	dir := SharedData(tb, "markdown")
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		if b.Len() >= maxBytes {
			return filepath.SkipAll
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// SplitAtSpace cuts text in pieces of about size bytes, each ending
// after white space. The Markdown corpus averages 4.2 bytes per o200k
// token, so 2,100 bytes is about a 500-token chunk.
func SplitAtSpace(text string, size int) []string {
	var out []string
	for len(text) > size {
		cut := size
		for cut < len(text) && !unicode.IsSpace(rune(text[cut])) {
			cut++
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if strings.TrimSpace(text) != "" {
		out = append(out, text)
	}
	return out
}
