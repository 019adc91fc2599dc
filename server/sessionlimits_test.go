package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/server"
)

// startSessions serves an empty index in dir with the sessions of cfg
// (its Dir set to dir/uploads/sessions), extractive answers, and the token
// "T0ken-for-tests".
func startSessions(t *testing.T, dir string, cfg session.Config) *httptest.Server {
	t.Helper()
	ts, _, _ := startEngine(t, dir, false, nil, server.Config{Token: testToken}, answer.Config{}, func(d *server.Deps, st *index.Store) {
		cfg.Dir = filepath.Join(d.UploadDir, "sessions")
		d.Sessions = session.New(st, cfg)
	})
	return ts
}

// errorCode returns the code of a JSON error body.
func errorCode(out string) string {
	var e struct {
		Error struct{ Code, Message string }
	}
	json.Unmarshal([]byte(out), &e)
	return e.Error.Code
}

// TestSessionLimits: the caps on sessions and on each session's uploads
// answer 429 and 413 with a code and a message naming the limit, and
// index nothing.
func TestSessionLimits(t *testing.T) {
	dir := t.TempDir()
	ts := startSessions(t, dir, session.Config{MaxSessions: 2, MaxFiles: 2, MaxBytes: 1000})
	a := newSession(t, ts.URL)
	newSession(t, ts.URL)
	code, out := doAuth(t, "POST", ts.URL+"/v1/sessions", "", "")
	if code != 429 || errorCode(out) != "too_many_sessions" || !strings.Contains(out, "limit of 2 sessions") || !strings.Contains(out, "--max-sessions") {
		t.Errorf("a third session: %d %s", code, out)
	}
	for _, tc := range []struct {
		name   string
		files  []string
		status int
		code   string
		says   string
	}{
		{"three files", []string{"a.md", "# A\n\na", "b.md", "# B\n\nb", "c.md", "# C\n\nc"}, 413, "session_files_limit", "at most 2 files"},
		{"too many bytes", []string{"big.md", "# Big\n\n" + strings.Repeat("word ", 250)}, 413, "session_bytes_limit", "a session holds at most 1 kB of files (cite serve --max-session-bytes 1000); with this upload it would hold 1.3 kB"},
		{"two files", []string{"a.md", "# A\n\nalpha", "b.md", "# B\n\nbeta"}, 201, "", ""},
		{"one more", []string{"c.md", "# C\n\ngamma"}, 413, "session_files_limit", "--max-session-files"},
		{"a file again", []string{"a.md", "# A\n\nalpha again"}, 201, "", ""},
	} {
		ct, body := multipartBody(t, tc.files...)
		code, out := doAuth(t, "POST", ts.URL+"/v1/sessions/"+a+"/documents", ct, body)
		if code != tc.status || errorCode(out) != tc.code || !strings.Contains(out, tc.says) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, code, out, tc.status, tc.code)
		}
	}
	_, out = doAuth(t, "GET", ts.URL+"/v1/sessions/"+a, "", "")
	var got struct{ Documents []struct{ Path string } }
	json.Unmarshal([]byte(out), &got)
	if len(got.Documents) != 2 {
		t.Errorf("documents after refused uploads: %s", out)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "uploads", "sessions", a))
	if len(entries) != 2 {
		t.Errorf("files after refused uploads: %v", entries)
	}
}

// TestSessionExpiry: a session unused for its TTL is gone from the API
// (the clock is injected: nothing sleeps).
func TestSessionExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := startSessions(t, t.TempDir(), session.Config{TTL: time.Hour, Now: clock})
	id := newSession(t, ts.URL)
	mu.Lock()
	now = now.Add(59 * time.Minute)
	mu.Unlock()
	if code, out := doAuth(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"anything","session_id":"`+id+`"}`); code != 200 {
		t.Fatalf("ask: %d %s", code, out)
	}
	mu.Lock()
	now = now.Add(59 * time.Minute) // an hour after creation, not after the question
	mu.Unlock()
	if code, out := doAuth(t, "GET", ts.URL+"/v1/sessions/"+id, "", ""); code != 200 {
		t.Fatalf("a session used 59 minutes ago: %d %s", code, out)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	for _, tc := range []struct{ method, path, ctype, body string }{
		{"GET", "/v1/sessions/" + id, "", ""},
		{"POST", "/v1/ask", "application/json", `{"question":"anything","session_id":"` + id + `"}`},
	} {
		if code, out := doAuth(t, tc.method, ts.URL+tc.path, tc.ctype, tc.body); code != 404 || !strings.Contains(out, "expired") {
			t.Errorf("%s %s of an expired session: %d %s", tc.method, tc.path, code, out)
		}
	}
}
