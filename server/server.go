// Package server is cite's local question-answering server: an HTTP API
// over the index and the orchestrator, with answers streamed as
// server-sent events and an OpenAI-compatible chat endpoint. cmd/cite
// wires it (cite serve); nothing else imports it.
//
// Security: it is meant to listen on loopback. A token, when set, guards
// every endpoint but /healthz, the page's static files and the login: a
// bearer token for programs, a login cookie for the page (see auth.go).
// Because a browser on the same machine
// can be steered at a loopback server, the Host header must name the
// server (DNS rebinding), and a state-changing request from another origin
// is refused unless that origin is allowed; no CORS header is sent to other
// origins. Every limit answers with a JSON error
// {"error":{"code","message"}} and its status. Logs never contain the
// token, a key or document text.
package server

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	indexembed "github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [Config].
const (
	DefaultMaxBodyBytes     = 1 << 20
	DefaultMaxQuestionBytes = 8 << 10
	DefaultRequestTimeout   = 2 * time.Minute
	DefaultMaxAnswers       = 8
)

// Config configures a [Server]. Zero fields take the defaults.
type Config struct {
	// Token, when set, is required on every endpoint but /healthz, the
	// page's static files and the login: as "Authorization: Bearer TOKEN",
	// or as the login cookie the page gets for it. [CheckToken] says which
	// tokens are fit; "" requires none.
	Token string
	// Hosts are the host names the server answers to (the Host header, port
	// ignored), besides localhost, 127.0.0.1 and ::1.
	Hosts []string
	// AllowOrigins are the origins (scheme://host:port) allowed to make
	// state-changing requests and to read answers cross-origin.
	AllowOrigins     []string
	MaxBodyBytes     int64
	MaxQuestionBytes int
	RequestTimeout   time.Duration
	// MaxAnswers bounds the answers computed at once; beyond it /v1/ask and
	// /v1/chat/completions answer 429 with Retry-After.
	MaxAnswers int
	// MaxUploadBytes bounds each uploaded file; an upload request may
	// carry up to 8.
	MaxUploadBytes int64
	Logger         *slog.Logger
}

// Deps are what the server serves.
type Deps struct {
	Store    *index.Store
	Searcher *search.Searcher
	Engine   *answer.Engine
	// ModelName is the model id /v1/models lists and answers carry.
	ModelName string
	// Embedder is the index's embedder, for uploads; nil indexes them for
	// full-text search only. When the index records another one (a cite
	// reindex while the server runs), uploads are embedded with that one,
	// made with EmbedConfig.
	Embedder *indexembed.Embedder
	// EmbedConfig configures the clients of the embedders the index may
	// record: a model server's address and key.
	EmbedConfig indexembed.Config
	// UploadDir is where uploaded files are kept; "" turns uploads and
	// deletions off, as does a read-only Store.
	UploadDir string
	// Sessions keeps the sessions, their limits and their expiry; its
	// Dir should be UploadDir's "sessions" folder. Nil: a
	// [session.Store] with the defaults over Store, without a sweeper
	// (expired sessions are not found, but stay on disk).
	Sessions *session.Store
	// Readers read the binary document formats uploads may be in (PDF,
	// Word, ...); without them uploads are Markdown, HTML and text only.
	Readers []ingest.Reader
}

// Server is the HTTP API.
type Server struct {
	cfg      Config
	deps     Deps
	sessions *session.Store
	mux      *http.ServeMux
	sem      chan struct{}
	log      *slog.Logger
	// writeMu orders this server's writes to the index (uploads,
	// deletions); index.LockWriter orders them with other processes'.
	writeMu sync.Mutex
	// embedders keeps the index's embedder for uploads (Deps.Embedder).
	embedders *indexembed.Follower
}

