package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/server"
)

// multipartBody builds a multipart/form-data body of files, each a name
// and its content, in parts named "file".
func multipartBody(t *testing.T, files ...string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, files[i]))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	mw.Close()
	return mw.FormDataContentType(), buf.String()
}

type uploadResult struct {
	Files []struct {
		Name     string `json:"name"`
		Outcome  string `json:"outcome"`
		Reason   string `json:"reason"`
		Document *struct {
			ID     string `json:"id"`
			Path   string `json:"path"`
			Source string `json:"source"`
		} `json:"document"`
	} `json:"files"`
}

type askResult struct {
	Text       string `json:"text"`
	References []struct {
		Source string `json:"source"`
		Quote  string `json:"quote"`
	} `json:"references"`
}

func cites(res askResult, path string) bool {
	for _, r := range res.References {
		if r.Source == path {
			return true
		}
	}
	return false
}

func TestUploadSearchDelete(t *testing.T) {
	dir := t.TempDir()
	ts, _, _ := startAt(t, dir, true, nil, server.Config{})
	ct, body := multipartBody(t, "zorb.md", "# The zorbulator\n\nThe zorbulator hums at forty-two hertz when the hive is calm.\n")
	resp, out := do(t, "POST", ts.URL+"/v1/documents?source=notes", ct, body)
	var up uploadResult
	json.Unmarshal([]byte(out), &up)
	if resp.StatusCode != 201 || len(up.Files) != 1 || up.Files[0].Outcome != "added" || up.Files[0].Document == nil {
		t.Fatalf("upload: %d %s", resp.StatusCode, out)
	}
	doc := up.Files[0].Document
	if want := filepath.Join(dir, "uploads", "sources", "notes", "zorb.md"); doc.Path != want || doc.Source != "notes" {
		t.Errorf("stored at %s in %s, want %s in notes", doc.Path, doc.Source, want)
	}
	if resp, out := do(t, "GET", ts.URL+"/v1/documents?source=notes", "", ""); resp.StatusCode != 200 || !strings.Contains(out, doc.ID) {
		t.Errorf("list: %d %s", resp.StatusCode, out)
	}
	// The same file again: unchanged.
	if resp, out := do(t, "POST", ts.URL+"/v1/documents?source=notes", ct, body); resp.StatusCode != 201 || !strings.Contains(out, `"unchanged"`) {
		t.Errorf("upload again: %d %s", resp.StatusCode, out)
	}
	resp, out = do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what does the zorbulator hum at"}`)
	var res askResult
	json.Unmarshal([]byte(out), &res)
	if resp.StatusCode != 200 || !cites(res, doc.Path) || !strings.Contains(res.Text, "forty-two hertz") {
		t.Fatalf("ask: %d %s", resp.StatusCode, out)
	}
	if resp, out := do(t, "DELETE", ts.URL+"/v1/documents/"+doc.ID, "", ""); resp.StatusCode != 200 {
		t.Fatalf("delete: %d %s", resp.StatusCode, out)
	}
	if _, err := os.Stat(doc.Path); !os.IsNotExist(err) {
		t.Errorf("the uploaded copy is still there: %v", err)
	}
	if _, out := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"zorbulator"}`); strings.Contains(out, "zorb.md") {
		t.Errorf("found after deletion: %s", out)
	}
	if resp, _ := do(t, "DELETE", ts.URL+"/v1/documents/"+doc.ID, "", ""); resp.StatusCode != 404 {
		t.Errorf("delete twice: %d", resp.StatusCode)
	}
	// A whole source.
	ct, body = multipartBody(t, "a.txt", "Alpha notes about wax.", "b.txt", "Beta notes about comb.")
	if resp, out := do(t, "POST", ts.URL+"/v1/documents?source=scratch", ct, body); resp.StatusCode != 201 || strings.Count(out, `"added"`) != 2 {
		t.Fatalf("upload two: %d %s", resp.StatusCode, out)
	}
	if resp, out := do(t, "DELETE", ts.URL+"/v1/sources/scratch", "", ""); resp.StatusCode != 200 || !strings.Contains(out, `"documents":2`) {
		t.Errorf("delete source: %d %s", resp.StatusCode, out)
	}
	if _, out := do(t, "GET", ts.URL+"/v1/sources", "", ""); strings.Contains(out, "scratch") {
		t.Errorf("source still listed: %s", out)
	}
	if resp, _ := do(t, "DELETE", ts.URL+"/v1/sources/scratch", "", ""); resp.StatusCode != 404 {
		t.Errorf("delete a source twice: %d", resp.StatusCode)
	}
}

// TestSessionDocuments: documents uploaded into a session are searched by
// its questions only; its history keeps each answer's references and
// survives a restart.
func TestSessionDocuments(t *testing.T) {
	dir := t.TempDir()
	ts, _, st := startAt(t, dir, true, nil, server.Config{})
	newSession := func() string {
		resp, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
		var s struct{ ID string }
		json.Unmarshal([]byte(out), &s)
		if resp.StatusCode != 201 || len(s.ID) != 32 {
			t.Fatalf("new session: %d %s", resp.StatusCode, out)
		}
		return s.ID
	}
	a, b := newSession(), newSession()
	ct, body := multipartBody(t, "plan.md", "# Plan\n\nThe quarterly plan moves the apiary to the orchard in May.\n")
	resp, out := do(t, "POST", ts.URL+"/v1/sessions/"+a+"/documents", ct, body)
	var up uploadResult
	json.Unmarshal([]byte(out), &up)
	if resp.StatusCode != 201 || up.Files[0].Document == nil {
		t.Fatalf("session upload: %d %s", resp.StatusCode, out)
	}
	path := up.Files[0].Document.Path
	ask := func(session string) askResult {
		t.Helper()
		q := `{"question":"where does the quarterly plan move the apiary"`
		if session != "" {
			q += `,"session_id":"` + session + `"`
		}
		resp, out := do(t, "POST", ts.URL+"/v1/ask", "application/json", q+"}")
		if resp.StatusCode != 200 {
			t.Fatalf("ask in %q: %d %s", session, resp.StatusCode, out)
		}
		var res askResult
		json.Unmarshal([]byte(out), &res)
		return res
	}
	if res := ask(a); !cites(res, path) {
		t.Errorf("session a does not cite its document: %+v", res)
	}
	for _, other := range []string{b, ""} {
		if res := ask(other); cites(res, path) {
			t.Errorf("session %q cites session a's document", other)
		}
	}
	for _, u := range []string{"/v1/sources", "/v1/documents"} {
		if _, out := do(t, "GET", ts.URL+u, "", ""); strings.Contains(out, "session:") || strings.Contains(out, path) {
			t.Errorf("%s lists a session's documents: %s", u, out)
		}
	}
	if _, out := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"quarterly plan apiary orchard"}`); strings.Contains(out, "plan.md") {
		t.Errorf("search finds a session's document: %s", out)
	}
	if resp, _ := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"q","session_id":"0123456789abcdef0123456789abcdef"}`); resp.StatusCode != 404 {
		t.Errorf("ask in an unknown session: %d", resp.StatusCode)
	}
	// The history, then again after a restart.
	check := func(url string) {
		t.Helper()
		resp, out := do(t, "GET", url+"/v1/sessions/"+a, "", "")
		var s struct {
			Turns []struct {
				Question   string
				References []struct{ Source string }
			}
			Documents []struct{ Path string }
		}
		json.Unmarshal([]byte(out), &s)
		if resp.StatusCode != 200 || len(s.Turns) != 1 || len(s.Turns[0].References) == 0 || len(s.Documents) != 1 || s.Documents[0].Path != path {
			t.Fatalf("session: %d %s", resp.StatusCode, out)
		}
	}
	check(ts.URL)
	ts.Close()
	st.Close()
	ts2, _, _ := startAt(t, dir, false, nil, server.Config{})
	check(ts2.URL)
}

func TestUploadHostile(t *testing.T) {
	dir := t.TempDir()
	ts, _, _ := startAt(t, dir, true, nil, server.Config{MaxUploadBytes: 2000})
	url := ts.URL + "/v1/documents?source=notes"
	for _, tc := range []struct {
		name   string
		ctype  string
		body   string
		status int
		code   string
	}{
		{"traversal", "", "../evil.md", 400, "bad_file_name"},
		{"absolute", "", "/tmp/evil.md", 400, "bad_file_name"},
		{"backslashes", "", `..\..\evil.md`, 400, "bad_file_name"},
		{"NUL", "", "a\x00b.md", 400, "bad_file_name"},
		{"right-to-left override", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"report\u202edm.txt\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"zero-width space", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\u200bb.md\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"line separator", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\u2028b.md\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"traversal percent-encoded", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"..%2Fevil.md\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"traversal in filename*", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ok.md\"; filename*=UTF-8''..%2F..%2Fevil.md\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"NUL percent-encoded", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a%00b.md\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"filename* of another charset", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename*=koi8-r''%C1.md\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"duplicate filename", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.md\"; filename=\"b.md\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_multipart"},
		{"bare filename", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_multipart"},
		{"no filename", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nnotes\r\n--xyz--\r\n", 400, "bad_file_name"},
		{"hidden", "", ".hidden.md", 400, "bad_file_name"},
		{"binary extension", "", "tool.exe", 400, "bad_file_name"},
		{"no extension", "", "README", 400, `bad_file_name","message":"file name \"README\" of the file part: an extension is required: Markdown (.md), HTML (.html) or text (.txt)`},
		{"trailing dot", "", "notes.", 400, "bad_file_name"},
		{"too long a name", "", strings.Repeat("n", 300) + ".md", 400, "bad_file_name"},
		{"too large", "", "big.md", 413, `file_too_large","message":"big.md is over 2 kB (cite serve --max-upload 2000)`},
		// The body's limit, room for 8 files and 1 MiB, read in units.
		{"body too large", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\n" + strings.Repeat("x", 1_100_000) + "\r\n--xyz--\r\n", 413,
			`too_large","message":"the body is over 1.1 MB: 8 files of at most 2 kB (cite serve --max-upload 2000) and 1 MiB`},
		{"JSON instead", "application/json", `{"file":"x"}`, 415, "bad_content_type"},
		{"malformed multipart", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.md\"\r\n\r\nunterminated", 400, "bad_multipart"},
		{"no file", "multipart/form-data; boundary=xyz", "--xyz--\r\n", 400, "no_file"},
		{"bad source", "", "ok.md", 400, "bad_source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctype, body := tc.ctype, tc.body
			if ctype == "" {
				content := "Some notes."
				if tc.name == "too large" {
					content = strings.Repeat("word ", 500)
				}
				ctype, body = multipartBody(t, tc.body, content)
			}
			u := url
			if tc.name == "bad source" {
				u = ts.URL + "/v1/documents?source=../../etc"
			}
			resp, out := do(t, "POST", u, ctype, body)
			if resp.StatusCode != tc.status || !strings.Contains(out, `"code":"`+tc.code+`"`) {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, out, tc.status, tc.code)
			}
		})
	}
	// Refused by ingest's rules: not an error of the request, reported.
	ct, body := multipartBody(t, "blob.txt", "bin\x00ary")
	if resp, out := do(t, "POST", url, ct, body); resp.StatusCode != 422 || !strings.Contains(out, `"skipped"`) || !strings.Contains(out, "binary") {
		t.Errorf("binary: %d %s", resp.StatusCode, out)
	}
	// Nothing was written outside the upload folder, nor left in it.
	for _, p := range []string{filepath.Join(dir, "evil.md"), filepath.Join(dir, "..", "evil.md"), "/tmp/evil.md"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "uploads", "sources", "notes"))
	if len(entries) != 0 {
		t.Errorf("left in the upload folder: %v", entries)
	}
	// Another request is served meanwhile.
	if resp, _ := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"waggle dance"}`); resp.StatusCode != 200 {
		t.Errorf("search after hostile uploads: %d", resp.StatusCode)
	}
}

// TestUploadEncodedNames: a file name its sender percent-encoded (the
// whole of an ASCII name, as RFC 7578 allows; a quote as the HTML standard
// escapes it) or gave as RFC 5987's filename* is stored, indexed and
// answered under the name meant, not its encoding.
func TestUploadEncodedNames(t *testing.T) {
	dir := t.TempDir()
	ts, _, _ := startAt(t, dir, true, nil, server.Config{})
	for _, tc := range []struct{ filename, want string }{
		{`filename="Q3%20report.md"`, "Q3 report.md"},
		{`filename="Caf%C3%A9%20notes.md"`, "Café notes.md"},
		{`filename="Café %22draft%22.md"`, `Café "draft".md`},
		{`filename="rates.md"; filename*=UTF-8''%E2%82%AC%20rates.md`, "€ rates.md"},
		{`filename*=ISO-8859-1''r%E9sum%E9.md`, "résumé.md"},
		{`filename="100%.md"`, "100%.md"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			body := "--xyz\r\nContent-Disposition: form-data; name=\"file\"; " + tc.filename + "\r\n\r\nNotes about " + tc.want + ".\r\n--xyz--\r\n"
			resp, out := do(t, "POST", ts.URL+"/v1/documents?source=notes", "multipart/form-data; boundary=xyz", body)
			var res uploadResult
			if err := json.Unmarshal([]byte(out), &res); resp.StatusCode != 201 || err != nil || len(res.Files) != 1 || res.Files[0].Document == nil {
				t.Fatalf("%d %s (%v)", resp.StatusCode, out, err)
			}
			f := res.Files[0]
			if f.Name != tc.want || filepath.Base(f.Document.Path) != tc.want {
				t.Errorf("named %q, stored as %q; want %q", f.Name, f.Document.Path, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "uploads", "sources", "notes", tc.want)); err != nil {
				t.Errorf("not stored under its name: %v", err)
			}
		})
	}
}

// TestReadOnlyUploads: without an upload folder (a read-only index) every
// write endpoint refuses clearly.
func TestReadOnlyUploads(t *testing.T) {
	st, err := index.Open(t.Context(), t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := httptest.NewServer(server.New(server.Config{Logger: slog.New(slog.DiscardHandler)}, server.Deps{Store: st}).Handler())
	defer ts.Close()
	for _, c := range []struct{ method, path string }{
		{"POST", "/v1/documents"}, {"DELETE", "/v1/documents/x"}, {"DELETE", "/v1/sources/default"}, {"POST", "/v1/sessions"},
	} {
		ct, body := multipartBody(t, "a.md", "x")
		if resp, out := do(t, c.method, ts.URL+c.path, ct, body); resp.StatusCode != 403 || !strings.Contains(out, "read_only") {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, out)
		}
	}
}

// TestManySessions: 1,000 sessions created at once all get distinct ids,
// and a question asked meanwhile is answered.
func TestManySessions(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	n := 1000
	if testenv.Race {
		n = 200
	}
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan string, n+1)
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", ts.URL+"/v1/sessions", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			var s struct{ ID string }
			json.NewDecoder(resp.Body).Decode(&s)
			if resp.StatusCode != 201 {
				errs <- fmt.Sprint("status ", resp.StatusCode)
			}
			ids[i] = s.ID
		})
	}
	wg.Go(func() {
		resp, out := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what is WAL mode"}`)
		if resp.StatusCode != 200 {
			errs <- fmt.Sprintf("ask: %d %s", resp.StatusCode, out)
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			t.Fatalf("session id %q missing or repeated", id)
		}
		seen[id] = true
	}
}

