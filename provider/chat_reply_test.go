package provider_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
)

// replyServer answers every request with one canned reply.
func replyServer(t *testing.T, contentType, body string) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(hs.Close)
	return hs
}

// sse renders Chat Completions chunks (their JSON) as an event stream.
func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String()
}

const (
	roleChunk = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	halChunk  = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hal"},"finish_reason":null}]}`
	stopChunk = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	done      = "[DONE]"
)

// TestChatReplyNotAnAnswer: a 200 reply that holds no answer, or only part
// of one, is an error naming the provider and what was wrong, on both
// Chat Completions paths, never an empty or partial answer.
func TestChatReplyNotAnAnswer(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		stream                  bool
		want                    string
	}{
		{"empty event stream", "text/event-stream", "", true, "the reply is empty"},
		{"HTML page", "text/html; charset=utf-8", "<!DOCTYPE html>\n<html><body>Welcome to nginx!</body></html>\n", true,
			`not an event stream (Content-Type "text/html; charset=utf-8"): <!DOCTYPE html>`},
		{"garbage lines", "text/event-stream", "hello\nworld\n", true, "not an event stream"},
		{"data that is not JSON", "text/event-stream", "data: hello\n\ndata: world\n\n", true, "not an event stream"},
		{"no choices, then [DONE]", "text/event-stream", sse(`{"id":"c","object":"chat.completion.chunk","choices":[]}`, done), true,
			"holds no answer"},
		{"one chunk, then the end", "text/event-stream", sse(roleChunk, halChunk), true, "ended before the reply finished"},
		{"an error object", "text/event-stream", sse(halChunk, `{"object":"error","message":"out of memory","code":500}`), true, "out of memory"},
		{"HTML page, not streamed", "text/html", "<html><body>Welcome to nginx!</body></html>", false,
			`not a Chat Completions object (Content-Type "text/html")`},
		{"empty, not streamed", "application/json", "", false, "not a Chat Completions object"},
		{"no choices, not streamed", "application/json", `{"id":"x","object":"chat.completion","choices":[]}`, false, "empty response"},
		{"empty message, no finish_reason, not streamed", "application/json",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":null}]}`, false,
			"holds no answer"},
		{"a function_call finish without the call, not streamed (langchaingo panics on it)", "application/json",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"function_call"}]}`, false,
			"could not be read"},
	}
	for _, spec := range []string{"openai:m", "ollama:m"} {
		for _, tc := range cases {
			t.Run(spec+"/"+tc.name, func(t *testing.T) {
				hs := replyServer(t, tc.contentType, tc.body)
				m, err := provider.NewChatModel(spec, provider.Config{OpenAIBaseURL: hs.URL + "/v1", OllamaHost: hs.URL})
				if err != nil {
					t.Fatal(err)
				}
				resp, _, err := chat(t.Context(), m, userAsks("q"), tc.stream)
				pe, ok := errors.AsType[*provider.Error](err)
				if !ok {
					t.Fatalf("got %+v, error %v; want a *provider.Error saying %q", resp, err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.want) || pe.Provider != strings.TrimSuffix(spec, ":m") || pe.Op != "chat" {
					t.Errorf("error %q, want one from %s saying %q", err, spec, tc.want)
				}
			})
		}
	}
}

// TestChatReplyShapes: replies that are answers, though not in the usual
// shape, are read as such.
func TestChatReplyShapes(t *testing.T) {
	const completion = `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"Paris [doc:1]."},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`
	cases := []struct {
		name, contentType, body string
		stream                  bool
		want                    provider.ChatResponse
	}{
		{"a whole completion to a streamed request", "application/json", completion, true,
			provider.ChatResponse{Content: "Paris [doc:1].", StopReason: "stop", Usage: provider.Usage{InputTokens: 12, OutputTokens: 4}}},
		{"a whole completion with a tool call", "application/json",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
				`"tool_calls":[{"id":"c1","type":"function","function":{"name":"search_documents","arguments":"{\"query\":\"a\"}"}}]},"finish_reason":"tool_calls"}]}`,
			true, provider.ChatResponse{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "search_documents", Arguments: `{"query":"a"}`}}, StopReason: "tool_calls"}},
		{"finished with empty content", "text/event-stream", sse(roleChunk, stopChunk, done), true,
			provider.ChatResponse{StopReason: "stop"}},
		{"text then [DONE], no finish_reason", "text/event-stream", sse(roleChunk, halChunk, done), true,
			provider.ChatResponse{Content: "Hal", StopReason: "stop"}},
		{"finish_reason, no [DONE]", "text/event-stream", sse(halChunk, stopChunk), true,
			provider.ChatResponse{Content: "Hal", StopReason: "stop"}},
		{"comments, events and a stray line", "text/event-stream",
			": keep-alive\n\nevent: message\nid: 1\nretry: 100\n" + sse(halChunk) + "garbage\n" + sse(stopChunk, done), true,
			provider.ChatResponse{Content: "Hal", StopReason: "stop"}},
		{"CRLF line ends", "text/event-stream", strings.ReplaceAll(sse(halChunk, stopChunk, done), "\n", "\r\n"), true,
			provider.ChatResponse{Content: "Hal", StopReason: "stop"}},
		{"length, then a chunk without a reason", "text/event-stream",
			sse(halChunk, `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
				`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":null}]}`, done), true,
			provider.ChatResponse{Content: "Hal", StopReason: "length"}},
		{"usage in the last chunk", "text/event-stream",
			sse(halChunk, stopChunk, `{"id":"c","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}`, done), true,
			provider.ChatResponse{Content: "Hal", StopReason: "stop", Usage: provider.Usage{InputTokens: 7, OutputTokens: 1}}},
		{"finished with empty content, not streamed", "application/json",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, false,
			provider.ChatResponse{StopReason: "stop"}},
	}
	for _, spec := range []string{"openai:m", "ollama:m"} {
		for _, tc := range cases {
			t.Run(spec+"/"+tc.name, func(t *testing.T) {
				hs := replyServer(t, tc.contentType, tc.body)
				m, err := provider.NewChatModel(spec, provider.Config{OpenAIBaseURL: hs.URL + "/v1", OllamaHost: hs.URL})
				if err != nil {
					t.Fatal(err)
				}
				resp, deltas, err := chat(t.Context(), m, userAsks("q"), tc.stream)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprintf("%+v", resp) != fmt.Sprintf("%+v", tc.want) {
					t.Errorf("got  %+v\nwant %+v", resp, tc.want)
				}
				if tc.stream && strings.Join(deltas, "") != tc.want.Content {
					t.Errorf("deltas %q, want %q", deltas, tc.want.Content)
				}
			})
		}
	}
}

