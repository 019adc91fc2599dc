package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/index"
	indexembed "github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/search"
)

// Uploads.
//
// An uploaded file is written under Deps.UploadDir, in a folder per data
// source (sources/NAME) or per session (sessions/ID), then indexed from
// there by ingest, with the rules of cite index: the same normalization,
// chunking, size limit and bad-input handling. The copy is what citations
// of it link to, and what a later cite index of that folder finds
// unchanged. Its name is the one the part's sender meant ([partFileName]:
// filename*, or filename percent-decoded), checked: no path, no control
// or format character, no leading dot, at most 200 bytes.

// DefaultMaxUploadBytes is the largest file accepted by an upload.
const DefaultMaxUploadBytes = 10_000_000

// DefaultUploadSource is the data source uploads go to unless the request
// names one.
const DefaultUploadSource = "uploads"

// sourceName is what an upload may name its data source.
var sourceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// uploadExts are the extensions an upload may have: what cite index reads.
var uploadExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".html": true, ".htm": true, ".txt": true, ".text": true}

// documentExts are the extensions of the binary document formats an upload
// may have when the server has readers for them. The readers know a format
// by its content, not by this name: a .doc that is a DOCX is read as one,
// and an old binary .doc or .ppt is skipped saying what to save it as.
var documentExts = map[string]bool{".pdf": true, ".docx": true, ".odt": true, ".epub": true, ".pptx": true, ".doc": true, ".ppt": true, ".mhtml": true, ".mht": true,
	".xlsx": true, ".ods": true, ".xls": true,
	".png": true, ".jpg": true, ".jpeg": true, ".tif": true, ".tiff": true, ".gif": true, ".bmp": true, ".webp": true}

// uploadName checks the file name of an upload and returns its base name;
// documents says whether binary documents (PDF, Word, ...) are read.
func uploadName(name string, documents bool) (string, error) {
	if name == "" {
		return "", errors.New("the file part has no file name")
	}
	if !utf8.ValidString(name) || len(name) > 200 {
		return "", fmt.Errorf("file name %q: at most 200 bytes of UTF-8", trimRunes(name, 64))
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("file name %q: control characters are not allowed", trimRunes(name, 64))
		}
		// Format characters (bidi overrides such as U+202E, zero-width
		// characters) and line separators make a name read as another.
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return "", fmt.Errorf("file name %q: invisible formatting characters (%U) are not allowed", trimRunes(name, 64), r)
		}
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("file name %q: a plain file name is required (no folders, no leading dot)", trimRunes(name, 64))
	}
	if ext := strings.ToLower(filepath.Ext(name)); !uploadExts[ext] && !(documents && documentExts[ext]) {
		what := "an extension cite reads"
		if ext == "" {
			what = "an extension"
		}
		formats := "Markdown (.md), HTML (.html) or text (.txt)"
		if documents {
			formats = "Markdown (.md), HTML (.html), text (.txt), PDF (.pdf), Word (.docx), OpenDocument (.odt), EPUB (.epub), PowerPoint (.pptx), Excel (.xlsx), an OpenDocument spreadsheet (.ods), a web page saved as one file (.mhtml) or a picture of pages (.png, .jpg, .tiff, .gif, .bmp, .webp; read by OCR)"
		}
		return "", fmt.Errorf("file name %q of the file part: %s is required: %s", trimRunes(name, 64), what, formats)
	}
	return name, nil
}

// extFilename finds a filename* parameter (RFC 6266, with RFC 5987's
// charset'language'percent-encoded value) in a Content-Disposition header.
var extFilename = regexp.MustCompile(`(?i);\s*filename\*\s*=\s*"?([^;\s"]*)"?`)

