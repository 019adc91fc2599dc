package answer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// fixture is the sample corpus indexed in two data sources: "bees"
// (honeybees.md) and "guides" (the guides folder).
type fixture struct {
	st *index.Store
	s  *search.Searcher
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	emb, _ := embed.New("hash", embed.Config{})
	if err := st.UseEmbedder(ctx, emb); err != nil {
		t.Fatal(err)
	}
	for src, path := range map[string]string{"bees": "../testdata/corpus/honeybees.md", "guides": "../testdata/corpus/guides", "web": "../testdata/corpus/sqlite-wal.html"} {
		ix, err := ingest.New(ctx, st, ingest.Options{Source: src, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Index(ctx, path); err != nil {
			t.Fatal(err)
		}
	}
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{st, s}
}

func openaiModel(t testing.TB, srv *modeltest.Server) provider.ChatModel {
	m, err := provider.NewChatModel("openai:test", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL(), OpenAIAPIKey: "sk-secret-test-key"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// remote pretends a model runs on another machine.
type remote struct{ provider.ChatModel }

func (remote) Local() bool { return false }

// run collects a request's events and its result.
func run(t *testing.T, eng *answer.Engine, req answer.Request) ([]answer.Event, *answer.Result, error) {
	t.Helper()
	var evs []answer.Event
	var res *answer.Result
	for ev, err := range eng.Run(t.Context(), req) {
		if err != nil {
			return evs, res, err
		}
		evs = append(evs, ev)
		if ev.Kind == answer.EventAnswer {
			res = ev.Answer
		}
	}
	return evs, res, nil
}

func statuses(res *answer.Result) string {
	var s []string
	for _, c := range res.ToolCalls {
		s = append(s, c.Name+":"+c.Status)
	}
	return strings.Join(s, ",")
}

// toolMessages returns the tool results the model received in request i.
func toolMessages(srv *modeltest.Server, i int) []string {
	var out []string
	for _, m := range srv.Requests()[i].Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

func call(name, args string) modeltest.ToolCall {
	return modeltest.ToolCall{Name: name, Arguments: args}
}

func TestEngine(t *testing.T) {
	fx := newFixture(t)
	failing := answer.ToolSpec{
		Def: answer.Def{Name: "flaky", Description: "always fails", Category: "test", Purpose: "test",
			Parameters: []byte(`{"type":"object","properties":{"token":{"type":"string"}},"additionalProperties":false}`), Sensitive: []string{"token"}},
		Func: func(context.Context, *answer.Call, map[string]any) (string, error) {
			return "", errors.New("backend exploded")
		},
	}
	var toolRuns atomic.Int64
	counted := answer.ToolSpec{
		Def: answer.Def{Name: "count", Description: "counts its calls", Category: "test", Purpose: "test"},
		Func: func(context.Context, *answer.Call, map[string]any) (string, error) {
			return fmt.Sprint("ran ", toolRuns.Add(1)), nil
		},
	}
	cache := answer.FilterFunc(func(ctx context.Context, c *answer.Call, next func(context.Context) answer.Outcome) answer.Outcome {
		if c.Name != "count" {
			return next(ctx)
		}
		if v, ok := c.Props.Load("cached"); ok {
			return v.(answer.Outcome)
		}
		out := next(ctx)
		c.Props.Store("cached", out)
		return out
	})
	cancel := answer.FilterFunc(func(ctx context.Context, c *answer.Call, next func(context.Context) answer.Outcome) answer.Outcome {
		if c.Name == "flaky" {
			return answer.Outcome{Content: "cancelled by filter", Status: answer.StatusCancelled}
		}
		return next(ctx)
	})
	terminate := answer.FilterFunc(func(ctx context.Context, c *answer.Call, next func(context.Context) answer.Outcome) answer.Outcome {
		if c.Name == "current_datetime" {
			c.Terminate()
		}
		return next(ctx)
	})
	docs, err := fx.st.Documents(t.Context(), "guides")
	if err != nil || len(docs) == 0 {
		t.Fatal(err)
	}
	ragDoc := docs[0]
	deny := func(_ context.Context, c *answer.Call) answer.Decision {
		if c.Name == "count" {
			return answer.Decision{Allow: false, Reason: "count is not allowed for this user"}
		}
		return answer.Decision{Allow: true}
	}

	tests := []struct {
		name    string
		turns   []modeltest.Turn
		req     answer.Request
		cfg     func(*answer.Config)
		wantErr string
		check   func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result)
	}{{
		name:  "preemptive only, marker split across deltas",
		turns: []modeltest.Turn{{Text: []string{"Foragers dance to show where flowers are [do", "c:1", "]."}}},
		req:   answer.Request{Question: "how do bees find flowers", Sources: []string{"bees"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Foragers dance to show where flowers are [1]." || len(res.References) != 1 || res.References[0].Title != "Honeybee Colonies" {
				t.Errorf("%q %+v", res.Text, res.References)
			}
			var text strings.Builder
			for _, ev := range evs {
				if ev.Kind == answer.EventText || ev.Kind == answer.EventReferenceList {
					text.WriteString(ev.Text)
				}
				if strings.Contains(ev.Text, "[doc:") {
					t.Errorf("a marker reached a client: %q", ev.Text)
				}
			}
			if text.String() != res.Markdown {
				t.Errorf("streamed %q\nwant %q", text.String(), res.Markdown)
			}
			sys := srv.Requests()[0].Messages
			if !strings.Contains(sys[1].Content, "[doc:1] Honeybee Colonies") || !strings.Contains(sys[0].Content, "Answer only from the passages") {
				t.Errorf("passages: %q", sys[1].Content)
			}
		},
	}, {
		name: "text before and after a tool call are two paragraphs",
		turns: []modeltest.Turn{
			{Text: []string{"Let me search."}, ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"write-ahead log checkpoint","sources":["web"],"k":1}`)}},
			{Text: []string{" Checkpoints copy pages back [doc:2]."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "web"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Let me search.\n\nCheckpoints copy pages back [1]." || res.StopReason != "stop" {
				t.Errorf("%q, stop %q", res.Text, res.StopReason)
			}
		},
	}, {
		name: "tool rounds without text add no blank lines",
		turns: []modeltest.Turn{
			{Text: []string{"Let me search [doc:1]."}, ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"write-ahead log","sources":["web"],"k":1}`)}},
			{ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"checkpoint","sources":["web"],"k":1}`)}},
			{Text: []string{" ", "\n"}, ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"queen","sources":["bees"],"k":1}`)}},
			{Text: []string{"\n\nCheckpoints copy pages back [doc:2]."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "web"}, K: 1},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Let me search [1].\n\nCheckpoints copy pages back [2]." {
				t.Errorf("%q", res.Text)
			}
		},
	}, {
		name: "a marker written before the tool call that registers its passage is dropped",
		turns: []modeltest.Turn{
			{Text: []string{"Searching [doc:2]"}, ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"write-ahead log checkpoint","sources":["web"],"k":1}`)}},
			{Text: []string{"\nCheckpoints copy pages back [doc:2]."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "web"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Searching\n\nCheckpoints copy pages back [1]." || len(res.Dropped) != 1 || res.Dropped[0].Reason != "unregistered" {
				t.Errorf("%q, dropped %+v", res.Text, res.Dropped)
			}
		},
	}, {
		name: "no tool calls: no tool is offered",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"bees"}`)}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees"}, Documents: []string{"DOC"}, MaxToolCalls: answer.NoToolCalls},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			req := srv.Requests()[0]
			if len(req.Tools) != 0 || len(res.ToolCalls) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("tools offered %d, calls %+v, requests %d", len(req.Tools), res.ToolCalls, len(srv.Requests()))
			}
			if strings.Contains(req.Messages[0].Content, "search tools") {
				t.Errorf("instructions mention tools: %q", req.Messages[0].Content)
			}
		},
	}, {
		// cite serve --max-tool-calls 0: its requests ask for the
		// default limit (0) or more, and are offered no tool.
		name: "an engine of no tool calls offers no tool to any request",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"bees"}`)}},
		},
		cfg: func(c *answer.Config) { c.MaxToolCalls = answer.NoToolCalls },
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees"}, MaxToolCalls: 5},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if req := srv.Requests()[0]; len(req.Tools) != 0 || len(res.ToolCalls) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("tools offered %d, calls %+v, requests %d", len(req.Tools), res.ToolCalls, len(srv.Requests()))
			}
		},
	}, {
		name: "a tool name of terminal escapes is shown escaped and cut",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("\x1b]0;pwned\x07\x1b[2J"+strings.Repeat("x", 500), `{}`)}},
			{Text: []string{"Done."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			name := res.ToolCalls[0].Name
			if strings.ContainsAny(name, "\x1b\x07") || !strings.HasPrefix(name, `\u001b]0;pwned\u0007`) || len(name) > 70 {
				t.Errorf("name %q", name)
			}
		},
	}, {
		name:  "earlier answers reach the model without their citation numbers",
		turns: []modeltest.Turn{{Text: []string{"Bees dance [doc:1]."}}},
		req: answer.Request{Question: "and then?", Sources: []string{"bees"}, History: []provider.Message{
			{Role: provider.RoleUser, Content: "what is WAL"},
			{Role: provider.RoleAssistant, Content: "WAL keeps the database [1][2]. Arrays a[1] stay, as does `x [3]`."},
		}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			var got string
			for _, m := range srv.Requests()[0].Messages {
				if m.Role == "assistant" {
					got = m.Content
				}
			}
			if got != "WAL keeps the database. Arrays a[1] stay, as does `x [3]`." {
				t.Errorf("history %q", got)
			}
		},
	}, {
		name: "read_document past the document's end",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("read_document", `{"document_id":"DOC","start":500}`)}},
			{Text: []string{"Nothing."}},
		},
		req: answer.Request{Question: "what does the guide say", Documents: []string{"DOC"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if got := toolMessages(srv, 1); len(got) != 1 || !strings.Contains(got[0], "start 500 is past its end") || res.ToolCalls[0].Status != answer.StatusError {
				t.Errorf("tool result %q, trace %+v", got, res.ToolCalls)
			}
		},
	}, {
		name: "one tool call, its passages continue the numbering",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"write-ahead log checkpoint","sources":["web"],"k":1}`)}},
			{Text: []string{"Checkpoints copy pages back [doc:2]; bees dance [doc:1]."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "web"}, K: 1},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Checkpoints copy pages back [1]; bees dance [2]." || statuses(res) != "search_data_sources:OK" {
				t.Errorf("%q %s", res.Text, statuses(res))
			}
			tm := toolMessages(srv, 1)
			if len(tm) != 1 || !strings.HasPrefix(tm[0], "[doc:2] Write-Ahead Logging in SQLite") {
				t.Errorf("tool result %q", tm)
			}
			if res.References[0].Type != "file" || !strings.HasSuffix(res.References[0].Source, "sqlite-wal.html") {
				t.Errorf("%+v", res.References[0].Reference)
			}
		},
	}, {
		name: "two tool calls in one response, run together, results in order",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("current_datetime", `{"time_zone":"Europe/Paris"}`), call("search_data_sources", `{"query":"queen"}`)}},
			{Text: []string{"Done [doc:2]."}},
		},
		req: answer.Request{Question: "what does the queen do", Sources: []string{"bees"}, K: 1, Tools: []string{"current_datetime"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			tm := toolMessages(srv, 1)
			if statuses(res) != "current_datetime:OK,search_data_sources:OK" || len(tm) != 2 || !strings.Contains(tm[0], "2026") {
				t.Errorf("%s %q", statuses(res), tm)
			}
			if res.ToolCalls[1].Index != 1 || res.ToolCalls[1].Count != 2 {
				t.Errorf("%+v", res.ToolCalls[1])
			}
		},
	}, {
		name: "a blocked tool: policy",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("count", `{}`)}},
			{Text: []string{"I may not count."}},
		},
		req: answer.Request{Question: "count", Sources: []string{"bees"}},
		cfg: func(c *answer.Config) { c.Policy = deny },
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if statuses(res) != "count:BLOCKED" || toolMessages(srv, 1)[0] != "Blocked: count is not allowed for this user" {
				t.Errorf("%s %q", statuses(res), toolMessages(srv, 1))
			}
		},
	}, {
		name: "a blocked tool: a local-only source and a remote model",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("search_data_sources", `{"query":"bees","sources":["bees"]}`)}},
			{Text: []string{"Nothing I may see."}},
		},
		req: answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "guides"}},
		cfg: func(c *answer.Config) { c.LocalOnly = []string{"bees"}; c.Model = remote{c.Model} },
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if statuses(res) != "search_data_sources:BLOCKED" || !strings.Contains(toolMessages(srv, 1)[0], "local-only") {
				t.Errorf("%s %q", statuses(res), toolMessages(srv, 1))
			}
			for _, m := range srv.Requests()[0].Messages {
				if strings.Contains(m.Content, "Honeybee") {
					t.Errorf("a local-only passage reached a remote model: %q", m.Content)
				}
			}
		},
	}, {
		name: "a failing tool, its sensitive argument hidden",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("flaky", `{"token":"hunter2"}`)}},
			{Text: []string{"It failed."}},
		},
		req: answer.Request{Question: "try", Sources: []string{"bees"}},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if statuses(res) != "flaky:ERROR" || toolMessages(srv, 1)[0] != "Tool execution failed: backend exploded" {
				t.Errorf("%s %q", statuses(res), toolMessages(srv, 1))
			}
			if fmt.Sprint(res.ToolCalls[0].Arguments) != "map[token:[redacted]]" {
				t.Errorf("arguments %v", res.ToolCalls[0].Arguments)
			}
		},
	}, {
		name: "the tool-call limit",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("count", `{}`), call("count", `{}`)}},
			{Text: []string{"Enough."}},
		},
		req: answer.Request{Question: "count twice", Sources: []string{"bees"}, MaxToolCalls: 1},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if statuses(res) != "count:OK,count:BLOCKED" || !strings.Contains(toolMessages(srv, 1)[1], "limit") {
				t.Errorf("%s %q", statuses(res), toolMessages(srv, 1))
			}
			if n := len(srv.Requests()[1].Tools); n != 0 {
				t.Errorf("the last call was offered %d tools", n)
			}
		},
	}, {
		name: "filters: a cache",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("count", `{}`)}},
			{ToolCalls: []modeltest.ToolCall{call("count", `{}`)}},
			{Text: []string{"Counted."}},
		},
		req: answer.Request{Question: "count", Sources: []string{"bees"}},
		cfg: func(c *answer.Config) { c.Filters = []answer.Filter{cache} },
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if a, b := toolMessages(srv, 1)[0], toolMessages(srv, 2)[1]; a != b {
				t.Errorf("not cached: %q, %q", a, b)
			}
		},
	}, {
		name: "filters: cancel and terminate",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("flaky", `{}`), call("current_datetime", `{}`)}},
			{Text: []string{"Stopped."}},
		},
		req: answer.Request{Question: "go", Sources: []string{"bees"}, Tools: []string{"current_datetime"}},
		cfg: func(c *answer.Config) { c.Filters = []answer.Filter{cancel, terminate} },
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if statuses(res) != "flaky:CANCELLED,current_datetime:OK" || len(srv.Requests()[1].Tools) != 0 {
				t.Errorf("%s, %d tools", statuses(res), len(srv.Requests()[1].Tools))
			}
		},
	}, {
		name:  "a hallucinated marker is dropped",
		turns: []modeltest.Turn{{Text: []string{"Bees dance [doc:1] and fly to Mars [doc:99]."}}},
		req:   answer.Request{Question: "how do bees find flowers", Sources: []string{"bees"}, K: 1},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			if res.Text != "Bees dance [1] and fly to Mars." || len(res.Dropped) != 1 || res.Dropped[0].Reason != "unregistered" {
				t.Errorf("%q %+v", res.Text, res.Dropped)
			}
		},
	}, {
		name: "bad arguments from the model, each answered, the loop going on",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{
				call("search_data_sources", `{"query":42}`),
				call("search_data_sources", `{"query":"x","evil":true}`),
				call("search_data_sources", `{"query":"x","k":100000}`),
				call("read_document", `{"document_id":"../../../etc/passwd"}`),
				call("search_data_sources", `{"query": "x"`),
				call("no_such_tool", `{}`),
			}},
			{Text: []string{"Sorry."}},
		},
		req: answer.Request{Question: "x", Sources: []string{"bees"}, MaxToolCalls: 10},
		cfg: func(c *answer.Config) {},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			tm := toolMessages(srv, 1)
			want := []string{"invalid arguments", "invalid arguments", "invalid arguments", "no tool \"read_document\"", "not one JSON object", "no tool \"no_such_tool\""}
			for i, w := range want {
				if i >= len(tm) || !strings.Contains(tm[i], w) {
					t.Errorf("call %d: %q, want %q", i, tm, w)
				}
			}
			if res.Text != "Sorry." {
				t.Errorf("%q", res.Text)
			}
		},
	}, {
		name: "session documents: list, read by id, never by path",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{
				call("list_documents", `{}`),
				call("read_document", `{"document_id":"../../../etc/passwd"}`),
				call("read_document", `{"document_id":"/etc/passwd"}`),
				call("read_document", `{"document_id":"DOC","max_chars":100}`),
			}},
			{Text: []string{"Read [doc:2]."}},
		},
		req: answer.Request{Question: "summarize", Documents: []string{"DOC"}, K: 1, MaxToolCalls: 10},
		check: func(t *testing.T, srv *modeltest.Server, evs []answer.Event, res *answer.Result) {
			tm := toolMessages(srv, 1)
			if len(tm) != 4 || !strings.Contains(tm[0], "- id ") || !strings.Contains(tm[1], "not attached") || !strings.Contains(tm[2], "not attached") || !strings.Contains(tm[3], "[doc:") {
				t.Errorf("%q", tm)
			}
			if statuses(res) != "list_documents:OK,read_document:ERROR,read_document:ERROR,read_document:OK" {
				t.Errorf("%s", statuses(res))
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.turns {
				for j := range tt.turns[i].ToolCalls {
					c := &tt.turns[i].ToolCalls[j]
					c.Arguments = strings.ReplaceAll(c.Arguments, `"DOC"`, `"`+ragDoc.ID+`"`)
				}
			}
			srv := modeltest.NewServer(t, modeltest.Script{Turns: tt.turns})
			cfg := answer.Config{Model: openaiModel(t, srv), Retriever: fx.s, Library: fx.st, Tools: []answer.ToolSpec{failing, counted},
				Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			eng, err := answer.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range tt.req.Documents {
				if d == "DOC" {
					tt.req.Documents[i] = ragDoc.ID
				}
			}
			evs, res, err := run(t, eng, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, srv, evs, res)
		})
	}
}

