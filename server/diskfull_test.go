package server

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/cite-rag/cite/index"
)

// TestInternalErrorDiskFull: a write that found the disk full is 507
// disk_full, saying so without the error's text (a path); any other
// failure is the stable internal error, as before. (On a 2 MB tmpfs an
// upload and a new session read "the server failed to do this".)
func TestInternalErrorDiskFull(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   string
		msg    string
	}{
		{"SQLite full", fmt.Errorf("create session: %w: database or disk is full", index.ErrFull), 507, "disk_full", diskFullMessage},
		{"no space for an upload", &fs.PathError{Op: "write", Path: "/srv/.cite/uploads/sources/t1/.upload-1", Err: syscall.ENOSPC}, 507, "disk_full", diskFullMessage},
		{"over a quota", &fs.PathError{Op: "write", Path: "/srv/x", Err: syscall.EDQUOT}, 507, "disk_full", diskFullMessage},
		{"another failure", &fs.PathError{Op: "open", Path: "/srv/x", Err: syscall.EIO}, 500, "upload", internalMessage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.internalError(w, httptest.NewRequest(http.MethodPost, "/v1/documents", nil), 500, "upload", tt.err)
			var e apiError
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			if w.Code != tt.status || e.Error.Code != tt.code || e.Error.Message != tt.msg {
				t.Errorf("%d %s %q, want %d %s %q", w.Code, e.Error.Code, e.Error.Message, tt.status, tt.code, tt.msg)
			}
			if strings.Contains(w.Body.String(), "/srv") {
				t.Errorf("the answer names the server's path: %s", w.Body.String())
			}
		})
	}
}
