package session_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/internal/tables"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
)

// clock is a settable clock for [session.Config.Now].
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func openIndex(t *testing.T) (*index.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := index.Open(t.Context(), dir, index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

// upload does what cite serve does with a file uploaded into session id:
// it writes it into the session's folder and indexes it into the
// session's data source.
func upload(t *testing.T, st *index.Store, s *session.Store, id, name, text string) {
	t.Helper()
	dir := s.Folder(id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: session.Source(id)})
	if err == nil {
		_, err = ix.Index(t.Context(), p)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestSessions(t *testing.T) {
	ctx := t.Context()
	st, _ := openIndex(t)
	s := session.New(st, session.Config{})
	a, err := s.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Create(ctx)
	if !session.ValidID(a.ID) || a.ID == b.ID {
		t.Fatalf("ids %q %q", a.ID, b.ID)
	}
	for i, q := range []string{"first?", "second?"} {
		if err := s.AppendTurn(ctx, a.ID, session.Turn{Question: q, Answer: "answer " + q, References: json.RawMessage(`[{"number":1}]`)}); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	got, err := s.Get(ctx, a.ID)
	if err != nil || len(got.Turns) != 2 || got.Turns[0].Question != "first?" || got.Turns[1].Answer != "answer second?" || string(got.Turns[0].References) != `[{"number":1}]` {
		t.Fatalf("%+v %v", got, err)
	}
	if got, _ := s.Get(ctx, b.ID); len(got.Turns) != 0 {
		t.Errorf("turns crossed sessions: %+v", got)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"unknown session", s.AppendTurn(ctx, "nosuch", session.Turn{Question: "q"}), index.ErrNotFound},
		{"references not JSON", s.AppendTurn(ctx, a.ID, session.Turn{References: json.RawMessage("{")}), index.ErrInvalidInput},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if _, err := s.Get(ctx, "nosuch"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
}

// TestStopReason: a turn keeps why its answer stopped, and a session store
// of schema 8, whose turns have no stop reason, opens with its turns (their
// stop reason "") and takes new turns with one.
func TestStopReason(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	s := session.New(st, session.Config{})
	sess, _ := s.Create(ctx)
	if err := s.AppendTurn(ctx, sess.ID, session.Turn{Question: "q", Answer: "cut", StopReason: "length"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, sess.ID); err != nil || len(got.Turns) != 1 || got.Turns[0].StopReason != "length" {
		t.Fatalf("%+v %v", got, err)
	}

	// Back to schema 8: no stop_reason column.
	db, _ := st.Tables(tables.Key{})
	for _, q := range []string{`ALTER TABLE session_turns DROP COLUMN stop_reason`, `PRAGMA user_version = 8`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	st, err := index.Open(ctx, dir, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s = session.New(st, session.Config{})
	if err := s.AppendTurn(ctx, sess.ID, session.Turn{Question: "q2", Answer: "whole", StopReason: "stop"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, sess.ID)
	if err != nil || len(got.Turns) != 2 || got.Turns[0].Answer != "cut" || got.Turns[0].StopReason != "" || got.Turns[1].StopReason != "stop" {
		t.Fatalf("after the upgrade: %+v %v", got, err)
	}
	b, _ := json.Marshal(got.Turns[1])
	if !strings.Contains(string(b), `"stop_reason":"stop"`) {
		t.Errorf("turn as JSON: %s", b)
	}
}

// TestRecoverKeepsSessions: check --repair rebuilds the index by copying
// its tables; sessions and their turns are among them.
func TestRecoverKeepsSessions(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s := session.New(st, session.Config{})
	sess, _ := s.Create(ctx)
	if err := s.AppendTurn(ctx, sess.ID, session.Turn{Question: "q", Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	rec, err := index.Recover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Sessions != 1 || rec.Turns != 1 {
		t.Errorf("recovered %d sessions, %d turns; want 1, 1", rec.Sessions, rec.Turns)
	}
	st, err = index.Open(ctx, dir, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := session.New(st, session.Config{}).Get(ctx, sess.ID); err != nil || len(got.Turns) != 1 || got.Turns[0].Answer != "a" {
		t.Errorf("after recovery: %+v %v", got, err)
	}
}

// TestExpiry: a session unused for its TTL is not found, and a sweep
// removes it with its documents and folder; what no session owns goes
// too. The clock is injected: nothing sleeps.
func TestExpiry(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	const ttl = time.Hour
	t0 := time.Now() // uploads are stamped by the real clock
	c := &clock{t: t0}
	s := session.New(st, session.Config{Dir: filepath.Join(dir, "uploads", "sessions"), TTL: ttl, Now: c.Now})
	a, _ := s.Create(ctx) // asks a question at half time: lives on
	b, _ := s.Create(ctx) // uploads at once: expires
	idle, _ := s.Create(ctx)
	upload(t, st, s, a.ID, "a.md", "# A\n\nalpha text\n")
	upload(t, st, s, b.ID, "b.md", "# B\n\nbeta text\n")
	// What no session owns: documents and a folder of a session that is
	// gone (an upload that raced a deletion).
	const gone = "0123456789abcdef0123456789abcdef"
	upload(t, st, s, gone, "g.md", "# G\n\ngamma text\n")

	c.Set(t0.Add(ttl / 2))
	if err := s.AppendTurn(ctx, a.ID, session.Turn{Question: "q", Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	c.Set(t0.Add(ttl + time.Minute))
	for _, tc := range []struct {
		name string
		id   string
		live bool
	}{{"used at half time", a.ID, true}, {"uploaded at once", b.ID, false}, {"never used", idle.ID, false}} {
		if _, err := s.Get(ctx, tc.id); (err == nil) != tc.live || err != nil && !errors.Is(err, index.ErrNotFound) {
			t.Errorf("%s: Get: %v, want live %v", tc.name, err, tc.live)
		}
	}
	n, err := s.Sweep(ctx)
	if err != nil || n != 2 {
		t.Fatalf("sweep: %d sessions, %v; want 2", n, err)
	}
	for _, tc := range []struct {
		id   string
		docs int
	}{{a.ID, 1}, {b.ID, 0}, {gone, 0}} {
		docs, err := st.Documents(ctx, session.Source(tc.id))
		if err != nil || len(docs) != tc.docs {
			t.Errorf("session %s: %d documents, %v; want %d", tc.id, len(docs), err, tc.docs)
		}
		if _, err := os.Stat(s.Folder(tc.id)); (err == nil) != (tc.docs > 0) {
			t.Errorf("session %s: folder: %v", tc.id, err)
		}
	}
	if _, err := s.Get(ctx, a.ID); err != nil {
		t.Errorf("a live session was swept: %v", err)
	}
	// The last one goes, and the folder of the sessions with it.
	c.Set(t0.Add(2 * ttl))
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("second sweep: %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "uploads", "sessions")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty folder of sessions is left: %v", err)
	}
	if names, _ := st.SourceNames(ctx); len(names) != 0 {
		t.Errorf("sources left: %v", names)
	}
}

// TestSweeper: Open starts a sweeper that removes expired sessions at
// once, and Close stops it.
func TestSweeper(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	t0 := time.Now()
	c := &clock{t: t0}
	cfg := session.Config{Dir: filepath.Join(dir, "sessions"), TTL: time.Hour, Now: c.Now}
	old, _ := session.New(st, cfg).Create(ctx)
	upload(t, st, session.New(st, cfg), old.ID, "old.md", "# Old\n\ntext\n")
	c.Set(t0.Add(2 * time.Hour))
	swept := make(chan struct{}, 1)
	session.SetAfterSweep(func() {
		select {
		case swept <- struct{}{}:
		default:
		}
	})
	defer session.SetAfterSweep(nil)
	s, err := session.Open(ctx, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-swept:
	case <-ctx.Done():
		t.Fatal("no sweep")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if docs, _ := st.Documents(ctx, session.Source(old.ID)); len(docs) != 0 {
		t.Errorf("the expired session's documents are left: %d", len(docs))
	}
	if _, err := os.Stat(s.Folder(old.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the expired session's folder is left: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestLimits: the caps on sessions and on each session's uploads answer a
// LimitError naming the limit; expired sessions do not count.
func TestLimits(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	t0 := time.Now()
	c := &clock{t: t0}
	s := session.New(st, session.Config{Dir: filepath.Join(dir, "sessions"), TTL: time.Hour, MaxSessions: 2, MaxFiles: 2, MaxBytes: 100, Now: c.Now})
	a, _ := s.Create(ctx)
	if _, err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	var limit *session.LimitError
	if _, err := s.Create(ctx); !errors.As(err, &limit) || limit.Limit != "sessions" || limit.Max != 2 || !errors.Is(err, session.ErrLimit) {
		t.Fatalf("a third session: %v", err)
	}
	c.Set(t0.Add(2 * time.Hour)) // both expired, not yet swept
	if _, err := s.Create(ctx); err != nil {
		t.Errorf("expired sessions count: %v", err)
	}
	c.Set(t0)
	upload(t, st, s, a.ID, "one.md", "# One\n\nforty bytes of text, more or less.\n")
	docs, _ := s.Documents(ctx, a.ID)
	used := docs[0].Size
	for _, tc := range []struct {
		name  string
		files []session.Upload
		limit string
	}{
		{"a second file", []session.Upload{{"two.md", 10}}, ""},
		{"a third file", []session.Upload{{"two.md", 10}, {"three.md", 10}}, "files"},
		{"the same name again", []session.Upload{{"one.md", 90}, {"two.md", 10}}, ""},
		{"too many bytes", []session.Upload{{"two.md", 101 - used}}, "bytes"},
		{"just enough bytes", []session.Upload{{"two.md", 100 - used}}, ""},
	} {
		err := s.CheckUpload(ctx, a.ID, tc.files)
		switch {
		case tc.limit == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.limit != "" && (!errors.As(err, &limit) || limit.Limit != tc.limit):
			t.Errorf("%s: %v, want the %s limit", tc.name, err, tc.limit)
		}
	}
}

// TestDelete: Delete removes a session's row, documents and folder, and
// nothing of another session's.
func TestDelete(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	s := session.New(st, session.Config{Dir: filepath.Join(dir, "sessions")})
	a, _ := s.Create(ctx)
	b, _ := s.Create(ctx)
	upload(t, st, s, a.ID, "a.md", "# A\n\nalpha\n")
	upload(t, st, s, a.ID, "a2.md", "# A2\n\nalpha two\n")
	upload(t, st, s, b.ID, "b.md", "# B\n\nbeta\n")
	if n, err := s.Delete(ctx, a.ID); err != nil || n != 2 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if _, err := s.Get(ctx, a.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("deleted session found: %v", err)
	}
	if docs, _ := st.Documents(ctx, session.Source(a.ID)); len(docs) != 0 {
		t.Errorf("documents left: %d", len(docs))
	}
	if _, err := os.Stat(s.Folder(a.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("folder left: %v", err)
	}
	if docs, _ := s.Documents(ctx, b.ID); len(docs) != 1 {
		t.Errorf("the other session lost its document")
	}
	if _, err := s.Delete(ctx, a.ID); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("delete twice: %v", err)
	}
}
