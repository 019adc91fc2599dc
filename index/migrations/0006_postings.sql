-- Schema 6: full-text postings a search can skip through (postings.go;
-- format in index/internal/postings). The chunks each write transaction
-- adds become a segment, written in that transaction and never changed
-- after; segments are merged in tiers. FTS4 keeps the terms (repair,
-- recounts and the Weaviate replica read them there).

-- A segment: its chunks' rowids and lengths in terms (postings.EncodeDocs).
-- A new segment's id is above every id before (merges write theirs before
-- deleting the old), so a reader may keep a segment in memory by id.
CREATE TABLE fts_segments (
	id     INTEGER PRIMARY KEY,
	chunks INTEGER NOT NULL,
	docs   BLOB    NOT NULL
);

-- The postings of a term in a segment (postings.Encode).
CREATE TABLE fts_postings (
	term    TEXT    NOT NULL,
	segment INTEGER NOT NULL,
	data    BLOB    NOT NULL,
	PRIMARY KEY (term, segment)
) WITHOUT ROWID;
CREATE INDEX fts_postings_segment ON fts_postings (segment);

-- Deleted chunks: tombstones over the segments up to "upto" (a rowid may
-- be used again by a later chunk, in a later segment). Merges leave them
-- out.
CREATE TABLE fts_deleted (
	chunk INTEGER PRIMARY KEY,
	upto  INTEGER NOT NULL
);

-- A chunk's terms go with it, however it is deleted, and it leaves a
-- tombstone in the postings.
DROP TRIGGER chunks_fts_delete;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE docid = old.rowid;
	INSERT OR REPLACE INTO fts_deleted SELECT old.rowid, coalesce(max(id), 0) FROM fts_segments;
END;
