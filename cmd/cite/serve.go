package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/server"
)

func runServe(ctx context.Context, e *env, args []string) error {
	f := newAskFlags(e, "serve", "", `Serve the question-answering API on --addr (loopback by default):
POST /v1/ask (JSON, or server-sent events with Accept: text/event-stream),
POST /v1/search, GET /v1/sources, DELETE /v1/sources/NAME, GET and POST
/v1/documents (multipart uploads, kept under the index folder's uploads/),
DELETE /v1/documents/ID, POST /v1/sessions, GET /v1/sessions/ID, POST
/v1/sessions/ID/documents, GET /v1/models, POST /v1/chat/completions
(OpenAI-compatible, streaming or not) and GET /healthz. On an index it may
not write, uploads, deletions and sessions are off. Binding anything but
loopback requires --token, then required as a bearer token on every
endpoint but /healthz. SIGINT or SIGTERM stops it gracefully.`)
	addr := f.String("addr", "127.0.0.1:8080", "address to listen on")
	token := f.String("token", "", "bearer token required on every endpoint but /healthz (default CITE_TOKEN)")
	var origins, hosts listFlag
	f.Var(&origins, "allow-origin", "an origin (scheme://host:port) allowed to call the API from a browser (repeatable)")
	f.Var(&hosts, "host", "a host name the server answers to besides localhost (repeatable)")
	maxAnswers := f.Int("max-answers", server.DefaultMaxAnswers, "answers computed at once; more get 429")
	timeout := f.Duration("timeout", server.DefaultRequestTimeout, "longest time one answer may take")
	maxBody := f.Int64("max-body", server.DefaultMaxBodyBytes, "largest request body, in bytes")
	maxQuestion := f.Int("max-question", server.DefaultMaxQuestionBytes, "longest question, in bytes")
	maxUpload := f.Int64("max-upload", server.DefaultMaxUploadBytes, "largest uploaded file, in bytes")
	if err := f.parse(args); err != nil {
		return err
	}
	if *token == "" {
		*token = e.getenv("CITE_TOKEN")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return f.usageError("--addr %s: %v", *addr, err)
	}
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) && *token == "" {
		return f.usageError("--addr %s is not loopback: set --token (or CITE_TOKEN) so that the API is not open to the network", *addr)
	}
	if ip := net.ParseIP(host); host != "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		hosts = append(hosts, host)
	}
	f.access = writeIndex // uploads, sessions; read-only when the index is
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.st.Close()
	dir, err := filepath.Abs(s.st.Dir())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	srv := server.New(server.Config{Token: *token, Hosts: hosts, AllowOrigins: origins, MaxAnswers: *maxAnswers,
		RequestTimeout: *timeout, MaxBodyBytes: *maxBody, MaxQuestionBytes: *maxQuestion, MaxUploadBytes: *maxUpload, Logger: log},
		server.Deps{Store: s.st, Searcher: s.searcher, Engine: s.eng, ModelName: modelID(s.eng),
			Embedder: s.embedder, UploadDir: filepath.Join(dir, "uploads")})
	fmt.Fprintf(e.stderr, "cite serve: listening on http://%s (model %s)\n", ln.Addr(), modelID(s.eng))
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return server.Serve(ctx, ln, srv.Handler(), server.Timeouts{Grace: 10 * time.Second})
}

// modelID is the model id the server lists: "cite-" and the model's name.
func modelID(eng *answer.Engine) string { return "cite-" + eng.Model().Name() }
