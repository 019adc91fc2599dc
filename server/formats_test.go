package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/normalize/office"
	"github.com/cite-rag/cite/server"
)

// officeReader reads office documents as cmd/cite wires them: the format
// by content (office.Detect), never by the name.
type officeReader struct{}

func (officeReader) Sniff(data []byte) (string, bool) {
	k, ok := office.Detect(data)
	return strings.ToLower(k.String()), ok
}

func (officeReader) Read(ctx context.Context, format string, data []byte) (*normalize.Document, error) {
	k, _ := office.Detect(data)
	return office.Read(ctx, k, data)
}

// startReaders serves an empty index in a temporary folder whose uploads
// are read with readers.
func startReaders(t *testing.T, readers ...ingest.Reader) *httptest.Server {
	t.Helper()
	ts, _, _ := startEngine(t, t.TempDir(), false, nil, server.Config{}, answer.Config{}, func(d *server.Deps, _ *index.Store) {
		d.Readers = readers
	})
	return ts
}

// TestUploadByContent: an upload's format is its content's, not its
// name's (issue 21): a DOCX named .doc and a PPTX named .ppt are read as
// what they are; a password-protected DOCX or PPTX (made by
// officecrypto-tool, see normalize/office) and old binary Word and Excel
// files are skipped, each named with why; spreadsheets are read.
func TestUploadByContent(t *testing.T) {
	ts := startReaders(t, officeReader{})
	fixture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "normalize", "office", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		name, fixture   string
		outcome, format string
		reason          string
	}{
		{"report.doc", "report.docx", "added", "docx", ""},
		{"slides.ppt", "slides.pptx", "added", "pptx", ""},
		{"locked.docx", "encrypted.docx", "skipped", "", "encrypted: a password is required"},
		{"locked.pptx", "encrypted.pptx", "skipped", "", "encrypted: a password is required"},
		{"old.doc", "report.doc", "skipped", "", "old binary Word format (.doc); save it as .docx"},
		{"budget.xlsx", "budget.xlsx", "added", "xlsx", ""},
		{"budget.ods", "budget.ods", "added", "ods", ""},
		{"old.xls", "budget.xls", "skipped", "", "old binary Excel format (.xls); save it as .xlsx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct, body := multipartBody(t, c.name, fixture(c.fixture))
			resp, out := do(t, "POST", ts.URL+"/v1/documents", ct, body)
			var res struct {
				Files []struct {
					Name, Outcome, Reason string
					Document              *struct{ Format string }
				}
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Files) != 1 {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			f := res.Files[0]
			format := ""
			if f.Document != nil {
				format = f.Document.Format
			}
			if f.Name != c.name || f.Outcome != c.outcome || format != c.format || !strings.Contains(f.Reason, c.reason) {
				t.Errorf("%s: %s %q as %q; want %s %q as %q", f.Name, f.Outcome, f.Reason, format, c.outcome, c.reason, c.format)
			}
		})
	}
}
