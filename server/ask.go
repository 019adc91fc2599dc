package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// askRequest is POST /v1/ask's body.
type askRequest struct {
	Question string   `json:"question"`
	Sources  []string `json:"sources"`
	Model    string   `json:"model"`
	K        int      `json:"k"`
	// SessionID, when set, names the session the question belongs to: its
	// documents are searched, and the answer joins its history.
	SessionID string `json:"session_id"`
}

// request checks an answer request and fills in the sources.
func (s *Server) request(w http.ResponseWriter, r *http.Request, q string, sources []string, k int) (answer.Request, bool) {
	if strings.TrimSpace(q) == "" {
		writeError(w, http.StatusBadRequest, "bad_question", "question is required")
		return answer.Request{}, false
	}
	if len(q) > s.cfg.MaxQuestionBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "question_too_long", fmt.Sprintf("the question is %d bytes, %s", len(q), overLimit(int64(s.cfg.MaxQuestionBytes), "--max-question")))
		return answer.Request{}, false
	}
	if k < 0 || k > 50 {
		writeError(w, http.StatusBadRequest, "bad_k", "k is 0 (the default) to 50")
		return answer.Request{}, false
	}
	names, err := s.publicSources(r)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return answer.Request{}, false
	}
	if msg, unknown := unknownSource(sources, names); unknown {
		writeError(w, http.StatusBadRequest, "unknown_source", msg)
		return answer.Request{}, false
	}
	if len(sources) == 0 {
		sources = names
	}
	return answer.Request{Question: q, Sources: sources, K: k}, true
}

// unknownSource returns the message of the first of sources not in names.
func unknownSource(sources, names []string) (string, bool) {
	for _, src := range sources {
		if !slices.Contains(names, src) {
			return fmt.Sprintf("no data source %q; the sources are %s", src, strings.Join(names, ", ")), true
		}
	}
	return "", false
}

func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	var body askRequest
	if !s.decode(w, r, &body) {
		return
	}
	if body.Model != "" && body.Model != s.deps.ModelName {
		writeError(w, http.StatusBadRequest, "unknown_model", fmt.Sprintf("model %q: this server answers with %q", body.Model, s.deps.ModelName))
		return
	}
	req, ok := s.request(w, r, body.Question, body.Sources, body.K)
	if !ok || body.SessionID != "" && !s.withSession(w, r, body.SessionID, &req) || !s.acquire(w) {
		return
	}
	defer s.release()
	record := func(res *answer.Result) {
		if body.SessionID != "" && res != nil {
			s.record(r, body.SessionID, body.Question, res)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		res, err := answer.Collect(s.deps.Engine.Run(ctx, req))
		if err != nil {
			s.answerError(w, r, ctx, err, body.Sources)
			return
		}
		record(res)
		writeJSON(w, 200, res)
		return
	}
	sse := newSSE(w)
	for ev, err := range s.deps.Engine.Run(ctx, req) {
		if err != nil {
			status, e := s.failure(ctx, r, err, body.Sources)
			if status == StatusClientClosedRequest {
				clientGone(w)
			}
			sse.send("error", e)
			return
		}
		if ev.Kind == answer.EventAnswer {
			record(ev.Answer)
		}
		if !sse.send(string(ev.Kind), ev) {
			return // the client went away: returning cancels the answer
		}
	}
}

// errorCode is the stable code and message of an answer's error, chosen
// with errors.Is and errors.As: a client never reads the error's own text,
// which may name files, hosts or a model server's internals.
func errorCode(err error) (code, msg string) {
	var pe *provider.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", "the answer took too long"
	case errors.Is(err, context.Canceled):
		return "cancelled", "the request was cancelled before the answer was done"
	case errors.As(err, &pe) && pe.StatusCode != 0:
		msg := fmt.Sprintf("the model server answered HTTP %d %s", pe.StatusCode, http.StatusText(pe.StatusCode))
		if pe.RetryAfter > 0 {
			msg += fmt.Sprintf("; retry after %v", (pe.RetryAfter + time.Second - 1).Truncate(time.Second))
		}
		return fmt.Sprintf("model_%d", pe.StatusCode), msg
	case errors.As(err, &pe):
		return "model_unreachable", "the model server could not be reached or gave an invalid answer"
	}
	return "answer_failed", internalMessage
}

// StatusClientClosedRequest is the status logged for an answer whose
// client went away before it was done (nginx's 499).
const StatusClientClosedRequest = 499

