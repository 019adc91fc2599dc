package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
)

const testKey = "sk-test-0123456789abcdefSECRET"

// backend is one way of reaching a model, tested the same way.
type backend struct {
	name      string
	spec      string
	newServer func(testing.TB, ...modeltest.Script) *modeltest.Server
	options   func(*modeltest.Server) provider.Config
	api       string // the API the server should see
	sendsKey  bool   // whether the API key goes to the server
}

var backends = []backend{
	{"openai", "openai:gpt-test", modeltest.NewServer,
		func(s *modeltest.Server) provider.Config {
			return provider.Config{OpenAIBaseURL: s.OpenAIBaseURL(), OpenAIAPIKey: testKey}
		}, "chat.completions", true},
	{"ollama", "ollama:llama-test", modeltest.NewOllamaServer,
		func(s *modeltest.Server) provider.Config {
			return provider.Config{OllamaHost: s.URL, OpenAIAPIKey: testKey}
		}, "chat.completions", false},
	{"responses", "openai-responses:gpt-test", modeltest.NewServer,
		func(s *modeltest.Server) provider.Config {
			return provider.Config{OpenAIBaseURL: s.OpenAIBaseURL(), OpenAIAPIKey: testKey}
		}, "responses", true},
}

func start(t *testing.T, b backend, scripts ...modeltest.Script) (*modeltest.Server, provider.ChatModel) {
	t.Helper()
	srv := b.newServer(t, scripts...)
	m, err := provider.NewChatModel(b.spec, b.options(srv))
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// chat calls m, collecting deltas when stream is set.
func chat(ctx context.Context, m provider.ChatModel, req provider.ChatRequest, stream bool) (provider.ChatResponse, []string, error) {
	var deltas []string
	var onDelta func(string) error
	if stream {
		onDelta = func(d string) error { deltas = append(deltas, d); return nil }
	}
	resp, err := m.Chat(ctx, req, onDelta)
	return resp, deltas, err
}

var searchTool = provider.Tool{
	Name:        "search_documents",
	Description: "Search the session's documents.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}

func userAsks(q string) provider.ChatRequest {
	return provider.ChatRequest{
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "Answer from the passages and cite them as [doc:N]."},
			{Role: provider.RoleUser, Content: q},
		},
		Tools: []provider.Tool{searchTool},
	}
}

