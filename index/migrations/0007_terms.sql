-- Schema 7: the full-text terms are no longer stored. A chunk's terms are
-- analysis.Analyze of its text, made again where they are needed (the
-- postings' rebuild, cite check, document frequencies of a deleted chunk,
-- the Weaviate replica); the postings (schema 6) are what searches read.
-- FTS4 kept a second copy of every chunk's terms (1.9 KB a chunk) and
-- cost the single writer about a third of its time.
DROP TRIGGER chunks_fts_delete;
DROP TABLE chunks_fts;

-- A deleted chunk leaves a tombstone in the postings, however it is
-- deleted.
CREATE TRIGGER chunks_delete AFTER DELETE ON chunks BEGIN
	INSERT OR REPLACE INTO fts_deleted SELECT old.rowid, coalesce(max(id), 0) FROM fts_segments;
END;
