package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

// TestChatOpenAIFields: /v1/chat/completions takes what OpenAI's clients
// send, fields it does not use included, and an agent's history of tool
// calls and their results; /v1/ask stays strict.
func TestChatOpenAIFields(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"WAL keeps a log [doc:1]."}},
		{Text: []string{"WAL keeps a log [doc:1]."}},
		{Text: []string{"WAL keeps a log [doc:1]."}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, name := start(t, m, server.Config{})
	const question = `{"role":"user","content":"what is WAL mode in SQLite"}`
	for _, c := range []struct {
		name, body string
	}{
		{"request fields", `{"model":"` + name + `","messages":[` + question + `],
			"response_format":{"type":"text"},"logprobs":false,"top_logprobs":null,"parallel_tool_calls":true,
			"metadata":{"app":"x"},"store":false,"logit_bias":{"50256":-100},"reasoning_effort":"low",
			"modalities":["text"],"service_tier":"auto","functions":[{"name":"f"}],"function_call":"auto",
			"prediction":{"type":"content","content":"x"},"user":"u1","seed":7,"audio":null,"web_search_options":{}}`},
		{"agent history", `{"model":"` + name + `","messages":[
			{"role":"system","content":"be brief"},
			{"role":"user","content":"look it up","name":"ann"},
			{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_1","content":"tool output"},
			{"role":"assistant","content":"done","audio":null},
			` + question + `]}`},
		{"developer and function roles", `{"messages":[{"role":"developer","content":"x"},{"role":"function","name":"f","content":"y"},` + question + `]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", c.body)
			if resp.StatusCode != 200 || !strings.Contains(body, "WAL keeps a log [1]") {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}
	// The history the model was given: the user's and the assistant's
	// words, not the tool calls or their results.
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if hist := string(reqs[1].Body); !strings.Contains(hist, "look it up") || !strings.Contains(hist, "done") || strings.Contains(hist, "tool output") || strings.Contains(hist, "call_1") {
		t.Errorf("the model was sent %s", hist)
	}
	if resp, body := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"q","seed":7}`); resp.StatusCode != 400 || !strings.Contains(body, `"bad_json"`) {
		t.Errorf("/v1/ask with an unknown field: %d %s", resp.StatusCode, body)
	}
}

// TestChatContentParts: a message's content given as text parts is their
// text, a line each, as OpenAI reads it; other parts are left out.
func TestChatContentParts(t *testing.T) {
	for _, c := range []struct {
		name, content, want string
	}{
		{"string", `"tell me about checkpoints"`, "tell me about checkpoints"},
		{"one part", `[{"type":"text","text":"tell me about checkpoints"}]`, "tell me about checkpoints"},
		{"two parts", `[{"type":"text","text":"tell me about"},{"type":"text","text":"checkpoints"}]`, "tell me about\ncheckpoints"},
		{"an image between", `[{"type":"text","text":"tell me about"},{"type":"image_url","image_url":{"url":"data:,"}},{"type":"text","text":"checkpoints"}]`, "tell me about\ncheckpoints"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Fine."}}}})
			m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
			ts, _ := start(t, m, server.Config{})
			body := `{"messages":[{"role":"user","content":` + c.content + `}]}`
			if resp, out := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", body); resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			msgs := reqs[0].Messages
			if got := msgs[len(msgs)-1].Content; !strings.Contains(got, c.want) {
				t.Errorf("the model was asked %q, want %q in it", got, c.want)
			}
		})
	}
}