func TestChat(t *testing.T) {
	cases := []struct {
		name      string
		turn      modeltest.Turn
		wantText  string
		wantCalls []provider.ToolCall
		wantStop  string
	}{{
		name: "text only, marker split across deltas",
		turn: modeltest.Turn{
			Text:  []string{"Paris is the capital", " of France [do", "c:1", "]."},
			Usage: modeltest.Usage{InputTokens: 42, OutputTokens: 9},
		},
		wantText: "Paris is the capital of France [doc:1].",
		wantStop: "stop",
	}, {
		name: "one tool call",
		turn: modeltest.Turn{
			ToolCalls: []modeltest.ToolCall{{ID: "call_a", Name: "search_documents", Arguments: `{"query":"capital of France"}`}},
			Usage:     modeltest.Usage{InputTokens: 42, OutputTokens: 9},
		},
		wantCalls: []provider.ToolCall{{ID: "call_a", Name: "search_documents", Arguments: `{"query":"capital of France"}`}},
		wantStop:  "tool_calls",
	}, {
		name: "two tool calls in one response, after text",
		turn: modeltest.Turn{
			Text: []string{"Searching ", "twice."},
			ToolCalls: []modeltest.ToolCall{
				{ID: "call_a", Name: "search_documents", Arguments: `{"query":"Paris"}`},
				{ID: "call_b", Name: "search_documents", Arguments: `{"query":"Françe, \"capital\""}`,
					Fragments: []string{`{"query":"Fran`, "\u00e7", `e, \"cap`, `ital\""}`}},
			},
			Usage: modeltest.Usage{InputTokens: 42, OutputTokens: 9},
		},
		wantText: "Searching twice.",
		wantCalls: []provider.ToolCall{
			{ID: "call_a", Name: "search_documents", Arguments: `{"query":"Paris"}`},
			{ID: "call_b", Name: "search_documents", Arguments: `{"query":"Françe, \"capital\""}`},
		},
		wantStop: "tool_calls",
	}}
	for _, b := range backends {
		for _, stream := range []bool{false, true} {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/stream=%v/%s", b.name, stream, tc.name), func(t *testing.T) {
					srv, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{tc.turn}})
					resp, deltas, err := chat(t.Context(), m, userAsks("What is the capital of France?"), stream)
					if err != nil {
						t.Fatal(err)
					}
					if resp.Content != tc.wantText {
						t.Errorf("Content = %q, want %q", resp.Content, tc.wantText)
					}
					if stream {
						if got := strings.Join(deltas, ""); got != tc.wantText {
							t.Errorf("deltas %q join to %q, want %q", deltas, got, tc.wantText)
						}
						if len(tc.turn.Text) > 1 && len(deltas) < 2 {
							t.Errorf("deltas %q arrived as one piece", deltas)
						}
					}
					if fmt.Sprint(resp.ToolCalls) != fmt.Sprint(tc.wantCalls) {
						t.Errorf("ToolCalls = %q, want %q", resp.ToolCalls, tc.wantCalls)
					}
					if resp.StopReason != tc.wantStop {
						t.Errorf("StopReason = %q, want %q", resp.StopReason, tc.wantStop)
					}
					if resp.Usage != (provider.Usage{InputTokens: 42, OutputTokens: 9}) {
						t.Errorf("Usage = %+v", resp.Usage)
					}

					reqs := srv.Requests()
					if len(reqs) != 1 {
						t.Fatalf("%d requests", len(reqs))
					}
					r := reqs[0]
					if r.API != b.api || r.Stream != stream || r.Temperature != nil {
						t.Errorf("request: API %q stream %v temperature %v", r.API, r.Stream, r.Temperature)
					}
					if len(r.Tools) != 1 || r.Tools[0].Name != "search_documents" || r.Tools[0].Description != searchTool.Description {
						t.Errorf("tools offered: %+v", r.Tools)
					}
					var schema map[string]any
					if err := json.Unmarshal(r.Tools[0].Parameters, &schema); err != nil || schema["required"] == nil {
						t.Errorf("schema offered: %s", r.Tools[0].Parameters)
					}
					if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.LastUserMessage() != "What is the capital of France?" {
						t.Errorf("messages given: %+v", r.Messages)
					}
					auth := r.Header.Get("Authorization")
					if b.name == "ollama" && auth != "" {
						t.Errorf("Ollama was sent Authorization %q", auth)
					}
					if b.name != "ollama" && auth != "Bearer "+testKey {
						t.Errorf("Authorization = %q", auth)
					}
				})
			}
		}
	}
}