// failure is the status, code and message of an answer's error; ctx is the
// answer's context, under the server's time limit, and sources the data
// sources the question named.
func (s *Server) failure(ctx context.Context, r *http.Request, err error, sources []string) (int, apiError) {
	var e apiError
	e.Error.Code, e.Error.Message = errorCode(err)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.Error.Code = "timeout"
		e.Error.Message = fmt.Sprintf("the answer took longer than the server's limit of %s (cite serve --timeout)", s.cfg.RequestTimeout)
	case errors.Is(ctx.Err(), context.Canceled):
		// Not the model's failure: the client went away (or the server is
		// shutting down). Nobody reads this; the log shows 499.
		e.Error.Code, e.Error.Message = "cancelled", "the request was cancelled before the answer was done"
		return StatusClientClosedRequest, e
	}
	if e.Error.Code != "timeout" && errors.Is(err, search.ErrUnknownSource) {
		// A data source was removed (DELETE /v1/sources/NAME) after the
		// question was checked: answered as a question naming an unknown
		// source is, not as the model's failure.
		e.Error.Code, e.Error.Message = "unknown_source", "a data source of the question was removed while it was answered"
		if names, err := s.publicSources(r); err == nil {
			if msg, unknown := unknownSource(sources, names); unknown {
				e.Error.Message = msg
			}
		}
		return http.StatusBadRequest, e
	}
	s.log.Error("answer failed", "code", e.Error.Code, "err", err)
	var pe *provider.Error
	switch {
	case e.Error.Code == "timeout":
		return http.StatusGatewayTimeout, e
	case errors.As(err, &pe) && pe.StatusCode == http.StatusTooManyRequests:
		return http.StatusTooManyRequests, e
	}
	return http.StatusBadGateway, e
}

// answerError answers an answer's error. OpenAI's clients retry 429 and
// 5xx statuses unless x-should-retry says not to: the model's 429 is
// passed on with its Retry-After, and every other failure, which a retry
// would only repeat (the model's errors, the time limit), says
// x-should-retry: false.
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, ctx context.Context, err error, sources []string) {
	status, e := s.failure(ctx, r, err, sources)
	var pe *provider.Error
	switch {
	case status == http.StatusTooManyRequests:
		if errors.As(err, &pe) && pe.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((pe.RetryAfter+time.Second-1)/time.Second)))
		}
	case status >= 500:
		w.Header().Set("X-Should-Retry", "false")
	}
	writeJSON(w, status, e)
}

// sse writes server-sent events, one "event:" and "data:" block each,
// flushed at once.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(200)
	s := &sse{w: w, rc: http.NewResponseController(w)}
	// The headers go out now: a slow model's client sees the stream begin,
	// and one cut off before the first event still gets a response.
	s.rc.Flush()
	return s
}

// send writes one event; false means the client went away (or stopped
// reading), which the request's log line shows as 499.
func (s *sse) send(event string, v any) bool {
	if !s.write(event, v) {
		clientGone(s.w)
		return false
	}
	return true
}

