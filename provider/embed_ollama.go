package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms/ollama"
)

// NewOllamaEmbedder returns an embedder for a model served by Ollama at
// cfg.OllamaHost (POST /api/embed). dimensions > 0 asks for vectors of that
// size (models that can truncate their output). Inputs longer than the
// model's context are refused by the server, never silently cut.
func NewOllamaEmbedder(cfg Config, model string, dimensions int) (*Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, fmt.Errorf("ollama embedder: missing model name")
	}
	// langchaingo appends /api/embed to the root.
	root, err := cfg.ollamaRoot()
	if err != nil {
		return nil, fmt.Errorf("ollama embedder: %w", err)
	}
	hc := cfg.Client()
	hc.Transport = &ollamaEmbedOptions{base: hc.Transport, dimensions: dimensions}
	client, err := ollama.New(
		ollama.WithServerURL(root),
		ollama.WithModel(model),
		ollama.WithHTTPClient(hc),
	)
	if err != nil {
		return nil, fmt.Errorf("ollama embedder: %w", err)
	}
	return newEmbedder("ollama", model, "", client)
}

// ollamaEmbedOptions adds to the embedding requests of langchaingo's Ollama
// client the fields it does not send: "truncate": false, so that Ollama
// refuses an input longer than the model's context instead of silently
// cutting it, and "dimensions".
type ollamaEmbedOptions struct {
	base       http.RoundTripper
	dimensions int
}

func (t *ollamaEmbedOptions) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/api/embed") || req.Body == nil {
		return t.base.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("ollama embed request: %w", err)
	}
	fields["truncate"] = json.RawMessage("false")
	if t.dimensions > 0 {
		fields["dimensions"] = json.RawMessage(fmt.Sprint(t.dimensions))
	}
	body, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(r)
}