// TestToolRoundTrip runs two turns: the model calls a tool, the caller
// answers it, and the second request carries the call and its result tied
// by id (call_id on the Responses API).
func TestToolRoundTrip(t *testing.T) {
	for _, b := range backends {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", b.name, stream), func(t *testing.T) {
				srv, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{
					{ToolCalls: []modeltest.ToolCall{
						{ID: "call_7", Name: "search_documents", Arguments: `{"query":"Paris"}`},
						{ID: "call_8", Name: "current_datetime", Arguments: `{}`},
					}},
					{Text: []string{"Paris [doc:1], today [doc:2]."}},
				}})
				temp := 0.25
				req := userAsks("Capital?")
				req.Temperature, req.MaxTokens = &temp, 300
				first, _, err := chat(t.Context(), m, req, stream)
				if err != nil {
					t.Fatal(err)
				}
				req.Messages = append(req.Messages, provider.Message{Role: provider.RoleAssistant, ToolCalls: first.ToolCalls})
				for i, c := range first.ToolCalls {
					req.Messages = append(req.Messages, provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name,
						Content: fmt.Sprintf("[doc:%d] result of %s", i+1, c.Name)})
				}
				second, _, err := chat(t.Context(), m, req, stream)
				if err != nil {
					t.Fatal(err)
				}
				if second.Content != "Paris [doc:1], today [doc:2]." || len(second.ToolCalls) != 0 {
					t.Errorf("second answer %+v", second)
				}
				got := srv.Requests()[1]
				want := []modeltest.Message{
					{Role: "system", Content: req.Messages[0].Content},
					{Role: "user", Content: "Capital?"},
					{Role: "assistant", ToolCalls: []modeltest.ToolCall{
						{ID: "call_7", Name: "search_documents", Arguments: `{"query":"Paris"}`},
						{ID: "call_8", Name: "current_datetime", Arguments: `{}`},
					}},
					{Role: "tool", ToolCallID: "call_7", Content: "[doc:1] result of search_documents"},
					{Role: "tool", ToolCallID: "call_8", Content: "[doc:2] result of current_datetime"},
				}
				if fmt.Sprintf("%+v", got.Messages) != fmt.Sprintf("%+v", want) {
					t.Errorf("second request's messages\n%+v\nwant\n%+v", got.Messages, want)
				}
				if got.Temperature == nil || *got.Temperature != temp || got.MaxTokens != 300 {
					t.Errorf("temperature %v, max tokens %d", got.Temperature, got.MaxTokens)
				}
			})
		}
	}
}

// TestToolCallWithoutID: some OpenAI-compatible servers send tool calls
// without an id. Each call gets one of its own, unique in the reply, and
// its result goes back tied to it.
func TestToolCallWithoutID(t *testing.T) {
	const (
		ccStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"type":"function","function":{"name":"search_documents","arguments":"{\"query\":"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"type":"function","function":{"name":"current_datetime","arguments":"{}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
		ccJSON = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"type":"function","function":{"name":"search_documents","arguments":"{\"query\":\"a\"}"}},` +
			`{"type":"function","function":{"name":"current_datetime","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`
		rsJSON = `{"id":"r","object":"response","status":"completed","output":[` +
			`{"type":"function_call","id":"fc1","name":"search_documents","arguments":"{\"query\":\"a\"}","status":"completed"},` +
			`{"type":"function_call","id":"fc2","name":"current_datetime","arguments":"{}","status":"completed"}]}`
		ccAnswer = `{"id":"y","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`
		rsAnswer = `{"id":"r2","object":"response","status":"completed","output":[{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"done","annotations":[]}]}]}`
	)
	cases := []struct {
		name, spec  string
		stream      bool
		first, then string
	}{
		{"openai streamed", "openai:m", true, ccStream, ccAnswer},
		{"ollama streamed", "ollama:m", true, ccStream, ccAnswer},
		{"openai", "openai:m", false, ccJSON, ccAnswer},
		{"responses", "openai-responses:m", false, rsJSON, rsAnswer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				bodies [][]byte
			)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, body)
				n := len(bodies)
				mu.Unlock()
				switch {
				case n > 1:
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, tc.then)
				case tc.stream:
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, tc.first)
				default:
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, tc.first)
				}
			}))
			defer hs.Close()
			m, err := provider.NewChatModel(tc.spec, provider.Config{OpenAIBaseURL: hs.URL + "/v1", OllamaHost: hs.URL})
			if err != nil {
				t.Fatal(err)
			}
			req := userAsks("q")
			first, _, err := chat(t.Context(), m, req, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.ToolCalls) != 2 || first.ToolCalls[0].Name != "search_documents" || first.ToolCalls[0].Arguments != `{"query":"a"}` ||
				first.ToolCalls[0].ID == "" || first.ToolCalls[1].ID == "" || first.ToolCalls[0].ID == first.ToolCalls[1].ID {
				t.Fatalf("tool calls %q: want two, each with an id of its own", first.ToolCalls)
			}
			req.Messages = append(req.Messages, provider.Message{Role: provider.RoleAssistant, ToolCalls: first.ToolCalls})
			for _, c := range first.ToolCalls {
				req.Messages = append(req.Messages, provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: "result"})
			}
			second, err := m.Chat(t.Context(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if second.Content != "done" {
				t.Errorf("second answer %+v", second)
			}
			// The second request ties each result to its call.
			sent := string(bodies[1])
			for _, c := range first.ToolCalls {
				if strings.Count(sent, `"`+c.ID+`"`) != 2 {
					t.Errorf("id %q is not sent with both the call and its result: %s", c.ID, sent)
				}
			}
		})
	}
}

