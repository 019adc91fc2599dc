package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/server"
)

// TestDocumentSource: GET /v1/documents/{id}/source serves an indexed
// document by its id, with the right type and never as active content; a
// file changed or gone since it was indexed is served as the indexed
// text; ids that are no document's (a path, a prefix, traversal) and
// another session's documents are not found; the token applies.
func TestDocumentSource(t *testing.T) {
	const token = "source-test-token-0123456789"
	auth := []string{"Authorization", "Bearer " + token}
	dir := t.TempDir()
	ts, _, st := startAt(t, dir, false, nil, server.Config{Token: token})
	notes := t.TempDir()
	files := map[string]string{
		"a.md":       "# Alpha\n\nThe alpha notes mention wax.\n",
		"b.html":     "<!doctype html><title>Beta</title><script>alert(1)</script><p>The beta page mentions comb.</p>",
		"c.txt":      "The gamma notes mention propolis.\n",
		"gone.md":    "# Gone\n\nThis file is deleted after indexing.\n",
		"café é.txt": "Accented names are served too.\n",
		// Notepad's "Unicode" (UTF-16 with its mark) and Windows'
		// Western European text: served saying so.
		"utf16.txt": "\xff\xfeW\x00a\x00x\x00\n\x00",
		"cp1252.md": "# Caf\xe9\n\nThe \x93wax\x94 notes, in an older editor.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	ix, _ := ingest.New(ctx, st, ingest.Options{Source: "notes"})
	if _, err := ix.Index(ctx, notes); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(notes, "c.txt"), []byte("The gamma notes now say something else.\n"), 0o644)
	os.Remove(filepath.Join(notes, "gone.md"))
	id := func(name string) string {
		d, err := st.Document(ctx, "notes", filepath.Join(notes, name))
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	// A session and its upload.
	_, out := do(t, "POST", ts.URL+"/v1/sessions", "", "", auth...)
	var sess struct{ ID string }
	json.Unmarshal([]byte(out), &sess)
	_, other := do(t, "POST", ts.URL+"/v1/sessions", "", "", auth...)
	var sess2 struct{ ID string }
	json.Unmarshal([]byte(other), &sess2)
	ct, body := multipartBody(t, "plan.md", "# Plan\n\nThe plan moves the apiary.\n")
	_, out = do(t, "POST", ts.URL+"/v1/sessions/"+sess.ID+"/documents", ct, body, auth...)
	var up uploadResult
	json.Unmarshal([]byte(out), &up)
	if len(up.Files) != 1 || up.Files[0].Document == nil {
		t.Fatalf("upload: %s", out)
	}
	planID := up.Files[0].Document.ID

	tests := []struct {
		name, path  string
		hdr         []string
		status      int
		ctype, from string // Content-Type, X-Cite-Source
		filename    string // in Content-Disposition
		body        string // exact, when set
	}{
		{"markdown", "/v1/documents/" + id("a.md") + "/source", auth, 200, "text/markdown; charset=utf-8", "original", `filename=a.md`, files["a.md"]},
		{"HTML as text", "/v1/documents/" + id("b.html") + "/source", auth, 200, "text/plain; charset=utf-8", "original", `filename=b.html`, files["b.html"]},
		{"UTF-8 name", "/v1/documents/" + id("café é.txt") + "/source", auth, 200, "text/plain; charset=utf-8", "original", `filename*=utf-8''caf%C3%A9%20%C3%A9.txt`, files["café é.txt"]},
		{"UTF-16 text", "/v1/documents/" + id("utf16.txt") + "/source", auth, 200, "text/plain; charset=utf-16le", "original", `filename=utf16.txt`, files["utf16.txt"]},
		{"windows-1252 Markdown", "/v1/documents/" + id("cp1252.md") + "/source", auth, 200, "text/markdown; charset=windows-1252", "original", `filename=cp1252.md`, files["cp1252.md"]},
		{"changed since indexed", "/v1/documents/" + id("c.txt") + "/source", auth, 200, "text/plain; charset=utf-8", "indexed-text", `filename=c.txt.txt`, "The gamma notes mention propolis."},
		{"deleted since indexed", "/v1/documents/" + id("gone.md") + "/source", auth, 200, "text/plain; charset=utf-8", "indexed-text", `filename=gone.md.txt`, ""},
		{"HEAD", "/v1/documents/" + id("a.md") + "/source", auth, 200, "text/markdown; charset=utf-8", "original", "", ""},
		{"session document in its session", "/v1/documents/" + planID + "/source?session=" + sess.ID, auth, 200, "text/markdown; charset=utf-8", "original", `filename=plan.md`, "# Plan\n\nThe plan moves the apiary.\n"},
		{"session document without its session", "/v1/documents/" + planID + "/source", auth, 404, "", "", "", ""},
		{"session document in another session", "/v1/documents/" + planID + "/source?session=" + sess2.ID, auth, 404, "", "", "", ""},
		{"no token", "/v1/documents/" + id("a.md") + "/source", nil, 401, "", "", "", ""},
		{"unknown id", "/v1/documents/0123456789abcdef/source", auth, 404, "", "", "", ""},
		{"id prefix", "/v1/documents/" + id("a.md")[:8] + "/source", auth, 404, "", "", "", ""},
		{"a path as the id", "/v1/documents/" + strings.ReplaceAll(filepath.Join(notes, "a.md"), "/", "%2F") + "/source", auth, 404, "", "", "", ""},
		{"traversal", "/v1/documents/..%2F..%2F..%2Fetc%2Fpasswd/source", auth, 404, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := "GET"
			if tt.name == "HEAD" {
				method = "HEAD"
			}
			resp, body := do(t, method, ts.URL+tt.path, "", "", tt.hdr...)
			if resp.StatusCode != tt.status {
				t.Fatalf("%d %s", resp.StatusCode, trim(body))
			}
			if tt.status != 200 {
				if strings.Contains(body, "plan moves") || strings.Contains(body, "root:") {
					t.Errorf("refused, but shows the content: %s", trim(body))
				}
				return
			}
			h := resp.Header
			if h.Get("Content-Type") != tt.ctype || h.Get("X-Cite-Source") != tt.from || h.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox") || !strings.HasPrefix(h.Get("Content-Disposition"), "inline") ||
				!strings.Contains(h.Get("Content-Disposition"), tt.filename) {
				t.Errorf("headers %v", h)
			}
			if method == "HEAD" {
				return
			}
			if tt.body != "" && body != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if tt.from == "indexed-text" && strings.Contains(body, "something else") {
				t.Errorf("the changed file's new text: %q", body)
			}
		})
	}
	// The gone file's indexed text is its text as indexed.
	chunks, _ := st.Chunks(ctx, id("gone.md"))
	if _, body := do(t, "GET", ts.URL+"/v1/documents/"+id("gone.md")+"/source", "", "", auth...); body != index.Text(chunks) || !strings.Contains(body, "deleted after indexing") {
		t.Errorf("gone.md served as %q", body)
	}
}

