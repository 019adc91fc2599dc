package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowByName: cite show NAME, where NAME is not an indexed path but
// ends one document's (a file name, a path below the folder indexed),
// shows that document and says which path it showed (it was an error
// naming the one match); NAME ending several documents' paths is an error
// that lists them, as before; cite rm never takes a name for a path.
func TestShowByName(t *testing.T) {
	idx, moon := indexMoonAndSuns(t)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"a file name", []string{"moon.md"}, 0, []string{"The Moon\n", moon + " (markdown", "keeps one face"}, []string{"showing " + moon + ", the indexed document whose path ends in moon.md\n"}},
		{"a path below the folder", []string{"slides/moon.md", "--chunks"}, 0, []string{"--- chunk 0", "keeps one face"}, []string{"showing " + moon + ", the indexed document whose path ends in slides/moon.md\n"}},
		{"its path", []string{moon}, 0, []string{"keeps one face"}, nil},
		{"a name of several", []string{"sun.md"}, 1, nil, []string{"document sun.md: not found; indexed documents whose paths end in it: ", "a/sun.md (id ", "b/sun.md (id "}},
		{"a name of none", []string{"mars.md"}, 1, nil, []string{"document mars.md: not found\n"}},
		{"a part of a name", []string{"oon.md"}, 1, nil, []string{"document oon.md: not found\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cite(t, append([]string{"show", "--index", idx}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			for _, want := range c.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, want := range c.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if c.stderr == nil && errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
		})
	}

	// --json prints the document alone on stdout; the path shown goes to
	// stderr.
	code, out, errOut := cite(t, "show", "--index", idx, "--json", "moon.md")
	var v struct {
		Document struct {
			Path string `json:"path"`
		} `json:"document"`
		Text string `json:"text"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Document.Path != moon || !strings.Contains(v.Text, "keeps one face") {
		t.Errorf("show --json: exit %d, %+v\n%s%s", code, v, out, errOut)
	}
	if !strings.Contains(errOut, "showing "+moon) {
		t.Errorf("show --json: stderr %q", errOut)
	}

	// cite rm takes no name for a path: it would remove another file.
	code, out, errOut = cite(t, "rm", "--index", idx, "moon.md")
	if code != 1 || !strings.Contains(errOut, "the indexed document whose path ends in it: "+moon) || strings.Contains(out, "removed") {
		t.Errorf("rm moon.md: exit %d\n%s%s", code, out, errOut)
	}
}

// TestDocByName: cite search --doc and cite ask --doc take, as cite show
// does, a NAME that is no indexed path but ends exactly one document's
// path on a path component boundary (a file name, a path below the folder
// indexed), saying on stderr which document; a NAME ending several is an
// error listing them, and one ending none, or ending a name inside a path
// component, an error saying so.
func TestDocByName(t *testing.T) {
	idx, moon := indexMoonAndSuns(t)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"search, a file name", []string{"search", "--doc", "moon.md", "face"}, 0, []string{moon}, []string{"searching " + moon + ", the indexed document whose path ends in moon.md\n"}},
		{"search, a path below the folder", []string{"search", "--doc", "slides/moon.md", "star"}, 0, nil, []string{"searching " + moon + ", the indexed document whose path ends in slides/moon.md\n"}},
		{"search, its path", []string{"search", "--doc", moon, "face"}, 0, []string{moon}, nil},
		{"search, a name of several", []string{"search", "--doc", "sun.md", "star"}, 1, nil, []string{"--doc: document sun.md: not found; indexed documents whose paths end in it: ", "a/sun.md (id ", "b/sun.md (id ", "give more of its path, or its id"}},
		{"search, a name of none", []string{"search", "--doc", "mars.md", "star"}, 1, nil, []string{"--doc: document mars.md: not found (cite docs lists the indexed documents)"}},
		{"search, a part of a name", []string{"search", "--doc", "oon.md", "face"}, 1, nil, []string{"--doc: document oon.md: not found"}},
		{"ask, a file name", []string{"ask", "--doc", "moon.md", "which face does the Moon keep to the Earth"}, 0, []string{"keeps one face", moon}, []string{"attaching " + moon + ", the indexed document whose path ends in moon.md\n"}},
		{"ask, a name of several", []string{"ask", "--doc", "sun.md", "what is the Sun"}, 1, nil, []string{"--doc: document sun.md: not found; indexed documents whose paths end in it: ", "a/sun.md (id ", "b/sun.md (id "}},
		{"ask, a name of none", []string{"ask", "--doc", "mars.md", "what is Mars"}, 1, nil, []string{"--doc: document mars.md: not found"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cite(t, append([]string{c.args[0], "--index", idx}, c.args[1:]...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			for _, want := range c.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, want := range c.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if c.stderr == nil && errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
			if c.code == 0 && strings.Contains(out, "sun.md") {
				t.Errorf("a hit of another document:\n%s", out)
			}
		})
	}
}

// indexMoonAndSuns indexes, in a temporary folder, notes/slides/moon.md and
// two sun.md under notes/a and notes/b into the index idx, for the tests of
// names that end documents' paths; moon is moon.md's path.
func indexMoonAndSuns(t *testing.T) (idx, moon string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"slides/moon.md": "# The Moon\n\nThe Moon keeps one face to the Earth.\n",
		"a/sun.md":       "# The Sun, first notes\n\nThe Sun is a star.\n",
		"b/sun.md":       "# The Sun, second notes\n\nThe Sun is a star too.\n",
	} {
		p := filepath.Join(dir, "notes", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx = filepath.Join(dir, "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, filepath.Join(dir, "notes")); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	moon = filepath.Join(dir, "notes", "slides", "moon.md")
	return idx, moon
}
