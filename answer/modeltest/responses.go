package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// rsRequest is a Responses API request body.
type rsRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Stream          bool     `json:"stream"`
	Temperature     *float64 `json:"temperature"`
	MaxOutputTokens int      `json:"max_output_tokens"`
}

type rsItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// rsMessages turns Responses input into Chat Completions terms.
func rsMessages(in rsRequest) ([]Message, error) {
	var msgs []Message
	if in.Instructions != "" {
		msgs = append(msgs, Message{Role: "system", Content: in.Instructions})
	}
	if len(in.Input) == 0 {
		return msgs, nil
	}
	var text string
	if json.Unmarshal(in.Input, &text) == nil {
		return append(msgs, Message{Role: "user", Content: text}), nil
	}
	var items []rsItem
	if err := json.Unmarshal(in.Input, &items); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	for _, it := range items {
		switch it.Type {
		case "", "message":
			msgs = append(msgs, Message{Role: it.Role, Content: contentText(it.Content)})
		case "function_call":
			call := ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments}
			if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" {
				msgs[n-1].ToolCalls = append(msgs[n-1].ToolCalls, call)
			} else {
				msgs = append(msgs, Message{Role: "assistant", ToolCalls: []ToolCall{call}})
			}
		case "function_call_output":
			msgs = append(msgs, Message{Role: "tool", ToolCallID: it.CallID, Name: it.Name, Content: contentText(it.Output)})
		default:
			return nil, fmt.Errorf("input item type %q is not supported by modeltest", it.Type)
		}
	}
	return msgs, nil
}

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request) {
	var in rsRequest
	req, ok := s.readRequest(w, r, "responses", &in)
	if !ok {
		return
	}
	msgs, err := rsMessages(in)
	if err != nil {
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		s.writeError(w, req.API, &HTTPError{Status: http.StatusBadRequest, Message: "modeltest: " + err.Error()})
		return
	}
	req.Model, req.Stream, req.Temperature, req.MaxTokens, req.Messages = in.Model, in.Stream, in.Temperature, in.MaxOutputTokens, msgs
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	turn, seq, ok := s.begin(w, r, req)
	if !ok {
		return
	}
	rs := newRsBuilder(turn, req, seq)
	if !req.Stream {
		if turn.Hang {
			s.hang(r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, mustJSON(rs.response("completed", rs.outputs(), true)))
		return
	}
	sw := s.newStream(w, r, "text/event-stream; charset=utf-8", turn.Pace)
	n := 0
	event := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = n
		n++
		return sw.write("event: " + typ + "\ndata: " + mustJSON(fields) + "\n\n")
	}
	if !event("response.created", map[string]any{"response": rs.response("in_progress", []any{}, false)}) ||
		!event("response.in_progress", map[string]any{"response": rs.response("in_progress", []any{}, false)}) {
		return
	}
	out := 0
	if len(turn.Text) > 0 {
		id := fmt.Sprintf("msg_%d", seq)
		if !event("response.output_item.added", map[string]any{"output_index": out,
			"item": map[string]any{"id": id, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}}) ||
			!event("response.content_part.added", map[string]any{"item_id": id, "output_index": out, "content_index": 0,
				"part": rsText("")}) {
			return
		}
		for _, d := range turn.Text {
			if !event("response.output_text.delta", map[string]any{"item_id": id, "output_index": out, "content_index": 0,
				"delta": d, "logprobs": []any{}}) {
				return
			}
		}
		if turn.Hang {
			s.hang(r)
			return
		}
		if !event("response.output_text.done", map[string]any{"item_id": id, "output_index": out, "content_index": 0,
			"text": turn.text(), "logprobs": []any{}}) ||
			!event("response.content_part.done", map[string]any{"item_id": id, "output_index": out, "content_index": 0,
				"part": rsText(turn.text())}) ||
			!event("response.output_item.done", map[string]any{"output_index": out, "item": rs.message("completed")}) {
			return
		}
		out++
	} else if turn.Hang {
		s.hang(r)
		return
	}
	for i, c := range turn.ToolCalls {
		item := rs.functionCall(i, "in_progress", "")
		if !event("response.output_item.added", map[string]any{"output_index": out, "item": item}) {
			return
		}
		for _, f := range c.fragments() {
			if !event("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": out, "delta": f}) {
				return
			}
		}
		if !event("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": out,
			"name": c.Name, "arguments": c.Arguments}) ||
			!event("response.output_item.done", map[string]any{"output_index": out, "item": rs.functionCall(i, "completed", c.Arguments)}) {
			return
		}
		out++
	}
	status, typ := "completed", "response.completed"
	if turn.Finish == "length" {
		status, typ = "incomplete", "response.incomplete"
	}
	event(typ, map[string]any{"response": rs.response(status, rs.outputs(), true)})
}

type rsBuilder struct {
	turn Turn
	req  Request
	seq  int
}

func newRsBuilder(turn Turn, req Request, seq int) rsBuilder { return rsBuilder{turn, req, seq} }

func rsText(text string) map[string]any {
	return map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text}
}

func (b rsBuilder) message(status string) map[string]any {
	return map[string]any{"id": fmt.Sprintf("msg_%d", b.seq), "type": "message", "status": status,
		"content": []any{rsText(b.turn.text())}, "role": "assistant"}
}

func (b rsBuilder) functionCall(i int, status, args string) map[string]any {
	return map[string]any{"id": fmt.Sprintf("fc_%d_%d", b.seq, i), "type": "function_call", "status": status,
		"arguments": args, "call_id": b.turn.callID(b.seq, i), "name": b.turn.ToolCalls[i].Name}
}

func (b rsBuilder) outputs() []any {
	var out []any
	if len(b.turn.Text) > 0 {
		out = append(out, b.message("completed"))
	}
	for i, c := range b.turn.ToolCalls {
		out = append(out, b.functionCall(i, "completed", c.Arguments))
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// response is a Responses API response object.
func (b rsBuilder) response(status string, output []any, withUsage bool) map[string]any {
	var tools []any
	for _, t := range b.req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage("null")
		}
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
			"parameters": params, "strict": false})
	}
	if tools == nil {
		tools = []any{}
	}
	var incomplete any
	if status == "incomplete" {
		incomplete = map[string]any{"reason": "max_output_tokens"}
	}
	var usage any
	if withUsage {
		u := b.turn.usage(b.req)
		usage = map[string]any{
			"input_tokens": u.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": u.InputTokens + u.OutputTokens,
		}
	}
	var instructions any
	for _, m := range b.req.Messages {
		if m.Role == "system" && strings.TrimSpace(m.Content) != "" {
			instructions = m.Content
			break
		}
	}
	return map[string]any{
		"id": fmt.Sprintf("resp_%d", b.seq), "object": "response", "created_at": created, "status": status,
		"error": nil, "incomplete_details": incomplete, "instructions": instructions,
		"max_output_tokens": nil, "model": b.req.Model, "output": output, "parallel_tool_calls": true,
		"previous_response_id": nil, "reasoning": map[string]any{"effort": nil, "summary": nil},
		"store": false, "temperature": 1.0, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"tool_choice": "auto", "tools": tools, "top_p": 1.0, "truncation": "disabled",
		"usage": usage, "user": nil, "metadata": map[string]any{},
	}
}