func TestEngineErrors(t *testing.T) {
	fx := newFixture(t)
	for _, status := range []int{401, 429} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Error: &modeltest.HTTPError{Status: status, Message: "no sk-secret-test-key"}}}})
			eng, _ := answer.New(answer.Config{Model: openaiModel(t, srv), Retriever: fx.s})
			_, _, err := run(t, eng, answer.Request{Question: "q", Sources: []string{"bees"}})
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.StatusCode != status || strings.Contains(err.Error(), "sk-secret-test-key") {
				t.Errorf("%v", err)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("retried: %d requests", len(srv.Requests()))
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Bees "}, Hang: true}}})
		eng, _ := answer.New(answer.Config{Model: openaiModel(t, srv), Retriever: fx.s})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		var err error
		for ev, e := range eng.Run(ctx, answer.Request{Question: "q", Sources: []string{"bees"}}) {
			if ev.Kind == answer.EventText {
				cancel()
			}
			if e != nil {
				err = e
			}
		}
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Errorf("%v after %v", err, time.Since(start))
		}
	})
	t.Run("no model", func(t *testing.T) {
		if _, err := answer.New(answer.Config{}); err == nil || !strings.Contains(err.Error(), "no model") {
			t.Errorf("%v", err)
		}
	})
	t.Run("a tool defined without implementation", func(t *testing.T) {
		_, err := answer.New(answer.Config{Model: answer.NewExtractive(answer.ExtractiveOptions{}), Tools: []answer.ToolSpec{{Def: answer.Def{Name: "x", Description: "x"}}}})
		if err == nil || !strings.Contains(err.Error(), "no implementation") {
			t.Errorf("%v", err)
		}
	})
}

