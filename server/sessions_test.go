package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

const testToken = "T0ken-for-tests"

// startToken serves an empty index in dir (the server's defaults, the
// token testToken).
func startToken(t *testing.T, dir string) string {
	t.Helper()
	ts, _, _ := startAt(t, dir, false, nil, server.Config{Token: testToken})
	return ts.URL
}

// doAuth is do with the bearer token.
func doAuth(t *testing.T, method, url, ctype, body string) (int, string) {
	t.Helper()
	resp, out := do(t, method, url, ctype, body, "Authorization", "Bearer "+testToken)
	return resp.StatusCode, out
}

func newSession(t *testing.T, url string) string {
	t.Helper()
	code, out := doAuth(t, "POST", url+"/v1/sessions", "", "")
	var s struct{ ID string }
	json.Unmarshal([]byte(out), &s)
	if code != 201 || s.ID == "" {
		t.Fatalf("new session: %d %s", code, out)
	}
	return s.ID
}

// TestDeleteSession: DELETE /v1/sessions/{id} removes the session, its
// documents from the index and its uploaded files (their folders too),
// behind the same token as the other endpoints, and nothing of another
// session's.
func TestDeleteSession(t *testing.T) {
	dir := t.TempDir()
	url := startToken(t, dir)
	a, b := newSession(t, url), newSession(t, url)
	for _, id := range []string{a, b} {
		ct, body := multipartBody(t, "plan.md", "# Plan\n\nThe quarterly plan of "+id+" moves the apiary.\n", "notes.txt", "notes of "+id)
		if code, out := doAuth(t, "POST", url+"/v1/sessions/"+id+"/documents", ct, body); code != 201 {
			t.Fatalf("upload: %d %s", code, out)
		}
	}
	for _, tc := range []struct {
		name   string
		auth   bool
		id     string
		status int
	}{
		{"without the token", false, a, 401},
		{"not an id", true, "../../etc", 404},
		{"unknown", true, "0123456789abcdef0123456789abcdef", 404},
		{"a session", true, a, 200},
		{"twice", true, a, 404},
	} {
		var code int
		var out string
		if tc.auth {
			code, out = doAuth(t, "DELETE", url+"/v1/sessions/"+tc.id, "", "")
		} else {
			resp, o := do(t, "DELETE", url+"/v1/sessions/"+tc.id, "", "")
			code, out = resp.StatusCode, o
		}
		if code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, code, out, tc.status)
		}
		if tc.status == 200 && !strings.Contains(out, `"documents":2`) {
			t.Errorf("%s: %s", tc.name, out)
		}
	}
	if code, _ := doAuth(t, "GET", url+"/v1/sessions/"+a, "", ""); code != 404 {
		t.Errorf("a deleted session answers %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "uploads", "sessions", a)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deleted session's files are left: %v", err)
	}
	st, err := index.Open(t.Context(), dir, index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if docs, _ := st.Documents(t.Context(), "session:"+a); len(docs) != 0 {
		t.Errorf("the deleted session's documents are left: %d", len(docs))
	}
	code, out := doAuth(t, "GET", url+"/v1/sessions/"+b, "", "")
	var got struct{ Documents []struct{ Path string } }
	json.Unmarshal([]byte(out), &got)
	if code != 200 || len(got.Documents) != 2 {
		t.Errorf("the other session: %d %s", code, out)
	}
	for _, d := range got.Documents {
		if _, err := os.Stat(d.Path); err != nil {
			t.Errorf("the other session lost a file: %v", err)
		}
	}
	// The last session goes with its folder, and the folder of sessions.
	doAuth(t, "DELETE", url+"/v1/sessions/"+b, "", "")
	if _, err := os.Stat(filepath.Join(dir, "uploads", "sessions")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty folder of sessions is left: %v", err)
	}
}

