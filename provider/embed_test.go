package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// wire is an httptest server speaking OpenAI's POST /v1/embeddings or
// Ollama's POST /api/embed, answering each input with [len(input), 1], or
// with fail(n) for request n when it returns a status.
type wire struct {
	kind string
	srv  *httptest.Server
	fail func(n int) (status int, body string)

	mu   sync.Mutex
	reqs []map[string]any
	auth []string
}

func newWire(t *testing.T, kind string) *wire {
	w := &wire{kind: kind}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wire) config(c Config) Config {
	if w.kind == "openai" {
		c.OpenAIBaseURL = w.srv.URL + "/v1"
	} else {
		c.OllamaHost = w.srv.URL
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Transport: &Transport{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}}
	}
	return c
}

func (w *wire) serve(rw http.ResponseWriter, r *http.Request) {
	var req map[string]any
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(rw, `{"error":"bad json"}`, 400)
		return
	}
	w.mu.Lock()
	n := len(w.reqs)
	w.reqs = append(w.reqs, req)
	w.auth = append(w.auth, r.Header.Get("Authorization"))
	w.mu.Unlock()
	path := map[string]string{"openai": "/v1/embeddings", "ollama": "/api/embed"}[w.kind]
	if r.Method != http.MethodPost || r.URL.Path != path {
		http.Error(rw, `{"error":"no route"}`, 404)
		return
	}
	if w.fail != nil {
		if status, msg := w.fail(n); status != 0 {
			rw.WriteHeader(status)
			io.WriteString(rw, msg)
			return
		}
	}
	var inputs []string
	switch in := req["input"].(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, s := range in {
			inputs = append(inputs, s.(string))
		}
	}
	vec := func(s string) []float32 { return []float32{float32(len(s)), 1} }
	rw.Header().Set("Content-Type", "application/json")
	if w.kind == "ollama" {
		var vs [][]float32
		for _, s := range inputs {
			vs = append(vs, vec(s))
		}
		json.NewEncoder(rw).Encode(map[string]any{"model": req["model"], "embeddings": vs})
		return
	}
	var data []map[string]any
	for i, s := range inputs {
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec(s)})
	}
	json.NewEncoder(rw).Encode(map[string]any{"object": "list", "data": data, "model": req["model"]})
}

func (w *wire) sent() ([]map[string]any, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.reqs), slices.Clone(w.auth)
}

func newWireEmbedder(t *testing.T, w *wire, c Config, dims int) *Embedder {
	t.Helper()
	c = w.config(c)
	var e *Embedder
	var err error
	if w.kind == "openai" {
		e, err = NewOpenAIEmbedder(c, "m", dims)
	} else {
		e, err = NewOllamaEmbedder(c, "m", dims)
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderWire(t *testing.T) {
	for _, kind := range []string{"openai", "ollama"} {
		t.Run(kind, func(t *testing.T) {
			w := newWire(t, kind)
			e := newWireEmbedder(t, w, Config{OpenAIAPIKey: "sk-test"}, 4)
			texts := []string{"a\nb", "ccc"}
			vs, err := e.EmbedDocuments(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 2 || vs[0][0] != 3 || vs[1][0] != 3 {
				t.Errorf("vectors %v: want one per text, newlines kept", vs)
			}
			if e.Provider() != kind || e.Model() != "m" {
				t.Errorf("Provider %q, Model %q", e.Provider(), e.Model())
			}
			reqs, auth := w.sent()
			for i, r := range reqs {
				if r["model"] != "m" || r["dimensions"] != float64(4) {
					t.Errorf("request %d = %v: want model m, dimensions 4", i, r)
				}
				switch kind {
				case "openai":
					if auth[i] != "Bearer sk-test" {
						t.Errorf("Authorization %q", auth[i])
					}
				case "ollama":
					if r["truncate"] != false || auth[i] != "" {
						t.Errorf("request %d = %v, Authorization %q: want truncate false, no key", i, r, auth[i])
					}
				}
			}
		})
	}
}

func TestEmbedderErrors(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	tests := []struct {
		name     string
		status   int
		body     string
		attempts int
		want     []string
		is       error
	}{
		{"persistent 503", 503, `{"error":"model is loading"}`, 3, []string{"HTTP 503", "model is loading", "3 attempts"}, nil},
		{"400 not retried", 400, `{"error":{"message":"bad input","type":"invalid_request_error"}}`, 1, []string{"HTTP 400", "bad input"}, nil},
		{"context length", 400, `{"error":"the input length exceeds the context length"}`, 1, []string{"longer than the model accepts"}, ErrInputTooLong},
		{"401", 401, `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`, 1, []string{"HTTP 401", "API key", "[REDACTED]"}, nil},
		{"echoed key", 500, "key was Bearer " + key, 3, []string{"HTTP 500"}, nil},
		{"key at the cut", 500, strings.Repeat("x", 290) + " " + key + " more", 3, []string{"HTTP 500", "xxxx"}, nil},
		{"invalid JSON", 200, `<html>` + key, 1, []string{"invalid response"}, nil},
	}
	for _, kind := range []string{"openai", "ollama"} {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				w := newWire(t, kind)
				w.fail = func(int) (int, string) { return tt.status, tt.body }
				e := newWireEmbedder(t, w, Config{OpenAIAPIKey: key}, 0)
				_, err := e.EmbedDocuments(t.Context(), []string{"x"})
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want a *Error", err)
				}
				if pe.Provider != kind || pe.Model != "m" || pe.Attempts != tt.attempts || pe.StatusCode != tt.status {
					t.Errorf("%+v: want %s, model m, status %d, %d attempts", pe, kind, tt.status, tt.attempts)
				}
				msg := err.Error()
				for _, s := range append([]string{"embed with " + kind + " model m"}, tt.want...) {
					if kind == "ollama" && s == "[REDACTED]" {
						continue // Ollama takes no key: nothing to redact
					}
					if !strings.Contains(msg, s) {
						t.Errorf("error %q does not mention %q", msg, s)
					}
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("error %v is not %v", err, tt.is)
				}
				if kind == "openai" {
					for _, s := range []string{msg, fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
						if strings.Contains(s, key[:minKeyHead]) {
							t.Errorf("error shows the key: %s", s)
						}
					}
				}
			})
		}
	}
}

