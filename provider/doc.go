// Package provider is cite's one home for model providers: OpenAI-compatible
// servers and Ollama, reached through github.com/tmc/langchaingo's clients.
// It holds their configuration ([Config], read from the environment once,
// by cmd/cite, with [ConfigFromEnv]), the retrying HTTP transport they share
// ([Transport]), and the clients built on them: embedders ([Embedder]) now,
// chat models next.
//
// It is a leaf: it imports nothing from cite, and it is the only package of
// cite that imports langchaingo. Errors ([Error]) name the provider, the
// model, the HTTP status and the server's message, and never contain the API
// key; neither does a printed or logged [Config].
//
// Usage:
//
//	cfg := provider.ConfigFromEnv(os.Getenv)
//	emb, err := provider.NewOllamaEmbedder(cfg, "nomic-embed-text", 0)
//	vecs, err := emb.EmbedDocuments(ctx, []string{"search_document: bees dance"})
package provider
