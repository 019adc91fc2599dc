package index

import (
	"testing"

	"github.com/cite-rag/cite/index/embed"
)

// The hash embedder is what the store's tests embed with.
var _ Embedder = (*embed.Embedder)(nil)

func mustEmbedder(tb testing.TB, spec string) *embed.Embedder {
	tb.Helper()
	e, err := embed.New(spec, embed.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func embedDocs(tb testing.TB, e *embed.Embedder, texts ...string) [][]float32 {
	tb.Helper()
	vs, err := e.EmbedDocuments(tb.Context(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	return vs
}
