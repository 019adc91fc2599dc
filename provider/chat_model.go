package provider

// Chat models: which client reaches which server, and why.
//
// A model is named by a spec, PROVIDER:NAME, and [NewChatModel] builds it:
//
//   - openai:NAME talks Chat Completions to any OpenAI-compatible server
//     (OpenAI, vLLM, llama.cpp, LM Studio, LiteLLM, ...) at
//     Config.OpenAIBaseURL (default https://api.openai.com/v1),
//     through langchaingo's OpenAI client.
//   - ollama:NAME talks to Ollama at Config.OllamaHost (default
//     http://127.0.0.1:11434) through Ollama's OpenAI-compatible /v1
//     endpoint, with the same langchaingo OpenAI client. langchaingo
//     v0.1.14's own Ollama client neither sends tool definitions nor reads
//     tool_calls, so it cannot run the tool-calling loop; Ollama's /v1
//     endpoint can (tools, tool_calls, streaming, usage), and going through
//     it leaves one code path to test for both providers. No API key is
//     sent to Ollama.
//   - openai-responses:NAME talks the OpenAI Responses API (/responses:
//     flat function tools, function_call and function_call_output items
//     correlated by call_id) at Config.OpenAIBaseURL, through the
//     official github.com/openai/openai-go client, for servers that offer
//     it. Responses are not stored on the server (store: false).
//
// All three return a [ChatModel] and map messages, tools, tool calls and
// results through the same provider types, so the caller never knows which
// wire was used.
//
// Streaming tool calls through langchaingo: v0.1.14 merges streamed
// tool-call deltas by position, not by their "index" (a delta without a
// "type" is glued to the last call, one with a "type" starts a new call),
// so servers that repeat "type" in every fragment get one call per
// fragment, interleaved parallel calls get their arguments mixed, and a
// first fragment without "type" is dropped (each checked against a fake
// server); OpenAI's own order happens to survive. Its streaming callback
// also receives the JSON of tool-call deltas in place of text, and it
// adds each chunk's text to one string, which takes time quadratic in the
// chunks. The provider therefore reads the SSE stream itself as it passes
// through the HTTP client it hands to langchaingo: text deltas, tool calls
// (merged by index, then by id), the finish reason, usage and error chunks
// come from that reading, and langchaingo, which still builds and sends
// the request, is handed only an empty chunk for each chunk with text (to
// pace its streaming callback) and the end. A streamed reply counts as an
// answer only when it gives a finish_reason, or ends with [DONE] after
// some text or tool call; an empty body, a page that is not an event
// stream, or a stream cut before either is an [*Error]. A whole
// chat.completion object sent to a streamed request is read as one delta.
// Non-streaming replies come from langchaingo; one with no text, no tool
// call and no finish_reason is an error too. A tool call without an id
// gets one ("call_<n>").
//
// Other langchaingo behaviours the provider corrects: it always sends a
// temperature (0 when unset), so a request with no Temperature has the
// field removed; it reads OPENAI_API_KEY and OPENAI_BASE_URL from the
// environment, so every option is passed explicitly; and it needs a key,
// so with no key a placeholder is given to it and the Authorization
// header is removed before sending. openai-go retries twice by default;
// here it makes one attempt, since retries belong to the transport.
//
// Errors: every failure is an [*Error] naming the provider, the HTTP status
// and the server's own message, with the API key replaced by "[REDACTED]"
// wherever the server echoed it. A cancelled call returns an error that
// matches ctx.Err() with errors.Is. Nothing is retried here.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Provider names in specs and in [Error.Provider].
const (
	ProviderOpenAI          = "openai"
	ProviderOllama          = "ollama"
	ProviderOpenAIResponses = "openai-responses"
)

// NewChatModel returns the chat model a spec names: "openai:NAME",
// "ollama:NAME" or "openai-responses:NAME". It makes no request.
//
// It takes the same [Config] as the embedders, but uses cfg.HTTPClient as
// it is (nil means http.DefaultClient), without the retrying [Transport]:
// a chat call is never retried blindly, and its errors (auth, rate limit,
// server) surface with the provider's status and message.
func NewChatModel(spec string, opts Config) (ChatModel, error) {
	prov, name, ok := strings.Cut(spec, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return nil, fmt.Errorf("model spec %q: want PROVIDER:NAME, such as openai:gpt-4o-mini or ollama:llama3.1", spec)
	}
	client := opts.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	switch prov {
	case ProviderOpenAI:
		base, err := opts.openAIBaseURL()
		if err != nil {
			return nil, fmt.Errorf("model spec %q: %w", spec, err)
		}
		if err := needsKey(base, opts.OpenAIAPIKey); err != nil {
			return nil, fmt.Errorf("model spec %q: %w", spec, err)
		}
		return newLangchainModel(spec, ProviderOpenAI, name, base, opts.OpenAIAPIKey, client)
	case ProviderOllama:
		root, err := opts.ollamaRoot()
		if err != nil {
			return nil, fmt.Errorf("model spec %q: %w", spec, err)
		}
		return newLangchainModel(spec, ProviderOllama, name, root+"/v1", "", client)
	case ProviderOpenAIResponses:
		base, err := opts.openAIBaseURL()
		if err != nil {
			return nil, fmt.Errorf("model spec %q: %w", spec, err)
		}
		if err := needsKey(base, opts.OpenAIAPIKey); err != nil {
			return nil, fmt.Errorf("model spec %q: %w", spec, err)
		}
		return newResponsesModel(spec, name, base, opts.OpenAIAPIKey, client), nil
	}
	return nil, fmt.Errorf("model spec %q: unknown provider %q (want %s, %s or %s)",
		spec, prov, ProviderOpenAI, ProviderOllama, ProviderOpenAIResponses)
}