func (s *sse) write(event string, v any) bool {
	b, _ := json.Marshal(v)
	s.rc.SetWriteDeadline(time.Now().Add(30 * time.Second)) // a client that never reads
	if event != "" {
		if _, err := fmt.Fprintf(s.w, "event: %s\n", event); err != nil {
			return false
		}
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// chatRequest is the part of an OpenAI chat completion request cite reads.
// Other fields (temperature, tools, response_format, seed, user, ...) are
// accepted and ignored, as by other OpenAI-compatible servers: cite
// answers with its own settings.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
}

// chatMessage is the part of a message cite reads: a message's tool calls,
// tool_call_id, name and refusal are ignored.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns a message's content as text: a string, or the text parts
// of an array of parts, a line each.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// chat is POST /v1/chat/completions: the last user message is the
// question, the messages before it the history. The answer's text carries
// the rendered citations and the reference list; the structured
// references travel in the extra field "references" (of the response, or
// of the final stream chunk).
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var body chatRequest
	if !s.decodeJSON(w, r, &body, false) {
		return
	}
	if body.Model != "" && body.Model != s.deps.ModelName {
		s.modelNotFound(w, body.Model)
		return
	}
	last := -1
	for i, m := range body.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		writeError(w, http.StatusBadRequest, "bad_messages", "messages need a user message: the question")
		return
	}
	q := body.Messages[last].text()
	if strings.TrimSpace(q) == "" {
		writeError(w, http.StatusBadRequest, "bad_messages", fmt.Sprintf("messages[%d].content: the last user message has no text: the question", last))
		return
	}
	req, ok := s.request(w, r, q, nil, 0)
	if !ok {
		return
	}
	// The history is what the user and the assistant said: system,
	// developer and tool messages, and an assistant's tool calls, are
	// not cite's (its own tools answer its own calls).
	for _, m := range body.Messages[:last] {
		if text := m.text(); text != "" && (m.Role == "user" || m.Role == "assistant") {
			req.History = append(req.History, provider.Message{Role: m.Role, Content: text})
		}
	}
	if !s.acquire(w) {
		return
	}
	defer s.release()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	id := fmt.Sprintf("chatcmpl-cite-%d", time.Now().UnixNano())
	created := time.Now().Unix()
	if !body.Stream {
		res, err := answer.Collect(s.deps.Engine.Run(ctx, req))
		if err != nil {
			s.answerError(w, r, ctx, err, nil)
			return
		}
		// The note goes between the answer and its reference list.
		content := res.Text + stopNote(res) + strings.TrimPrefix(res.Markdown, res.Text)
		writeJSON(w, 200, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": s.deps.ModelName,
			"choices": []map[string]any{{"index": 0, "finish_reason": finishReason(res.StopReason),
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage":       map[string]int{"prompt_tokens": res.Usage.InputTokens, "completion_tokens": res.Usage.OutputTokens, "total_tokens": res.Usage.InputTokens + res.Usage.OutputTokens},
			"references":  nonNil(res.References),
			"stop_reason": res.StopReason,
		})
		return
	}
	sse := newSSE(w)
	chunk := func(delta map[string]any, finish any, extra map[string]any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": s.deps.ModelName,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	if !sse.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)) {
		return
	}
	// The reference list waits for the answer's end: a note that the
	// answer is cut short or missing goes before it, as when not streamed.
	var list string
	for ev, err := range s.deps.Engine.Run(ctx, req) {
		if err != nil {
			status, e := s.failure(ctx, r, err, nil)
			if status == StatusClientClosedRequest {
				clientGone(w)
			}
			sse.send("", e)
			return
		}
		switch ev.Kind {
		case answer.EventText:
			if !sse.send("", chunk(map[string]any{"content": ev.Text}, nil, nil)) {
				return
			}
		case answer.EventReferenceList:
			list += ev.Text
		case answer.EventAnswer:
			if tail := stopNote(ev.Answer) + list; tail != "" {
				if !sse.send("", chunk(map[string]any{"content": tail}, nil, nil)) {
					return
				}
			}
			u := ev.Answer.Usage
			if !sse.send("", chunk(map[string]any{}, finishReason(ev.Answer.StopReason), map[string]any{
				"references":  nonNil(ev.Answer.References),
				"stop_reason": ev.Answer.StopReason,
				"usage":       map[string]int{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens},
			})) {
				return
			}
		}
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil || sse.rc.Flush() != nil {
		clientGone(w)
	}
}

// finishReason is an answer's stop reason as OpenAI's finish_reason:
// "length" and "content_filter" when the model's answer was cut short,
// "length" too when the model still asked for tool calls once it could
// make no more (a limit cut the answer short, or left none), "stop"
// otherwise. Never "tool_calls": the model's tool calls are cite's own,
// and a client told "tool_calls" would look for calls the response does
// not carry (and run them, or fail). OpenAI's clients read "length" as
// an answer cut short (openai-python's parse raises on it); the exact
// reason travels in the extra field "stop_reason", as /v1/ask gives it.
func finishReason(stop string) string {
	switch stop {
	case provider.StopLength, provider.StopContentFilter:
		return stop
	case provider.StopToolCalls:
		return provider.StopLength
	}
	return "stop"
}

// stopNote is the paragraph the answer's content carries when the answer
// is cut short, may be, or is missing, for the user who reads only the
// content (a chat window shows no finish_reason): as cite ask says it on
// stderr. "" when the model finished its answer.
func stopNote(res *answer.Result) string {
	var note string
	switch res.StopReason {
	case provider.StopLength:
		note = "the answer is cut short: the model reached its output limit"
	case provider.StopContentFilter:
		note = "the answer is cut short: the provider's content filter stopped it"
	case provider.StopOther:
		note = "the answer may be cut short: the model stopped for a reason it did not name"
	case provider.StopToolCalls:
		note = "the answer may be unfinished: the model asked for more tool calls when it could make no more"
		if strings.TrimSpace(res.Text) == "" {
			note = "the model gave no answer: it asked for more tool calls when it could make no more"
		}
	default:
		return ""
	}
	note = "*cite: " + note + ".*"
	if strings.TrimSpace(res.Text) != "" {
		note = "\n\n" + note
	}
	return note
}

func nonNil(refs []citations.Cited) []citations.Cited {
	if refs == nil {
		return []citations.Cited{}
	}
	return refs
}

// publicSources returns the names of the data sources outside sessions:
// what a question searches unless it names sources.
func (s *Server) publicSources(r *http.Request) ([]string, error) {
	return session.Public.SourceNames(r.Context(), s.deps.Store)
}