// TestEngineProviders runs preemptive retrieval and one tool call through
// the Ollama and Responses wire formats.
func TestEngineProviders(t *testing.T) {
	fx := newFixture(t)
	turns := []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "search_data_sources", Arguments: `{"query":"worker bees"}`}}},
		{Text: []string{"Workers forage [do", "c:1]."}},
	}
	for _, tc := range []struct {
		name string
		srv  func() *modeltest.Server
		spec func(*modeltest.Server) (string, provider.Config)
	}{
		{"ollama", func() *modeltest.Server { return modeltest.NewOllamaServer(t, modeltest.Script{Turns: turns}) },
			func(s *modeltest.Server) (string, provider.Config) {
				return "ollama:llama3.1", provider.Config{OllamaHost: s.URL}
			}},
		{"responses", func() *modeltest.Server { return modeltest.NewServer(t, modeltest.Script{Turns: turns}) },
			func(s *modeltest.Server) (string, provider.Config) {
				return "openai-responses:gpt", provider.Config{OpenAIBaseURL: s.OpenAIBaseURL(), OpenAIAPIKey: "k"}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv()
			spec, pc := tc.spec(srv)
			m, err := provider.NewChatModel(spec, pc)
			if err != nil {
				t.Fatal(err)
			}
			eng, _ := answer.New(answer.Config{Model: m, Retriever: fx.s})
			_, res, err := run(t, eng, answer.Request{Question: "what do workers do", Sources: []string{"bees"}, K: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "Workers forage [1]." || statuses(res) != "search_data_sources:OK" || len(toolMessages(srv, 1)) != 1 {
				t.Errorf("%q %s %q", res.Text, statuses(res), toolMessages(srv, 1))
			}
		})
	}
}

// TestEngineConcurrent: 50 requests on one orchestrator, each with its
// own sources and session documents: nothing crosses requests.
func TestEngineConcurrent(t *testing.T) {
	fx := newFixture(t)
	docs, err := fx.st.Documents(t.Context(), "guides")
	if err != nil || len(docs) == 0 {
		t.Fatal(err, len(docs))
	}
	const n = 50
	var scripts []modeltest.Script
	for i := range n {
		marker := fmt.Sprintf("request-%02d", i)
		scripts = append(scripts, modeltest.Script{Match: modeltest.LastUserContains(marker), Turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{call("search_documents", `{"query":"retrieval chunks"}`)}},
			{Text: []string{marker + " says [doc:1][doc:2][doc:3]."}, Pace: time.Millisecond},
		}})
	}
	srv := modeltest.NewServer(t, scripts...)
	eng, _ := answer.New(answer.Config{Model: openaiModel(t, srv), Retriever: fx.s, Library: fx.st})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, doc := "bees", docs[i%len(docs)]
			if i%2 == 1 {
				src = "web"
			}
			marker := fmt.Sprintf("request-%02d", i)
			res, err := answer.Collect(eng.Run(t.Context(), answer.Request{Question: "what is " + marker, Sources: []string{src}, Documents: []string{doc.ID}, K: 1}))
			if err != nil {
				t.Error(err)
				return
			}
			if !strings.HasPrefix(res.Text, marker+" says") {
				t.Errorf("%s got %q", marker, res.Text)
			}
			for _, r := range res.References {
				own := r.Source == doc.Path || (src == "bees" && strings.HasSuffix(r.Source, "honeybees.md")) || (src == "web" && strings.HasSuffix(r.Source, "sqlite-wal.html"))
				if !own {
					t.Errorf("%s: reference %s from another request", marker, r.Source)
				}
			}
		}()
	}
	wg.Wait()
}

