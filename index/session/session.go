package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/internal/tables"
)

// Defaults of [Config].
const (
	DefaultTTL         = 7 * 24 * time.Hour
	DefaultMaxSessions = 10_000
	DefaultMaxFiles    = 100
	DefaultMaxBytes    = 100_000_000
)

// Config configures a [Store]. Zero fields take the defaults.
type Config struct {
	// Dir is the folder of the sessions' uploaded files, one folder per
	// session (Dir/ID), which [Store.Delete] and the sweeper remove; ""
	// when there are none.
	Dir string
	// TTL is how long a session lives after its last use (its creation,
	// an upload, a question); then it expires. Negative: never.
	TTL time.Duration
	// MaxSessions caps the sessions alive at once.
	MaxSessions int
	// MaxFiles and MaxBytes cap the files uploaded into one session, in
	// number and in bytes.
	MaxFiles int
	MaxBytes int64
	// SweepEvery is how often the sweeper of [Open] removes expired
	// sessions; default TTL/10, between a minute and an hour.
	SweepEvery time.Duration
	// Now is the clock (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

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
	// StopReason is why the model stopped answering, as the answer gave it:
	// "stop"; "length" or "content_filter" when the answer was cut short
	// (see provider.ChatResponse). "" for turns recorded before cite kept
	// it (schema 9).
	StopReason string    `json:"stop_reason"`
	CreatedAt  time.Time `json:"created_at"`
}

// ErrLimit is the error of a session or an upload beyond a limit of
// [Config]; it is a [*LimitError].
var ErrLimit = errors.New("limit reached")

// LimitError names the limit a request would exceed.
type LimitError struct {
	Limit string // "sessions", "files" or "bytes"
	Max   int64
	// Total is what the request would make: sessions, a session's files
	// or its bytes.
	Total int64
	Msg   string
}

func (e *LimitError) Error() string { return e.Msg }
func (e *LimitError) Unwrap() error { return ErrLimit }

// Store keeps the sessions of one index. It is safe for concurrent use.
type Store struct {
	idx  *index.Store
	db   *sql.DB
	inTx func(context.Context, func(*sql.Tx) error) error
	cfg  Config
	log  *slog.Logger

	mu   sync.Mutex // guards stop
	stop context.CancelFunc
	done chan struct{}
}

