package answer

import (
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/provider"
)

// EventKind says what an [Event] carries.
type EventKind string

// The kinds of events, in the order a request typically yields them.
const (
	// EventToolStarted: a tool call begins (Tool is set).
	EventToolStarted EventKind = "tool_started"
	// EventToolCompleted, EventToolFailed, EventToolBlocked and
	// EventToolCancelled: a tool call ended so (Tool is set).
	EventToolCompleted EventKind = "tool_completed"
	EventToolFailed    EventKind = "tool_failed"
	EventToolBlocked   EventKind = "tool_blocked"
	EventToolCancelled EventKind = "tool_cancelled"
	// EventText: a piece of the answer, already rendered: the model's
	// [doc:N] markers are display numbers, invented ones are gone.
	EventText EventKind = "text"
	// EventReferences: references cited for the first time by the text
	// yielded so far, numbered as in the text.
	EventReferences EventKind = "references"
	// EventReferenceList: the rendered reference list that ends the
	// answer ("\n\n---\nSources cited in this answer:\n\n1. ..."), when anything was cited.
	EventReferenceList EventKind = "reference_list"
	// EventAnswer: the last event: the whole answer (Answer is set).
	EventAnswer EventKind = "answer"
)

// Event is one step of an answer. Exactly the fields of its Kind are set.
type Event struct {
	Kind       EventKind         `json:"kind"`
	Text       string            `json:"text,omitempty"`
	References []citations.Cited `json:"references,omitempty"`
	Tool       *ToolTrace        `json:"tool,omitempty"`
	Answer     *Result           `json:"answer,omitempty"`
}

// Tool call statuses, as traces show them.
const (
	StatusOK        = "OK"
	StatusError     = "ERROR"
	StatusBlocked   = "BLOCKED"
	StatusCancelled = "CANCELLED"
	StatusRunning   = "RUNNING"
)

// ToolTrace is one tool call as clients see it: never its sensitive
// arguments, never the result text (only its size).
type ToolTrace struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Status      string         `json:"status"`
	Arguments   map[string]any `json:"arguments"`
	DurationMS  int64          `json:"duration_ms"`
	ResultBytes int            `json:"result_bytes"`
	// Message is why the call failed or was blocked.
	Message string `json:"message,omitempty"`
	// Index and Count place the call in its model response's batch;
	// Cycle is the model call (0-based) that asked for it.
	Index int `json:"index"`
	Count int `json:"count"`
	Cycle int `json:"cycle"`
}

// Result is a whole answer: the rendered text and its citations (the
// citations JSON), the tool calls, the model, usage and timings. Its JSON
// form is `cite ask --json`'s, a stable interface.
type Result struct {
	Text       string            `json:"text"`
	References []citations.Cited `json:"references"`
	Dropped    []citations.Drop  `json:"dropped"`
	ToolCalls  []ToolTrace       `json:"tool_calls"`
	Model      string            `json:"model"`
	Usage      provider.Usage    `json:"usage"`
	Timings    Timings           `json:"timings"`
	// StopReason is why the last model call stopped, as the provider
	// reports it: "stop"; "length" or "content_filter" when the answer was
	// cut short.
	StopReason string `json:"stop_reason"`
	// Markdown is Text followed by the reference list.
	Markdown string `json:"-"`
}

// Timings of one request, in milliseconds.
type Timings struct {
	RetrievalMS float64 `json:"retrieval_ms"` // preemptive retrieval
	FirstTextMS float64 `json:"first_text_ms"`
	ModelMS     float64 `json:"model_ms"` // in model calls, all cycles
	ToolsMS     float64 `json:"tools_ms"` // in tool batches
	TotalMS     float64 `json:"total_ms"`
	ModelCalls  int     `json:"model_calls"`
}