func TestChatErrors(t *testing.T) {
	cases := []struct {
		name       string
		err        modeltest.HTTPError
		wantStatus int
		wantMsg    string
		wantRetry  time.Duration
		wantText   string // in the error's text, when set
	}{{
		name: "401 echoing the key",
		err: modeltest.HTTPError{Status: http.StatusUnauthorized,
			Message: "Incorrect API key provided: " + testKey + ". You can find your API key at https://platform.openai.com."},
		wantStatus: 401,
		wantMsg:    "Incorrect API key provided: [REDACTED].",
	}, {
		name: "429 with Retry-After",
		err: modeltest.HTTPError{Status: http.StatusTooManyRequests, Message: "Rate limit reached for requests",
			Header: http.Header{"Retry-After": {"7"}}},
		wantStatus: 429,
		wantMsg:    "Rate limit reached for requests",
		wantRetry:  7 * time.Second,
		wantText:   "HTTP 429 Too Many Requests: Rate limit reached for requests; retry after 7s",
	}, {
		name:       "500 with a plain body",
		err:        modeltest.HTTPError{Status: http.StatusBadGateway, Body: "upstream " + testKey + " exploded"},
		wantStatus: 502,
		wantMsg:    "upstream [REDACTED] exploded",
	}}
	for _, b := range backends {
		for _, stream := range []bool{false, true} {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/stream=%v/%s", b.name, stream, tc.name), func(t *testing.T) {
					srv, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Error: &tc.err}}})
					_, deltas, err := chat(t.Context(), m, userAsks("q"), stream)
					var pe *provider.Error
					if !errors.As(err, &pe) {
						t.Fatalf("error %T %v is not a *provider.Error", err, err)
					}
					echoesKey := strings.Contains(tc.err.Message+tc.err.Body, testKey)
					if !b.sendsKey && echoesKey {
						// Ollama is never sent the key, so no server can echo
						// it; only the status is checked.
						if pe.StatusCode != tc.wantStatus {
							t.Errorf("status %d, want %d", pe.StatusCode, tc.wantStatus)
						}
						return
					}
					if pe.StatusCode != tc.wantStatus || !strings.Contains(pe.Message, tc.wantMsg) || pe.RetryAfter != tc.wantRetry {
						t.Errorf("got status %d message %q retry %v; want %d %q %v", pe.StatusCode, pe.Message, pe.RetryAfter,
							tc.wantStatus, tc.wantMsg, tc.wantRetry)
					}
					if !strings.Contains(err.Error(), tc.wantText) {
						t.Errorf("error %q does not say %q", err, tc.wantText)
					}
					if tc.wantRetry == 0 && strings.Contains(err.Error(), "retry after") {
						t.Errorf("error %q says to retry after a time the server did not give", err)
					}
					wantProvider := map[string]string{"openai": "openai", "ollama": "ollama", "responses": "openai-responses"}[b.name]
					if pe.Provider != wantProvider || pe.Op != "chat" {
						t.Errorf("Provider %q Op %q", pe.Provider, pe.Op)
					}
					for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", pe), fmt.Sprint(pe.Err)} {
						if strings.Contains(s, testKey) {
							t.Errorf("the API key leaks: %s", s)
						}
					}
					if len(deltas) != 0 {
						t.Errorf("deltas %q from a failed call", deltas)
					}
					if n := len(srv.Requests()); n != 1 {
						t.Errorf("%d requests: the call was retried", n)
					}
				})
			}
		}
	}
}