// partFileName returns the file name a multipart part's sender meant, from
// its Content-Disposition header cd, which mime.ParseMediaType read as
// parsed (its filename parameter, or its filename* decoded when that is
// UTF-8). A filename* (RFC 5987: UTF-8 or ISO-8859-1) wins over filename,
// as RFC 6266 has it. A plain filename is percent-decoded when its sender
// percent-encoded it: one of ASCII alone with a %XX in it is decoded
// whole (RFC 7578 section 4.2 lets senders encode a name so,
// "Q3%20report.pdf"; a name that does not decode to UTF-8 is kept as
// sent), and in one with other UTF-8 characters, which browsers send as
// they are, the three escapes the HTML standard makes ("%22" for a quote,
// "%0D" and "%0A" for line breaks) are decoded. It is decoded once: what
// the name holds then is checked by [uploadName] ("..%2F" is a folder,
// refused, and "%00" a control character).
func partFileName(cd, parsed string) (string, error) {
	if m := extFilename.FindStringSubmatch(cd); m != nil {
		name, ok := decodeExtValue(m[1])
		if !ok {
			return "", fmt.Errorf("file name parameter filename*=%q: want UTF-8''NAME or ISO-8859-1''NAME, percent-encoded (RFC 5987)", trimRunes(m[1], 64))
		}
		return name, nil
	}
	name := parsed
	if !strings.Contains(name, "%") {
		return name, nil
	}
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		if d, ok := percentDecode(name, nil); ok && utf8.ValidString(d) {
			return d, nil
		}
		return name, nil
	}
	d, _ := percentDecode(name, map[byte]bool{'"': true, '\r': true, '\n': true})
	return d, nil
}

// percentDecode decodes the %XX escapes of s (when only is not nil, those
// of the bytes in it alone, keeping the others as they are); ok is false
// if s holds a "%" that starts no escape, which it keeps.
func percentDecode(s string, only map[byte]bool) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			ok = false
			b.WriteByte('%')
			continue
		}
		hi, lo := unhex(s[i+1]), unhex(s[i+2])
		if hi < 0 || lo < 0 {
			ok = false
			b.WriteByte('%')
			continue
		}
		c := byte(hi<<4 | lo)
		if only != nil && !only[c] {
			b.WriteByte('%')
			continue
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), ok
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// decodeExtValue decodes an RFC 5987 ext-value, charset'language'value,
// of charset UTF-8 or ISO-8859-1 (the two it requires); ok is false for
// another charset, a bad escape, or UTF-8 that is not.
func decodeExtValue(v string) (string, bool) {
	charset, rest, ok := strings.Cut(v, "'")
	if !ok {
		return "", false
	}
	_, value, ok := strings.Cut(rest, "'")
	if !ok {
		return "", false
	}
	d, ok := percentDecode(value, nil)
	if !ok {
		return "", false
	}
	switch strings.ToLower(charset) {
	case "utf-8":
		return d, utf8.ValidString(d)
	case "iso-8859-1":
		r := make([]rune, len(d))
		for i := 0; i < len(d); i++ {
			r[i] = rune(d[i])
		}
		return string(r), true
	}
	return "", false
}

func trimRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// uploaded is one file of an upload request and what became of it.
type uploaded struct {
	Name     string   `json:"name"`
	Outcome  string   `json:"outcome"` // added, updated, unchanged, skipped, failed (gone: deleted meanwhile)
	Reason   string   `json:"reason,omitempty"`
	Document *docInfo `json:"document,omitempty"`
	// Notes are what the reader of a PDF, Word file, ... noted: running
	// lines left out, pages it could not read and what to install.
	Notes []string `json:"notes,omitempty"`
}

// docInfo is a document as the API lists it.
type docInfo struct {
	ID        string    `json:"id"`
	Source    string    `json:"source"`
	Path      string    `json:"path"`
	Title     string    `json:"title"`
	Format    string    `json:"format"`
	Size      int64     `json:"size"`
	Chunks    int       `json:"chunks"`
	Tokens    int       `json:"tokens"`
	IndexedAt time.Time `json:"indexed_at"`
}

func infoOf(d index.Document) docInfo {
	return docInfo{ID: d.ID, Source: d.Source, Path: index.EscapePath(d.Path), Title: d.Title, Format: d.Type, Size: d.Size, Chunks: d.Chunks, Tokens: d.Tokens, IndexedAt: d.IndexedAt}
}

// writable answers 403 when the server cannot change the index.
func (s *Server) writable(w http.ResponseWriter) bool {
	if s.deps.Store.ReadOnly() || s.deps.UploadDir == "" {
		writeError(w, http.StatusForbidden, "read_only", "this server's index is read-only: uploads and deletions are off")
		return false
	}
	return true
}

// uploadCheck, when an upload has one, is called under the index's writer
// lock with the files about to be indexed; an error is answered with its
// status and code, and nothing is indexed.
type uploadCheck func([]session.Upload) (status int, code string, err error)

