package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// langchainModel is a Chat Completions model reached through langchaingo's
// OpenAI client: an OpenAI-compatible server, or Ollama's /v1.
type langchainModel struct {
	spec     string
	provider string // ProviderOpenAI or ProviderOllama
	llm      *openai.LLM
	key      redactor
	local    bool
	ids      callIDs
}

var _ ChatModel = (*langchainModel)(nil)

func newLangchainModel(spec, provider, model, base, key string, client *http.Client) (*langchainModel, error) {
	token := key
	if token == "" {
		token = "unused" // langchaingo insists on a key; chatDoer drops the header
	}
	d := &chatDoer{client: client, provider: provider, key: redactor(key), noAuth: key == ""}
	llm, err := openai.New(
		openai.WithToken(token),
		openai.WithModel(model),
		openai.WithBaseURL(base),
		openai.WithOrganization(""), // not from OPENAI_ORGANIZATION
		openai.WithHTTPClient(d),
	)
	if err != nil {
		return nil, fmt.Errorf("model spec %q: %w", spec, err)
	}
	return &langchainModel{spec: spec, provider: provider, llm: llm, key: redactor(key), local: isLocal(base)}, nil
}

func (m *langchainModel) Name() string { return m.spec }
func (m *langchainModel) Local() bool  { return m.local }

// generate calls langchaingo. A reply it cannot decode can make it panic
// (a finish_reason of "function_call" without the call, not streamed):
// that is the server's malformed reply, an error, not a crash of cite.
func (m *langchainModel) generate(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (resp *llms.ContentResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, errors.New("the reply could not be read: it is malformed")
		}
	}()
	return m.llm.GenerateContent(ctx, msgs, opts...)
}

func (m *langchainModel) Chat(ctx context.Context, req ChatRequest, onDelta func(string) error) (ChatResponse, error) {
	msgs, err := lcMessages(req.Messages)
	if err != nil {
		return ChatResponse{}, fmt.Errorf("%s chat: %w", m.provider, err)
	}
	var opts []llms.CallOption
	if len(req.Tools) > 0 {
		tools, err := lcTools(req.Tools)
		if err != nil {
			return ChatResponse{}, fmt.Errorf("%s chat: %w", m.provider, err)
		}
		opts = append(opts, llms.WithTools(tools))
	}
	if req.Temperature != nil {
		opts = append(opts, llms.WithTemperature(*req.Temperature))
	}
	if req.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxTokens))
	}
	if m.provider == ProviderOllama {
		// Ollama's /v1 reads max_tokens, not max_completion_tokens.
		opts = append(opts, llms.WithMetadata(map[string]any{"openai:use_legacy_max_tokens": true}))
	}
	st := &callState{stream: onDelta != nil, omitTemperature: req.Temperature == nil, key: m.key, byIndex: map[int]int{}}
	if onDelta != nil {
		// langchaingo calls this once per chunk, in this goroutine; the
		// text itself comes from the tap on the response body.
		opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return st.flush(onDelta) }))
	}
	ctx = context.WithValue(ctx, callKey{}, st)

	resp, err := m.generate(ctx, msgs, opts)
	if err == nil && ctx.Err() != nil {
		// langchaingo ends a cancelled stream as if it had finished.
		err = ctx.Err()
	}
	if err == nil && onDelta != nil {
		err = st.flush(onDelta)
	}
	if st.deltaErr != nil {
		return ChatResponse{}, st.deltaErr
	}
	if err != nil && st.sendErr != nil && ctx.Err() == nil {
		err = st.sendErr
	}
	if err != nil && onDelta == nil && ctx.Err() == nil {
		err = notJSON(m.provider, st.contentType, err)
	}
	if err != nil {
		return ChatResponse{}, callError(ctx, m.provider, m.key, err)
	}
	var out ChatResponse
	if onDelta != nil {
		var bad string
		if out, bad = st.response(); bad != "" {
			return ChatResponse{}, &Error{Provider: m.provider, Op: "chat", StatusCode: http.StatusOK, Message: bad}
		}
	} else {
		c := resp.Choices[0]
		out.Content = c.Content
		for _, tc := range c.ToolCalls {
			call := ToolCall{ID: tc.ID}
			if tc.FunctionCall != nil {
				call.Name, call.Arguments = tc.FunctionCall.Name, tc.FunctionCall.Arguments
			}
			out.ToolCalls = append(out.ToolCalls, call)
		}
		finish := c.StopReason
		if finish == "<nil>" || finish == "null" {
			finish = ""
		}
		if finish == "" && out.Content == "" && len(out.ToolCalls) == 0 {
			return ChatResponse{}, &Error{Provider: m.provider, Op: "chat", StatusCode: http.StatusOK,
				Message: "the reply holds no answer: no text, no tool call, no finish_reason"}
		}
		out.StopReason = stopReason(finish, len(out.ToolCalls) > 0)
		out.Usage.InputTokens, _ = c.GenerationInfo["PromptTokens"].(int)
		out.Usage.OutputTokens, _ = c.GenerationInfo["CompletionTokens"].(int)
	}
	m.ids.fill(out.ToolCalls)
	return out, nil
}

