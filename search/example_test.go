package search_test

import (
	"context"
	"fmt"
	"os"
	"testing/fstest"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/search"
)

func ExampleSearcher_Search() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cite-example-")
	defer os.RemoveAll(dir)
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	emb, _ := embed.New("hash", embed.Config{})
	ix, err := ingest.New(ctx, st, ingest.Options{Embedder: emb, FS: fstest.MapFS{
		"bees.md": {Data: []byte("# Honeybees\n\nForagers dance to tell their sisters where flowers are.\n")},
		"wal.md":  {Data: []byte("# SQLite\n\nIn WAL mode, readers do not block the writer.\n")},
	}})
	if err != nil {
		panic(err)
	}
	if _, err := ix.Index(ctx, "."); err != nil {
		panic(err)
	}
	// Open searches with the embedder the index recorded (hash here).
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		panic(err)
	}
	for _, mode := range search.Modes {
		res, err := s.Search(ctx, search.Query{Text: "where are the flowers?", K: 1, Mode: mode})
		if err != nil {
			panic(err)
		}
		h := res.Hits[0]
		fmt.Printf("%s: %s, %q, bytes %d-%d\n", mode, h.Document.Path, h.Heading, h.SourceSpan.Start, h.SourceSpan.End)
	}
	// Output:
	// hybrid: bees.md, "Honeybees", bytes 2-68
	// bm25: bees.md, "Honeybees", bytes 2-68
	// vector: bees.md, "Honeybees", bytes 2-68
}

func ExampleSearcher_Chunk() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cite-example-")
	defer os.RemoveAll(dir)
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	ix, err := ingest.New(ctx, st, ingest.Options{Source: "notes", FS: fstest.MapFS{
		"wal.md": {Data: []byte("# SQLite\n\nIn WAL mode, readers do not block the writer.\n")},
	}})
	if err != nil {
		panic(err)
	}
	if _, err := ix.Index(ctx, "."); err != nil {
		panic(err)
	}
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		panic(err)
	}
	res, err := s.Search(ctx, search.Query{Text: "readers block", K: 1, Mode: search.BM25})
	if err != nil {
		panic(err)
	}
	// Later, a citation names the chunk by its id.
	h, err := s.Chunk(ctx, res.Hits[0].ChunkID)
	if err != nil {
		panic(err)
	}
	d := h.Document
	fmt.Printf("%s (%s, %s, data source %s), bytes %d-%d\n", d.Path, d.Kind, d.Format, d.DataSource, h.SourceSpan.Start, h.SourceSpan.End)
	// Output:
	// wal.md (file, markdown, data source notes), bytes 2-55
}
