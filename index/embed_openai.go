package index

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// defaultOpenAIBaseURL is OpenAI's API.
const defaultOpenAIBaseURL = "https://api.openai.com/v1"

// openAIEmbedder calls an OpenAI-compatible embeddings API,
// POST {base}/embeddings.
type openAIEmbedder struct {
	api        *httpAPI
	model      string
	dimensions int
}

var _ embedder = (*openAIEmbedder)(nil)

// openAIRequest is the body of POST /embeddings.
type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

// openAIResponse is the part of the answer of POST /embeddings we use.
type openAIResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// NewOpenAIEmbedder returns an embedder for a model of an OpenAI-compatible
// API at cfg.BaseURL (default https://api.openai.com/v1), authenticated by
// cfg.APIKey if set. It reads no environment variable: [NewEmbedder] does.
func NewOpenAIEmbedder(model string, cfg EmbedderConfig) (*Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, fmt.Errorf("openai embedder: missing model name")
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = defaultOpenAIBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai embedder: base URL %q: want http(s)://host[/path]", base)
	}
	e, err := newProviderEmbedder("openai", model, knownModel(model), cfg, 32, 4)
	if err != nil {
		return nil, err
	}
	api := newHTTPAPI("openai", model, u.JoinPath("embeddings").String(), cfg)
	api.maxInput = e.maxInput
	e.impl = &openAIEmbedder{api: api, model: model, dimensions: cfg.Dimensions}
	return e, nil
}

func (o *openAIEmbedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := o.api.post(ctx, openAIRequest{
		Model:          o.model,
		Input:          texts,
		Dimensions:     o.dimensions,
		EncodingFormat: "float",
	})
	if err != nil {
		return nil, err
	}
	invalid := func(err error) error {
		return o.api.fail(0, http.StatusOK, "", fmt.Errorf("invalid response: %w", err))
	}
	var r openAIResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, invalid(err)
	}
	if len(r.Data) != len(texts) {
		return nil, invalid(fmt.Errorf("%d embeddings for %d inputs", len(r.Data), len(texts)))
	}
	// Place each embedding at its index; a server that sends no index
	// gives them in order.
	out := make([][]float32, len(texts))
	for i, d := range r.Data {
		k := i
		if d.Index != nil {
			k = *d.Index
		}
		if k < 0 || k >= len(out) || out[k] != nil {
			return nil, invalid(fmt.Errorf("embedding %d has index %d: out of range or repeated", i, k))
		}
		if d.Embedding == nil {
			d.Embedding = []float32{}
		}
		out[k] = d.Embedding
	}
	return out, nil
}