// New returns a server over deps.
func New(cfg Config, deps Deps) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxQuestionBytes <= 0 {
		cfg.MaxQuestionBytes = DefaultMaxQuestionBytes
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxAnswers <= 0 {
		cfg.MaxAnswers = DefaultMaxAnswers
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if deps.ModelName == "" {
		deps.ModelName = "cite"
	}
	if deps.UploadDir != "" {
		// Documents are stored under absolute paths: a relative upload
		// folder (cite serve's default index is .cite) would match none.
		if abs, err := filepath.Abs(deps.UploadDir); err == nil {
			deps.UploadDir = abs
		} else {
			cfg.Logger.Error("upload folder: uploads and deletions are off", "err", err)
			deps.UploadDir = ""
		}
	}
	s := &Server{cfg: cfg, deps: deps, sessions: deps.Sessions, mux: http.NewServeMux(), sem: make(chan struct{}, cfg.MaxAnswers), log: cfg.Logger.With("component", "server"),
		embedders: indexembed.NewFollower(deps.Embedder, deps.EmbedConfig)}
	if s.sessions == nil && deps.Store != nil {
		dir := ""
		if deps.UploadDir != "" {
			dir = filepath.Join(deps.UploadDir, "sessions")
		}
		s.sessions = session.New(deps.Store, session.Config{Dir: dir, Logger: cfg.Logger})
	}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	s.mux.HandleFunc("POST /v1/ask", s.ask)
	s.mux.HandleFunc("POST /v1/search", s.search)
	s.mux.HandleFunc("GET /v1/sources", s.sources)
	s.mux.HandleFunc("DELETE /v1/sources/{name}", s.deleteSource)
	s.mux.HandleFunc("GET /v1/documents", s.getDocuments)
	s.mux.HandleFunc("POST /v1/documents", s.postDocuments)
	s.mux.HandleFunc("DELETE /v1/documents/{id}", s.deleteDocument)
	s.mux.HandleFunc("GET /v1/documents/{id}/source", s.documentSource)
	s.mux.HandleFunc("POST /v1/sessions", s.postSession)
	s.mux.HandleFunc("GET /v1/sessions/{id}", s.getSession)
	s.mux.HandleFunc("DELETE /v1/sessions/{id}", s.deleteSession)
	s.mux.HandleFunc("POST /v1/sessions/{id}/documents", s.postSessionDocuments)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /v1/models/{id...}", s.model)
	s.mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mcpSrv := newMCP(deps, "dev", s.log)
	// Stateless: each request is served by a session of its own, gone when
	// it is answered. The tools need no session, and a server that kept
	// one per initialize would grow with every client that never ends its
	// own.
	s.mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, &mcp.StreamableHTTPOptions{Stateless: true,
		// guard checks the Host header, --host names included, which the
		// SDK's own check would refuse.
		DisableLocalhostProtection: true}))
	static, _ := fs.Sub(webFiles, "web")
	files := http.FileServerFS(static)
	s.mux.Handle("GET /static/", page(http.StripPrefix("/static/", files)))
	s.mux.Handle("GET /{$}", page(s.home(http.HandlerFunc(s.chatPage))))
	s.mux.Handle("POST /login", page(http.HandlerFunc(s.postLogin)))
	s.mux.Handle("GET /favicon.ico", page(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "favicon.svg")
	})))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := s.methods(r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, strings.Join(allow, ", ")))
			return
		}
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return s
}

