// Package modeltest runs scripted model servers for tests, the way
// net/http/httptest runs handlers: a test starts a [Server] with a
// [Script], points a real client at its URL, and later asserts what the
// model was given with [Server.Requests].
//
// The server speaks the real wire formats, byte for byte where it matters to
// a client:
//
//   - [NewServer] is an OpenAI-compatible server: Chat Completions at
//     /v1/chat/completions (JSON, or Server-Sent Events with tool-call
//     arguments fragmented across deltas as OpenAI sends them, and usage in
//     a last chunk when stream_options.include_usage is set) and the
//     Responses API at /v1/responses (JSON, or the typed SSE events
//     response.created … response.completed).
//   - [NewOllamaServer] is Ollama: its native /api/chat (NDJSON streaming,
//     tool calls with object arguments) and its OpenAI-compatible
//     /v1/chat/completions as Ollama shapes it (each tool call whole in one
//     chunk, no usage unless asked).
//
// A script is plain data, so a failing case reads like a transcript: each
// [Turn] answers one request with text deltas, tool calls and usage, or with
// an HTTP error, optionally after a delay or hanging until the client gives
// up. Several scripts on one server are told apart by [Script.Match], so
// concurrent requests each get their own conversation.
//
// The package imports only the standard library.
package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Script is one scripted conversation: the turns the model plays, in order,
// one per request routed to it.
type Script struct {
	// Match reports whether a request belongs to this script. Nil matches
	// every request. A request goes to the first script, in the order given
	// to [NewServer], that matches it and has turns left. It runs under
	// the server's lock: it must not call the [Server]'s methods.
	Match func(Request) bool
	// Turns answer the script's requests in order.
	Turns []Turn
}

// Turn is the model's answer to one request.
type Turn struct {
	// Text is the answer's text as the deltas a stream sends; a
	// non-streaming reply joins them.
	Text []string
	// ToolCalls are the calls the model asks for, in order.
	ToolCalls []ToolCall
	// Usage is reported as the call's token counts; when zero, a rough
	// count (bytes / 4) of the request and the answer is reported.
	Usage Usage
	// Finish is the finish reason; empty means "tool_calls" when the turn
	// has tool calls and "stop" otherwise.
	Finish string
	// Error, when set, answers the request with an HTTP error instead.
	Error *HTTPError
	// Delay waits before the first byte of the reply.
	Delay time.Duration
	// Pace waits between streamed chunks.
	Pace time.Duration
	// Hang sends the turn's text deltas (streaming) or nothing
	// (non-streaming) and then holds the request open until the client
	// goes away or the server closes: the way to test cancellation.
	Hang bool
}

// ToolCall is one function call the model asks for.
type ToolCall struct {
	// ID is the call's id (Chat Completions tool_call.id, Responses
	// call_id); empty gives "call_<request>_<index>".
	ID        string
	Name      string
	Arguments string // JSON text, sent as is: it may be invalid on purpose
	// Fragments, when set, is how a stream splits Arguments across deltas;
	// they must join to Arguments. Empty splits it into pieces of at most
	// four bytes, as OpenAI does token by token.
	Fragments []string
}

// Usage is a call's token counts.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// HTTPError is a scripted failure.
type HTTPError struct {
	Status int // such as 401, 429, 500
	// Message goes into the error body in the wire's own shape
	// ({"error":{"message":…}} for OpenAI, {"error":…} for Ollama).
	Message string
	// Header is added to the reply, for example Retry-After.
	Header http.Header
	// Body, when set, is sent verbatim instead of the shaped message.
	Body string
}

// Request is what the server received, normalised across the wire formats.
type Request struct {
	// API is "chat.completions", "responses" or "ollama.chat".
	API    string
	Path   string
	Header http.Header
	Model  string
	Stream bool
	// IncludeUsage is stream_options.include_usage (Chat Completions).
	IncludeUsage bool
	// Messages are the conversation in Chat Completions terms: Responses
	// API instructions become a leading system message, function_call items
	// become assistant tool calls and function_call_output items become
	// tool messages.
	Messages []Message
	// Tools are the functions offered.
	Tools []Tool
	// Temperature is nil when the request left it out.
	Temperature *float64
	// MaxTokens is max_completion_tokens, max_tokens, max_output_tokens or
	// options.num_predict, whichever the request set.
	MaxTokens int
	// Body is the request body as received.
	Body []byte
}

// Message is one message of a request.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall // Arguments only; Fragments is empty
	ToolCallID string
	Name       string
}

// Tool is one function offered to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// LastUserMessage returns the content of the request's last user message.
func (r Request) LastUserMessage() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// LastUserContains returns a [Script.Match] that picks requests whose last
// user message contains marker.
func LastUserContains(marker string) func(Request) bool {
	return func(r Request) bool { return strings.Contains(r.LastUserMessage(), marker) }
}

type flavor int

const (
	flavorOpenAI flavor = iota
	flavorOllama
)

// Server is a scripted model server listening on loopback.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT, with no
	// trailing slash. OpenAI-compatible clients want [Server.OpenAIBaseURL].
	URL string

	t      testing.TB
	flavor flavor
	hs     *httptest.Server
	done   chan struct{}
	once   sync.Once

	mu       sync.Mutex // guards the fields below
	scripts  []*scriptState
	requests []Request
	seq      int
}

type scriptState struct {
	Script
	next int
}