// needsKey refuses OpenAI's own API without a key: the request would go
// out without one, to fail with OpenAI's 401 (or, offline, on the network)
// rather than say what is missing. Other servers may need none.
func needsKey(base, key string) error {
	if u, err := url.Parse(base); err == nil && strings.EqualFold(u.Hostname(), "api.openai.com") && key == "" {
		return fmt.Errorf("OPENAI_API_KEY is not set, and OpenAI's API (%s) needs it (set OPENAI_BASE_URL for a server of your own)", base)
	}
	return nil
}

// isLocal reports whether base names this machine: a loopback or
// unspecified address, localhost (or a name under .localhost), or a Unix
// socket.
func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	if strings.Contains(u.Scheme, "unix") {
		return true
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// chatErrorBodyLimit bounds how much of an error reply is read.
const chatErrorBodyLimit = 64 << 10

// redactor hides an API key in text bound for errors.
type redactor string

const redacted = "[REDACTED]"

func (key redactor) String(s string) string {
	if len(key) < 4 { // too short to search for without mangling text
		return s
	}
	return strings.ReplaceAll(s, string(key), redacted)
}

// minKeyHead is the shortest head of a key that a cut text must not end
// with: shorter ones say too little of the key to matter.
const minKeyHead = 8

// excerpt returns s without the key, cut to at most n bytes (on a rune
// boundary, marked "…") when longer. The key is replaced before the cut, so
// a key that straddles the cut leaves nothing of itself behind, and a head
// of the key (minKeyHead bytes or more) at the end of the cut text, which
// the server may have cut already, is replaced as well.
func (key redactor) excerpt(s string, n int) string {
	return excerpt(s, string(key), redacted, n)
}

// excerpt is [redactor.excerpt] with the key's replacement given.
func excerpt(s, key, mask string, n int) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, mask)
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	for k := min(len(key)-1, len(s)); k >= minKeyHead; k-- {
		if strings.HasSuffix(s, key[:k]) {
			s = s[:len(s)-k] + mask
			break
		}
	}
	return s + "…"
}

// error returns err, or a copy of its text without the key when it holds
// it. Context errors are kept so errors.Is still finds them.
func (key redactor) error(err error) error {
	if err == nil || key.String(err.Error()) == err.Error() {
		return err
	}
	msg := key.String(err.Error())
	for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return fmt.Errorf("%s: %w", msg, target)
		}
	}
	return errors.New(msg)
}

// httpError reads a failed reply into an [*Error]: the status, the
// server's message (OpenAI's {"error":{"message"}}, Ollama's {"error"}, or
// the body's text) and Retry-After. It closes the body.
func httpError(provider string, resp *http.Response, key redactor) *Error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, chatErrorBodyLimit))
	e := &Error{Provider: provider, Op: "chat", StatusCode: resp.StatusCode, Message: serverMessage(body, key)}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	e.RetryAfter, _ = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

// serverMessage finds the message in an error body, without the key
// ([errorMessage]).
func serverMessage(body []byte, key redactor) string {
	return errorMessage(body, string(key))
}

// callIDs names the tool calls a server left without an id (some
// OpenAI-compatible servers send none), so that a call's result can be
// tied back to it: "call_<n>", n counting such calls of one model, unlike
// any other id of the same reply. Ids the server gave are kept.
type callIDs struct{ n atomic.Uint64 }

func (c *callIDs) fill(calls []ToolCall) {
	for i := range calls {
		for calls[i].ID == "" {
			id := fmt.Sprintf("call_%d", c.n.Add(1))
			if !slices.ContainsFunc(calls, func(o ToolCall) bool { return o.ID == id }) {
				calls[i].ID = id
			}
		}
	}
}

// callError turns any failure of a call into an [*Error], keeping the
// cancellation visible to errors.Is. The failure is its Err; Message is
// left for what a server said, so the text is not said twice.
func callError(ctx context.Context, provider string, key redactor, err error) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	if cerr := ctx.Err(); cerr != nil {
		if cause := context.Cause(ctx); cause != cerr {
			cerr = fmt.Errorf("%w: %w", cerr, cause)
		}
		return &Error{Provider: provider, Op: "chat", Err: cerr}
	}
	return &Error{Provider: provider, Op: "chat", Err: key.error(err)}
}