// TestReferencesNameTheirDocument: an answer's references, streamed and
// kept in the session's history, carry their document's id, and that id
// serves the document the passage is from.
func TestReferencesNameTheirDocument(t *testing.T) {
	ts, _, st := startAt(t, t.TempDir(), true, nil, server.Config{})
	_, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
	var sess struct{ ID string }
	json.Unmarshal([]byte(out), &sess)
	if resp, out := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what is WAL mode in SQLite","session_id":"`+sess.ID+`"}`); resp.StatusCode != 200 {
		t.Fatalf("ask %d %s", resp.StatusCode, out)
	}
	_, out = do(t, "GET", ts.URL+"/v1/sessions/"+sess.ID, "", "")
	var s struct {
		Turns []struct {
			References []struct {
				DocumentID string `json:"document_id"`
				Source     string `json:"source"`
				Passage    string `json:"passage"`
				Span       struct{ Start, End int }
			}
		}
	}
	json.Unmarshal([]byte(out), &s)
	if len(s.Turns) != 1 || len(s.Turns[0].References) == 0 {
		t.Fatalf("session %s", out)
	}
	for _, ref := range s.Turns[0].References {
		d, err := st.Document(context.Background(), "", ref.DocumentID)
		if err != nil || d.Path != ref.Source {
			t.Errorf("reference to %s names document %q: %v", ref.Source, ref.DocumentID, err)
			continue
		}
		resp, body := do(t, "GET", ts.URL+"/v1/documents/"+ref.DocumentID+"/source", "", "")
		if resp.StatusCode != 200 || resp.Header.Get("X-Cite-Source") != "original" || ref.Span.End > len(body) || ref.Span.Start >= ref.Span.End {
			t.Errorf("source of %s: %d %s, span %v", ref.Source, resp.StatusCode, resp.Header.Get("X-Cite-Source"), ref.Span)
		}
	}
}

