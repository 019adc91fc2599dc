package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/embeddings"
)

// Embedder embeds texts with one embedding model of one provider, through
// langchaingo's client for it ([NewOpenAIEmbedder], [NewOllamaEmbedder]).
// It sends the texts as given: prefixes, windowing, batching, concurrency
// and normalization belong to the caller (package index/embed). It is safe
// for concurrent use.
type Embedder struct {
	provider, model string
	key             string // redacted from errors
	client          embeddings.Embedder
}

// Provider returns "openai" or "ollama".
func (e *Embedder) Provider() string { return e.provider }

// Model returns the model's name.
func (e *Embedder) Model() string { return e.model }

// EmbedDocuments returns one vector per text, in order, from one request to
// the OpenAI-compatible server (one per text for Ollama, whose langchaingo
// client embeds a text per request). Transient failures are retried by the
// client's [Transport]; a failure is an *[Error].
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	cctx, ex := withExchange(ctx)
	vs, err := e.client.EmbedDocuments(cctx, texts)
	if err != nil {
		return nil, e.fail(ctx, ex, err)
	}
	if len(vs) != len(texts) {
		return nil, e.fail(ctx, ex, fmt.Errorf("%d embeddings for %d inputs", len(vs), len(texts)))
	}
	return vs, nil
}

// newEmbedder wraps a langchaingo embedding client; newlines are kept (the
// default strips them, which changes the vectors) and batching is left to
// the caller.
func newEmbedder(provider, model, key string, client embeddings.EmbedderClient) (*Embedder, error) {
	emb, err := embeddings.NewEmbedder(client, embeddings.WithStripNewLines(false), embeddings.WithBatchSize(1<<30))
	if err != nil {
		return nil, fmt.Errorf("%s embedder: %w", provider, err)
	}
	return &Embedder{provider: provider, model: model, key: key, client: emb}, nil
}

// ErrInputTooLong is the cause of an [Error] when the server refused an
// input longer than the model's context.
var ErrInputTooLong = errors.New("an input is longer than the model accepts")

// Error reports a request to a model provider that failed, or an answer
// that is not valid. It never contains the API key.
type Error struct {
	Op         string // "embed"
	Provider   string // "openai" or "ollama"
	Model      string
	StatusCode int    // HTTP status of the last response, 0 if none
	Attempts   int    // requests sent
	Message    string // the server's message in the last error response
	Err        error  // cause: transport or context error, invalid response, a hint
	// RetryAfter is the server's Retry-After on a failed chat reply (429,
	// 503, ...), said in the error's text; zero when it gave none. Nothing
	// is retried for it.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s with %s", e.Op, e.Provider)
	if e.Model != "" {
		fmt.Fprintf(&b, " model %s", e.Model)
	}
	if e.StatusCode != 0 && e.StatusCode != http.StatusOK {
		fmt.Fprintf(&b, ": HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		// Whole seconds, rounded up: never sooner than the server asked.
		fmt.Fprintf(&b, "; retry after %v", (e.RetryAfter + time.Second - 1).Truncate(time.Second))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// fail builds the Error of a failed call from what the transport recorded
// and what the client returned.
func (e *Embedder) fail(ctx context.Context, ex *exchange, err error) error {
	attempts, status, body, terr := ex.snapshot()
	out := &Error{Op: "embed", Provider: e.provider, Model: e.model, StatusCode: status, Attempts: attempts}
	switch {
	case ctx.Err() != nil:
		out.Err = context.Cause(ctx)
	case terr != nil:
		out.Err = e.redactErr(terr)
	case status != 0 && status != http.StatusOK:
		out.Message = errorMessage(body, e.key)
		out.Err = hint(e.provider, e.model, status, out.Message)
	default:
		out.Err = fmt.Errorf("invalid response: %w", e.redactErr(err))
	}
	return out
}

// hint explains a status the user can act on.
func hint(provider, model string, status int, msg string) error {
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return errors.New("check the API key (OPENAI_API_KEY)")
	case status == http.StatusNotFound && provider == "ollama" && strings.Contains(lower, "model"):
		return fmt.Errorf("pull the model first: ollama pull %s", model)
	case status == http.StatusBadRequest && (strings.Contains(lower, "context length") ||
		strings.Contains(lower, "context_length") || strings.Contains(lower, "too long") ||
		strings.Contains(lower, "maximum context")):
		return ErrInputTooLong
	}
	return nil
}

// maxExcerpt bounds the server's message in an error.
const maxExcerpt = 300

// errorMessage is the one reading of a provider's error body, for chat and
// embeddings alike: the "error" field of a JSON body (Ollama's
// {"error":"text"}), or its "error.message" (OpenAI's), or its "message",
// else the body's text; with white space collapsed, invalid UTF-8
// replaced, the key replaced by "[REDACTED]", and cut to [maxExcerpt]
// bytes.
func errorMessage(raw []byte, key string) string {
	var msg struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	text := string(raw)
	if json.Unmarshal(raw, &msg) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(msg.Error, &s) == nil && s != "":
			text = s
		case json.Unmarshal(msg.Error, &obj) == nil && obj.Message != "":
			text = obj.Message
		case msg.Message != "":
			text = msg.Message
		}
	}
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "\uFFFD")), " ")
	return excerpt(text, key, redacted, maxExcerpt)
}

// redact removes the API key from s.
func (e *Embedder) redact(s string) string {
	if e.key == "" {
		return s
	}
	return strings.ReplaceAll(s, e.key, redacted)
}

// redactErr returns err, or an error with its text redacted if it contains
// the API key (keeping context errors recognizable).
func (e *Embedder) redactErr(err error) error {
	if e.key == "" || !strings.Contains(err.Error(), e.key) {
		return err
	}
	return &redactedError{msg: e.redact(err.Error()), ctxErr: contextError(err)}
}

type redactedError struct {
	msg    string
	ctxErr error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.ctxErr }

func contextError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}
