package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStreamedToolCallShapes replays tool-call streams as servers other
// than OpenAI shape them. langchaingo v0.1.14 merges fragments by position
// and "type", which breaks on each of these; the tap merges by index and
// id.
func TestStreamedToolCallShapes(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	cases := []struct {
		name   string
		chunks []string
		want   []ToolCall
	}{{
		name: "type repeated in every fragment",
		chunks: []string{
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"search","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"arguments":"{\"q\":"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"arguments":"\"a\"}"}}]}`),
		},
		want: []ToolCall{{ID: "c1", Name: "search", Arguments: `{"q":"a"}`}},
	}, {
		name: "parallel calls interleaved by index",
		chunks: []string{
			chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":""}},{"index":1,"id":"c2","type":"function","function":{"name":"b","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"y\":"}},{"index":0,"function":{"arguments":"{\"x\":"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}},{"index":1,"function":{"arguments":"2}"}}]}`),
		},
		want: []ToolCall{{ID: "c1", Name: "a", Arguments: `{"x":1}`}, {ID: "c2", Name: "b", Arguments: `{"y":2}`}},
	}, {
		name: "index 0 reused for each call, told apart by id",
		chunks: []string{
			chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"b","arguments":"{\"k\":true}"}}]}`),
		},
		want: []ToolCall{{ID: "c1", Name: "a", Arguments: `{}`}, {ID: "c2", Name: "b", Arguments: `{"k":true}`}},
	}, {
		name: "no index, no type on the first fragment",
		chunks: []string{
			chunk(`{"tool_calls":[{"id":"c1","function":{"name":"a","arguments":"{\"q\""}}]}`),
			chunk(`{"tool_calls":[{"function":{"arguments":":1}"}}]}`),
			chunk(`{"tool_calls":[{"id":"c2","function":{"name":"b","arguments":"{}"}}]}`),
		},
		want: []ToolCall{{ID: "c1", Name: "a", Arguments: `{"q":1}`}, {ID: "c2", Name: "b", Arguments: `{}`}},
	}, {
		name: "name repeated in every fragment",
		chunks: []string{
			chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{\"q\""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"name":"a","arguments":":1}"}}]}`),
		},
		want: []ToolCall{{ID: "c1", Name: "a", Arguments: `{"q":1}`}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for _, c := range tc.chunks {
					fmt.Fprint(w, c)
				}
				fmt.Fprint(w, `data: {"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
			}))
			defer hs.Close()
			m, err := NewChatModel("openai:m", Config{OpenAIBaseURL: hs.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			var deltas []string
			resp, err := m.Chat(t.Context(), ChatRequest{Messages: []Message{{Role: RoleUser, Content: "q"}}},
				func(d string) error { deltas = append(deltas, d); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(resp.ToolCalls) != fmt.Sprint(tc.want) {
				t.Errorf("tool calls %q, want %q", resp.ToolCalls, tc.want)
			}
			if len(deltas) != 0 || resp.Content != "" {
				t.Errorf("tool-call fragments reached the text: %q %q", deltas, resp.Content)
			}
			if resp.StopReason != "tool_calls" {
				t.Errorf("StopReason %q", resp.StopReason)
			}
		})
	}
}

// TestStreamErrorPayload: a server that fails mid-stream with an error
// object gets an *Error, not an empty answer.
func TestStreamErrorPayload(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"Hal"}}]}`+"\n\n")
		fmt.Fprint(w, `data: {"error":{"message":"model overloaded","type":"server_error"}}`+"\n\n")
	}))
	defer hs.Close()
	m, err := NewChatModel("openai:m", Config{OpenAIBaseURL: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Chat(t.Context(), ChatRequest{Messages: []Message{{Role: RoleUser, Content: "q"}}}, func(string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "model overloaded") {
		t.Errorf("error %v", err)
	}
}

// TestStreamErrorKeyAtCut: an error chunk without a message is shown cut
// to 512 bytes, and a key straddling the cut leaves nothing behind.
func TestStreamErrorKeyAtCut(t *testing.T) {
	const key = "sk-test-0123456789abcdefSECRET"
	for _, before := range []int{400, 470, 480} {
		t.Run(fmt.Sprint(before), func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, `data: {"error":{"code":500,"detail":"%s%s tail"}}`+"\n\n", strings.Repeat("x", before), key)
			}))
			defer hs.Close()
			m, err := NewChatModel("openai:m", Config{OpenAIBaseURL: hs.URL, OpenAIAPIKey: key})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Chat(t.Context(), ChatRequest{Messages: []Message{{Role: RoleUser, Content: "q"}}}, func(string) error { return nil })
			if err == nil || !strings.Contains(err.Error(), "xxxx") {
				t.Fatalf("error %v", err)
			}
			for k := len(key); k >= minKeyHead; k-- {
				if strings.Contains(err.Error(), key[:k]) {
					t.Fatalf("the key's first %d bytes leak: %s", k, err)
				}
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	const key = "sk-0123456789"
	cases := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "bad " + key, 100, "bad [REDACTED]"},
		{"key straddles the cut", "abc " + key + " more", 10, "abc [REDAC…"},
		{"head of the key at the cut", "abcd sk-01234567 x", 16, "abcd [REDACTED]…"},
		{"head too short to matter", "abcd sk-0123 x", 11, "abcd sk-012…"},
		{"cut inside a rune", "ab" + "é" + "cd", 3, "ab…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := redactor(key).excerpt(tc.in, tc.n); got != tc.want {
				t.Errorf("excerpt(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

func TestRedactor(t *testing.T) {
	key := redactor("sk-abcdef")
	if got := key.String("bad key sk-abcdef, again sk-abcdef"); got != "bad key [REDACTED], again [REDACTED]" {
		t.Errorf("got %q", got)
	}
	if got := redactor("").String("text"); got != "text" {
		t.Errorf("empty key changed text: %q", got)
	}
}
