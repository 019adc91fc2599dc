package provider_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
