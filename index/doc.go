// Package index is cite's on-disk store: one folder (".cite" by default)
// holding a SQLite database of data sources, documents, chunks, their
// full-text terms and their vectors. Text analysis is package
// index/analysis; the embedders that make vectors are package index/embed,
// of which the store needs only a name and a dimension ([Embedder]).
//
// It is the third stage of the ingest pipeline and the ground search reads
// from. It imports package chunk for its types only and index/analysis for
// the full-text terms, and is the only home of github.com/mattn/go-sqlite3
// and of github.com/x448/float16 (the vectors' stored format) in cite.
//
// The database runs in WAL mode. A document, its chunks, their full-text
// terms, the document frequencies they change and their vectors are written
// in one transaction ([Store.PutDocument], [Store.PutDocuments]), so a crash
// at any moment leaves each document either in its old state or in its new
// one, never half written; [Store.Check] verifies that and [Store.Repair]
// mends what it can. The schema carries a version (SQLite's user_version)
// and migrates forward on [Open]; an index written by a newer cite is
// refused with [ErrNewerSchema].
//
// Document ids hash the source name and path; chunk ids hash the document
// id and the chunk's text. Neither depends on insertion order, and a chunk
// whose text survives an edit of its file keeps its id, its row and its
// vector. [Store.FindCopy] finds a document by its content hash (an index
// of schema 8) and reads its chunks, layout and vectors in one snapshot,
// for a file renamed, moved or copied to be stored as new rows of its own
// instead of being read and embedded again.
//
// Search: [Store.SearchText] ranks chunks by BM25 over block postings kept
// in SQLite, skipping what cannot reach the top k (terms from
// [analysis.Analyze]); [Store.SearchVectors] by cosine over vectors held in memory
// column-major, loaded from a snapshot (vectors.cache) when it is current.
// The index records its embedder ([Store.UseEmbedder]); vectors of another
// are refused ([ErrEmbedderMismatch]).
//
// cite serve's sessions are package index/session's: it keeps them in
// tables of this database (schema 4), reached through [Store.Tables], which
// only packages under index can call; this package copies those tables in
// [Recover] and knows nothing else of them.
//
// Usage:
//
//	st, err := index.Open(ctx, ".cite", index.Options{Create: true})
//	emb, err := embed.New("hash", embed.Config{})
//	err = st.UseEmbedder(ctx, emb)
//	changes, err := st.PutDocument(ctx, &doc, chunks) // chunks[i].Vector set
//	hits, err := st.SearchText(ctx, "waggle dance", index.Filter{}, 10)
package index
