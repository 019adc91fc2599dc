-- Schema 8: the postings are kept in the order of their segment, then
-- term, and found by term within each segment a search reads. In the
-- order of term first (schema 6), every write transaction's new segment
-- put a row among the rows of every older segment, on nearly every page
-- of the table: a fresh cite index wrote the postings' pages again and
-- again, about seven times their size, and the index by segment beside
-- them. A new segment now goes after all the others, and a merge deletes
-- whole runs of pages.
CREATE TABLE fts_postings_by_segment (
	segment INTEGER NOT NULL,
	term    TEXT    NOT NULL,
	data    BLOB    NOT NULL,
	PRIMARY KEY (segment, term)
) WITHOUT ROWID;
INSERT INTO fts_postings_by_segment (segment, term, data) SELECT segment, term, data FROM fts_postings ORDER BY segment, term;
DROP TABLE fts_postings;
ALTER TABLE fts_postings_by_segment RENAME TO fts_postings;
