package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// created is the fixed "created" timestamp of every reply, so transcripts
// are stable.
const created = 1700000000

type ccMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type ccTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type ccRequest struct {
	Model         string      `json:"model"`
	Messages      []ccMessage `json:"messages"`
	Tools         []ccTool    `json:"tools"`
	Stream        bool        `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Temperature         *float64 `json:"temperature"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
}

// readRequest reads the body and fills the common fields; on bad JSON it
// answers 400 and returns false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, api string, v any) (Request, bool) {
	body, err := io.ReadAll(r.Body)
	req := Request{API: api, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		s.writeError(w, api, &HTTPError{Status: http.StatusBadRequest, Message: "modeltest: bad request body: " + err.Error()})
		return req, false
	}
	return req, true
}

func (s *Server) serveChatCompletions(w http.ResponseWriter, r *http.Request) {
	var in ccRequest
	req, ok := s.readRequest(w, r, "chat.completions", &in)
	if !ok {
		return
	}
	req.Model, req.Stream, req.Temperature = in.Model, in.Stream, in.Temperature
	req.IncludeUsage = in.StreamOptions != nil && in.StreamOptions.IncludeUsage
	req.MaxTokens = max(in.MaxCompletionTokens, in.MaxTokens)
	for _, m := range in.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), Name: m.Name, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	turn, seq, ok := s.begin(w, r, req)
	if !ok {
		return
	}
	if !req.Stream {
		if turn.Hang {
			s.hang(r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, mustJSON(s.chatCompletion(turn, req, seq)))
		return
	}
	if s.flavor == flavorOllama {
		s.streamOllamaCompat(w, r, turn, req, seq)
		return
	}
	s.streamChatCompletion(w, r, turn, req, seq)
}

func (s *Server) fingerprint() string {
	if s.flavor == flavorOllama {
		return "fp_ollama"
	}
	return "fp_modeltest"
}

func ccUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":     u.InputTokens,
		"completion_tokens": u.OutputTokens,
		"total_tokens":      u.InputTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": 0, "audio_tokens": 0,
		},
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": 0, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
}

// chatCompletion is the non-streaming reply.
func (s *Server) chatCompletion(turn Turn, req Request, seq int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if text := turn.text(); text != "" || len(turn.ToolCalls) == 0 {
		msg["content"] = text
	}
	if len(turn.ToolCalls) > 0 {
		var calls []map[string]any
		for i, c := range turn.ToolCalls {
			calls = append(calls, map[string]any{
				"id": turn.callID(seq, i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			})
		}
		msg["tool_calls"] = calls
	}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": turn.finish()}
	if s.flavor == flavorOpenAI {
		msg["refusal"] = nil
		msg["annotations"] = []any{}
		choice["logprobs"] = nil
	}
	u := turn.usage(req)
	usage := ccUsage(u)
	if s.flavor == flavorOllama {
		usage = map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens}
	}
	return map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-%d", seq),
		"object":             "chat.completion",
		"created":            created,
		"model":              req.Model,
		"system_fingerprint": s.fingerprint(),
		"choices":            []any{choice},
		"usage":              usage,
	}
}

// streamChatCompletion streams as OpenAI does: a role chunk, content
// deltas, each tool call opened with id, type and name and then its
// arguments in fragments carrying only the index, a finish chunk, the usage
// chunk when asked, and [DONE]. With include_usage every chunk carries
// "usage": null until the last.
func (s *Server) streamChatCompletion(w http.ResponseWriter, r *http.Request, turn Turn, req Request, seq int) {
	sw := s.newStream(w, r, "text/event-stream; charset=utf-8", turn.Pace)
	chunk := func(delta map[string]any, finish any) string {
		c := map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", seq), "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "system_fingerprint": s.fingerprint(),
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if req.IncludeUsage {
			c["usage"] = nil
		}
		return "data: " + mustJSON(c) + "\n\n"
	}
	opener := func(i int) map[string]any {
		return map[string]any{"index": i, "id": turn.callID(seq, i), "type": "function",
			"function": map[string]any{"name": turn.ToolCalls[i].Name, "arguments": ""}}
	}
	// The first chunk names the role; it opens the first tool call when
	// the answer starts with one.
	first := map[string]any{"role": "assistant", "content": "", "refusal": nil}
	if len(turn.Text) == 0 && len(turn.ToolCalls) > 0 {
		first["content"] = nil
		first["tool_calls"] = []any{opener(0)}
	}
	if !sw.write(chunk(first, nil)) {
		return
	}
	for _, d := range turn.Text {
		if !sw.write(chunk(map[string]any{"content": d}, nil)) {
			return
		}
	}
	if turn.Hang {
		s.hang(r)
		return
	}
	for i, c := range turn.ToolCalls {
		if i > 0 || len(turn.Text) > 0 {
			if !sw.write(chunk(map[string]any{"tool_calls": []any{opener(i)}}, nil)) {
				return
			}
		}
		for _, f := range c.fragments() {
			d := map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": f}}}}
			if !sw.write(chunk(d, nil)) {
				return
			}
		}
	}
	if !sw.write(chunk(map[string]any{}, turn.finish())) {
		return
	}
	if req.IncludeUsage {
		c := map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", seq), "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "system_fingerprint": s.fingerprint(),
			"choices": []any{}, "usage": ccUsage(turn.usage(req)),
		}
		if !sw.write("data: " + mustJSON(c) + "\n\n") {
			return
		}
	}
	sw.write("data: [DONE]\n\n")
}