// TestEmbedderTransportError: the cause of a failed connection is kept
// (langchaingo hides it), without the key of a URL's password.
func TestEmbedderTransportError(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	c := Config{OpenAIBaseURL: "http://user:" + key + "@127.0.0.1:1/v1", OpenAIAPIKey: key,
		HTTPClient: &http.Client{Transport: &Transport{MaxAttempts: 2, BaseDelay: time.Millisecond}}}
	e, err := NewOpenAIEmbedder(c, "m", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.EmbedDocuments(t.Context(), []string{"x"})
	var pe *Error
	if !errors.As(err, &pe) || pe.Attempts != 2 || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), key) {
		t.Errorf("err = %v: want a refused connection, tried twice, without the key", err)
	}
	if _, err := NewOpenAIEmbedder(Config{OpenAIBaseURL: "ftp://user:" + key + "@host"}, "m", 0); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("bad base URL: err = %v, want an error without the key", err)
	}
}

func TestEmbedderCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	w := newWire(t, "openai")
	w.fail = func(int) (int, string) { cancel(); return 500, "" }
	slow := &http.Client{Transport: &Transport{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour}}
	e := newWireEmbedder(t, w, Config{HTTPClient: slow}, 0)
	_, err := e.EmbedDocuments(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if reqs, _ := w.sent(); len(reqs) != 1 {
		t.Errorf("%d requests, want 1", len(reqs))
	}
}

func TestErrorMessage(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct{ in, want string }{
		{`{"error":"model \"x\" not found"}`, `model "x" not found`},
		{`{"error":{"message":"Rate limit reached","type":"requests"}}`, "Rate limit reached"},
		{`{"message":"Forbidden"}`, "Forbidden"},
		{"<html>\n  <body>Bad   Gateway</body>\n</html>", "<html> <body>Bad Gateway</body> </html>"},
		{long, strings.Repeat("é", maxExcerpt/2) + "…"},
		{"\xff\xfe", "\uFFFD"},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.in), ""); got != tt.want {
			t.Errorf("errorMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrorRetryAfter(t *testing.T) {
	cases := []struct {
		after time.Duration
		want  string
	}{
		{20 * time.Second, "chat with openai: HTTP 429 Too Many Requests: slow down; retry after 20s"},
		{1500 * time.Millisecond, "chat with openai: HTTP 429 Too Many Requests: slow down; retry after 2s"},
		{time.Millisecond, "chat with openai: HTTP 429 Too Many Requests: slow down; retry after 1s"},
		{90 * time.Second, "chat with openai: HTTP 429 Too Many Requests: slow down; retry after 1m30s"},
		{0, "chat with openai: HTTP 429 Too Many Requests: slow down"},
	}
	for _, tc := range cases {
		err := &Error{Op: "chat", Provider: "openai", StatusCode: 429, Message: "slow down", RetryAfter: tc.after}
		if got := err.Error(); got != tc.want {
			t.Errorf("RetryAfter %v: %q, want %q", tc.after, got, tc.want)
		}
	}
}

func TestErrorUnwrap(t *testing.T) {
	err := error(&Error{Op: "embed", Provider: "openai", Model: "m", Err: context.DeadlineExceeded})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("Error does not unwrap")
	}
}

func ExampleNewOllamaEmbedder() {
	// A stand-in for Ollama: POST /api/embed answers {"embeddings": [...]}.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"embeddings": [[0.6, 0.8]]}`)
	}))
	defer srv.Close()

	cfg := ConfigFromEnv(func(name string) string {
		return map[string]string{"OLLAMA_HOST": srv.URL}[name]
	})
	emb, err := NewOllamaEmbedder(cfg, "nomic-embed-text", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := emb.EmbedDocuments(context.Background(), []string{"search_document: bees dance"})
	fmt.Println(vecs, err)
	// Output: [[0.6 0.8]] <nil>
}