// TestUploadRelativeIndex: with a relative index folder (cite serve's
// default, .cite) uploads answer their documents, and deletions remove the
// uploaded copies.
func TestUploadRelativeIndex(t *testing.T) {
	t.Chdir(t.TempDir())
	ts, _, _ := startAt(t, ".cite", false, nil, server.Config{})
	resp, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
	var sess struct{ ID string }
	json.Unmarshal([]byte(out), &sess)
	if resp.StatusCode != 201 {
		t.Fatalf("new session: %d %s", resp.StatusCode, out)
	}
	for _, tc := range []struct{ name, url, del string }{
		{"document", "/v1/documents?source=notes", "/v1/documents/"},
		{"source", "/v1/documents?source=scratch", "/v1/sources/scratch"},
		{"session", "/v1/sessions/" + sess.ID + "/documents", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := multipartBody(t, "plan.md", "# Plan\n\nThe plan moves the apiary to the orchard.\n")
			resp, out := do(t, "POST", ts.URL+tc.url, ct, body)
			var up uploadResult
			json.Unmarshal([]byte(out), &up)
			if resp.StatusCode != 201 || len(up.Files) != 1 || up.Files[0].Document == nil {
				t.Fatalf("upload: %d %s", resp.StatusCode, out)
			}
			p := up.Files[0].Document.Path
			if _, err := os.Stat(p); !filepath.IsAbs(p) || err != nil {
				t.Fatalf("stored at %q: %v", p, err)
			}
			if tc.del == "" {
				return
			}
			del := tc.del
			if strings.HasSuffix(del, "/") {
				del += up.Files[0].Document.ID
			}
			if resp, out := do(t, "DELETE", ts.URL+del, "", ""); resp.StatusCode != 200 {
				t.Fatalf("delete: %d %s", resp.StatusCode, out)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("the uploaded copy is still there: %v", err)
			}
		})
	}
}

