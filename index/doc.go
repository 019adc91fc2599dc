// Package index is cite's on-disk store: one folder (".cite" by default)
// holding a SQLite database of data sources, documents and chunks.
//
// It is the third stage of the ingest pipeline and the ground search reads
// from. It imports package chunk for its types only, and is the only home of
// github.com/mattn/go-sqlite3 in cite.
//
// The database runs in WAL mode. A document and its chunks are written in
// one transaction ([Store.PutDocument]), so a crash at any moment leaves
// each document either in its old state or in its new one, never half
// written; [Store.Check] verifies that. The schema carries a version
// (SQLite's user_version) and migrates forward on [Open]; an index written
// by a newer cite is refused with [ErrNewerSchema].
//
// Document ids hash the source name and path; chunk ids hash the document
// id and the chunk's text. Neither depends on insertion order, and a chunk
// whose text survives an edit of its file keeps its id.
//
// Usage:
//
//	st, err := index.Open(ctx, ".cite", index.Options{Create: true})
//	...
//	changes, err := st.PutDocument(ctx, &doc, chunks)
//	docs, err := st.Documents(ctx, "default")
package index