// notJSON explains langchaingo's failure to read a reply that is not a
// Chat Completions object. (One without choices it reports as "empty
// response".)
func notJSON(provider, contentType string, err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.Is(err, io.EOF) || errors.As(err, &syntax) || errors.As(err, &typeErr) {
		return &Error{Provider: provider, Op: "chat", StatusCode: http.StatusOK,
			Message: fmt.Sprintf("the reply is not a Chat Completions object (Content-Type %q)", contentType), Err: err}
	}
	return err
}

// lcMessages maps messages to langchaingo's.
func lcMessages(msgs []Message) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, m.Content))
		case RoleUser:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, m.Content))
		case RoleAssistant:
			mc := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				mc.Parts = append(mc.Parts, llms.TextContent{Text: m.Content})
			}
			for _, c := range m.ToolCalls {
				mc.Parts = append(mc.Parts, llms.ToolCall{ID: c.ID, Type: "function",
					FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
			}
			out = append(out, mc)
		case RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: a tool result needs the ToolCallID of the call it answers", i)
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.Name, Content: m.Content}}})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// emptySchema is the parameters of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func toolSchema(t Tool) (json.RawMessage, error) {
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		return emptySchema, nil
	}
	if !json.Valid(t.Parameters) {
		return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
	}
	return t.Parameters, nil
}

