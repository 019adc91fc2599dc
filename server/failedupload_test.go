package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/server"
)

// damagedPDF reads PDFs, failing on those that say they are damaged, as
// a PDF reader fails on a truncated file.
type damagedPDF struct{}

func (damagedPDF) Sniff(data []byte) (string, bool) {
	return "pdf", bytes.HasPrefix(data, []byte("%PDF-"))
}

func (damagedPDF) Read(_ context.Context, _ string, data []byte) (*normalize.Document, error) {
	if bytes.Contains(data, []byte("damaged")) {
		return nil, errors.New("damaged PDF: no cross-reference table")
	}
	var x normalize.Extracted
	x.Page(1)
	x.Paragraph("Lighthouses were built along dangerous coastlines.")
	return x.Document("Lighthouses"), nil
}

// TestFailedUploadRemoved: a file that fails to be indexed is not kept,
// as a skipped one is not: in a data source or a session, nothing is left
// on disk that the API could not list or delete. Its reason names the
// upload, not the server's path. A failed replacement keeps the version
// indexed before, file and document.
func TestFailedUploadRemoved(t *testing.T) {
	const good, damaged = "%PDF-1.7 lighthouses", "%PDF-1.7 damaged"
	dir := t.TempDir()
	ts, _, _ := startEngine(t, dir, false, nil, server.Config{}, answer.Config{}, func(d *server.Deps, _ *index.Store) {
		d.Readers = append(d.Readers, damagedPDF{})
	})
	uploads := filepath.Join(dir, "uploads")
	session := func() string {
		resp, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
		var s struct{ ID string }
		json.Unmarshal([]byte(out), &s)
		if resp.StatusCode != 201 {
			t.Fatalf("new session: %d %s", resp.StatusCode, out)
		}
		return s.ID
	}
	sid := session()
	for _, c := range []struct {
		name   string
		url    string // the upload endpoint
		folder string // where it keeps files, under uploads
		before string // uploaded first under the same name, if set
		status int
		kept   string // the file's content afterwards; "" for none
	}{
		{"new source", "/v1/documents?source=fresh", "sources/fresh", "", 422, ""},
		{"default source", "/v1/documents", "sources/uploads", "", 422, ""},
		{"session", "/v1/sessions/" + sid + "/documents", "sessions/" + sid, "", 422, ""},
		{"replacement", "/v1/documents?source=kept", "sources/kept", good, 422, good},
		{"session replacement", "/v1/sessions/" + session() + "/documents", "", good, 422, good},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before string // the document indexed before, if any
			if c.before != "" {
				ct, body := multipartBody(t, "t1.pdf", c.before)
				resp, out := do(t, "POST", ts.URL+c.url, ct, body)
				var up uploadResult
				json.Unmarshal([]byte(out), &up)
				if resp.StatusCode != 201 || up.Files[0].Document == nil {
					t.Fatalf("first upload: %d %s", resp.StatusCode, out)
				}
				before = up.Files[0].Document.Path
				c.folder, _ = filepath.Rel(uploads, filepath.Dir(before))
			}
			ct, body := multipartBody(t, "t1.pdf", damaged)
			resp, out := do(t, "POST", ts.URL+c.url, ct, body)
			var up uploadResult
			json.Unmarshal([]byte(out), &up)
			if resp.StatusCode != c.status || len(up.Files) != 1 || up.Files[0].Outcome != "failed" {
				t.Fatalf("upload: %d %s", resp.StatusCode, out)
			}
			if r := up.Files[0].Reason; !strings.HasPrefix(r, "t1.pdf: ") || !strings.Contains(r, "damaged PDF") || strings.Contains(r, dir) || strings.Contains(r, "uploads/") {
				t.Errorf("reason %q: want the upload's name and the reader's error, not the server's path", r)
			}
			data, err := os.ReadFile(filepath.Join(uploads, c.folder, "t1.pdf"))
			switch {
			case c.kept == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("the failed file is kept: %v", err)
			case c.kept != "" && string(data) != c.kept:
				t.Errorf("the file is now %q (%v), want the version indexed before, %q", data, err, c.kept)
			}
			if c.kept == "" {
				if _, err := os.Stat(filepath.Join(uploads, c.folder)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("its folder is kept: %v", err)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(uploads, c.folder))
			for _, e := range entries {
				if e.Name() != "t1.pdf" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			if before != "" {
				resp, out := do(t, "GET", ts.URL+"/v1/documents?source=kept", "", "")
				if strings.HasPrefix(c.url, "/v1/documents") && !strings.Contains(out, "t1.pdf") {
					t.Errorf("the version indexed before is gone: %d %s", resp.StatusCode, out)
				}
			}
		})
	}
}