// leaksKey reports whether s holds the key or a head of it long enough to
// matter (8 bytes or more).
func leaksKey(s, key string) bool {
	for k := len(key); k >= 8; k-- {
		if strings.Contains(s, key[:k]) {
			return true
		}
	}
	return false
}

// TestChatErrorKeyAtCut: a long plain error body is cut to 512 bytes; a key
// that straddles the cut must not leave its head behind.
func TestChatErrorKeyAtCut(t *testing.T) {
	for _, b := range backends {
		if !b.sendsKey {
			continue // Ollama is never sent the key
		}
		for _, stream := range []bool{false, true} {
			for _, before := range []int{496, 503, 512 - len(testKey) + 1, 512 - len(testKey), 511, 512} {
				t.Run(fmt.Sprintf("%s/stream=%v/key at %d", b.name, stream, before), func(t *testing.T) {
					body := strings.Repeat("x", before) + testKey + " more text"
					_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Error: &modeltest.HTTPError{
						Status: http.StatusInternalServerError, Body: body}}}})
					_, _, err := chat(t.Context(), m, userAsks("q"), stream)
					if err == nil {
						t.Fatal("no error")
					}
					if leaksKey(err.Error(), testKey) {
						t.Errorf("the key leaks: %s", err)
					}
					if !strings.Contains(err.Error(), "xxxxxxxx") || !strings.Contains(err.Error(), "HTTP 500") {
						t.Errorf("error %q lost the server's message", err)
					}
				})
			}
		}
	}
}

// TestChatTransportError: a failed connection or a stream cut mid-way is
// reported once, with its cause, not the cause repeated.
func TestChatTransportError(t *testing.T) {
	// cut sends the start of a streamed answer, then drops the connection.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.HasSuffix(r.URL.Path, "/responses") {
			fmt.Fprint(w, "event: response.output_text.delta\n"+
				`data: {"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":"Hal","sequence_number":1}`+"\n\n")
		} else {
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"Hal"}}]}`+"\n\n")
		}
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer cut.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a client gone only once the body is read
		<-r.Context().Done()
	}))
	defer slow.Close()
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	const refused = "http://127.0.0.1:1"
	cases := []struct {
		name, spec string
		cfg        provider.Config
		stream     bool
		want       string
	}{
		{"openai refused", "openai:m", provider.Config{OpenAIBaseURL: refused + "/v1", OpenAIAPIKey: testKey}, false, "connection refused"},
		{"openai refused, streamed", "openai:m", provider.Config{OpenAIBaseURL: refused + "/v1", OpenAIAPIKey: testKey}, true, "connection refused"},
		{"ollama refused", "ollama:m", provider.Config{OllamaHost: refused}, true, "connection refused"},
		{"responses refused", "openai-responses:m", provider.Config{OpenAIBaseURL: refused + "/v1", OpenAIAPIKey: testKey}, false, "connection refused"},
		{"responses refused, streamed", "openai-responses:m", provider.Config{OpenAIBaseURL: refused + "/v1", OpenAIAPIKey: testKey}, true, "connection refused"},
		{"openai cut", "openai:m", provider.Config{OpenAIBaseURL: cut.URL + "/v1", OpenAIAPIKey: testKey}, true, "unexpected EOF"},
		{"ollama cut", "ollama:m", provider.Config{OllamaHost: cut.URL}, true, "unexpected EOF"},
		{"responses cut", "openai-responses:m", provider.Config{OpenAIBaseURL: cut.URL + "/v1", OpenAIAPIKey: testKey}, true, "unexpected EOF"},
		{"openai client timeout", "openai:m", provider.Config{OpenAIBaseURL: slow.URL + "/v1", HTTPClient: impatient}, true, `Post "`},
		{"responses client timeout", "openai-responses:m", provider.Config{OpenAIBaseURL: slow.URL + "/v1", HTTPClient: impatient}, true, `Post "`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := provider.NewChatModel(tc.spec, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = chat(t.Context(), m, userAsks("q"), tc.stream)
			if _, ok := errors.AsType[*provider.Error](err); !ok {
				t.Fatalf("error %T %v is not a *provider.Error", err, err)
			}
			if n := strings.Count(err.Error(), tc.want); n != 1 {
				t.Errorf("error %q says %q %d times, want once", err, tc.want, n)
			}
		})
	}
}