// upload reads a multipart request's files into source, in folder (under
// the upload folder), and indexes each. It answers the outcomes.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, source, folder string, check uploadCheck) ([]uploaded, bool) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		writeError(w, http.StatusUnsupportedMediaType, "bad_content_type", "send the files as multipart/form-data, in parts named \"file\"")
		return nil, false
	}
	body := &bodyReader{Reader: r.Body}
	mr := multipart.NewReader(body, params["boundary"])
	type file struct {
		name, tmp string
		size      int64
		hash      string // SHA-256, hex
	}
	var files []file
	defer func() {
		for _, f := range files {
			os.Remove(f.tmp)
		}
		s.prune(folder) // an upload that kept nothing leaves no folder
	}()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if body.err != nil {
			s.bodyFailed(w, r, body.err)
			return nil, false
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_multipart", "malformed multipart body: "+err.Error())
			return nil, false
		}
		// The header as sent: Part.FormName would take a malformed one
		// for a part of another name, and Part.FileName would quietly
		// drop a path, which is worth refusing instead.
		cd := part.Header.Get("Content-Disposition")
		_, disp, err := mime.ParseMediaType(cd)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_multipart", fmt.Sprintf("a part's Content-Disposition header %q: %v", trimRunes(cd, 200), err))
			return nil, false
		}
		if disp["name"] != "file" {
			part.Close()
			continue
		}
		if len(files) >= 8 {
			writeError(w, http.StatusBadRequest, "too_many_files", "at most 8 files per upload")
			return nil, false
		}
		name, err := partFileName(cd, disp["filename"])
		if err == nil {
			name, err = uploadName(name, len(s.deps.Readers) > 0)
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_file_name", err.Error())
			return nil, false
		}
		tmp, err := s.createTemp(folder)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "upload", "cannot store the upload")
			s.log.Error("upload temp file", "err", err)
			return nil, false
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(part, s.cfg.MaxUploadBytes+1))
		tmp.Close()
		files = append(files, file{name, tmp.Name(), n, hex.EncodeToString(h.Sum(nil))})
		var pathErr *fs.PathError
		switch {
		case body.err != nil:
			s.bodyFailed(w, r, body.err)
			return nil, false
		case errors.As(err, &pathErr): // writing the temporary file
			s.internalError(w, r, http.StatusInternalServerError, "upload", err)
			return nil, false
		case err != nil:
			writeError(w, http.StatusBadRequest, "bad_multipart", "malformed multipart body: "+err.Error())
			return nil, false
		}
		if n > s.cfg.MaxUploadBytes {
			writeError(w, http.StatusRequestEntityTooLarge, "file_too_large", name+" is "+overLimit(s.cfg.MaxUploadBytes, "--max-upload"))
			return nil, false
		}
	}
	if len(files) == 0 {
		writeError(w, http.StatusBadRequest, "no_file", "no file: send each file in a multipart part named \"file\"")
		return nil, false
	}
	// One writer at a time in this process; index.LockWriter keeps out a
	// cite index running beside the server.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	unlock, err := index.LockWriter(r.Context(), s.deps.Store.Dir(), nil)
	if err != nil {
		if r.Context().Err() == nil {
			s.internalError(w, r, http.StatusInternalServerError, "index", err)
		} else {
			writeError(w, http.StatusServiceUnavailable, "index_busy", "the index is being written; try again")
		}
		return nil, false
	}
	defer unlock()
	if check != nil {
		ups := make([]session.Upload, len(files))
		for i, f := range files {
			ups[i] = session.Upload{Name: f.name, Size: f.size}
		}
		if status, code, err := check(ups); err != nil {
			writeError(w, status, code, err.Error())
			return nil, false
		}
	}
	out := make([]uploaded, 0, len(files))
	for _, f := range files {
		dst := filepath.Join(folder, f.name)
		prev, err := s.setAside(dst)
		if err == nil {
			if err = os.Rename(f.tmp, dst); err != nil && prev != "" {
				os.Rename(prev, dst)
			}
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, "upload", "cannot store "+f.name)
			s.log.Error("upload rename", "err", err)
			return nil, false
		}
		u := uploaded{Name: f.name}
		var ev ingest.Event
		emb, err := s.embedder(r.Context())
		var ix *ingest.Indexer
		if err == nil {
			ix, err = ingest.New(r.Context(), s.deps.Store, ingest.Options{Source: source, Embedder: emb, MaxSize: s.cfg.MaxUploadBytes, Workers: 1, Readers: s.deps.Readers,
				OnEvent: func(e ingest.Event) { ev = e }})
		}
		if err == nil {
			_, err = ix.Index(r.Context(), dst)
		}
		if err != nil && ev.Err == nil && ev.Reason == "" {
			ev.Outcome, ev.Err = ingest.Failed, err
		}
		u.Outcome = strings.ToLower(ev.Outcome.String())
		if ev.Outcome != ingest.Skipped { // a skip's reason has them
			u.Notes = ev.Notes
		}
		switch ev.Outcome {
		case ingest.Skipped, ingest.Gone, ingest.Failed:
			u.Reason = ev.Reason
			if ev.Outcome == ingest.Failed {
				u.Reason = s.failedReason(r, f.name, dst, ev.Err)
			}
			s.unstore(r, source, dst, prev, f.hash) // not indexed: not kept
		default:
			if prev != "" {
				os.Remove(prev)
			}
			d, err := s.deps.Store.Document(r.Context(), source, dst)
			if err != nil {
				s.log.Error("uploaded document not found in the index", "err", err)
				break
			}
			info := infoOf(d)
			u.Document = &info
		}
		out = append(out, u)
	}
	return out, true
}