// TestUploadFoldersRemoved: removing what was uploaded removes the
// folders it leaves empty; an upload that keeps nothing leaves none.
func TestUploadFoldersRemoved(t *testing.T) {
	dir := t.TempDir()
	url := startToken(t, dir)
	uploads := filepath.Join(dir, "uploads")
	exists := func(p string) bool { _, err := os.Stat(filepath.Join(uploads, p)); return err == nil }

	ct, body := multipartBody(t, "notes.md", "# Notes\n\nSome notes.\n")
	code, out := doAuth(t, "POST", url+"/v1/documents?source=notes", ct, body)
	var up uploadResult
	json.Unmarshal([]byte(out), &up)
	if code != 201 || !exists("sources/notes/notes.md") {
		t.Fatalf("upload: %d %s", code, out)
	}
	if code, out := doAuth(t, "DELETE", url+"/v1/documents/"+up.Files[0].Document.ID, "", ""); code != 200 {
		t.Fatalf("delete: %d %s", code, out)
	}
	if exists("sources/notes") || exists("sources") {
		t.Error("deleting the last document of a source leaves its folder")
	}
	doAuth(t, "POST", url+"/v1/documents?source=more", ct, body)
	if code, out := doAuth(t, "DELETE", url+"/v1/sources/more", "", ""); code != 200 || exists("sources/more") {
		t.Errorf("deleting a source leaves its folder: %d %s", code, out)
	}
	// Skipped (empty) and refused uploads keep nothing.
	ct, body = multipartBody(t, "empty.md", "")
	if code, out := doAuth(t, "POST", url+"/v1/documents?source=empty", ct, body); code != 422 || exists("sources/empty") {
		t.Errorf("a skipped upload: %d %s; folder kept: %v", code, out, exists("sources/empty"))
	}
	ct, body = multipartBody(t, ".hidden.md", "# x")
	if code, _ := doAuth(t, "POST", url+"/v1/documents?source=bad", ct, body); code != 400 || exists("sources/bad") {
		t.Errorf("a refused upload: %d; folder kept: %v", code, exists("sources/bad"))
	}
	id := newSession(t, url)
	ct, body = multipartBody(t, "empty.md", "")
	doAuth(t, "POST", url+"/v1/sessions/"+id+"/documents", ct, body)
	if exists("sessions/" + id) {
		t.Error("a skipped upload into a session leaves its folder")
	}
	if !exists("") {
		t.Error("the upload folder itself is removed")
	}
}

// TestSessionsApart: two sessions upload the same file (and one a file of
// its own); each question cites its own session's copy only, and neither
// the other's documents nor their sources are reachable from the other
// session or from outside.
func TestSessionsApart(t *testing.T) {
	dir := t.TempDir()
	url := startToken(t, dir)
	a, b := newSession(t, url), newSession(t, url)
	page := "# Plan\n\nThe quarterly plan moves the apiary to the orchard in May.\n"
	docs := map[string][]string{} // session -> document ids
	for _, id := range []string{a, b} {
		files := []string{"plan.md", page}
		if id == b {
			files = append(files, "own.md", "# Own\n\nThe quarterly plan of b alone moves the apiary to the orchard.\n")
		}
		ct, body := multipartBody(t, files...)
		code, out := doAuth(t, "POST", url+"/v1/sessions/"+id+"/documents", ct, body)
		var up uploadResult
		json.Unmarshal([]byte(out), &up)
		if code != 201 {
			t.Fatalf("upload: %d %s", code, out)
		}
		for _, f := range up.Files {
			docs[id] = append(docs[id], f.Document.ID)
		}
	}
	for _, tc := range []struct{ own, other string }{{a, b}, {b, a}} {
		code, out := doAuth(t, "POST", url+"/v1/ask", "application/json", `{"question":"where does the quarterly plan move the apiary","k":10,"session_id":"`+tc.own+`"}`)
		var res askResult
		json.Unmarshal([]byte(out), &res)
		if code != 200 || len(res.References) == 0 {
			t.Fatalf("ask in %s: %d %s", tc.own, code, out)
		}
		if strings.Contains(out, tc.other) {
			t.Errorf("session %s sees session %s: %s", tc.own, tc.other, out)
		}
		for _, r := range res.References {
			if !strings.Contains(r.Source, tc.own) {
				t.Errorf("session %s cites %s", tc.own, r.Source)
			}
		}
		for _, doc := range docs[tc.other] {
			for _, q := range []string{"?session=" + tc.own, ""} {
				if code, out := doAuth(t, "GET", url+"/v1/documents/"+doc+"/source"+q, "", ""); code != 404 {
					t.Errorf("session %s's document served with %q: %d %s", tc.other, q, code, out)
				}
			}
		}
		if code, _ := doAuth(t, "GET", url+"/v1/documents/"+docs[tc.own][0]+"/source?session="+tc.own, "", ""); code != 200 {
			t.Errorf("session %s's own document: %d", tc.own, code)
		}
	}
	for _, u := range []string{"/v1/sources", "/v1/documents"} {
		if _, out := doAuth(t, "GET", url+u, "", ""); strings.Contains(out, a) || strings.Contains(out, b) {
			t.Errorf("%s lists a session's documents: %s", u, out)
		}
	}
	if _, out := doAuth(t, "POST", url+"/v1/search", "application/json", `{"query":"quarterly plan apiary orchard"}`); strings.Contains(out, a) || strings.Contains(out, b) {
		t.Errorf("search finds a session's document: %s", out)
	}
}

