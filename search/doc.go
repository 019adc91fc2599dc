// Package search is cite's retrieval: it ranks an index's chunks for a
// query by BM25 (full-text), by vector similarity, or by both fused
// (hybrid, the default), with filters by data source, document and path,
// and a cap on hits per document.
//
// It sits above package index, whose full-text ranking
// ([index.Store.SearchText]) and vector search ([index.Store.SearchVectors])
// it combines, with index/analysis (query terms) and index/embed (query
// vectors), and imports nothing else of the project but citations (for its
// Span). It has no third-party dependency. Hybrid search runs both
// retrievers side by side and fuses their scores ([Fusion],
// [DefaultFusion]); if the query cannot be embedded (a model server down) it
// falls back to BM25, and if some chunks have no vector it still searches
// the others; both say so in [Result.Warnings].
//
// Usage:
//
//	st, err := index.Open(ctx, ".cite", index.Options{})
//	s, err := search.Open(ctx, st, search.Options{}) // the index's own embedder
//	res, err := s.Search(ctx, search.Query{Text: "how do bees find flowers", K: 5})
//	for _, w := range res.Warnings {
//		fmt.Println("warning:", w) // e.g. chunks without vectors, and the fix
//	}
//	for _, h := range res.Hits {
//		fmt.Println(h.Rank, h.Document.Title, h.SourceSpan)
//	}
//	h, err := s.Chunk(ctx, res.Hits[0].ChunkID) // a chunk again, by id
//
// [New] takes an embedder instead, for callers that made one (cite eval).
// Hits carry [citations.Span]s: the one byte-range type, from the package
// that needs it without importing anything, so a hit's SourceSpan is a
// citation's Span as it is.
//
// A [Searcher] is safe for concurrent use. The first vector search of a
// process loads the index's vectors into memory (milliseconds from the
// vector cache), later ones reuse them.
package search
