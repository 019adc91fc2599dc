package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer/modeltest"
)

// hostile is a document whose title and text hold what would act on a
// terminal or hide from its reader: OSC sequences that set the window
// title and the clipboard, a CSI that clears the screen, a carriage
// return, a C1 CSI, DEL, and bidirectional overrides and isolates.
const hostile = "# Title \u202eevil\u202c \x1b]0;PWNED\x07\n\n" +
	"hello \x1b]0;PWNED\x07 zzqosc \x1b[2J then \x1b]52;c;aGVsbG8=\x07 " +
	"over\rwrite \u009b2J del\x7f \u2066iso\u2069 zero\u200bwidth.\n"

// rawTerminal returns the first character of s that a terminal would act on
// or not show, other than newline and tab, or "" if there is none.
func rawTerminal(s string) string {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20, r >= 0x7f && r < 0xa0, r == '\u202e', r == '\u202c', r == '\u2066', r == '\u2069', r == '\u200b':
			return string(r)
		}
	}
	return ""
}

// TestTerminalEscapes: the text of a document never reaches the terminal
// raw: search, show, docs, ask and chat make its control characters and
// bidirectional overrides visible (\x1b, \u202e), while --json keeps them
// exact (issue 20, defect 3).
func TestTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "osc.md")
	if err := os.WriteFile(doc, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, dir); code != 0 {
		t.Fatal(stderr)
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		// Escape sequences split between the stream's chunks. (A character
		// split between chunks cannot cross the wire, which is JSON; the
		// escape.Writer's tests split them.)
		{Text: []string{"model \x1b", "]0;PWNED\x07 says \u202e", " zzqosc [doc:1]."}},
		{Text: []string{"chat \x1b", "[2J \u202e", "again [doc:1]."}},
	}})
	vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
	for _, tc := range []struct {
		name string
		args []string
		in   string
		want []string // in stdout, as shown
	}{
		{"search", []string{"search", "zzqosc"}, "", []string{`hello \x1b]0;PWNED\x07`, `\x1b[2J`, `Title \u202eevil`, `\u009b2J`, `del\x7f`}},
		{"show", []string{"show", doc}, "", []string{`hello \x1b]0;PWNED\x07 zzqosc \x1b[2J`, `\x1b]52;c;aGVsbG8=\x07`, `\u2066iso\u2069`, `zero\u200bwidth`}},
		{"show chunks", []string{"show", "--chunks", doc}, "", []string{`\x1b[2J`, `Title \u202eevil`}},
		{"docs", []string{"docs"}, "", []string{`Title \u202eevil\u202c`}},
		{"ask", []string{"ask", "zzqosc"}, "", []string{`hello \x1b]0;PWNED\x07`, `Title \u202eevil`}},
		{"ask model", []string{"ask", "--model", "openai:m", "--max-tool-calls", "0", "zzqosc"}, "", []string{`model \x1b]0;PWNED\x07 says \u202e zzqosc [1].`, `Title \u202eevil`}},
		{"chat", []string{"chat", "--model", "openai:m", "--max-tool-calls", "0"}, "zzqosc\n", []string{`chat \x1b[2J \u202eagain [1].`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			args := append([]string{tc.args[0], "--index", idx}, tc.args[1:]...)
			code := run(t.Context(), args, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }, in: strings.NewReader(tc.in)})
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			if r := rawTerminal(stdout.String() + stderr.String()); r != "" {
				t.Errorf("%+q reached the terminal raw:\n%s%s", r, stdout.String(), stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %s:\n%s", w, stdout.String())
				}
			}
		})
	}
	// --json keeps the text exact.
	code, stdout, stderr := cite(t, "search", "--index", idx, "--json", "zzqosc")
	var res struct {
		Hits []struct {
			Text     string
			Document struct{ Title string }
		}
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Hits) == 0 {
		t.Fatalf("search --json: exit %d\n%s%s", code, stdout, stderr)
	}
	if h := res.Hits[0]; !strings.Contains(h.Text, "hello \x1b]0;PWNED\x07 zzqosc \x1b[2J") || !strings.Contains(h.Document.Title, "\u202eevil") {
		t.Errorf("search --json changed the text: %+q", h)
	}
}