// embedder returns the embedder uploads are embedded with: the one the
// index records now (a cite reindex may have changed it since the server
// started), or Deps.Embedder for an index that records none yet; nil
// without Deps.Embedder (full-text search only).
func (s *Server) embedder(ctx context.Context) (*indexembed.Embedder, error) {
	if s.deps.Embedder == nil {
		return nil, nil
	}
	info, err := s.deps.Store.Embedder(ctx)
	if err != nil || info.Name == "" {
		return s.deps.Embedder, err
	}
	return s.embedders.Embedder(info.Name)
}

// failedReason is what a client reads of why its file name failed to be
// indexed, from dst, its copy: the file's own error (a damaged PDF), named
// by the upload's name rather than the server's path, or for a failure of
// the server [internalMessage] (the log has the error).
func (s *Server) failedReason(r *http.Request, name, dst string, err error) string {
	var pe *ingest.PathError
	if errors.As(err, &pe) && pe.Path == dst {
		msg := pe.Err.Error()
		for _, p := range []string{dst, index.EscapePath(dst)} {
			msg = strings.ReplaceAll(msg, p, name)
		}
		return name + ": " + msg
	}
	s.log.Error("upload not indexed", "method", r.Method, "path", r.URL.Path, "err", err)
	return name + ": indexing failed: " + internalMessage
}

