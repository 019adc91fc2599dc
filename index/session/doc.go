// Package session owns cite serve's sessions: a conversation (its turns,
// each answer with its references) and the documents uploaded into it,
// and the one rule that decides who sees those documents ([Scope.Sees]).
//
// A session's documents are indexed like any other, in the data source
// named "session:" and the session's id ([Source]). Only that session's
// questions may see them: every listing, search, tool and lookup of cite,
// the CLI's (search, docs, sources, show, ask --doc, chat), the server's
// and the MCP tools', goes through a [Scope]. [Public], the zero Scope,
// sees the data sources and no session's documents; Scope{Session: ID}
// sees the data sources and session ID's. (Maintenance sees everything:
// cite check and its repair, cite index --prune.) Package search applies
// the scope of each query (search.Query's Scope) to every chunk before it
// folds copies, so a copy of a document in another scope is neither a hit
// nor named among a hit's copies.
//
// Where it sits: under index, because everything that reads the index
// must apply the rule (search, answer, server, cmd/cite), and because the
// sessions are kept in the index's database (the tables schema 4 made,
// reached through [index.Store.Tables]), so they survive a restart and
// cite check --repair. It imports index only; data flows one way (index →
// index/session → search → answer → server → cmd/cite), and cmd/cite only
// wires a [Store] into the server.
//
// A long-running server needs its sessions bounded: a session unused for
// [Config.TTL] expires (it is not found from then on), and a sweeper that
// [Open] starts and [Store.Close] stops removes expired sessions with
// their documents and uploaded files; [Config.MaxSessions] caps the
// sessions, [Config.MaxFiles] and [Config.MaxBytes] each session's
// uploads ([LimitError]); [Store.Delete] removes a session at once.
package session