// methods returns the methods r's path takes, none when no endpoint has
// it: the catch-all "/" pattern keeps ServeMux from answering 405 itself.
func (s *Server) methods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete} {
		probe := r.WithContext(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// webFiles is the chat page: plain HTML, CSS and JavaScript, no build
// step, nothing from another origin.
//
//go:embed web
var webFiles embed.FS

// chatTemplate is the chat page; its upload form names the formats the
// server reads.
var chatTemplate = template.Must(template.ParseFS(webFiles, "web/index.html"))

// chatPage is GET /: the chat page, whose upload form names and accepts
// the formats uploads may be in.
func (s *Server) chatPage(w http.ResponseWriter, _ *http.Request) {
	formats := struct{ Names, Accept string }{"Markdown, HTML or text", ".md,.markdown,.mdx,.html,.htm,.txt,text/markdown,text/html,text/plain"}
	if len(s.deps.Readers) > 0 {
		formats.Names = "PDF, Word, OpenDocument, EPUB, PowerPoint, Excel, Markdown, HTML (a saved page too), text or pictures of pages (by OCR)"
		formats.Accept = ".pdf,.docx,.odt,.epub,.pptx,.doc,.ppt,.xlsx,.ods,.xls," + formats.Accept + ",.mhtml,.mht,.png,.jpg,.jpeg,.tif,.tiff,.gif,.bmp,.webp,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document," +
			"application/vnd.oasis.opendocument.text,application/epub+zip,application/vnd.openxmlformats-officedocument.presentationml.presentation," +
			"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,application/vnd.oasis.opendocument.spreadsheet,multipart/related,image/png,image/jpeg,image/tiff,image/gif,image/bmp,image/webp"
	}
	var b bytes.Buffer
	if err := chatTemplate.Execute(&b, formats); err != nil {
		s.log.Error("chat page", "err", err)
		http.Error(w, "the page could not be made", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// page sets the headers of the chat page's files.
func page(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// Handler returns the server's handler with its checks and logging.
func (s *Server) Handler() http.Handler {
	return s.logged(s.guard(s.mux))
}

// apiError is the JSON error body.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

// internalMessage is what a client reads of a failure inside the server:
// the error's own text may name files, databases or hosts, so it goes to
// the server's log only.
const internalMessage = "the server failed to do this; its log has the details"

// internalError logs err and answers status with code and
// [internalMessage], never err's text.
//
// A write that found the disk full (the index's, or the uploads') is 507
// disk_full saying so instead, still without err's text: the client, not
// only the log's reader, can tell that retrying will not help until space
// is freed (it read "the server failed to do this").
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, status int, code string, err error) {
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	if diskFull(err) {
		writeError(w, http.StatusInsufficientStorage, "disk_full", diskFullMessage)
		return
	}
	writeError(w, status, code, internalMessage)
}

// diskFullMessage is what a client reads of a write that found no room.
const diskFullMessage = "the server's disk is full: nothing can be written until space is freed"

// diskFull reports whether err is a write that found no room: SQLite's
// (index.ErrFull), or the file system's (no space, over a quota).
func diskFull(err error) bool {
	return errors.Is(err, index.ErrFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// guard checks Host, origin and token before any handler runs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, "bad_host", "this server does not answer to host "+strconv.Quote(r.Host))
			return
		}
		origin := r.Header.Get("Origin")
		allowed := origin == "" || s.sameOrigin(r, origin) || slices.Contains(s.cfg.AllowOrigins, origin)
		if origin != "" && allowed && !s.sameOrigin(r, origin) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Vary", "Origin")
			w.Header().Set("Access-Control-Allow-Headers", corsHeaders(r.Header.Values("Access-Control-Request-Headers")))
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			w.Header().Set("Access-Control-Expose-Headers", "Retry-After, X-Should-Retry")
			if r.Method == http.MethodOptions {
				w.Header().Add("Vary", "Access-Control-Request-Headers")
			}
		}
		if r.Method == http.MethodOptions {
			if !allowed {
				writeError(w, http.StatusForbidden, "bad_origin", "cross-origin requests from "+origin+" are not allowed (see --allow-origin)")
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !allowed {
			writeError(w, http.StatusForbidden, "bad_origin", "cross-origin requests from "+origin+" are not allowed (see --allow-origin)")
			return
		}
		if s.cfg.Token != "" && !public(r) {
			if status, code, msg := s.authorize(r); status != 0 {
				if status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer realm="cite"`)
				}
				writeError(w, status, code, msg)
				return
			}
		}
		limit := s.cfg.MaxBodyBytes
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/documents") {
			limit = 8*s.cfg.MaxUploadBytes + 1<<20 // uploads: each file is checked too
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// corsHeaders is the Access-Control-Allow-Headers of an allowed origin's
// request: Authorization, Content-Type and Accept, and of the headers
// its preflight asks for (requested), those OpenAI's clients send: their
// x-stainless-* headers (the client's OS, runtime, version, retry count,
// timeout), OpenAI-Organization and OpenAI-Project. cite reads none of
// them; a browser refuses a request whose headers are not all allowed.
func corsHeaders(requested []string) string {
	allow := []string{"Authorization", "Content-Type", "Accept"}
	for _, v := range requested {
		for h := range strings.SplitSeq(v, ",") {
			h = strings.ToLower(strings.TrimSpace(h))
			stainless := strings.HasPrefix(h, "x-stainless-") && len(h) <= 64 && !strings.ContainsFunc(h, notNameChar)
			if (stainless || h == "openai-organization" || h == "openai-project") && !slices.Contains(allow, h) {
				allow = append(allow, h)
			}
		}
	}
	return strings.Join(allow, ", ")
}

// notNameChar reports whether r is not a letter, digit or '-' of a
// lower-case header name.
func notNameChar(r rune) bool {
	return !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
}

// bearerToken returns the token of an Authorization header of the Bearer
// scheme, whose name is case-insensitive (RFC 9110, 11.1).
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(strings.ToLower(host), "[]")
	if host == "localhost" {
		return true
	}
	// Any loopback address (127.0.0.0/8, ::1): the server may be bound to
	// 127.0.0.2, and an address is not a name DNS can rebind.
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return true
	}
	return slices.Contains(s.cfg.Hosts, host)
}

func (s *Server) sameOrigin(r *http.Request, origin string) bool {
	return origin == "http://"+r.Host || origin == "https://"+r.Host
}

// statusWriter records the status and size for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
	// gone is set when the client went away before the response was
	// done, after its status went out (a stream's 200): logged as 499.
	gone bool
}

// clientGone marks w's request, for the log, as one whose client went
// away before its response was done.
func clientGone(w http.ResponseWriter) {
	for {
		switch v := w.(type) {
		case *statusWriter:
			v.gone = true
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return
		}
	}
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += n
	return n, err
}
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logged logs each request: method, path (no query: it may hold text),
// status, size and duration; never headers or bodies.
func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		status := sw.status
		if sw.gone {
			status = StatusClientClosedRequest
		}
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status, "bytes", sw.bytes, "duration_ms", time.Since(start).Milliseconds())
	})
}

// decode reads one JSON object into v, strictly.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	return s.decodeJSON(w, r, v, true)
}

// decodeJSON reads one JSON object into v: no field twice, field names in
// their exact case and, when strict, no field v does not have.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "bad_content_type", "send a JSON body with Content-Type: application/json")
		return false
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		s.bodyFailed(w, r, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "invalid JSON body: "+jsonError(err, "the body"))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "bad_json", "the body must be one JSON object")
		return false
	}
	if err := checkFields(data, reflect.TypeOf(v)); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// bodyFailed answers a request whose body could not be read: 413 over the
// size limit, 408 when it did not arrive before the server's read timeout,
// else 400. The read error's own text (the connection's addresses, ...)
// goes to the log only.
func (s *Server) bodyFailed(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooBig):
		msg := "the body is " + overLimit(tooBig.Limit, "--max-body")
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/documents") {
			// An upload's: room for 8 files of --max-upload, and 1 MiB.
			msg = fmt.Sprintf("the body is over %s: 8 files of at most %s (cite serve --max-upload %d) and 1 MiB", limitSize(tooBig.Limit), limitSize(s.cfg.MaxUploadBytes), s.cfg.MaxUploadBytes)
		}
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", msg)
	case errors.As(err, &ne) && ne.Timeout():
		writeError(w, http.StatusRequestTimeout, "body_timeout", "the request body did not arrive in time")
	default:
		s.log.Warn("request body unreadable", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusBadRequest, "bad_body", "the request body could not be read")
	}
}

// bodyReader records the first error of reading a body, io.EOF aside: a
// multipart reader's own errors (a malformed body) are the client's to
// read, the body's (a timeout, a connection cut) are not.
type bodyReader struct {
	io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// acquire takes an answer slot, or answers 429.
func (s *Server) acquire(w http.ResponseWriter) bool {
	select {
	case s.sem <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "2")
		writeError(w, http.StatusTooManyRequests, "busy", fmt.Sprintf("%d answers are being computed; retry shortly", s.cfg.MaxAnswers))
		return false
	}
}

func (s *Server) release() { <-s.sem }

func (s *Server) sources(w http.ResponseWriter, r *http.Request) {
	srcs, err := session.Public.Sources(r.Context(), s.deps.Store)
	if err != nil {
		s.internalError(w, r, http.StatusInternalServerError, "index", err)
		return
	}
	writeJSON(w, 200, map[string]any{"sources": srcs})
}

type searchRequest struct {
	Query  string `json:"query"`
	K      int    `json:"k"`
	Mode   string `json:"mode"`
	Source string `json:"source"`
	PerDoc int    `json:"per_doc"`
	Path   string `json:"path"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if !s.decode(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.Query) == "" || len(req.Query) > s.cfg.MaxQuestionBytes {
		writeError(w, http.StatusBadRequest, "bad_query", fmt.Sprintf("query: 1 byte to %s (cite serve --max-question %d)", limitSize(int64(s.cfg.MaxQuestionBytes)), s.cfg.MaxQuestionBytes))
		return
	}
	mode, err := search.ParseMode(cmpOr(req.Mode, "hybrid"))
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_mode", fmt.Sprintf("mode %q: hybrid (the default), bm25 or vector", trimRunes(req.Mode, 64)))
		return
	case req.K < 0 || req.K > 100:
		writeError(w, http.StatusBadRequest, "bad_k", fmt.Sprintf("k is 0 (the default) to 100, not %d", req.K))
		return
	case req.PerDoc < 0:
		writeError(w, http.StatusBadRequest, "bad_per_doc", fmt.Sprintf("per_doc is 0 (no limit) or more, not %d", req.PerDoc))
		return
	}
	// Every data source unless one is named; never a session's
	// (session.Public, the zero Scope).
	q := search.Query{Text: req.Query, K: req.K, Mode: mode, PerDocument: req.PerDoc, Filter: index.Filter{Sources: nonEmpty(req.Source), Path: req.Path}}
	if err := q.Filter.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, "bad_path", "path: "+strings.TrimPrefix(err.Error(), index.ErrInvalidInput.Error()+": "))
		return
	}
	if relativeGlob(req.Path) {
		writeError(w, http.StatusBadRequest, "bad_path", fmt.Sprintf("path %q: documents' paths are absolute (or URLs), so a relative pattern matches none; %q matches below any folder", trimRunes(req.Path, 200), "*/"+trimRunes(strings.TrimPrefix(req.Path, "./"), 200)))
		return
	}
	res, err := s.deps.Searcher.Search(r.Context(), q)
	switch {
	case errors.Is(err, search.ErrInvalidQuery):
		writeError(w, http.StatusBadRequest, "bad_query", err.Error()) // names the field
		return
	case errors.Is(err, search.ErrUnknownSource):
		writeError(w, http.StatusBadRequest, "unknown_source", err.Error()) // lists the public sources
		return
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "cancelled", "the search was cancelled")
		return
	case err != nil:
		s.internalError(w, r, http.StatusInternalServerError, "search", err)
		return
	}
	writeJSON(w, 200, res)
}

// relativeGlob reports whether the path pattern p can match no stored
// path: those are absolute paths or URLs, and a GLOB matches from the
// start, so a pattern that starts with neither "/" nor a wildcard nor a
// URL's scheme ("notes/*", "./notes/*.md") matches nothing. cite search
// takes such a pattern from the working directory; the server has none to
// take it from, and it answered an empty list.
func relativeGlob(p string) bool {
	if p == "" || strings.ContainsAny(p[:1], "/*?[") {
		return false
	}
	scheme, _, ok := strings.Cut(p, ":")
	return !ok || strings.ContainsAny(scheme, "/*?[")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"object": "list", "data": []any{s.modelObject()}})
}

// model is GET /v1/models/{id}: the served model's object, or OpenAI's
// 404 for any other id.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != s.deps.ModelName {
		s.modelNotFound(w, id)
		return
	}
	writeJSON(w, 200, s.modelObject())
}

