-- Schema 2: full-text search and vectors.

-- Settings of the index as a whole: the embedder that made the vectors
-- ("embedder", "dim"), the analyzer version of the full-text terms
-- ("analyzer"), and a counter bumped by every write that changes vectors
-- ("vectors_gen"), so that a process holding vectors in memory sees when
-- another one changed them.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- The analyzed terms of each chunk (index.Analyze joined by spaces), under
-- the chunk's rowid as docid. FTS4 is the full-text engine that
-- mattn/go-sqlite3 compiles in without build tags; BM25 is computed from
-- matchinfo (fulltext.go). The "simple" tokenizer splits on ASCII
-- punctuation and spaces and lower-cases ASCII, which leaves analyzed terms
-- as they are.
CREATE VIRTUAL TABLE chunks_fts USING fts4(terms, tokenize=simple);

-- Document frequencies: in how many chunks each term occurs, kept in the
-- transaction that adds or removes the chunks (fts4aux can count them too,
-- but reads a term's whole doclist to do it: milliseconds a term at 100,000
-- chunks). The empty term counts the chunks.
CREATE TABLE term_df (
	term TEXT    PRIMARY KEY,
	df   INTEGER NOT NULL
) WITHOUT ROWID;

-- One vector per chunk: unit-length float32 values, little-endian, of the
-- embedder recorded in meta. (Since 2026-11, float16 values and a format
-- byte, 2*dim+1 bytes, without a new schema: index/vectors.go,
-- encodeVector; float32 blobs, 4*dim bytes, are still read.) A chunk without a row here is found by
-- full-text search only until its vector is made (cite index fills missing
-- vectors; cite check --repair too).
CREATE TABLE vectors (
	chunk INTEGER PRIMARY KEY REFERENCES chunks (rowid) ON DELETE CASCADE,
	vec   BLOB    NOT NULL
);

-- A chunk's terms go with it, however it is deleted (directly, or through
-- its document).
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE docid = old.rowid;
END;
