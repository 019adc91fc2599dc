package index

import (
	"path/filepath"
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

// createWithEmbedder creates an index in a new folder, dir, with the
// embedder spec in use; tests that reopen the index take dir.
func createWithEmbedder(t *testing.T, spec string) (dir string, st *Store, e *embed.Embedder) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "idx")
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	e = mustEmbedder(t, spec)
	if err := st.UseEmbedder(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	return dir, st, e
}

func embedDocs(tb testing.TB, e *embed.Embedder, texts ...string) [][]float32 {
	tb.Helper()
	vs, err := e.EmbedDocuments(tb.Context(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	return vs
}
