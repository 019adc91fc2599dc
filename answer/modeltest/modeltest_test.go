package modeltest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer/modeltest"
)

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseData returns the data payloads of an SSE body, and the event names.
func sseData(t *testing.T, r io.Reader) (data, events []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, v)
		} else if v, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, v)
		} else if line != "" {
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return data, events
}

var twoCalls = modeltest.Turn{
	Text: []string{"Let me look ", "that up."},
	ToolCalls: []modeltest.ToolCall{
		{Name: "search_documents", Arguments: `{"query":"capital of France"}`},
		{ID: "call_b", Name: "current_datetime", Arguments: `{}`},
	},
	Usage: modeltest.Usage{InputTokens: 12, OutputTokens: 7},
}

func TestChatCompletionsStream(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{twoCalls}})
	resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}],
		"tools":[{"type":"function","function":{"name":"search_documents","parameters":{"type":"object"}}}]}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q", ct)
	}
	data, _ := sseData(t, resp.Body)
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last data = %q, want [DONE]", data[len(data)-1])
	}
	type call struct {
		Index    *int    `json:"index"`
		ID       *string `json:"id"`
		Type     *string `json:"type"`
		Function struct {
			Name      *string `json:"name"`
			Arguments string  `json:"arguments"`
		} `json:"function"`
	}
	var (
		text    string
		args    = map[int]string{}
		ids     = map[int]string{}
		finish  string
		usage   *struct{ PromptTokens, CompletionTokens int }
		nullUse int
	)
	for _, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []call  `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatal(err)
		}
		if string(c.Usage) == "null" {
			nullUse++
		} else if len(c.Usage) > 0 {
			var u struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			}
			json.Unmarshal(c.Usage, &u)
			usage = &struct{ PromptTokens, CompletionTokens int }{u.PromptTokens, u.CompletionTokens}
			if len(c.Choices) != 0 {
				t.Errorf("usage chunk has choices")
			}
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text += *ch.Delta.Content
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("tool call delta without index: %s", d)
				}
				if tc.ID != nil {
					if tc.Type == nil || *tc.Type != "function" || tc.Function.Name == nil || tc.Function.Arguments != "" {
						t.Errorf("tool call opener not shaped as OpenAI's: %s", d)
					}
					ids[*tc.Index] = *tc.ID
				} else if tc.Type != nil || tc.Function.Name != nil {
					t.Errorf("argument fragment carries more than index and arguments: %s", d)
				}
				args[*tc.Index] += tc.Function.Arguments
			}
		}
	}
	if text != "Let me look that up." || finish != "tool_calls" {
		t.Errorf("text %q finish %q", text, finish)
	}
	if args[0] != `{"query":"capital of France"}` || args[1] != `{}` || ids[0] != "call_1_0" || ids[1] != "call_b" {
		t.Errorf("tool calls: ids %v args %v", ids, args)
	}
	if usage == nil || usage.PromptTokens != 12 || usage.CompletionTokens != 7 || nullUse != len(data)-2 {
		t.Errorf("usage %+v, null usage in %d of %d chunks", usage, nullUse, len(data)-2)
	}
	got := srv.Requests()
	if len(got) != 1 || got[0].API != "chat.completions" || !got[0].Stream || !got[0].IncludeUsage ||
		len(got[0].Tools) != 1 || got[0].Tools[0].Name != "search_documents" {
		t.Errorf("recorded %+v", got)
	}
}

func TestChatCompletionsJSON(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{twoCalls}})
	resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions",
		`{"model":"m","temperature":0.2,"max_completion_tokens":50,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"result"}]}`)
	var out struct {
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	m := out.Choices[0].Message
	if m.Content == nil || *m.Content != "Let me look that up." || len(m.ToolCalls) != 2 ||
		m.ToolCalls[0].Function.Arguments != `{"query":"capital of France"}` || out.Choices[0].FinishReason != "tool_calls" || out.Usage.TotalTokens != 19 {
		t.Errorf("reply %+v", out)
	}
	req := srv.Requests()[0]
	want := []modeltest.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "f", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "result"},
	}
	if fmt.Sprint(req.Messages) != fmt.Sprint(want) || req.Temperature == nil || *req.Temperature != 0.2 || req.MaxTokens != 50 {
		t.Errorf("recorded %+v", req)
	}
}

func TestOllama(t *testing.T) {
	srv := modeltest.NewOllamaServer(t, modeltest.Script{Turns: []modeltest.Turn{twoCalls, twoCalls, twoCalls}})

	t.Run("native stream", func(t *testing.T) {
		resp := post(t, t.Context(), srv.URL+"/api/chat", `{"model":"llama3.1","messages":[{"role":"user","content":"hi"}]}`)
		if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
			t.Errorf("Content-Type = %q", ct)
		}
		dec := json.NewDecoder(resp.Body)
		var text string
		var calls []string
		var last map[string]any
		for dec.More() {
			var line struct {
				Message struct {
					Content   string
					ToolCalls []struct {
						Function struct {
							Name      string
							Arguments map[string]any
						}
					} `json:"tool_calls"`
				}
				Done bool
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(raw, &line)
			json.Unmarshal(raw, &last)
			text += line.Message.Content
			for _, c := range line.Message.ToolCalls {
				calls = append(calls, fmt.Sprint(c.Function.Name, c.Function.Arguments))
			}
		}
		if text != "Let me look that up." || !slices.Equal(calls, []string{"search_documentsmap[query:capital of France]", "current_datetimemap[]"}) {
			t.Errorf("text %q calls %q", text, calls)
		}
		if last["done"] != true || last["prompt_eval_count"] != 12.0 || last["eval_count"] != 7.0 {
			t.Errorf("last line %v", last)
		}
	})

	t.Run("v1 stream sends tool calls whole", func(t *testing.T) {
		resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions", `{"model":"llama3.1","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		data, _ := sseData(t, resp.Body)
		var whole []string
		for _, d := range data {
			if strings.Contains(d, `"tool_calls"`) {
				var c struct {
					Choices []struct {
						Delta struct {
							ToolCalls []struct {
								Type     string
								Function struct{ Arguments string }
							} `json:"tool_calls"`
						}
					}
				}
				json.Unmarshal([]byte(d), &c)
				for _, tc := range c.Choices[0].Delta.ToolCalls {
					whole = append(whole, tc.Type+" "+tc.Function.Arguments)
				}
			}
			if strings.Contains(d, `"usage"`) {
				t.Errorf("usage sent without include_usage: %s", d)
			}
		}
		if !slices.Equal(whole, []string{`function {"query":"capital of France"}`, "function {}"}) {
			t.Errorf("tool call chunks %q", whole)
		}
	})

	t.Run("native error", func(t *testing.T) {
		srv := modeltest.NewOllamaServer(t, modeltest.Script{Turns: []modeltest.Turn{{Error: &modeltest.HTTPError{Status: 404, Message: `model "x" not found`}}}})
		resp := post(t, t.Context(), srv.URL+"/api/chat", `{"model":"x","messages":[]}`)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 404 || strings.TrimSpace(string(b)) != `{"error":"model \"x\" not found"}` {
			t.Errorf("%d %s", resp.StatusCode, b)
		}
	})
}