func TestChatCancel(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name+"/stream", func(t *testing.T) {
			_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"partial ", "answer"}, Hang: true}}})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got []string
			err := returnsSoon(t, func() error {
				_, err := m.Chat(ctx, userAsks("q"), func(d string) error {
					got = append(got, d)
					cancel()
					return nil
				})
				return err
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v does not match context.Canceled", err)
			}
			if len(got) == 0 || got[0] != "partial " {
				t.Errorf("deltas before the cancel: %q", got)
			}
		})
		t.Run(b.name+"/no stream", func(t *testing.T) {
			_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Hang: true}}})
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			err := returnsSoon(t, func() error { _, err := m.Chat(ctx, userAsks("q"), nil); return err })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not match context.DeadlineExceeded", err)
			}
		})
		t.Run(b.name+"/onDelta error stops the call", func(t *testing.T) {
			_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"a", "b"}, Hang: true}}})
			stop := errors.New("client went away")
			err := returnsSoon(t, func() error {
				_, err := m.Chat(t.Context(), userAsks("q"), func(string) error { return stop })
				return err
			})
			if !errors.Is(err, stop) {
				t.Errorf("error %v, want the onDelta error", err)
			}
		})
	}
}

// returnsSoon runs f and fails the test if it has not returned in ten
// seconds: a liveness check for calls that would otherwise hang forever.
func returnsSoon(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return after it was cancelled")
		return nil
	}
}

// TestConcurrentCalls routes 50 concurrent streamed calls on one model to
// 50 scripts by a marker in the question; no text or tool call crosses.
func TestConcurrentCalls(t *testing.T) {
	const n = 50
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var scripts []modeltest.Script
			for i := range n {
				marker := fmt.Sprintf("<q%d>", i)
				scripts = append(scripts, modeltest.Script{Match: modeltest.LastUserContains(marker), Turns: []modeltest.Turn{{
					Text:      []string{"answer ", "for ", marker},
					ToolCalls: []modeltest.ToolCall{{Name: "search_documents", Arguments: fmt.Sprintf(`{"query":%q}`, marker)}},
					Pace:      time.Millisecond,
				}}})
			}
			_, m := start(t, b, scripts...)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					marker := fmt.Sprintf("<q%d>", i)
					resp, deltas, err := chat(t.Context(), m, userAsks("question "+marker), true)
					if err != nil {
						t.Error(err)
						return
					}
					want := "answer for " + marker
					if resp.Content != want || strings.Join(deltas, "") != want ||
						len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != fmt.Sprintf(`{"query":%q}`, marker) {
						t.Errorf("%s got %q %q %+v", marker, resp.Content, deltas, resp.ToolCalls)
					}
				})
			}
			wg.Wait()
		})
	}
}