// setAside moves the file at dst, if there is one, to a temporary name
// beside it, which it returns, so that an upload replacing it can put it
// back if the new version is not indexed.
func (s *Server) setAside(dst string) (string, error) {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	f, err := s.createTemp(filepath.Dir(dst))
	if err != nil {
		return "", err
	}
	f.Close()
	if err := os.Rename(dst, f.Name()); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// unstore removes dst, an uploaded file that was not indexed (skipped or
// failed), so that nothing stays on disk that the index does not list:
// the API could neither count nor delete it. prev is the file dst
// replaced ("" if none), put back while the index still holds its
// version; a file the index holds as it is (stored, but not yet on the
// index's replica) is kept.
func (s *Server) unstore(r *http.Request, source, dst, prev, hash string) {
	ctx := context.WithoutCancel(r.Context()) // done even if the client is gone
	d, err := s.deps.Store.Document(ctx, source, dst)
	switch {
	case err == nil && d.Hash == hash:
	case err == nil && prev != "":
		if err := os.Rename(prev, dst); err != nil {
			s.log.Error("upload: the version indexed before could not be put back", "err", err)
		}
		prev = ""
	case err == nil || errors.Is(err, index.ErrNotFound):
		os.Remove(dst)
	default:
		s.log.Error("upload: not indexed, kept", "err", err)
	}
	if prev != "" {
		os.Remove(prev)
	}
}

// uploadStatus is the status of an upload's answer: 201 when something was
// indexed, 422 when every file was refused.
func uploadStatus(us []uploaded) int {
	for _, u := range us {
		if u.Document != nil {
			return http.StatusCreated
		}
	}
	return http.StatusUnprocessableEntity
}

// postDocuments is POST /v1/documents: multipart files into a data source
// (form field "source", before the files; default "uploads").
func (s *Server) postDocuments(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	source := r.URL.Query().Get("source")
	if source == "" {
		source = DefaultUploadSource
	}
	if !sourceName.MatchString(source) {
		writeError(w, http.StatusBadRequest, "bad_source", fmt.Sprintf("source %q: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", trimRunes(source, 64)))
		return
	}
	us, ok := s.upload(w, r, source, filepath.Join(s.deps.UploadDir, "sources", source), nil)
	if !ok {
		return
	}
	writeJSON(w, uploadStatus(us), map[string]any{"source": source, "files": us})
}

// getDocuments is GET /v1/documents[?source=NAME]: the documents of the
// data sources (not of sessions).
func (s *Server) getDocuments(w http.ResponseWriter, r *http.Request) {
	source := r.URL.Query().Get("source")
	docs, err := session.Public.Documents(r.Context(), s.deps.Store, source)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	if source != "" && len(docs) == 0 {
		// As search answers it: a data source the index does not have (or
		// a session's) is not an empty one.
		switch err := search.CheckSources(r.Context(), s.deps.Store, session.Public, source); {
		case errors.Is(err, search.ErrUnknownSource):
			writeError(w, http.StatusBadRequest, "unknown_source", err.Error())
			return
		case err != nil:
			s.internalError(w, r, http.StatusInternalServerError, "index", err)
			return
		}
	}
	out := []docInfo{}
	for _, d := range docs {
		out = append(out, infoOf(d))
	}
	writeJSON(w, 200, map[string]any{"documents": out})
}

// deleteDocument is DELETE /v1/documents/{id}.
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	id := r.PathValue("id")
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	// A session's documents are the session's: not found here.
	d, err := session.Public.Document(r.Context(), s.deps.Store, "", id)
	if err != nil || d.ID != id {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no document with id %q", trimRunes(id, 64)))
		return
	}
	if _, err := s.deps.Store.DeleteDocument(r.Context(), id); err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	s.removeUpload(d.Path)
	writeJSON(w, 200, map[string]any{"deleted": infoOf(d)})
}

// deleteSource is DELETE /v1/sources/{name}: every document of a data
// source, and the files uploaded into it.
func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request) {
	if !s.writable(w) {
		return
	}
	name := r.PathValue("name")
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	// A session's documents are the session's: not found here.
	docs, err := session.Public.Documents(r.Context(), s.deps.Store, name)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	if len(docs) == 0 {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no data source %q", trimRunes(name, 64)))
		return
	}
	// In transactions of many documents: one each took a commit each.
	for batch := range slices.Chunk(docs, 1024) {
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.ID
		}
		if _, err := s.deps.Store.DeleteDocuments(r.Context(), ids); err != nil {
			s.internalError(w, r, http.StatusInternalServerError, "index", err)
			return
		}
		for _, d := range batch {
			s.removeUpload(d.Path)
		}
	}
	writeJSON(w, 200, map[string]any{"deleted": name, "documents": len(docs)})
}

// removeUpload removes the uploaded copy at p, if p is one, and its
// folder if that is left empty.
func (s *Server) removeUpload(p string) {
	if !s.inUploads(p) {
		return
	}
	os.Remove(p)
	s.prune(filepath.Dir(p))
}

// inUploads reports whether p lies inside the upload folder (not the
// folder itself).
func (s *Server) inUploads(p string) bool {
	if s.deps.UploadDir == "" {
		return false
	}
	rel, err := filepath.Rel(s.deps.UploadDir, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// prune removes dir and then its parents while they are empty, up to the
// upload folder (kept). An upload racing it makes its folder again
// ([Server.createTemp]).
func (s *Server) prune(dir string) {
	for s.inUploads(dir) && os.Remove(dir) == nil {
		dir = filepath.Dir(dir)
	}
}

// createTemp makes a temporary file for an upload in folder, making the
// folder first; a few times if [Server.prune] removes the folder between
// the two.
func (s *Server) createTemp(folder string) (*os.File, error) {
	var err error
	for range 3 {
		if err = os.MkdirAll(folder, 0o755); err != nil {
			return nil, err
		}
		var f *os.File
		if f, err = os.CreateTemp(folder, ".upload-*"); !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, err
}