// TestUploadLongHeading uploads a file of one heading of 1 MB (issue 20,
// defect 1: every chunk carried all of it, and one search with k 100
// answered 200 MB) and checks that the index grows by what a paragraph of
// 1 MB costs, at most 3 times, and that the search's response is bounded by
// its passages: each hit's heading and title at most their bounds.
func TestUploadLongHeading(t *testing.T) {
	dir := t.TempDir()
	ts, _, _ := startAt(t, dir, false, nil, server.Config{})
	upload := func(name, text string) int64 {
		t.Helper()
		ct, body := multipartBody(t, name, text)
		if resp, out := do(t, "POST", ts.URL+"/v1/documents?source=up", ct, body); resp.StatusCode != 201 || !strings.Contains(out, `"added"`) {
			t.Fatalf("upload %s: %d %s", name, resp.StatusCode, trim(out))
		}
		return indexBytes(t, dir)
	}
	words := func(w string) string { // 1 MB, no two chunks alike
		var b strings.Builder
		for i := 0; b.Len() < 1e6; i++ {
			fmt.Fprintf(&b, "%s w%d ", w, i)
		}
		return b.String()
	}
	n0 := indexBytes(t, dir)
	n1 := upload("prose.md", words("ipsum")+"\n\nbody\n")
	n2 := upload("heading.md", "# "+words("lorem")+"\n\nbody\n")
	t.Logf("index: %d KB, +%d KB with 1 MB of prose, +%d KB with a heading of 1 MB", n0>>10, (n1-n0)>>10, (n2-n1)>>10)
	if n2-n1 > 3*(n1-n0) {
		t.Errorf("the heading grew the index by %d KB, over 3x what the prose did (%d KB)", (n2-n1)>>10, (n1-n0)>>10)
	}
	resp, out := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"lorem","k":100}`)
	var res struct {
		Hits []struct {
			Heading  string `json:"heading"`
			Text     string `json:"text"`
			Document struct {
				Title string `json:"title"`
				Path  string `json:"path"`
			} `json:"document"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); resp.StatusCode != 200 || err != nil || len(res.Hits) != 100 {
		t.Fatalf("search: %d, %d hits, %v", resp.StatusCode, len(res.Hits), err)
	}
	bound := 0
	headings := 0
	for _, h := range res.Hits {
		bound += 2*len(h.Text) + 2048
		if strings.HasSuffix(h.Document.Path, "heading.md") {
			headings++
			if len(h.Heading) > chunk.MaxPathBytes || len(h.Document.Title) > chunk.MaxHeadingBytes {
				t.Fatalf("a hit's heading has %d bytes and its title %d", len(h.Heading), len(h.Document.Title))
			}
		}
	}
	t.Logf("search: %d KB for %d hits (%d under the heading), bound %d KB", len(out)>>10, len(res.Hits), headings, bound>>10)
	if headings == 0 {
		t.Errorf("no hit under the heading")
	}
	if len(out) > bound {
		t.Errorf("search answered %d KB, over %d KB", len(out)>>10, bound>>10)
	}
}

