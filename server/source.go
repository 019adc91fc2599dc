package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/normalize"
)

// Document sources.
//
// GET /v1/documents/{id}/source serves an indexed document so that a
// citation can be opened where it points. The file is found by the
// document's id in the index, never by a path from the request, and is
// served only while it is the version that was indexed (same size, same
// SHA-256): then the citations' byte spans point into exactly these bytes
// (X-Cite-Source: original). A file changed, removed or not a regular
// file since, and a web page (no file), are served as the document's
// indexed text instead (X-Cite-Source: indexed-text), in which the
// citations' passages appear verbatim. Nothing is ever served as active
// content: HTML goes out as text/plain, and every answer carries
// X-Content-Type-Options: nosniff and a Content-Security-Policy sandbox.
// A session's documents are served only with that session's id
// (?session=ID), as only its questions see them.
//
// A document whose text was extracted from a binary format (PDF, Word,
// OpenDocument, EPUB, PowerPoint, a spreadsheet, a saved web page, a
// picture read by OCR) is served as that extracted text (X-Cite-Source:
// extracted-text), into which its citations' byte spans point; with
// ?original=1, as the original file while it is the version indexed (a
// PDF inline, for the browser's viewer to open at #page=N, and a picture
// but a TIFF inline too; the others as attachments).

// documentIDPattern is the shape of a document id: 16 hex digits.
var documentIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// sourceTypes are the content types of the formats served as they are.
var sourceTypes = map[string]string{
	"markdown": "text/markdown",
	"text":     "text/plain",
	"html":     "text/plain", // its source, never rendered on cite's origin
}

// extractedTypes are the content types of the formats whose text is
// extracted, served as they are only with ?original=1.
var extractedTypes = map[string]string{
	"pdf":   "application/pdf",
	"docx":  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"pptx":  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"odt":   "application/vnd.oasis.opendocument.text",
	"epub":  "application/epub+zip",
	"xlsx":  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"ods":   "application/vnd.oasis.opendocument.spreadsheet",
	"mhtml": "multipart/related",
	// Pictures of pages, read by OCR: a browser shows them inline, all
	// but TIFF, which few show and which goes out as an attachment.
	"png":  "image/png",
	"jpeg": "image/jpeg",
	"gif":  "image/gif",
	"bmp":  "image/bmp",
	"webp": "image/webp",
	"tiff": "image/tiff",
}

// inlineTypes are the formats whose original is served inline: a PDF,
// for the browser's viewer to open at #page=N, and the pictures browsers
// show.
var inlineTypes = map[string]bool{"pdf": true, "png": true, "jpeg": true, "gif": true, "bmp": true, "webp": true}

// documentSource is GET /v1/documents/{id}/source[?session=ID].
func (s *Server) documentSource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	notFound := func() {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no document with id %q", trimRunes(id, 64)))
	}
	if !documentIDPattern.MatchString(id) {
		notFound()
		return
	}
	// Another session's document, or one of an expired session, is as if
	// it did not exist.
	sc := session.Public
	if sid := r.URL.Query().Get("session"); sid != "" && session.ValidID(sid) {
		if _, err := s.sessions.Get(r.Context(), sid); err == nil {
			sc = session.Scope{Session: sid}
		}
	}
	d, err := sc.Document(r.Context(), s.deps.Store, "", id)
	if errors.Is(err, index.ErrNotFound) || err == nil && d.ID != id {
		notFound()
		return
	}
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	name := filepath.Base(d.Path)
	if d.Kind == index.KindWeb {
		name = "page"
	}
	data, original := s.originalBytes(d)
	ctype := sourceTypes[d.Type]
	disposition, from := "inline", "indexed-text"
	if xt, extracted := extractedTypes[d.Type]; extracted {
		from = "extracted-text"
		if r.URL.Query().Get("original") == "1" && original {
			ctype = xt
			if !inlineTypes[d.Type] {
				disposition = "attachment"
			}
		} else {
			ctype, original = "", false
		}
	}
	if !original || ctype == "" {
		chunks, err := s.deps.Store.Chunks(r.Context(), d.ID)
		if err != nil {
			s.internalError(w, r, http.StatusInternalServerError, "index", err)
			return
		}
		data, original, ctype = []byte(index.Text(chunks)), false, "text/plain"
		name += ".txt"
	}
	if cs := charsetOf(d.Type, ctype, original, data); cs != "" {
		ctype += "; charset=" + cs
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	// Any name, control characters and invalid UTF-8 included, comes out
	// escaped (filename*=utf-8''…); "" would mean it could not be.
	disp := mime.FormatMediaType(disposition, map[string]string{"filename": name})
	if disp == "" {
		disp = disposition
	}
	h.Set("Content-Disposition", disp)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	if original {
		h.Set("X-Cite-Source", "original")
	} else {
		h.Set("X-Cite-Source", from)
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// charsetOf returns the charset of data served as ctype: only text has
// one (a small GIF can be valid UTF-8 too). A text or Markdown file as it
// is may be in UTF-16 (with its byte-order mark) or windows-1252, which
// cite read it as ([normalize.Windows1252]): said so, a browser or the
// chat page's source view decodes it as cite did, not as UTF-8.
func charsetOf(format, ctype string, original bool, data []byte) string {
	switch {
	case !strings.HasPrefix(ctype, "text/"):
		return ""
	case original && (format == "text" || format == "markdown") && bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "utf-16le"
	case original && (format == "text" || format == "markdown") && bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "utf-16be"
	case utf8.Valid(data):
		return "utf-8"
	case original && (format == "text" || format == "markdown") && normalize.Windows1252(data):
		return "windows-1252"
	}
	return ""
}

// originalBytes returns d's file when it is still the version indexed: a
// regular file of d's size and hash.
func (s *Server) originalBytes(d index.Document) ([]byte, bool) {
	if d.Kind != index.KindFile || !filepath.IsAbs(d.Path) {
		return nil, false
	}
	if info, err := os.Stat(d.Path); err != nil || !info.Mode().IsRegular() || info.Size() != d.Size {
		return nil, false
	}
	f, err := os.Open(d.Path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(f, d.Size+1)); err != nil || int64(b.Len()) != d.Size {
		return nil, false
	}
	sum := sha256.Sum256(b.Bytes())
	if hex.EncodeToString(sum[:]) != d.Hash {
		return nil, false
	}
	return b.Bytes(), true
}