// streamOllamaCompat streams as Ollama's /v1/chat/completions does: every
// delta repeats the role, each tool call arrives whole (id, index, type,
// name and complete arguments) in a chunk of its own, the finish reason
// comes in a last empty delta, and usage only when asked.
func (s *Server) streamOllamaCompat(w http.ResponseWriter, r *http.Request, turn Turn, req Request, seq int) {
	sw := s.newStream(w, r, "text/event-stream", turn.Pace)
	chunk := func(delta map[string]any, finish any) string {
		return "data: " + mustJSON(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", seq), "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "system_fingerprint": "fp_ollama",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}) + "\n\n"
	}
	for _, d := range turn.Text {
		if !sw.write(chunk(map[string]any{"role": "assistant", "content": d}, nil)) {
			return
		}
	}
	if turn.Hang {
		s.hang(r)
		return
	}
	for i, c := range turn.ToolCalls {
		call := map[string]any{"id": turn.callID(seq, i), "index": i, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		if !sw.write(chunk(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{call}}, nil)) {
			return
		}
	}
	if !sw.write(chunk(map[string]any{"role": "assistant", "content": ""}, turn.finish())) {
		return
	}
	if req.IncludeUsage {
		u := turn.usage(req)
		if !sw.write("data: " + mustJSON(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", seq), "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "system_fingerprint": "fp_ollama", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens},
		}) + "\n\n") {
			return
		}
	}
	sw.write("data: [DONE]\n\n")
}

// ollamaRequest is Ollama's native /api/chat body.
type ollamaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolName  string `json:"tool_name"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools   []ccTool `json:"tools"`
	Stream  *bool    `json:"stream"`
	Options struct {
		Temperature *float64 `json:"temperature"`
		NumPredict  int      `json:"num_predict"`
	} `json:"options"`
}

func (s *Server) serveOllamaChat(w http.ResponseWriter, r *http.Request) {
	var in ollamaRequest
	req, ok := s.readRequest(w, r, "ollama.chat", &in)
	if !ok {
		return
	}
	req.Model = in.Model
	req.Stream = in.Stream == nil || *in.Stream // Ollama streams unless told not to
	req.Temperature, req.MaxTokens = in.Options.Temperature, in.Options.NumPredict
	for _, m := range in.Messages {
		msg := Message{Role: m.Role, Content: m.Content, Name: m.ToolName}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: string(c.Function.Arguments)})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	turn, seq, ok := s.begin(w, r, req)
	if !ok {
		return
	}
	at := time.Unix(created, 0).UTC().Format(time.RFC3339Nano)
	calls := func() []any {
		var out []any
		for i, c := range turn.ToolCalls {
			// Ollama sends arguments as a JSON object; a script's invalid
			// arguments go as a string so the test still sees them.
			var args any = json.RawMessage(c.Arguments)
			if !json.Valid([]byte(c.Arguments)) {
				args = c.Arguments
			}
			out = append(out, map[string]any{"id": turn.callID(seq, i),
				"function": map[string]any{"index": i, "name": c.Name, "arguments": args}})
		}
		return out
	}
	final := func(content string, withCalls bool) map[string]any {
		u := turn.usage(req)
		msg := map[string]any{"role": "assistant", "content": content}
		if withCalls && len(turn.ToolCalls) > 0 {
			msg["tool_calls"] = calls()
		}
		reason := turn.Finish
		if reason == "" {
			reason = "stop" // Ollama says stop after tool calls too
		}
		return map[string]any{
			"model": req.Model, "created_at": at, "message": msg, "done": true, "done_reason": reason,
			"total_duration": 1000000, "load_duration": 1000, "prompt_eval_count": u.InputTokens,
			"prompt_eval_duration": 1000, "eval_count": u.OutputTokens, "eval_duration": 1000,
		}
	}
	if !req.Stream {
		if turn.Hang {
			s.hang(r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintln(w, mustJSON(final(turn.text(), true)))
		return
	}
	sw := s.newStream(w, r, "application/x-ndjson", turn.Pace)
	line := func(msg map[string]any) string {
		return mustJSON(map[string]any{"model": req.Model, "created_at": at, "message": msg, "done": false}) + "\n"
	}
	for _, d := range turn.Text {
		if !sw.write(line(map[string]any{"role": "assistant", "content": d})) {
			return
		}
	}
	if turn.Hang {
		s.hang(r)
		return
	}
	if len(turn.ToolCalls) > 0 {
		if !sw.write(line(map[string]any{"role": "assistant", "content": "", "tool_calls": calls()})) {
			return
		}
	}
	sw.write(mustJSON(final("", false)) + "\n")
}
