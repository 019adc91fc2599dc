-- Schema 1: data sources, documents and their chunks.

CREATE TABLE sources (
	id         INTEGER PRIMARY KEY,
	name       TEXT    NOT NULL UNIQUE,
	created_at INTEGER NOT NULL -- unix nanoseconds
);

CREATE TABLE documents (
	id         TEXT    PRIMARY KEY, -- hash of source name and path: stable across edits
	source_id  INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
	path       TEXT    NOT NULL,    -- absolute path or URI
	title      TEXT    NOT NULL,
	type       TEXT    NOT NULL,    -- "markdown", "html", "text"
	size       INTEGER NOT NULL,    -- bytes of the file
	mtime      INTEGER NOT NULL,    -- unix nanoseconds
	hash       TEXT    NOT NULL,    -- sha256 of the file's bytes, hex
	pipeline   TEXT    NOT NULL,    -- normalizer and chunker settings that made the chunks
	text_bytes INTEGER NOT NULL,    -- length of the normalized text
	chunks     INTEGER NOT NULL,
	tokens     INTEGER NOT NULL,    -- o200k_base tokens of the normalized text
	indexed_at INTEGER NOT NULL,    -- unix nanoseconds
	UNIQUE (source_id, path)
);

-- Chunk ids derive from content (the document id and the chunk's text), so
-- an unchanged chunk keeps its id, its row and (later) its vector when
-- other parts of its file change. rowid is the key full-text tables use.
CREATE TABLE chunks (
	rowid       INTEGER PRIMARY KEY,
	id          TEXT    NOT NULL UNIQUE,
	document_id TEXT    NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	ordinal     INTEGER NOT NULL,
	text        TEXT    NOT NULL,
	tokens      INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL, -- span in the normalized text
	end_byte    INTEGER NOT NULL,
	src_start   INTEGER NOT NULL, -- span in the source file
	src_end     INTEGER NOT NULL,
	headings    TEXT    NOT NULL  -- JSON array, outermost first
);

CREATE INDEX chunks_document ON chunks (document_id, ordinal);
