package main

import (
	"os"
	"strings"
	"testing"
)

// TestPathStartingWithDash: a file whose name starts with "-" is taken for
// a flag by cite index, show and rm; when such a file is there, the error
// says how to name it, and both ways work. A mistyped flag gets no such
// hint.
func TestPathStartingWithDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("-notes.md", []byte("# Notes\n\nZebras graze at dawn.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"index", "-notes.md"}, 2, "", `cite: "-notes.md" is taken for a flag; a PATH starting with "-" goes after -- or as ./-notes.md: cite index -- "-notes.md"`},
		{[]string{"index", "--bogus", "."}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"index", "--", "-notes.md"}, 0, "1 added", ""},
		{[]string{"show", "-notes.md"}, 2, "", `cite show -- "-notes.md"`},
		{[]string{"show", "./-notes.md"}, 0, "Zebras graze at dawn.", ""},
		{[]string{"rm", "-notes.md"}, 2, "", `cite rm -- "-notes.md"`},
		{[]string{"rm", "--", "-notes.md"}, 0, "removed", ""},
	} {
		code, out, errOut := cite(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("cite %s: %d\n%s%s\nwant %d, %q, %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.stdout, tc.stderr)
		}
		if strings.Contains(tc.args[1], "bogus") && strings.Contains(errOut, "PATH starting with") {
			t.Errorf("cite %s: a hint for a PATH, with no such file:\n%s", strings.Join(tc.args, " "), errOut)
		}
	}
}