func TestNewChatModel(t *testing.T) {
	cases := []struct {
		spec    string
		opts    provider.Config
		local   bool
		wantErr string
	}{
		{spec: "openai:gpt-4o-mini", opts: provider.Config{OpenAIAPIKey: "sk-test"}, local: false},
		{spec: "openai:gpt-4o-mini", opts: provider.Config{OpenAIBaseURL: "http://127.0.0.1:8000/v1"}, local: true},
		{spec: "openai:m", opts: provider.Config{OpenAIBaseURL: "http://localhost:8000/v1"}, local: true},
		{spec: "openai:m", opts: provider.Config{OpenAIBaseURL: "http://[::1]:8000/v1"}, local: true},
		{spec: "openai:m", opts: provider.Config{OpenAIBaseURL: "http://10.0.0.5:8000/v1"}, local: false},
		{spec: "openai:m", opts: provider.Config{OpenAIBaseURL: "https://localhost.example.com/v1"}, local: false},
		{spec: "openai-responses:m", opts: provider.Config{OpenAIBaseURL: "http://127.0.0.2:1/v1"}, local: true},
		{spec: "openai-responses:m", opts: provider.Config{OpenAIAPIKey: "sk-test"}, local: false},
		{spec: "ollama:llama3.1", local: true},
		{spec: "ollama:llama3.1", opts: provider.Config{OllamaHost: "0.0.0.0:11434"}, local: true},
		{spec: "ollama:llama3.1", opts: provider.Config{OllamaHost: "gpu-box.lan:11434"}, local: false},
		// Nothing dials a Unix socket, for chat or embeddings.
		{spec: "ollama:m", opts: provider.Config{OllamaHost: "unix:///run/ollama.sock"}, wantErr: `OLLAMA_HOST`},
		{spec: "gpt-4o", wantErr: `want PROVIDER:NAME`},
		{spec: "openai:", wantErr: `want PROVIDER:NAME`},
		{spec: "anthropic:claude", wantErr: `unknown provider "anthropic"`},
		{spec: "openai:m", opts: provider.Config{OpenAIBaseURL: "http://"}, wantErr: "OPENAI_BASE_URL"},
	}
	for _, tc := range cases {
		t.Run(tc.spec+" "+tc.opts.OpenAIBaseURL+tc.opts.OllamaHost, func(t *testing.T) {
			m, err := provider.NewChatModel(tc.spec, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.spec) {
					t.Fatalf("error %v, want one naming %q and containing %q", err, tc.spec, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Name() != tc.spec || m.Local() != tc.local {
				t.Errorf("Name %q Local %v, want %q %v", m.Name(), m.Local(), tc.spec, tc.local)
			}
		})
	}
}

func TestBadRequest(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv, m := start(t, b)
			for _, req := range []provider.ChatRequest{
				{Messages: []provider.Message{{Role: "wizard", Content: "hi"}}},
				{Messages: []provider.Message{{Role: provider.RoleTool, Content: "orphan result"}}},
				{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}},
					Tools: []provider.Tool{{Name: "broken", Parameters: json.RawMessage(`{"type":`)}}},
			} {
				if _, err := m.Chat(t.Context(), req, nil); err == nil {
					t.Errorf("no error for %+v", req)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent for bad input", n)
			}
		})
	}
}

// TestOpenAIKeyMissing: OpenAI's own API without OPENAI_API_KEY is refused
// when the model is made, saying which variable to set; the request went
// out without a key, to fail on the network or with OpenAI's 401. A server
// of one's own (OPENAI_BASE_URL) needs none.
func TestOpenAIKeyMissing(t *testing.T) {
	for _, tc := range []struct {
		spec string
		cfg  provider.Config
		want string // "" for no error
	}{
		{"openai:gpt-4o-mini", provider.Config{}, "OPENAI_API_KEY is not set"},
		{"openai-responses:gpt-4o-mini", provider.Config{}, "OPENAI_API_KEY is not set"},
		{"openai:gpt-4o-mini", provider.Config{OpenAIBaseURL: "https://api.openai.com/v1/"}, "OPENAI_API_KEY is not set"},
		{"openai:gpt-4o-mini", provider.Config{OpenAIAPIKey: "sk-x"}, ""},
		{"openai:local", provider.Config{OpenAIBaseURL: "http://127.0.0.1:8000/v1"}, ""},
		{"ollama:llama3.1", provider.Config{}, ""},
	} {
		_, err := provider.NewChatModel(tc.spec, tc.cfg)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %+v: %v, want %q", tc.spec, tc.cfg, err, tc.want)
		}
	}
}
