package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/provider"
)

// Sessions: a conversation and the documents uploaded into it, kept by
// package index/session (Deps.Sessions) in the index's database, so they
// survive a restart. A session's documents are seen by that session's
// questions only (session.Scope): through the session document tools and
// the preemptive search; no listing, search or tool of the server sees
// them. A session unused for its TTL expires; DELETE /v1/sessions/{id}
// removes one at once, with its documents and files.

// session returns the session named by the path, or answers 404.
func (s *Server) session(w http.ResponseWriter, r *http.Request, id string) (session.Session, bool) {
	if !session.ValidID(id) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q", trimRunes(id, 64)))
		return session.Session{}, false
	}
	sess, err := s.sessions.Get(r.Context(), id)
	if errors.Is(err, index.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q (it may have expired)", id))
		return sess, false
	}
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return sess, false
	}
	return sess, true
}

// postSession is POST /v1/sessions: a new session.
func (s *Server) postSession(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	sess, err := s.sessions.Create(r.Context())
	var limit *session.LimitError
	if errors.As(err, &limit) {
		writeError(w, http.StatusTooManyRequests, "too_many_sessions", limit.Msg)
		return
	}
	if err != nil {
		s.internalError(w, r, http.StatusServiceUnavailable, "index", err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": sess.ID, "created_at": sess.CreatedAt})
}

// getSession is GET /v1/sessions/{id}: its turns, each answer with its
// references, and its documents.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	docs, err := s.sessions.Documents(r.Context(), sess.ID)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	out := []docInfo{}
	for _, d := range docs {
		out = append(out, infoOf(d))
	}
	writeJSON(w, 200, map[string]any{"id": sess.ID, "created_at": sess.CreatedAt, "turns": sess.Turns, "documents": out})
}

// deleteSession is DELETE /v1/sessions/{id}: the session, its documents
// and its uploaded files.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	id := r.PathValue("id")
	if !session.ValidID(id) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q", trimRunes(id, 64)))
		return
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.sessions.Delete(r.Context(), id)
	if errors.Is(err, index.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q", id))
		return
	}
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	writeJSON(w, 200, map[string]any{"deleted": id, "documents": n})
}

// postSessionDocuments is POST /v1/sessions/{id}/documents: files uploaded
// into the session, within its limits of files and bytes.
func (s *Server) postSessionDocuments(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	sess, ok := s.session(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	folder := s.sessions.Folder(sess.ID)
	if folder == "" {
		writeError(w, http.StatusForbidden, "read_only", "this server keeps no uploads")
		return
	}
	check := func(files []session.Upload) (int, string, error) {
		// Under the writer lock: the session may have gone meanwhile, and
		// two uploads cannot both pass the limits.
		if _, err := s.sessions.Get(r.Context(), sess.ID); err != nil {
			return http.StatusNotFound, "not_found", fmt.Errorf("no session %q (it may have expired)", sess.ID)
		}
		err := s.sessions.CheckUpload(r.Context(), sess.ID, files)
		var limit *session.LimitError
		if errors.As(err, &limit) {
			if limit.Limit == "bytes" {
				// In the units the CLI prints, as the server's other limits.
				err = fmt.Errorf("a session holds at most %s of files (cite serve --max-session-bytes %d); with this upload it would hold %s", limitSize(limit.Max), limit.Max, ingest.FormatSize(limit.Total))
			}
			return http.StatusRequestEntityTooLarge, "session_" + limit.Limit + "_limit", err
		}
		return http.StatusInternalServerError, "index", err
	}
	us, ok := s.upload(w, r, session.Source(sess.ID), folder, check)
	if !ok {
		return
	}
	writeJSON(w, uploadStatus(us), map[string]any{"session_id": sess.ID, "files": us})
}

// maxHistoryTurns is how many of a session's latest turns a question
// asked in it gets as its history.
const maxHistoryTurns = 20

// withSession puts req in session id's scope, with its documents
// attached and its latest turns as the history, or answers 404.
func (s *Server) withSession(w http.ResponseWriter, r *http.Request, id string, req *answer.Request) bool {
	sess, ok := s.session(w, r, id)
	if !ok {
		return false
	}
	for _, t := range sess.Turns[max(0, len(sess.Turns)-maxHistoryTurns):] {
		req.History = append(req.History,
			provider.Message{Role: provider.RoleUser, Content: t.Question},
			provider.Message{Role: provider.RoleAssistant, Content: t.Answer})
	}
	docs, err := s.sessions.Documents(r.Context(), id)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return false
	}
	req.Scope = session.Scope{Session: id}
	for _, d := range docs {
		req.Documents = append(req.Documents, d.ID)
	}
	return true
}

// record appends an answered question to session id. A failure is logged:
// the answer was given.
func (s *Server) record(r *http.Request, id, question string, res *answer.Result) {
	refs, _ := json.Marshal(nonNil(res.References))
	if err := s.sessions.AppendTurn(r.Context(), id, session.Turn{Question: question, Answer: res.Text, References: refs, StopReason: res.StopReason}); err != nil {
		s.log.Error("session turn not recorded", "session", id, "err", err)
	}
}