// pictureStub claims pictures as normalize/pdf's ImageFormat names them
// (by their first bytes) and gives each a line of text, as OCR would.
type pictureStub struct{}

func (pictureStub) Sniff(data []byte) (string, bool) {
	for format, magic := range pictureMagic {
		if strings.HasPrefix(string(data), magic) {
			return format, true
		}
	}
	return "", false
}

func (pictureStub) Read(context.Context, string, []byte) (*normalize.Document, error) {
	return normalize.Normalize(normalize.PlainText, []byte("The keeper trims the wick at dusk.\n")), nil
}

var pictureMagic = map[string]string{
	"png":  "\x89PNG\r\n\x1a\n",
	"jpeg": "\xff\xd8\xff",
	"gif":  "GIF89a",
	"tiff": "II*\x00",
	"webp": "RIFF\x00\x00\x00\x00WEBP",
}

// TestPictureSource: a picture read by OCR is served as its extracted
// text (not as "indexed text", which the chat page takes for a file changed
// since it was indexed), and with ?original=1 as the picture itself with
// its content type: inline, for the browser to show, but a TIFF, which
// few browsers show, as an attachment.
func TestPictureSource(t *testing.T) {
	ts, _, st := startAt(t, t.TempDir(), false, nil, server.Config{})
	docs := t.TempDir()
	tests := []struct {
		name, format, ctype, disposition string
	}{
		{"page.png", "png", "image/png", "inline"},
		{"photo.jpg", "jpeg", "image/jpeg", "inline"},
		{"scan.gif", "gif", "image/gif", "inline"},
		{"shot.webp", "webp", "image/webp", "inline"},
		{"scan.tiff", "tiff", "image/tiff", "attachment"},
	}
	for _, tt := range tests {
		data := pictureMagic[tt.format] + "\x00\x01 picture bytes"
		if err := os.WriteFile(filepath.Join(docs, tt.name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	ix, err := ingest.New(ctx, st, ingest.Options{Source: "docs", Readers: []ingest.Reader{pictureStub{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := st.Document(ctx, "docs", filepath.Join(docs, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if d.Type != tt.format {
				t.Fatalf("indexed as %q, want %q", d.Type, tt.format)
			}
			resp, body := do(t, "GET", ts.URL+"/v1/documents/"+d.ID+"/source", "", "")
			if h := resp.Header; resp.StatusCode != 200 || h.Get("X-Cite-Source") != "extracted-text" || h.Get("Content-Type") != "text/plain; charset=utf-8" ||
				!strings.Contains(body, "trims the wick") {
				t.Errorf("text: %d %v %q", resp.StatusCode, h, trim(body))
			}
			resp, body = do(t, "GET", ts.URL+"/v1/documents/"+d.ID+"/source?original=1", "", "")
			h := resp.Header
			if resp.StatusCode != 200 || h.Get("X-Cite-Source") != "original" || h.Get("Content-Type") != tt.ctype ||
				!strings.HasPrefix(h.Get("Content-Disposition"), tt.disposition+";") || h.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox") {
				t.Errorf("original: %d %v", resp.StatusCode, h)
			}
			if want := pictureMagic[tt.format] + "\x00\x01 picture bytes"; body != want {
				t.Errorf("original body %q, want %q", body, want)
			}
		})
	}
}
