package index

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SessionSourcePrefix starts the name of every session's data source: the
// documents uploaded into session ID are in source "session:ID", which
// only that session's questions search.
const SessionSourcePrefix = "session:"

// SessionSource returns the data source of session id's documents.
func SessionSource(id string) string { return SessionSourcePrefix + id }

// IsSessionSource reports whether name is a session's data source.
func IsSessionSource(name string) bool { return strings.HasPrefix(name, SessionSourcePrefix) }

// Session is a conversation of cite serve: its turns, oldest first.
type Session struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Turns     []Turn    `json:"turns"`
}

// Turn is one question of a session and its answer.
type Turn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// References are the answer's references as JSON (an array), stored as
	// given.
	References json.RawMessage `json:"references"`
	CreatedAt  time.Time       `json:"created_at"`
}

// CreateSession makes a new, empty session with a random id.
func (s *Store) CreateSession(ctx context.Context) (Session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Session{}, err
	}
	sess := Session{ID: hex.EncodeToString(b[:]), CreatedAt: time.Now(), Turns: []Turn{}}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, created_at) VALUES (?, ?)`, sess.ID, sess.CreatedAt.UnixNano())
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	return sess, nil
}

// Session returns the session with id and its turns; an unknown id is an
// error wrapping [ErrNotFound].
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	sess := Session{ID: id, Turns: []Turn{}}
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT created_at FROM sessions WHERE id = ?`, id).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return sess, fmt.Errorf("session %q: %w", trimID(id), ErrNotFound)
	}
	if err != nil {
		return sess, fmt.Errorf("session %q: %w", trimID(id), dbError(err))
	}
	sess.CreatedAt = time.Unix(0, created)
	rows, err := s.db.QueryContext(ctx, `SELECT question, answer, refs, created_at FROM session_turns WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return sess, fmt.Errorf("session %q: %w", trimID(id), dbError(err))
	}
	defer rows.Close()
	for rows.Next() {
		var t Turn
		var refs string
		if err := rows.Scan(&t.Question, &t.Answer, &refs, &created); err != nil {
			return sess, fmt.Errorf("session %q: %w", trimID(id), err)
		}
		t.References, t.CreatedAt = json.RawMessage(refs), time.Unix(0, created)
		sess.Turns = append(sess.Turns, t)
	}
	return sess, rows.Err()
}

// AppendTurn adds a turn at the end of session id. References must be
// JSON (nil is stored as an empty array).
func (s *Store) AppendTurn(ctx context.Context, id string, t Turn) error {
	refs := string(t.References)
	if refs == "" {
		refs = "[]"
	}
	if !json.Valid([]byte(refs)) {
		return fmt.Errorf("%w: session %q: references are not JSON", ErrInvalidInput, trimID(id))
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO session_turns (session_id, seq, question, answer, refs, created_at)
			VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM session_turns WHERE session_id = ?), ?, ?, ?, ?)`,
			id, id, t.Question, t.Answer, refs, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("session %q: add turn: %w", trimID(id), err)
	}
	return nil
}

// trimID keeps an id from the outside short in messages.
func trimID(id string) string {
	if len(id) > 64 {
		return id[:64] + "…"
	}
	return id
}