// modelInfo is a model as OpenAI lists one.
type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// modelObject is the served model.
func (s *Server) modelObject() modelInfo {
	return modelInfo{ID: s.deps.ModelName, Object: "model", OwnedBy: "cite"}
}

// modelNotFound answers 404 for model id in OpenAI's shape: cite's code
// and message, with OpenAI's type and param.
func (s *Server) modelNotFound(w http.ResponseWriter, id string) {
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
		"code":    "model_not_found",
		"message": fmt.Sprintf("The model '%s' does not exist; this server answers with '%s' (GET /v1/models)", trimRunes(id, 64), s.deps.ModelName),
		"type":    "invalid_request_error",
		"param":   "model",
	}})
}

// Timeouts bound what a client may take; zero fields take the defaults.
type Timeouts struct {
	// Grace is how long in-flight requests may finish after shutdown
	// begins before they are cancelled (default 10 s).
	Grace time.Duration
	// ReadHeader bounds reading a request's headers (default 10 s): a
	// client that sends them slowly is cut off.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included (default 60 s).
	Read time.Duration
}

// Serve runs h on ln until ctx is done, then shuts down gracefully: new
// connections stop, in-flight requests get t.Grace to finish, then are
// cancelled.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts) error {
	if t.Grace <= 0 {
		t.Grace = 10 * time.Second
	}
	if t.ReadHeader <= 0 {
		t.ReadHeader = 10 * time.Second
	}
	if t.Read <= 0 {
		t.Read = 60 * time.Second
	}
	grace := t.Grace
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.Background(), grace)
	defer scancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		cancel() // cancel what is still running
		srv.Close()
	}
	<-errc
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// nonEmpty returns a list of s, or none when s is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
