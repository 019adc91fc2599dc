package provider

import (
	"context"
	"encoding/json"
	"strings"
)

// Roles of a [Message].
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation, in the shape every chat provider
// shares. A tool result is a RoleTool message whose ToolCallID names the
// call it answers.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall // RoleAssistant: the calls the model asked for
	ToolCallID string     // RoleTool: the call this message answers
	Name       string     // RoleTool: the tool's name (the Responses API and Ollama want it)
}

// ToolCall is one function call a model asked for. Arguments is the JSON
// text exactly as the model wrote it: untrusted, possibly invalid.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Tool is a function offered to the model: its name, description and the
// JSON Schema of its arguments. Each provider derives its wire shape from
// it (Chat Completions nests it under "function"; the Responses API is
// flat), so callers never know which one was used.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// ChatRequest is one model call.
type ChatRequest struct {
	Messages []Message
	Tools    []Tool
	// Temperature is the sampling temperature; nil leaves the server's
	// default.
	Temperature *float64
	// MaxTokens bounds the output; 0 leaves the server's default.
	MaxTokens int
}

// Usage counts the tokens of one call, as the server reported them.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ChatResponse is the outcome of one model call: text, tool calls or both.
type ChatResponse struct {
	Content   string
	ToolCalls []ToolCall
	Usage     Usage
	// StopReason says why the model stopped, the same on every wire:
	// [StopDone], [StopToolCalls], [StopLength], [StopContentFilter] or
	// [StopOther]. Only StopDone and StopToolCalls mean the answer is
	// whole.
	StopReason string
}

// Stop reasons of a [ChatResponse]. Chat Completions' finish_reason and the
// Responses API's status and incomplete_details.reason map to them.
const (
	// StopDone: the model ended its answer ("stop"; also a stream that
	// ends with [DONE] and gives no reason).
	StopDone = "stop"
	// StopToolCalls: the model stopped to call tools ("tool_calls", or
	// "stop" with tool calls, as some servers say it).
	StopToolCalls = "tool_calls"
	// StopLength: the answer was cut by the output-token limit ("length";
	// Responses "incomplete" for max_output_tokens). Its tool calls may
	// be cut too.
	StopLength = "length"
	// StopContentFilter: the server's filter cut or withheld the answer
	// ("content_filter"; Responses "incomplete" for content_filter).
	StopContentFilter = "content_filter"
	// StopOther: any other reason the server gave; the answer may not be
	// whole.
	StopOther = "other"
)

// stopReason maps a server's finish reason to a [ChatResponse.StopReason].
// An empty one comes from a reply that ended without a reason but
// otherwise whole.
func stopReason(finish string, toolCalls bool) string {
	switch strings.ToLower(finish) {
	case "", "stop", "eos", "eos_token", "stop_sequence", "end_turn":
		if toolCalls {
			return StopToolCalls
		}
		return StopDone
	case "tool_calls", "function_call", "tool_use":
		return StopToolCalls
	case "length", "max_tokens", "max_output_tokens", "model_length":
		return StopLength
	case "content_filter":
		return StopContentFilter
	}
	return StopOther
}

// ChatModel is a chat model behind some provider.
type ChatModel interface {
	// Chat sends req. When onDelta is not nil the call streams, and onDelta
	// receives each piece of the answer's text as it arrives; an error from
	// onDelta stops the call and is returned. The response holds the whole
	// text and the tool calls either way. Cancelling ctx stops the call.
	Chat(ctx context.Context, req ChatRequest, onDelta func(text string) error) (ChatResponse, error)
	// Name is the model's spec, such as "openai:gpt-4o-mini".
	Name() string
	// Local reports whether the model's endpoint is on this machine
	// (loopback or a Unix socket), so passages of local-only data sources
	// may be sent to it.
	Local() bool
}