// TestChatNoQuestion: messages without a question are refused naming
// what is missing; before, a last user message without text (null, an
// image alone, blanks) was answered "question is required", a field
// /v1/chat/completions does not have.
func TestChatNoQuestion(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	for _, c := range []struct{ name, messages, says string }{
		{"none", `[]`, "messages need a user message: the question"},
		{"assistant only", `[{"role":"assistant","content":"hi"}]`, "messages need a user message: the question"},
		{"null content", `[{"role":"user","content":null}]`, `messages[0].content: the last user message has no text: the question`},
		{"no content", `[{"role":"user","content":"q"},{"role":"assistant","content":"a"},{"role":"user"}]`, `messages[2].content: the last user message has no text: the question`},
		{"blank", `[{"role":"user","content":"  \n"}]`, `messages[0].content: the last user message has no text`},
		{"an image alone", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:,"}}]}]`, `messages[0].content: the last user message has no text`},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, out := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", `{"messages":`+c.messages+`}`)
			if resp.StatusCode != 400 || !strings.Contains(out, `"code":"bad_messages"`) || !strings.Contains(out, c.says) {
				t.Errorf("%d %s, want 400 bad_messages saying %s", resp.StatusCode, out, c.says)
			}
		})
	}
}

// TestChatFinishReason: the finish reason is why the model stopped, as
// OpenAI names it, streamed or not.
func TestChatFinishReason(t *testing.T) {
	for _, c := range []struct{ finish, want string }{
		{"stop", "stop"},
		{"length", "length"},
		{"max_tokens", "length"},
		{"content_filter", "content_filter"},
		{"something_else", "stop"},
	} {
		t.Run(c.finish, func(t *testing.T) {
			turn := modeltest.Turn{Text: []string{"WAL keeps a log [doc:1] and then"}, Finish: c.finish}
			srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{turn, turn}})
			m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
			ts, _ := start(t, m, server.Config{})
			for _, stream := range []bool{false, true} {
				body := fmt.Sprintf(`{"stream":%v,"messages":[{"role":"user","content":"what is WAL mode"}]}`, stream)
				resp, out := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", body)
				if resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, out)
				}
				var got []string
				for _, data := range strings.Split(out, "\n") {
					if stream {
						var ok bool
						if data, ok = strings.CutPrefix(data, "data: "); !ok || data == "[DONE]" {
							continue
						}
					}
					var chunk struct {
						Choices []struct {
							FinishReason *string `json:"finish_reason"`
						} `json:"choices"`
					}
					json.Unmarshal([]byte(data), &chunk)
					for _, ch := range chunk.Choices {
						if ch.FinishReason != nil {
							got = append(got, *ch.FinishReason)
						}
					}
				}
				if len(got) != 1 || got[0] != c.want {
					t.Errorf("stream %v: finish reasons %q, want %q", stream, got, c.want)
				}
			}
		})
	}
}

// TestModel: GET /v1/models/{id} is the model object for the served
// model, as OpenAI's clients retrieve it, and OpenAI's 404 for any other.
func TestModel(t *testing.T) {
	ts, name := start(t, nil, server.Config{})
	for _, c := range []struct {
		id     string
		status int
		want   string
	}{
		{name, 200, `{"id":"` + name + `","object":"model","created":0,"owned_by":"cite"}`},
		{"gpt-4o", 404, `{"error":{"code":"model_not_found","message":"The model 'gpt-4o' does not exist; this server answers with '` + name + `' (GET /v1/models)","param":"model","type":"invalid_request_error"}}`},
		{"org/" + name, 404, `"code":"model_not_found"`},
	} {
		t.Run(c.id, func(t *testing.T) {
			resp, out := do(t, "GET", ts.URL+"/v1/models/"+c.id, "", "")
			if resp.StatusCode != c.status || !strings.Contains(out, c.want) || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, out, c.status, c.want)
			}
		})
	}
}

