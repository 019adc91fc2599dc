-- Schema 3: where each document came from.

-- "file" (read from a file system; path is its absolute path) or "web"
-- (fetched from the web; path is its URL). Every document indexed before
-- schema 3 was read from a file: cite had no other way in.
ALTER TABLE documents ADD COLUMN kind TEXT NOT NULL DEFAULT 'file';
