-- Schema 4: conversations of cite serve.

-- A session holds a conversation: its turns, and the documents uploaded
-- into it, which only its questions search. Session documents live in the
-- data source named "session:" followed by the session id.
CREATE TABLE sessions (
	id         TEXT    PRIMARY KEY, -- random, 128 bits, hex
	created_at INTEGER NOT NULL     -- unix nanoseconds
);

-- Each question asked in a session, with its answer and references (JSON).
CREATE TABLE session_turns (
	session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	question   TEXT    NOT NULL,
	answer     TEXT    NOT NULL,
	refs       TEXT    NOT NULL, -- JSON array of references
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
);