// indexBytes returns the bytes of the index's database in dir, with its
// write-ahead log.
func indexBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, name := range []string{"index.db", "index.db-wal"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil {
			n += info.Size()
		}
	}
	return n
}

// TestUploadAfterReindex: a cite reindex to another embedder while the
// server runs does not stop uploads; they are embedded with the index's new
// embedder, as queries are (they failed "indexing failed" until a restart).
func TestUploadAfterReindex(t *testing.T) {
	ts, _, st := startAt(t, t.TempDir(), true, nil, server.Config{})
	ctx := t.Context()
	emb, err := embed.New("hash:256", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ResetVectors(ctx, emb); err != nil { // as cite reindex --embedder hash:256
		t.Fatal(err)
	}
	if _, err := ingest.FillVectors(ctx, st, emb, nil); err != nil {
		t.Fatal(err)
	}
	ct, body := multipartBody(t, "zorb.md", "# The zorbulator\n\nThe zorbulator hums at forty-two hertz when the hive is calm.\n")
	resp, out := do(t, "POST", ts.URL+"/v1/documents?source=notes", ct, body)
	if resp.StatusCode != 201 || !strings.Contains(out, `"added"`) {
		t.Fatalf("upload after a reindex: %d %s", resp.StatusCode, out)
	}
	resp, out = do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"zorbulator forty-two hertz","mode":"vector","k":1}`)
	if resp.StatusCode != 200 || !strings.Contains(out, "zorb.md") {
		t.Errorf("vector search for the upload: %d %s", resp.StatusCode, out)
	}
	if rep, err := st.Check(ctx); err != nil || rep.MissingVectors != 0 || rep.BadVectors != 0 {
		t.Errorf("check: %+v %v", rep, err)
	}
}