// NewServer starts an OpenAI-compatible scripted server (Chat Completions
// and the Responses API). When t is not nil the server closes itself in
// t.Cleanup and reports requests that no script turn was left for with
// t.Errorf; with a nil t the caller must call [Server.Close].
func NewServer(t testing.TB, scripts ...Script) *Server {
	return newServer(t, flavorOpenAI, scripts)
}

// NewOllamaServer starts a scripted server shaped like Ollama: /api/chat
// and its OpenAI-compatible /v1/chat/completions. t is as for [NewServer].
func NewOllamaServer(t testing.TB, scripts ...Script) *Server {
	return newServer(t, flavorOllama, scripts)
}

func newServer(t testing.TB, f flavor, scripts []Script) *Server {
	s := &Server{t: t, flavor: f, done: make(chan struct{})}
	for _, sc := range scripts {
		s.scripts = append(s.scripts, &scriptState{Script: sc})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChatCompletions)
	if f == flavorOpenAI {
		mux.HandleFunc("POST /v1/responses", s.serveResponses)
	} else {
		mux.HandleFunc("POST /api/chat", s.serveOllamaChat)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, "chat.completions", &HTTPError{Status: http.StatusNotFound,
			Message: fmt.Sprintf("modeltest: no route for %s %s", r.Method, r.URL.Path)})
	})
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// OpenAIBaseURL is the base URL an OpenAI-compatible client wants:
// URL + "/v1".
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// Close releases requests still hanging and shuts the server down, waiting
// for running handlers. It may be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.hs.Close()
	})
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// take records req and picks the turn that answers it. It returns the
// request's sequence number (from 1) and ok false when no script turn is
// left.
func (s *Server) take(req Request) (Turn, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.seq++
	for _, sc := range s.scripts {
		if sc.next >= len(sc.Turns) || (sc.Match != nil && !sc.Match(req)) {
			continue
		}
		sc.next++
		return sc.Turns[sc.next-1], s.seq, true
	}
	return Turn{}, s.seq, false
}

// begin records a parsed request and returns its turn; on failure it has
// already answered.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, req Request) (Turn, int, bool) {
	turn, seq, ok := s.take(req)
	if !ok {
		msg := fmt.Sprintf("modeltest: no script turn left for %s request %d (last user message %q)", req.API, seq, req.LastUserMessage())
		if s.t != nil {
			s.t.Errorf("%s", msg)
		}
		s.writeError(w, req.API, &HTTPError{Status: http.StatusInternalServerError, Message: msg})
		return Turn{}, 0, false
	}
	if !s.wait(r, turn.Delay) {
		return Turn{}, 0, false
	}
	if turn.Error != nil {
		s.writeError(w, req.API, turn.Error)
		return Turn{}, 0, false
	}
	return turn, seq, true
}

// wait sleeps d; false means the client went away or the server closed.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// hang holds the request until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

func (s *Server) writeError(w http.ResponseWriter, api string, e *HTTPError) {
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body := e.Body
	if body == "" {
		var v any
		switch {
		case api == "ollama.chat":
			v = map[string]any{"error": e.Message}
		default:
			v = map[string]any{"error": map[string]any{
				"message": e.Message, "type": errorType(e.Status), "param": nil, "code": errorCode(e.Status),
			}}
		}
		b, _ := json.Marshal(v)
		body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	status := e.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	fmt.Fprintln(w, body)
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status == http.StatusTooManyRequests:
		return "requests"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func errorCode(status int) any {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_api_key"
	case http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	}
	return nil
}

// fragments splits a tool call's arguments the way a stream sends them.
func (c ToolCall) fragments() []string {
	if len(c.Fragments) > 0 {
		return c.Fragments
	}
	return splitPieces(c.Arguments, 4)
}

// splitPieces cuts s into pieces of at most n bytes, never inside a UTF-8
// sequence.
func splitPieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if i == 0 {
			i = min(n, len(s))
			for i < len(s) && s[i]&0xC0 == 0x80 {
				i++
			}
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func (t Turn) text() string { return strings.Join(t.Text, "") }

func (t Turn) finish() string {
	if t.Finish != "" {
		return t.Finish
	}
	if len(t.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (t Turn) callID(seq, i int) string {
	if id := t.ToolCalls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("call_%d_%d", seq, i)
}

// usage returns the scripted usage or a rough count.
func (t Turn) usage(req Request) Usage {
	if t.Usage != (Usage{}) {
		return t.Usage
	}
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)
		for _, c := range m.ToolCalls {
			in += len(c.Arguments)
		}
	}
	out := len(t.text())
	for _, c := range t.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	return Usage{InputTokens: in/4 + 1, OutputTokens: out/4 + 1}
}

// streamWriter writes flushed chunks at the turn's pace.
type streamWriter struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	rc    *http.ResponseController
	pace  time.Duration
	wrote bool
}

func (s *Server) newStream(w http.ResponseWriter, r *http.Request, contentType string, pace time.Duration) *streamWriter {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sw := &streamWriter{s: s, w: w, r: r, rc: http.NewResponseController(w), pace: pace}
	_ = sw.rc.Flush()
	return sw
}

// write sends one chunk; false means the client is gone.
func (sw *streamWriter) write(chunk string) bool {
	if sw.wrote && !sw.s.wait(sw.r, sw.pace) {
		return false
	}
	sw.wrote = true
	if _, err := fmt.Fprint(sw.w, chunk); err != nil {
		return false
	}
	return sw.rc.Flush() == nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("modeltest: " + err.Error())
	}
	return string(b)
}

// contentText reads a message content that is a string, an array of parts
// with "text", or null.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}