// New returns the sessions of idx, without a sweeper: expired sessions
// are not found, and stay on disk until [Store.Sweep] or a [Store]
// from [Open] removes them.
func New(idx *index.Store, cfg Config) *Store {
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = DefaultMaxFiles
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.SweepEvery <= 0 {
		cfg.SweepEvery = min(max(cfg.TTL/10, time.Minute), time.Hour)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	db, inTx := idx.Tables(tables.Key{})
	return &Store{idx: idx, db: db, inTx: inTx, cfg: cfg, log: cfg.Logger.With("component", "sessions")}
}

// Open returns the sessions of idx and starts their sweeper, which removes
// expired sessions at once and then every [Config.SweepEvery] until
// [Store.Close]. A read-only index, or a TTL that never expires, gets no
// sweeper.
func Open(ctx context.Context, idx *index.Store, cfg Config) (*Store, error) {
	s := New(idx, cfg)
	if idx.ReadOnly() || s.cfg.TTL < 0 {
		return s, nil
	}
	ctx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	s.done = make(chan struct{})
	go s.sweeper(ctx)
	return s, nil
}

// Close stops the sweeper and waits for it to return. It leaves the index
// open.
func (s *Store) Close() error {
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return nil
}

// Config returns the store's configuration, defaults filled in.
func (s *Store) Config() Config { return s.cfg }

// idPattern is the shape of a session id: 32 hex digits.
var idPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// ValidID reports whether id has the shape of a session id (32 lower-case
// hex digits), which [Store.Folder] and [Store.Delete] require.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Folder returns the folder of session id's uploaded files ("" when
// [Config.Dir] is not set or id is not an id).
func (s *Store) Folder(id string) string {
	if s.cfg.Dir == "" || !ValidID(id) {
		return ""
	}
	return filepath.Join(s.cfg.Dir, id)
}

// Create makes a new, empty session with a random id. Beyond
// [Config.MaxSessions] live sessions it fails with a [*LimitError].
func (s *Store) Create(ctx context.Context) (Session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Session{}, err
	}
	sess := Session{ID: hex.EncodeToString(b[:]), CreatedAt: s.cfg.Now(), Turns: []Turn{}}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
			return err
		}
		if n >= s.cfg.MaxSessions {
			// Expired sessions the sweeper has not removed yet do not count.
			q := `SELECT count(*) FROM sessions s WHERE ` + lastUsed + ` >= ?`
			if err := tx.QueryRowContext(ctx, q, s.cutoff()).Scan(&n); err != nil {
				return err
			}
		}
		if n >= s.cfg.MaxSessions {
			return &LimitError{Limit: "sessions", Max: int64(s.cfg.MaxSessions), Total: int64(n) + 1,
				Msg: fmt.Sprintf("the server holds its limit of %d sessions (cite serve --max-sessions): delete one (DELETE /v1/sessions/{id}) or wait for one to expire", s.cfg.MaxSessions)}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, created_at) VALUES (?, ?)`, sess.ID, sess.CreatedAt.UnixNano())
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	return sess, nil
}

// lastUsed is the SQL of the last use of session s: its creation, its
// latest turn, its latest upload.
const lastUsed = `max(s.created_at,
	coalesce((SELECT max(t.created_at) FROM session_turns t WHERE t.session_id = s.id), 0),
	coalesce((SELECT max(d.indexed_at) FROM documents d JOIN sources src ON src.id = d.source_id WHERE src.name = '` + sourcePrefix + `' || s.id), 0))`

// cutoff is the last use, in unix nanoseconds, before which a session has
// expired (0 when sessions never expire).
func (s *Store) cutoff() int64 {
	if s.cfg.TTL < 0 {
		return 0
	}
	return s.cfg.Now().Add(-s.cfg.TTL).UnixNano()
}

// Get returns the session with id and its turns. An unknown or expired id
// is an error wrapping [index.ErrNotFound].
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	sess := Session{ID: id, Turns: []Turn{}}
	var created int64
	var live bool
	err := s.db.QueryRowContext(ctx, `SELECT created_at, `+lastUsed+` >= ? FROM sessions s WHERE id = ?`, s.cutoff(), id).Scan(&created, &live)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !live {
		return sess, fmt.Errorf("session %q: %w", trimID(id), index.ErrNotFound)
	}
	if err != nil {
		return sess, fmt.Errorf("session %q: %w", trimID(id), err)
	}
	sess.CreatedAt = time.Unix(0, created)
	rows, err := s.db.QueryContext(ctx, `SELECT question, answer, refs, stop_reason, created_at FROM session_turns WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return sess, fmt.Errorf("session %q: %w", trimID(id), err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Turn
		var refs string
		if err := rows.Scan(&t.Question, &t.Answer, &refs, &t.StopReason, &created); err != nil {
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
		return fmt.Errorf("%w: session %q: references are not JSON", index.ErrInvalidInput, trimID(id))
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return index.ErrNotFound
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO session_turns (session_id, seq, question, answer, refs, stop_reason, created_at)
			VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM session_turns WHERE session_id = ?), ?, ?, ?, ?, ?)`,
			id, id, t.Question, t.Answer, refs, t.StopReason, s.cfg.Now().UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("session %q: add turn: %w", trimID(id), err)
	}
	return nil
}

// Documents returns the documents uploaded into session id, by path.
func (s *Store) Documents(ctx context.Context, id string) ([]index.Document, error) {
	return Scope{Session: id}.Documents(ctx, s.idx, Source(id))
}

// Upload is a file about to be uploaded into a session.
type Upload struct {
	Name string // base name
	Size int64
}

// CheckUpload returns a [*LimitError] if session id would hold more than
// [Config.MaxFiles] files or [Config.MaxBytes] bytes with files added (a
// file of a name the session has replaces it). Callers hold the index's
// writer lock from the check to the upload, so that two uploads cannot
// both pass it.
func (s *Store) CheckUpload(ctx context.Context, id string, files []Upload) error {
	docs, err := s.Documents(ctx, id)
	if err != nil {
		return err
	}
	size := map[string]int64{} // by base name
	for _, d := range docs {
		size[filepath.Base(d.Path)] = d.Size
	}
	for _, f := range files {
		size[f.Name] = f.Size
	}
	var total int64
	for _, n := range size {
		total += n
	}
	switch {
	case len(size) > s.cfg.MaxFiles:
		return &LimitError{Limit: "files", Max: int64(s.cfg.MaxFiles), Total: int64(len(size)),
			Msg: fmt.Sprintf("a session holds at most %d files (cite serve --max-session-files); this one has %d and the upload adds %d", s.cfg.MaxFiles, len(docs), len(size)-len(docs))}
	case total > s.cfg.MaxBytes:
		return &LimitError{Limit: "bytes", Max: s.cfg.MaxBytes, Total: total,
			Msg: fmt.Sprintf("a session holds at most %d bytes of files (cite serve --max-session-bytes); with this upload it would hold %d", s.cfg.MaxBytes, total)}
	}
	return nil
}

// Delete removes session id: its turns, its documents from the index and
// its uploaded files. An unknown id is an error wrapping
// [index.ErrNotFound]. It returns the number of documents removed.
func (s *Store) Delete(ctx context.Context, id string) (int, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete session %q: %w", trimID(id), err)
	}
	if n == 0 {
		return 0, fmt.Errorf("session %q: %w", trimID(id), index.ErrNotFound)
	}
	docs, err := s.remove(ctx, id)
	if err != nil {
		return docs, fmt.Errorf("delete session %q: %w", trimID(id), err)
	}
	return docs, nil
}

// remove removes the documents and the folder of a session whose row is
// gone. Its documents go under the index's writer lock, as every write of
// documents does.
func (s *Store) remove(ctx context.Context, id string) (int, error) {
	docs, err := s.idx.Documents(ctx, Source(id))
	if err != nil {
		return 0, err
	}
	removed := 0
	if len(docs) > 0 {
		unlock, err := index.LockWriter(ctx, s.idx.Dir(), nil)
		if err != nil {
			return 0, err
		}
		defer unlock()
		// A transaction for up to 1,024 documents, as cite rm's.
		for batch := range slices.Chunk(docs, 1024) {
			ids := make([]string, len(batch))
			for i, d := range batch {
				ids[i] = d.ID
			}
			if _, err := s.idx.DeleteDocuments(ctx, ids); err != nil {
				return removed, err
			}
			removed += len(batch)
		}
	}
	if dir := s.Folder(id); dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return removed, err
		}
		os.Remove(s.cfg.Dir) // and the folder of sessions, when it is left empty
	}
	return removed, nil
}

// trimID keeps an id from the outside short in messages.
func trimID(id string) string { return short(id) }