func lcTools(tools []Tool) ([]llms.Tool, error) {
	out := make([]llms.Tool, 0, len(tools))
	for _, t := range tools {
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		out = append(out, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	return out, nil
}

// callKey finds a call's [callState] in the request context.
type callKey struct{}

// callState is one Chat call as the HTTP layer sees it: what to change in
// the request, and what the tap read from a streamed reply.
type callState struct {
	stream          bool
	omitTemperature bool
	key             redactor // hidden from stream errors
	deltaErr        error    // onDelta's error; the calling goroutine only
	sendErr         error    // the request's transport error; the calling goroutine only
	contentType     string   // the reply's; the calling goroutine only

	mu        sync.Mutex // guards the fields below, written by the tap
	pending   []string   // text deltas not yet given to onDelta
	text      strings.Builder
	calls     []ToolCall
	byIndex   map[int]int // tool-call index on the wire -> position in calls
	streamErr string
	chunks    int    // JSON chunks read
	finish    string // the last finish_reason of choice 0
	done      bool   // "data: [DONE]" arrived
	usage     Usage
	other     []byte // lines that are not SSE data chunks, up to maxStreamLine
}

// maxStreamLine bounds a line of a streamed reply, and what is kept of the
// lines that are not chunks.
const maxStreamLine = 8 << 20

// flush gives the text read so far to onDelta.
func (st *callState) flush(onDelta func(string) error) error {
	st.mu.Lock()
	pending := st.pending
	st.pending = nil
	st.mu.Unlock()
	for _, d := range pending {
		if err := onDelta(d); err != nil {
			st.deltaErr = err
			return err
		}
	}
	return nil
}

// response returns what the stream said, or what is wrong with it: a
// stream counts as an answer when it says why it finished or ends with
// [DONE] after some text or tool call. An empty body, a page that is not a
// stream, or a stream cut before either is an error, never an empty or
// partial answer.
func (st *callState) response() (ChatResponse, string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.streamErr != "" {
		return ChatResponse{}, st.streamErr
	}
	out := ChatResponse{Content: st.text.String(), ToolCalls: append([]ToolCall(nil), st.calls...), Usage: st.usage}
	switch {
	case st.chunks == 0 && !st.done && len(st.other) == 0:
		return out, "the reply is empty"
	case st.chunks == 0 && !st.done:
		return out, fmt.Sprintf("the reply is not an event stream (Content-Type %q): %s",
			st.contentType, st.key.excerpt(strings.TrimSpace(string(st.other)), 200))
	case st.finish == "" && !st.done:
		return out, "the stream ended before the reply finished (no finish_reason, no [DONE])"
	case st.finish == "" && out.Content == "" && len(out.ToolCalls) == 0:
		return out, "the reply holds no answer: no text, no tool call, no finish_reason"
	}
	out.StopReason = stopReason(st.finish, len(out.ToolCalls) > 0)
	return out, ""
}

// sseChunk is the part of a Chat Completions chunk the tap reads.
type sseChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *ccUsage        `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type ccUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// ccCompletion is a whole Chat Completions reply, which some servers send
// to a streamed request.
type ccCompletion struct {
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *ccUsage `json:"usage"`
}

// line reads one line of the SSE stream. It reports whether the line
// brought text for onDelta, and whether it was the end, [DONE].
func (st *callState) line(line []byte) (text, done bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	trimmed := bytes.TrimSpace(line)
	data, ok := bytes.CutPrefix(trimmed, []byte("data:"))
	if !ok {
		if len(trimmed) > 0 && trimmed[0] != ':' && !bytes.HasPrefix(trimmed, []byte("event:")) &&
			!bytes.HasPrefix(trimmed, []byte("id:")) && !bytes.HasPrefix(trimmed, []byte("retry:")) {
			st.keep(line)
		}
		return false, false
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		st.done = true
		return false, true
	}
	var c sseChunk
	if len(data) == 0 || json.Unmarshal(data, &c) != nil {
		st.keep(line) // langchaingo skips what is not JSON too
		return false, false
	}
	st.chunks++
	if (len(c.Error) > 0 && string(c.Error) != "null" || c.Object == "error") && st.streamErr == "" {
		st.streamErr = serverMessage(data, st.key)
	}
	if c.Usage != nil {
		st.usage = Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if d := ch.Delta.Content; d != "" {
			st.pending = append(st.pending, d)
			st.text.WriteString(d)
			text = true
		}
		for _, tc := range ch.Delta.ToolCalls {
			st.toolDelta(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != "" {
			st.finish = ch.FinishReason
		}
	}
	return text, false
}

// keep keeps a line that is not a chunk, for the error that tells what the
// reply was instead, or for reading it as a whole reply.
func (st *callState) keep(line []byte) {
	if len(st.other)+len(line) < maxStreamLine {
		st.other = append(append(st.other, line...), '\n')
	}
}

// end is called at the end of the body: a reply that held no chunk may be
// a whole (non-streamed) completion, read as one.
func (st *callState) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.chunks > 0 || st.done || len(st.other) == 0 {
		return
	}
	var c ccCompletion
	if json.Unmarshal(st.other, &c) != nil || len(c.Choices) == 0 {
		return
	}
	st.chunks, st.done = 1, true
	if c.Usage != nil {
		st.usage = Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if d := ch.Message.Content; d != "" {
			st.pending = append(st.pending, d)
			st.text.WriteString(d)
		}
		for _, tc := range ch.Message.ToolCalls {
			st.calls = append(st.calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		st.finish = ch.FinishReason
	}
}

// toolDelta merges one streamed tool-call fragment: by its index when the
// server sends one (a new id under a known index starts a new call, for
// servers that reuse index 0), else a new id starts a call and a fragment
// without id continues the last one.
func (st *callState) toolDelta(index *int, id, name, args string) {
	pos := -1
	switch {
	case index != nil:
		if p, ok := st.byIndex[*index]; ok && (id == "" || st.calls[p].ID == "" || st.calls[p].ID == id) {
			pos = p
		}
	case id != "":
		if n := len(st.calls); n > 0 && st.calls[n-1].ID == id {
			pos = n - 1
		}
	default:
		pos = len(st.calls) - 1
	}
	if pos < 0 {
		st.calls = append(st.calls, ToolCall{})
		pos = len(st.calls) - 1
		if index != nil {
			st.byIndex[*index] = pos
		}
	}
	c := &st.calls[pos]
	if c.ID == "" {
		c.ID = id
	}
	if c.Name == "" {
		c.Name = name // some servers repeat the name in every fragment
	}
	c.Arguments += args
}

// Lines the tap gives langchaingo in place of the stream it read: one chunk
// without content for each chunk that brought text, so that its streaming
// callback runs (and flushes the text) as the text arrives, and the end.
// langchaingo adds each chunk's content to one string, which costs time
// quadratic in the chunks (a second for 40,000 chunks); it gets none.
var (
	pulseLine = []byte(`data: {"choices":[{"index":0,"delta":{}}]}` + "\n\n")
	doneLine  = []byte("data: [DONE]\n\n")
)

// sseTap reads a streamed body into the call's state, and passes
// langchaingo an event stream that only paces its callback.
type sseTap struct {
	rc       io.ReadCloser
	st       *callState
	provider string
	buf      []byte // read from rc
	line     []byte // the line being read
	out      []byte // for langchaingo; out[off:] is not yet read
	off      int
	err      error // rc's error, returned once out is read
}

func (t *sseTap) Read(p []byte) (int, error) {
	for t.off == len(t.out) && t.err == nil {
		if t.buf == nil {
			t.buf = make([]byte, 32<<10)
		}
		n, err := t.rc.Read(t.buf)
		b := t.buf[:n]
		for len(b) > 0 && t.err == nil {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				t.line = append(t.line, b...)
				break
			}
			t.line = append(t.line, b[:i]...)
			t.endLine()
			b = b[i+1:]
		}
		if t.err == nil && len(t.line) > maxStreamLine {
			t.err = &Error{Provider: t.provider, Op: "chat", StatusCode: http.StatusOK,
				Message: fmt.Sprintf("a line of the stream is longer than %d MB", maxStreamLine>>20)}
		}
		if err != nil && t.err == nil {
			if len(t.line) > 0 {
				t.endLine()
			}
			if err == io.EOF {
				t.st.end()
			}
			if t.err == nil {
				t.err = err
			}
		}
	}
	n := copy(p, t.out[t.off:])
	t.off += n
	if t.off == len(t.out) {
		t.out, t.off = t.out[:0], 0
		if t.err != nil {
			return n, t.err
		}
	}
	return n, nil
}

// endLine reads the line just completed.
func (t *sseTap) endLine() {
	text, done := t.st.line(t.line)
	t.line = t.line[:0]
	switch {
	case done:
		t.out = append(t.out, doneLine...)
		t.err = io.EOF // langchaingo stops at [DONE] too
	case text:
		t.out = append(t.out, pulseLine...)
	}
}

func (t *sseTap) Close() error { return t.rc.Close() }

// chatDoer is the HTTP client langchaingo uses: it adjusts the request as
// the call asks, turns failed replies into [*Error] before langchaingo
// flattens them to text, and taps streamed replies.
type chatDoer struct {
	client   *http.Client
	provider string
	key      redactor
	noAuth   bool
}

func (d *chatDoer) Do(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(callKey{}).(*callState)
	if d.noAuth {
		req.Header.Del("Authorization")
	}
	if st != nil && st.omitTemperature && req.Body != nil {
		if err := dropField(req, "temperature"); err != nil {
			return nil, err
		}
	}
	resp, err := d.client.Do(req)
	if err != nil {
		e := &Error{Provider: d.provider, Op: "chat", Err: d.key.error(err)}
		if st != nil {
			st.sendErr = e // langchaingo replaces a timeout with a text of its own
		}
		return nil, e
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, httpError(d.provider, resp, d.key)
	}
	if st != nil {
		st.contentType = resp.Header.Get("Content-Type")
		if st.stream {
			resp.Body = &sseTap{rc: resp.Body, st: st, provider: d.provider}
		}
	}
	return resp, nil
}

// dropField removes a top-level field from a JSON request body.
func dropField(req *http.Request, field string) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		if _, ok := m[field]; ok {
			delete(m, field)
			if b, err := json.Marshal(m); err == nil {
				body = b
			}
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}
