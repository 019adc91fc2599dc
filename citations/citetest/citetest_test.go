package citetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/citations"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Logf(string, ...any)               {}

// failures runs f with a recorder and returns what it reported.
func failures(f func(tb testing.TB)) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.errs
}

func rendered(t *testing.T, text string) citations.Rendered {
	t.Helper()
	inv := citations.NewInvocation()
	for _, title := range []string{"A", "B", "C"} {
		if _, err := inv.Register(citations.Reference{Title: title, Passage: "The passage of " + title + " says   hello\nworld."}); err != nil {
			t.Fatal(err)
		}
	}
	return citations.Render(text, inv, citations.Options{})
}

func TestAssertValid(t *testing.T) {
	good := rendered(t, "One [doc:2], two [doc:3][doc:2], made up [doc:9]. Code `[doc:1]`.")
	if errs := failures(func(tb testing.TB) { AssertValid(tb, good) }); len(errs) > 0 {
		t.Fatalf("AssertValid on a good rendering: %q", errs)
	}
	tests := []struct {
		name   string
		break_ func(r *citations.Rendered)
		want   string
	}{
		{"gap", func(r *citations.Rendered) { r.References[1].Number = 3 }, "has number 3, want 2"},
		{"listed twice", func(r *citations.Rendered) {
			r.References[1].Reference = r.References[0].Reference
			r.References[1].Key = r.References[0].Key
		}, "listed more than once"},
		{"wrong key", func(r *citations.Rendered) { r.References[0].Key = "[doc:7]" }, `has key "[doc:7]"`},
		{"raw marker", func(r *citations.Rendered) { r.Text += " [doc:2]" }, "raw marker"},
		{"malformed marker", func(r *citations.Rendered) { r.Text += " [doc:x]" }, "raw marker"},
		{"listed, not cited", func(r *citations.Rendered) { r.Text = strings.ReplaceAll(r.Text, "[2]", "") }, "reference 2 is listed but not cited"},
		{"cited, not listed", func(r *citations.Rendered) { r.Text += " [3]" }, "text cites [3], but 2 references are listed"},
		{"unknown reason", func(r *citations.Rendered) { r.Dropped = append(r.Dropped, citations.Drop{Reason: "odd"}) }, "unknown reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			r.References = append([]citations.Cited(nil), good.References...)
			tt.break_(&r)
			errs := failures(func(tb testing.TB) { AssertValid(tb, r) })
			if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
				t.Errorf("errors %q, want one containing %q", errs, tt.want)
			}
		})
	}
}

func TestAssertValidMarkdown(t *testing.T) {
	good := rendered(t, "One [doc:2], two [doc:1].\n").Markdown()
	if errs := failures(func(tb testing.TB) { AssertValidMarkdown(tb, good) }); len(errs) > 0 {
		t.Fatalf("good Markdown: %q", errs)
	}
	if errs := failures(func(tb testing.TB) { AssertValidMarkdown(tb, "no citations at all\n") }); len(errs) > 0 {
		t.Fatalf("Markdown without citations: %q", errs)
	}
	for name, md := range map[string]string{
		"misnumbered list": strings.Replace(good, "2. B", "3. B", 1),
		"unlisted number":  strings.Replace(good, "two [1]", "two [4]", 1),
		"raw marker":       strings.Replace(good, "One [2]", "One [doc:2]", 1),
		"no list":          "One [1].\n",
	} {
		if errs := failures(func(tb testing.TB) { AssertValidMarkdown(tb, md) }); len(errs) == 0 {
			t.Errorf("%s: no error for %q", name, md)
		}
	}
}

func TestAssertQuote(t *testing.T) {
	r := rendered(t, "x [doc:2].")
	if errs := failures(func(tb testing.TB) { AssertQuote(tb, r, 1, "B says hello world") }); len(errs) > 0 {
		t.Errorf("quote with other white space: %q", errs)
	}
	for _, q := range []struct {
		n    int
		text string
	}{{1, "A says"}, {2, "B"}, {0, "B"}} {
		if errs := failures(func(tb testing.TB) { AssertQuote(tb, r, q.n, q.text) }); len(errs) == 0 {
			t.Errorf("AssertQuote(%d, %q) reported nothing", q.n, q.text)
		}
	}
}

const scenario = `{
  "description": "test",
  "preemptive": [{"title": "A", "passage": "alpha", "reference_type": "file", "source": "/a.md", "span": {"start": 1, "end": 6}}],
  "tool_calls": [{"name": "search", "at_delta": 1, "references": [{"title": "B", "reference_type": "upload"}]}],
  "deltas": ["See [doc:1]", " and [doc:2], not [doc:7].\n"],
  "quotes": [{"number": 1, "text": "alpha"}]
}
`

func TestRunUpdatesAndChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without goldens the scenario fails.
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := failures(func(tb testing.TB) { checkScenario(tb, s, file, false) }); len(errs) == 0 {
		t.Fatal("a scenario without goldens passed")
	}
	// -update writes them; then it passes.
	run(t, dir, true)
	run(t, dir, false)
	s, err = Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := "See [1] and [2], not.\n\n---\nSources cited in this answer:\n\n1. [A](file:///a.md#bytes=1-6)\n2. B\n"
	if s.Want.Markdown != want || s.WantStream.Markdown != want {
		t.Errorf("goldens written:\n%q\n%q\nwant %q", s.Want.Markdown, s.WantStream.Markdown, want)
	}
	if len(s.Want.Dropped) != 1 || s.Want.Dropped[0].Index != 7 {
		t.Errorf("dropped golden = %+v", s.Want.Dropped)
	}
	// A wrong golden is reported.
	s.Want.Markdown = strings.Replace(s.Want.Markdown, "[2]", "[3]", 1)
	s.WantStream.References[0].Title = "changed"
	errs := failures(func(tb testing.TB) { checkScenario(tb, s, file, false) })
	joined := strings.Join(errs, "\n")
	if !strings.Contains(joined, "render: markdown") || !strings.Contains(joined, "stream: references") {
		t.Errorf("wrong goldens reported as %q", errs)
	}
}

func TestLoadRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown field":       `{"descripton": "typo"}`,
		"output and deltas":   `{"output": "a", "deltas": ["a"]}`,
		"at_delta too big":    `{"deltas": ["a"], "tool_calls": [{"name": "x", "at_delta": 2}]}`,
		"tool calls reversed": `{"deltas": ["a", "b"], "tool_calls": [{"name": "x", "at_delta": 2}, {"name": "y", "at_delta": 1}]}`,
		"not json":            `{`,
	} {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(file); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestLateMarkers(t *testing.T) {
	s := &Scenario{
		Preemptive: []Ref{{Title: "A"}},
		ToolCalls:  []ToolCall{{Name: "t", AtDelta: 1, References: []Ref{{Title: "B"}}}},
		Deltas:     []string{"early [doc:2] ", "late [doc:2] and [doc:1]"},
	}
	if !s.lateMarkers() {
		t.Error("a marker before its tool call is not late")
	}
	s.Deltas = []string{"nothing ", "then [doc:2] and [doc:1]"}
	if s.lateMarkers() {
		t.Error("markers after their tool call are late")
	}
}
