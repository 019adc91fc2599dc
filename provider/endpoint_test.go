package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/provider"
)

// recorder answers every request with 400 and a JSON error, recording its
// URL: nothing leaves the process.
type recorder struct {
	mu     sync.Mutex
	urls   []string
	status int         // default 400
	body   string      // default {"error":"recorded"}
	header http.Header // added to the reply
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	status, body := r.status, r.body
	if status == 0 {
		status, body = 400, `{"error":"recorded"}`
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range r.header {
		h[k] = v
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func (r *recorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.urls) == 0 {
		return ""
	}
	return r.urls[len(r.urls)-1]
}

// sent returns the URL one chat call and one embedding call of cfg went
// to; a client that could not be made gives its error instead.
func sent(t *testing.T, cfg provider.Config, chatSpec string, embedder func(provider.Config) (*provider.Embedder, error)) (chat, embed string) {
	t.Helper()
	rec := &recorder{}
	cfg.HTTPClient = &http.Client{Transport: rec}
	ctx := context.Background()
	if m, err := provider.NewChatModel(chatSpec, cfg); err != nil {
		chat = "error: " + err.Error()
	} else {
		m.Chat(ctx, provider.ChatRequest{Messages: []provider.Message{{Role: "user", Content: "hi"}}}, nil)
		chat = rec.last()
	}
	if e, err := embedder(cfg); err != nil {
		embed = "error: " + err.Error()
	} else {
		e.EmbedDocuments(ctx, []string{"hi"})
		embed = rec.last()
	}
	return chat, embed
}

// TestOllamaEndpoints: chat and embeddings read OLLAMA_HOST the same way,
// as Ollama does (port 11434 unless a scheme is given), so both go to one
// server. OLLAMA_HOST=myhost once sent chat to port 80.
func TestOllamaEndpoints(t *testing.T) {
	ollama := func(cfg provider.Config) (*provider.Embedder, error) { return provider.NewOllamaEmbedder(cfg, "m", 0) }
	for _, tc := range []struct{ host, root string }{
		{"", "http://127.0.0.1:11434"},
		{"myhost", "http://myhost:11434"},
		{"myhost:8080", "http://myhost:8080"},
		{"myhost/", "http://myhost:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{":11435", "http://127.0.0.1:11435"},
		{"http://myhost", "http://myhost:80"},
		{"https://myhost", "https://myhost:443"},
		{"https://myhost:8443", "https://myhost:8443"},
		{"::1", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"[::1]:9000", "http://[::1]:9000"},
		{"http://[fd00::5]", "http://[fd00::5]:80"},
		{"https://proxy.example/ollama", "https://proxy.example:443/ollama"},
		{"https://proxy.example/ollama/", "https://proxy.example:443/ollama"},
		{"http://myhost:11434/api", "http://myhost:11434"},
		{"http://myhost:11434/v1/", "http://myhost:11434"},
		{` "myhost" `, "http://myhost:11434"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			chat, embed := sent(t, provider.Config{OllamaHost: tc.host}, "ollama:m", ollama)
			if chat != tc.root+"/v1/chat/completions" {
				t.Errorf("chat went to %s, want %s/v1/chat/completions", chat, tc.root)
			}
			if embed != tc.root+"/api/embed" {
				t.Errorf("embeddings went to %s, want %s/api/embed", embed, tc.root)
			}
		})
	}
	for _, bad := range []string{"ftp://myhost", "unix:///run/ollama.sock", "myhost:99999", "myhost:port"} {
		t.Run(bad, func(t *testing.T) {
			chat, embed := sent(t, provider.Config{OllamaHost: bad}, "ollama:m", ollama)
			for what, got := range map[string]string{"chat": chat, "embeddings": embed} {
				if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "OLLAMA_HOST") {
					t.Errorf("%s: %s, want an error naming OLLAMA_HOST", what, got)
				}
			}
		})
	}
}

// TestOpenAIEndpoints: chat and embeddings read OPENAI_BASE_URL the same
// way.
func TestOpenAIEndpoints(t *testing.T) {
	openai := func(cfg provider.Config) (*provider.Embedder, error) { return provider.NewOpenAIEmbedder(cfg, "m", 0) }
	for _, tc := range []struct{ base, root string }{
		{"", "https://api.openai.com/v1"},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"},
		{"localhost:8000/v1", "http://localhost:8000/v1"},
		{"http://[::1]:8000/v1", "http://[::1]:8000/v1"},
		{"https://gateway.example/openai/v1", "https://gateway.example/openai/v1"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			// A key, which OpenAI's own API (the default) needs.
			chat, embed := sent(t, provider.Config{OpenAIBaseURL: tc.base, OpenAIAPIKey: "sk-test"}, "openai:m", openai)
			if chat != tc.root+"/chat/completions" {
				t.Errorf("chat went to %s, want %s/chat/completions", chat, tc.root)
			}
			if embed != tc.root+"/embeddings" {
				t.Errorf("embeddings went to %s, want %s/embeddings", embed, tc.root)
			}
			resp, _ := sent(t, provider.Config{OpenAIBaseURL: tc.base, OpenAIAPIKey: "sk-test"}, "openai-responses:m", openai)
			if resp != tc.root+"/responses" {
				t.Errorf("responses went to %s, want %s/responses", resp, tc.root)
			}
		})
	}
	// A query or fragment would end up before /chat/completions
	// ("/v1?api-key=sekrit/chat/completions"), and may hold a key.
	for _, bad := range []string{"http://", "ftp://host/v1", "unix:///run/x.sock",
		"http://127.0.0.1:8000/v1?api-key=sekrit", "https://gw.example/v1?api-version=2024-02-01", "http://127.0.0.1:8000/v1#sekrit"} {
		t.Run(bad, func(t *testing.T) {
			chat, embed := sent(t, provider.Config{OpenAIBaseURL: bad}, "openai:m", openai)
			for what, got := range map[string]string{"chat": chat, "embeddings": embed} {
				if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "OPENAI_BASE_URL") || strings.Contains(got, "sekrit") {
					t.Errorf("%s: %s, want an error naming OPENAI_BASE_URL, without the query", what, got)
				}
			}
		})
	}
}