// TestSessionHistory: a question asked in a session reaches the model
// after the session's earlier questions and answers (the answers without
// their citation numbers), as a conversation; a question outside it does
// not.
func TestSessionHistory(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"Foragers dance [doc:1]."}},
		{Text: []string{"Their sisters follow [doc:1]."}},
		{Text: []string{"Alone."}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{Token: testToken})
	id := newSession(t, ts.URL)
	for _, q := range []string{"how do bees find flowers", "and then?"} {
		if code, out := doAuth(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"`+q+`","session_id":"`+id+`"}`); code != 200 {
			t.Fatalf("ask %q: %d %s", q, code, out)
		}
	}
	if code, out := doAuth(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"and then?"}`); code != 200 {
		t.Fatalf("ask outside the session: %d %s", code, out)
	}
	conversation := func(req modeltest.Request) []string {
		var out []string
		for _, m := range req.Messages {
			if m.Role == "user" || m.Role == "assistant" {
				out = append(out, m.Role+": "+m.Content)
			}
		}
		return out
	}
	reqs := srv.Requests()
	want := []string{"user: how do bees find flowers", "assistant: Foragers dance.", "user: and then?"}
	if got := conversation(reqs[1]); !slices.Equal(got, want) {
		t.Errorf("second question of the session: the model got %q, want %q", got, want)
	}
	if got := conversation(reqs[2]); !slices.Equal(got, want[2:]) {
		t.Errorf("question outside the session: the model got %q, want %q", got, want[2:])
	}
}

// TestSessionStopReason: a session keeps why each answer stopped, streamed
// or not, and GET /v1/sessions/{id} gives it with the turn, so that a chat
// page reloaded still says which answer was cut short.
func TestSessionStopReason(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"Foragers dance [doc:1] and then"}, Finish: "length"},
		{Text: []string{"Their sisters follow [doc:1]."}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{Token: testToken})
	id := newSession(t, ts.URL)
	resp, out := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"how do bees find flowers","session_id":"`+id+`"}`,
		"Authorization", "Bearer "+testToken, "Accept", "text/event-stream")
	if resp.StatusCode != 200 || !strings.Contains(out, `"stop_reason":"length"`) {
		t.Fatalf("streamed ask: %d %s", resp.StatusCode, out)
	}
	if code, out := doAuth(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"and then?","session_id":"`+id+`"}`); code != 200 {
		t.Fatalf("ask: %d %s", code, out)
	}
	code, out := doAuth(t, "GET", ts.URL+"/v1/sessions/"+id, "", "")
	var got struct {
		Turns []map[string]any `json:"turns"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 200 || err != nil || len(got.Turns) != 2 {
		t.Fatalf("GET session: %d %s %v", code, out, err)
	}
	for i, want := range []string{"length", "stop"} {
		if r, ok := got.Turns[i]["stop_reason"]; !ok || r != want {
			t.Errorf("turn %d: stop_reason %v, want %q", i+1, r, want)
		}
	}
}