func TestResponsesStream(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{twoCalls}})
	resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/responses", `{"model":"m","stream":true,"instructions":"be brief",
		"input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c0","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c0","output":"r"}],
		"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":false}]}`)
	data, events := sseData(t, resp.Body)
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done"}
	want = append(want, "response.output_item.added")
	for range 8 { // {"query":"capital of France"} in pieces of 4 bytes
		want = append(want, "response.function_call_arguments.delta")
	}
	want = append(want, "response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
		"response.completed")
	if !slices.Equal(events, want) {
		t.Errorf("events\n%q\nwant\n%q", events, want)
	}
	var done struct {
		Type     string
		Response struct {
			Output []struct {
				Type   string
				CallID string `json:"call_id"`
			} `json:"output"`
			Usage struct {
				InputTokens int `json:"input_tokens"`
			}
		}
	}
	json.Unmarshal([]byte(data[len(data)-1]), &done)
	if len(done.Response.Output) != 3 || done.Response.Output[2].CallID != "call_b" || done.Response.Usage.InputTokens != 12 {
		t.Errorf("completed %+v", done)
	}
	req := srv.Requests()[0]
	if len(req.Messages) != 4 || req.Messages[0].Role != "system" || req.Messages[2].ToolCalls[0].ID != "c0" || req.Messages[3].ToolCallID != "c0" {
		t.Errorf("recorded %+v", req.Messages)
	}
}

func TestErrorsAndHang(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Error: &modeltest.HTTPError{Status: 429, Message: "Rate limit reached", Header: http.Header{"Retry-After": {"7"}}}},
		{Text: []string{"partial"}, Hang: true},
	}})
	resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions", `{"model":"m","messages":[]}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(b), `"message":"Rate limit reached"`) {
		t.Errorf("%d %v %s", resp.StatusCode, resp.Header, b)
	}

	ctx, cancel := context.WithCancel(t.Context())
	resp = post(t, ctx, srv.OpenAIBaseURL()+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "partial") {
	}
	start := time.Now()
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	for sc.Scan() {
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hanging stream did not end on cancel (%v)", d)
	}
}

func TestMatchRoutesConcurrentRequests(t *testing.T) {
	var scripts []modeltest.Script
	for i := range 20 {
		marker := fmt.Sprintf("[req-%d]", i)
		scripts = append(scripts, modeltest.Script{Match: modeltest.LastUserContains(marker),
			Turns: []modeltest.Turn{{Text: []string{"answer ", marker}, Pace: time.Millisecond}}})
	}
	srv := modeltest.NewServer(t, scripts...)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			marker := fmt.Sprintf("[req-%d]", i)
			body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"question %s"}]}`, marker)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.OpenAIBaseURL()+"/chat/completions", strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), `"content":"`+marker+`"`) {
				t.Errorf("request %s got %s", marker, b)
			}
		})
	}
	wg.Wait()
	if n := len(srv.Requests()); n != 20 {
		t.Errorf("%d requests recorded", n)
	}
}

func TestExhaustedScript(t *testing.T) {
	ft := &fakeT{TB: t}
	srv := modeltest.NewServer(ft)
	resp := post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	if resp.StatusCode != 500 || !ft.failed() {
		t.Errorf("status %d, reported %v", resp.StatusCode, ft.failed())
	}
}

// fakeT records Errorf instead of failing the test.
type fakeT struct {
	testing.TB
	mu  sync.Mutex
	msg []string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msg = append(f.msg, fmt.Sprintf(format, args...))
}

func (f *fakeT) failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.msg) > 0
}