// TestErrorBodies: chat and embeddings read a server's error body the same
// way, and say the same message.
func TestErrorBodies(t *testing.T) {
	long := strings.Repeat("é", 400)
	for _, tc := range []struct{ name, body, want string }{
		{"Ollama", `{"error":"model \"m\" not found, try pulling it first"}`, `model "m" not found, try pulling it first`},
		{"OpenAI", `{"error":{"message":"Invalid value for 'model'","type":"invalid_request_error"}}`, "Invalid value for 'model'"},
		{"message", `{"message":"Forbidden"}`, "Forbidden"},
		{"text", "<html>\n  <body>Bad   Gateway</body>\n</html>", "<html> <body>Bad Gateway</body> </html>"},
		{"long", long, strings.Repeat("é", 150) + "…"},
		{"not UTF-8", "\xff\xfe", "\uFFFD"},
		{"key", `{"error":"bad key sk-secret-0123456789"}`, "bad key [REDACTED]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{status: 400, body: tc.body}
			cfg := provider.Config{OpenAIBaseURL: "http://127.0.0.1:1/v1", OpenAIAPIKey: "sk-secret-0123456789", HTTPClient: &http.Client{Transport: rec}}
			m, err := provider.NewChatModel("openai:m", cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, chatErr := m.Chat(context.Background(), provider.ChatRequest{Messages: []provider.Message{{Role: "user", Content: "hi"}}}, nil)
			e, err := provider.NewOpenAIEmbedder(cfg, "m", 0)
			if err != nil {
				t.Fatal(err)
			}
			_, embedErr := e.EmbedDocuments(context.Background(), []string{"hi"})
			for what, err := range map[string]error{"chat": chatErr, "embeddings": embedErr} {
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %v, want a *provider.Error", what, err)
				}
				if pe.Message != tc.want {
					t.Errorf("%s: message %q, want %q", what, pe.Message, tc.want)
				}
			}
		})
	}
}

// TestChatRetryAfter: a chat error says the server's Retry-After, in
// seconds or as an HTTP date, read by the same parser as the retrying
// transport's.
func TestChatRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		header string
		min    time.Duration
	}{
		{"7", 7 * time.Second},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 59 * time.Minute},
		{"-3", 0},
		{"soon", 0},
	} {
		t.Run(tc.header, func(t *testing.T) {
			rec := &recorder{status: 429, body: `{"error":"slow down"}`, header: http.Header{"Retry-After": {tc.header}}}
			m, err := provider.NewChatModel("ollama:m", provider.Config{HTTPClient: &http.Client{Transport: rec}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Chat(context.Background(), provider.ChatRequest{Messages: []provider.Message{{Role: "user", Content: "hi"}}}, nil)
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%v, want a *provider.Error", err)
			}
			if pe.RetryAfter < tc.min || tc.min == 0 && pe.RetryAfter != 0 || pe.RetryAfter > tc.min+time.Hour {
				t.Errorf("RetryAfter %v, want about %v", pe.RetryAfter, tc.min)
			}
		})
	}
}
