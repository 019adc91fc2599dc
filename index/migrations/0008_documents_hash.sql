-- Schema 8: documents by content hash, so that a file moved, renamed or
-- copied finds the document stored from the same bytes (Store.FindCopy)
-- and takes its chunks and vectors instead of being read again.
CREATE INDEX IF NOT EXISTS documents_hash ON documents (hash);
