-- Schema 5: the page (or slide) of a chunk of a document that has pages
-- (PDF; PowerPoint's slides): the first page the chunk's text is on and the
-- last. 0 for formats without pages.
ALTER TABLE chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN page_end INTEGER NOT NULL DEFAULT 0;

-- What a document whose text was extracted (PDF, Word, ...) adds to it, as
-- JSON: {"pages": [{"number", "offset"}...], "notes": [...]}, where each page
-- starts in the text and what the reader noted (running headers it left out,
-- pages it could not read). '' for other documents.
ALTER TABLE documents ADD COLUMN layout TEXT NOT NULL DEFAULT '';