// TestStopReason: why the model stopped reaches the caller in one small
// vocabulary, whichever wire and whether streamed or not.
func TestStopReason(t *testing.T) {
	cases := []struct{ finish, want string }{
		{"stop", provider.StopDone},
		{"length", provider.StopLength},
		{"content_filter", provider.StopContentFilter},
		{"eos_token", provider.StopDone},
		{"abort", provider.StopOther},
	}
	for _, b := range backends[:2] { // Chat Completions: openai, ollama
		for _, stream := range []bool{false, true} {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/stream=%v/%s", b.name, stream, tc.finish), func(t *testing.T) {
					_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Par", "is"}, Finish: tc.finish}}})
					resp, _, err := chat(t.Context(), m, userAsks("q"), stream)
					if err != nil {
						t.Fatal(err)
					}
					if resp.StopReason != tc.want || resp.Content != "Paris" {
						t.Errorf("StopReason %q Content %q, want %q", resp.StopReason, resp.Content, tc.want)
					}
				})
			}
			t.Run(fmt.Sprintf("%s/stream=%v/stop with tool calls", b.name, stream), func(t *testing.T) {
				_, m := start(t, b, modeltest.Script{Turns: []modeltest.Turn{{Finish: "stop",
					ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "search_documents", Arguments: `{"query":"a"}`}}}}})
				resp, _, err := chat(t.Context(), m, userAsks("q"), stream)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StopReason != provider.StopToolCalls {
					t.Errorf("StopReason %q, want %q", resp.StopReason, provider.StopToolCalls)
				}
			})
		}
	}

	// The Responses API says it with a status and incomplete_details.
	response := func(status, details string) string {
		return `{"id":"r","object":"response","created_at":1,"model":"m","status":"` + status + `","incomplete_details":` + details +
			`,"output":[{"type":"message","id":"m1","role":"assistant","status":"incomplete","content":[{"type":"output_text","text":"Paris","annotations":[]}]}],` +
			`"usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}`
	}
	rcases := []struct{ name, status, details, want string }{
		{"completed", "completed", "null", provider.StopDone},
		{"max_output_tokens", "incomplete", `{"reason":"max_output_tokens"}`, provider.StopLength},
		{"content_filter", "incomplete", `{"reason":"content_filter"}`, provider.StopContentFilter},
		{"incomplete, no reason", "incomplete", "null", provider.StopOther},
	}
	for _, stream := range []bool{false, true} {
		for _, tc := range rcases {
			t.Run(fmt.Sprintf("responses/stream=%v/%s", stream, tc.name), func(t *testing.T) {
				r := response(tc.status, tc.details)
				ct, body := "application/json", r
				if stream {
					typ := "response." + tc.status
					ct = "text/event-stream"
					body = "event: response.output_text.delta\n" +
						`data: {"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":"Paris","sequence_number":1}` + "\n\n" +
						"event: " + typ + "\n" + `data: {"type":"` + typ + `","sequence_number":2,"response":` + r + "}\n\n"
				}
				hs := replyServer(t, ct, body)
				m, err := provider.NewChatModel("openai-responses:m", provider.Config{OpenAIBaseURL: hs.URL + "/v1"})
				if err != nil {
					t.Fatal(err)
				}
				resp, _, err := chat(t.Context(), m, userAsks("q"), stream)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StopReason != tc.want || resp.Content != "Paris" {
					t.Errorf("StopReason %q Content %q, want %q", resp.StopReason, resp.Content, tc.want)
				}
			})
		}
	}
}
