package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
)

// Sessions: a conversation and the documents uploaded into it. They are
// kept in the index's database (index.Session), so they survive a
// restart. A session's documents are in the data source "session:ID":
// only that session's questions search them (through the session document
// tools and the preemptive search), and the data-source endpoints never
// list them.

// sessionID is the shape of a session id: 32 hex digits.
var sessionID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// session returns the session named by the path, or answers 404.
func (s *Server) session(w http.ResponseWriter, r *http.Request, id string) (index.Session, bool) {
	if !sessionID.MatchString(id) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q", trimRunes(id, 64)))
		return index.Session{}, false
	}
	sess, err := s.deps.Store.Session(r.Context(), id)
	if errors.Is(err, index.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no session %q", id))
		return sess, false
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "index", err.Error())
		return sess, false
	}
	return sess, true
}

// postSession is POST /v1/sessions: a new session.
func (s *Server) postSession(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	sess, err := s.deps.Store.CreateSession(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "index", err.Error())
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
	docs, err := s.sessionDocuments(r, sess.ID)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "index", err.Error())
		return
	}
	writeJSON(w, 200, map[string]any{"id": sess.ID, "created_at": sess.CreatedAt, "turns": sess.Turns, "documents": docs})
}

func (s *Server) sessionDocuments(r *http.Request, id string) ([]docInfo, error) {
	docs, err := s.deps.Store.Documents(r.Context(), index.SessionSource(id))
	out := []docInfo{}
	for _, d := range docs {
		out = append(out, infoOf(d))
	}
	return out, err
}

// postSessionDocuments is POST /v1/sessions/{id}/documents: files uploaded
// into the session.
func (s *Server) postSessionDocuments(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	sess, ok := s.session(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	us, ok := s.upload(w, r, index.SessionSource(sess.ID), filepath.Join("sessions", sess.ID))
	if !ok {
		return
	}
	writeJSON(w, uploadStatus(us), map[string]any{"session_id": sess.ID, "files": us})
}

// withSession attaches session id's documents to req, or answers 404.
func (s *Server) withSession(w http.ResponseWriter, r *http.Request, id string, req *answer.Request) bool {
	if _, ok := s.session(w, r, id); !ok {
		return false
	}
	docs, err := s.deps.Store.Documents(r.Context(), index.SessionSource(id))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "index", err.Error())
		return false
	}
	for _, d := range docs {
		req.Documents = append(req.Documents, d.ID)
	}
	return true
}

// record appends an answered question to session id. A failure is logged:
// the answer was given.
func (s *Server) record(r *http.Request, id, question string, res *answer.Result) {
	refs, _ := json.Marshal(nonNil(res.References))
	if err := s.deps.Store.AppendTurn(r.Context(), id, index.Turn{Question: question, Answer: res.Text, References: refs}); err != nil {
		s.log.Error("session turn not recorded", "session", id, "err", err)
	}
}
