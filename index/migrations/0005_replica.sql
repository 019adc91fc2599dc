-- Documents whose copy in the index's replica (a Weaviate collection, see
-- package index/weaviate) is behind the local one: written locally and not
-- yet pushed, or deleted locally and not yet removed there. A row is added
-- in the transaction that changes the document and removed once the
-- replica has the change, so a crash in between leaves the row, and the
-- next write or cite check --repair pushes it again.
CREATE TABLE replica_pending (
	document_id TEXT PRIMARY KEY
) WITHOUT ROWID;
