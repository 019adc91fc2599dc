package ignore

import (
	"strings"
	"testing"
)

// FuzzParse parses any ignore file and matches any path with it: nothing
// panics, and a single pattern and its "!" form agree on what they match.
func FuzzParse(f *testing.F) {
	for _, c := range gitCases {
		for _, s := range c.ignores {
			f.Add(s, "a/b.md", false)
		}
	}
	f.Add("abc/**\n!abc/keep.md", "abc/keep.md", false)
	f.Add("*/\n!a/", "a/x", true)
	f.Add("[a-\n\\", "x", false)
	f.Add("sp\\ \n\\#h\n\\!x", "sp ", false)
	f.Add("**/**/x/**", "x/y", true)
	f.Add("a\x00b", "a", false)
	f.Fuzz(func(t *testing.T, data, p string, isDir bool) {
		l, _ := Parse([]byte(data), "")
		r := l.Match(p, isDir)
		if r != NoMatch && r != Ignored && r != Included {
			t.Fatalf("Match = %d", r)
		}
		(*Rules)(nil).Add(GitIgnore, l).Ignored(p, isDir)
		line, _, _ := strings.Cut(data, "\n")
		if line == "" || strings.ContainsAny(line[:1], "!#\\ \r\x00") {
			return
		}
		one, errs := Parse([]byte(line), "")
		if len(errs) > 0 || one.Len() != 1 {
			return
		}
		neg, _ := Parse([]byte("!"+line), "")
		a, b := one.Match(p, isDir), neg.Match(p, isDir)
		if (a == NoMatch) != (b == NoMatch) || (a == Ignored) != (b == Included) {
			t.Errorf("%q matches %q as %v, but %q as %v", line, p, a, "!"+line, b)
		}
	})
}
