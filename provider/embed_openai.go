package provider

import (
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms/openai"
)

// NewOpenAIEmbedder returns an embedder for a model of the OpenAI-compatible
// server at cfg.OpenAIBaseURL (POST /embeddings), authenticated by
// cfg.OpenAIAPIKey when set. dimensions > 0 asks for vectors of that size
// (text-embedding-3 models).
func NewOpenAIEmbedder(cfg Config, model string, dimensions int) (*Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, fmt.Errorf("openai embedder: missing model name")
	}
	base, err := cfg.openAIBaseURL()
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	opts := []openai.Option{
		openai.WithBaseURL(base),
		openai.WithEmbeddingModel(model),
		openai.WithHTTPClient(cfg.Client()),
		// langchaingo requires a token; local servers take any.
		openai.WithToken(cmpOr(cfg.OpenAIAPIKey, "none")),
		// Only Config configures the client, not OPENAI_ORGANIZATION.
		openai.WithOrganization(""),
	}
	if dimensions > 0 {
		opts = append(opts, openai.WithEmbeddingDimensions(dimensions))
	}
	client, err := openai.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", &redactedError{msg: redactKey(err.Error(), cfg.OpenAIAPIKey)})
	}
	return newEmbedder("openai", model, cfg.OpenAIAPIKey, client)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, redacted)
}