// TestChatCutShort: an answer cut short, or missing because the model
// still asked for tool calls once it could make no more, says so in its
// content (before the reference list), where a user reads it, with a
// finish_reason OpenAI's clients take for an answer cut short ("length";
// never "tool_calls", whose calls the response would not carry), and the
// exact reason in "stop_reason", streamed or not. Before, an answer
// missing so was content "" with finish_reason "stop".
func TestChatCutShort(t *testing.T) {
	call := func(q string) []modeltest.ToolCall {
		return []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"` + q + `"}`}}
	}
	const list = "\n\n---\nSources cited in this answer:\n\n1. [Write-Ahead Logging in SQLite]"
	for _, c := range []struct {
		name          string
		turns         []modeltest.Turn
		finish, stop  string
		content, tail string // content is the start of the content, tail what follows the answer
	}{
		{"no answer", []modeltest.Turn{{ToolCalls: call("wal")}, {ToolCalls: call("more")}}, "length", "tool_calls",
			"*cite: the model gave no answer: it asked for more tool calls when it could make no more.*", ""},
		{"unfinished", []modeltest.Turn{{ToolCalls: call("wal")}, {Text: []string{"WAL keeps a log [doc:1] and"}, ToolCalls: call("more")}}, "length", "tool_calls",
			"WAL keeps a log [1] and", "\n\n*cite: the answer may be unfinished: the model asked for more tool calls when it could make no more.*" + list},
		{"output limit", []modeltest.Turn{{Text: []string{"WAL keeps a log [doc:1] and then"}, Finish: "length"}}, "length", "length",
			"WAL keeps a log [1] and then", "\n\n*cite: the answer is cut short: the model reached its output limit.*" + list},
		{"content filter", []modeltest.Turn{{Text: []string{"WAL keeps a log [doc:1] and then"}, Finish: "content_filter"}}, "content_filter", "content_filter",
			"WAL keeps a log [1] and then", "\n\n*cite: the answer is cut short: the provider's content filter stopped it.*" + list},
		{"unnamed reason", []modeltest.Turn{{Text: []string{"WAL keeps a log [doc:1]."}, Finish: "something_else"}}, "stop", "other",
			"WAL keeps a log [1].", "\n\n*cite: the answer may be cut short: the model stopped for a reason it did not name.*" + list},
		{"whole", []modeltest.Turn{{Text: []string{"WAL keeps a log [doc:1]."}}}, "stop", "stop",
			"WAL keeps a log [1].", list},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Script{Turns: append(slices.Clone(c.turns), c.turns...)})
			m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
			ts, _, _ := startEngine(t, t.TempDir(), true, m, server.Config{}, answer.Config{MaxToolCalls: 1})
			for _, stream := range []bool{false, true} {
				body := fmt.Sprintf(`{"stream":%v,"messages":[{"role":"user","content":"what is WAL mode"}]}`, stream)
				resp, out := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", body)
				if resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, out)
				}
				var content strings.Builder
				var finish, stop []string
				for _, data := range strings.Split(out, "\n") {
					if stream {
						var ok bool
						if data, ok = strings.CutPrefix(data, "data: "); !ok || data == "[DONE]" {
							continue
						}
					}
					var chunk struct {
						Choices []struct {
							FinishReason *string `json:"finish_reason"`
							Message      struct {
								Content string `json:"content"`
							} `json:"message"`
							Delta struct {
								Content string `json:"content"`
							} `json:"delta"`
						} `json:"choices"`
						StopReason *string `json:"stop_reason"`
					}
					json.Unmarshal([]byte(data), &chunk)
					for _, ch := range chunk.Choices {
						content.WriteString(ch.Message.Content + ch.Delta.Content)
						if ch.FinishReason != nil {
							finish = append(finish, *ch.FinishReason)
						}
					}
					if chunk.StopReason != nil {
						stop = append(stop, *chunk.StopReason)
					}
				}
				got := content.String()
				rest, ok := strings.CutPrefix(got, c.content)
				if !ok || !strings.HasPrefix(rest, c.tail) || c.tail == "" && rest != "" {
					t.Errorf("stream %v: content %q, want %q then %q", stream, got, c.content, c.tail)
				}
				if !slices.Equal(finish, []string{c.finish}) || !slices.Equal(stop, []string{c.stop}) {
					t.Errorf("stream %v: finish reasons %q and stop reasons %q, want %q and %q", stream, finish, stop, c.finish, c.stop)
				}
			}
		})
	}
}