// recorder is a Retriever that records the queries it runs.
type recorder struct {
	answer.Retriever
	mu sync.Mutex
	qs []search.Query
}

func (r *recorder) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
	return r.Retriever.Search(ctx, q)
}

// TestOneSearchOverSources: the preemptive search over several data
// sources is one search, whose scores rank passages across them, and it
// leaves out local-only sources when the model is remote.
func TestOneSearchOverSources(t *testing.T) {
	fx := newFixture(t)
	for _, tc := range []struct {
		name      string
		localOnly []string
		want      []string
	}{
		{"two sources", nil, []string{"bees", "web"}},
		{"one local-only", []string{"bees"}, []string{"web"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Bees dance [doc:1]."}}}})
			rec := &recorder{Retriever: fx.s}
			var m provider.ChatModel = openaiModel(t, srv)
			if tc.localOnly != nil {
				m = remote{m}
			}
			eng, err := answer.New(answer.Config{Model: m, Retriever: rec, LocalOnly: tc.localOnly})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := run(t, eng, answer.Request{Question: "how do bees find flowers", Sources: []string{"bees", "web"}}); err != nil {
				t.Fatal(err)
			}
			if len(rec.qs) != 1 || !slices.Equal(rec.qs[0].Filter.Sources, tc.want) {
				t.Errorf("searches %+v, want one over %q", rec.qs, tc.want)
			}
		})
	}
}

func TestFollowUpSearch(t *testing.T) {
	fx := newFixture(t)
	history := []provider.Message{{Role: provider.RoleUser, Content: "how do bees find flowers"}, {Role: provider.RoleAssistant, Content: "They dance [1]."}}
	for _, tc := range []struct{ question, want string }{
		{"and the queen?", "and the queen?\nhow do bees find flowers"},
		{"what do worker bees feed a new queen larva", "what do worker bees feed a new queen larva"},
	} {
		srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Royal jelly [doc:1]."}}}})
		rec := &recorder{Retriever: fx.s}
		eng, err := answer.New(answer.Config{Model: openaiModel(t, srv), Retriever: rec})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, eng, answer.Request{Question: tc.question, History: history, Sources: []string{"bees"}}); err != nil {
			t.Fatal(err)
		}
		if len(rec.qs) != 1 || rec.qs[0].Text != tc.want {
			t.Errorf("%q: searches %+v, want one for %q", tc.question, rec.qs, tc.want)
		}
	}
}
