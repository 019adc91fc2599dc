package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	sessions "github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/ingest/watch"
	"github.com/cite-rag/cite/normalize/pdf"
	"github.com/cite-rag/cite/server"
)

func runServe(ctx context.Context, e *env, args []string) error {
	f := newAskFlags(e, "serve", "", `Serve the question-answering API on --addr (loopback by default):
POST /v1/ask (JSON, or server-sent events with Accept: text/event-stream),
POST /v1/search, GET /v1/sources, DELETE /v1/sources/NAME, GET and POST
/v1/documents (multipart uploads, kept under the index folder's uploads/),
DELETE /v1/documents/ID, POST /v1/sessions, GET and DELETE /v1/sessions/ID,
POST /v1/sessions/ID/documents, GET /v1/models, POST /v1/chat/completions
(OpenAI-compatible, streaming or not), GET /v1/documents/ID/source, the chat
page at / and GET /healthz. On an index it may not write, uploads, deletions
and sessions are off. Every endpoint but /healthz and the page's files
requires a token: --token, else CITE_TOKEN, else a random one; programs
send it as "Authorization: Bearer TOKEN", and the login URL printed at
start (/?token=TOKEN) logs a browser in with a cookie. --no-token turns
it off, on a loopback --addr only. With --watch PATH..., it indexes the
PATHs into the default source and keeps them in sync while it serves,
leaving out what their ignore files and --exclude leave out, as cite index
--watch does (--no-ignore reads no ignore files). SIGINT or SIGTERM stops
it gracefully.`)
	addr := f.String("addr", "127.0.0.1:8080", "address to listen on; a host left out (:8080), 0.0.0.0 or :: is every network interface, which is warned of")
	token := f.String("token", "", "the token required on every endpoint but /healthz: printable ASCII, at least 16 characters off loopback (default CITE_TOKEN, else a random one)")
	noToken := f.Bool("no-token", false, "require no token (only with a loopback --addr): anyone on this machine can ask, upload and delete")
	var origins, hosts listFlag
	f.Var(&origins, "allow-origin", "an origin (scheme://host:port) allowed to call the API from a browser (repeatable)")
	f.Var(&hosts, "host", "a host name the server answers to besides localhost (repeatable)")
	maxAnswers := f.Int("max-answers", server.DefaultMaxAnswers, "answers computed at once; more get 429")
	timeout := f.Duration("timeout", server.DefaultRequestTimeout, "longest time one answer may take")
	maxBody := f.Int64("max-body", server.DefaultMaxBodyBytes, "largest request body, in bytes")
	maxQuestion := f.Int("max-question", server.DefaultMaxQuestionBytes, "longest question, in bytes")
	maxUpload := f.Int64("max-upload", server.DefaultMaxUploadBytes, "largest uploaded file, in bytes")
	sessionTTL := f.Duration("session-ttl", sessions.DefaultTTL, "a session unused this long expires, with its documents and files (0: never)")
	maxSessions := f.Int("max-sessions", sessions.DefaultMaxSessions, "sessions kept at once; more get 429")
	maxSessionFiles := f.Int("max-session-files", sessions.DefaultMaxFiles, "files uploaded into one session")
	maxSessionBytes := f.Int64("max-session-bytes", sessions.DefaultMaxBytes, "bytes of files uploaded into one session")
	maxPages := f.Int("max-pages", pdf.DefaultMaxPages, "PDFs and TIFF pictures with more pages, uploaded or watched, are not read: each is skipped, named, with its page count")
	watching := f.Bool("watch", false, "index the PATHs given (folders recursively) into the default source, then keep them in sync while serving")
	noIgnore := f.Bool("no-ignore", false, "with --watch: do not read .gitignore, .ignore and .git/info/exclude files or git's global excludes file")
	keepBoilerplate := f.Bool("keep-boilerplate", false, "with --watch: read web pages (.html, .mhtml) whole, as cite index --keep-boilerplate")
	var excludes listFlag
	f.Var(&excludes, "exclude", "with --watch: leave out files and folders matching this `GLOB`: 'drafts', '*.tmp' (a name, any depth), 'docs/old/**' (a path from the PATH) (repeatable)")
	if err := f.parse(args); err != nil {
		return err
	}
	if *watching {
		if err := watchUsage(f.Args()); err != nil {
			return f.usageError("%v", err)
		}
		for _, x := range excludes {
			if err := ingest.CheckExclude(x); err != nil {
				return f.usageError("--exclude %v", err)
			}
		}
		chunk.Preload() // while the index opens, for the first pass
	} else if f.NArg() > 0 {
		return f.usageError("serve: PATHs are for --watch")
	} else if len(excludes) > 0 || *noIgnore || *keepBoilerplate {
		return f.usageError("serve: --exclude, --no-ignore and --keep-boilerplate are for --watch")
	}
	switch {
	case *maxPages < 1:
		return f.usageError("--max-pages %d: want at least 1", *maxPages)
	case *sessionTTL < 0:
		return f.usageError("--session-ttl %s: want 0 (never) or more", *sessionTTL)
	case *maxSessions < 1:
		return f.usageError("--max-sessions %d: want 1 or more", *maxSessions)
	case *maxSessionFiles < 1:
		return f.usageError("--max-session-files %d: want 1 or more", *maxSessionFiles)
	case *maxSessionBytes < 1:
		return f.usageError("--max-session-bytes %d: want 1 or more", *maxSessionBytes)
	}
	ttl := *sessionTTL
	if ttl == 0 {
		ttl = -1 // sessions.Config: negative is never, 0 the default
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return f.usageError("--addr %s: %v", *addr, err)
	}
	given := ""
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == "token" {
			given = "--token"
		}
	})
	if given == "" && e.getenv("CITE_TOKEN") != "" {
		given, *token = "CITE_TOKEN", e.getenv("CITE_TOKEN")
	}
	tok, err := serveToken(*token, given, *noToken, *addr)
	if err != nil {
		return f.usageError("%v", err)
	}
	if ip := net.ParseIP(host); host != "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		hosts = append(hosts, host)
	}
	if *watching {
		// As cite index --watch: the index is made if there is none, but
		// not below a folder that has one.
		if err := f.belowAnIndex(); err != nil {
			return err
		}
		if err := makeIndex(ctx, e, f.flags); err != nil {
			return err
		}
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
	uploads := filepath.Join(dir, "uploads")
	// The sweeper of expired sessions runs until the server stops.
	sess, err := sessions.Open(ctx, s.st, sessions.Config{Dir: filepath.Join(uploads, "sessions"), TTL: ttl,
		MaxSessions: *maxSessions, MaxFiles: *maxSessionFiles, MaxBytes: *maxSessionBytes, Logger: log})
	if err != nil {
		ln.Close()
		return err
	}
	defer sess.Close()
	srv := server.New(server.Config{Token: tok, Hosts: hosts, AllowOrigins: origins, MaxAnswers: *maxAnswers,
		RequestTimeout: *timeout, MaxBodyBytes: *maxBody, MaxQuestionBytes: *maxQuestion, MaxUploadBytes: *maxUpload, Logger: log},
		server.Deps{Store: s.st, Searcher: s.searcher, Engine: s.eng, ModelName: modelID(s.eng),
			Embedder: s.embedder, EmbedConfig: e.embedConfig(), UploadDir: uploads, Sessions: sess,
			Readers: documentReadersFor(&pdf.Reader{MaxPages: *maxPages}, "cite serve --max-pages")})
	fmt.Fprintf(e.stderr, "cite serve: listening on http://%s (model %s)\n", ln.Addr(), modelID(s.eng))
	if w := exposure(*addr, ln.Addr(), hosts); w != "" {
		fmt.Fprintln(e.stderr, w)
	}
	if tok == "" {
		fmt.Fprintf(e.stderr, "cite serve: no token (--no-token): anyone on this machine can use it; the page is at %s\n", loginURL(host, ln.Addr(), ""))
	} else {
		// The one place the token is written: the login URL.
		fmt.Fprintf(e.stderr, "cite serve: open the page at %s\n", loginURL(host, ln.Addr(), tok))
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *watching {
		if s.st.ReadOnly() {
			ln.Close()
			return fmt.Errorf("--watch: the index %s is read-only", dir)
		}
		filter := ingest.Options{NoIgnore: *noIgnore, Exclude: excludes, GitExcludes: ingest.GitExcludes(e.getenv), KeepBoilerplate: *keepBoilerplate}
		done, err := serveWatch(ctx, s.st, s.embedder, e.embedConfig(), f.Args(), filter, &pdf.Reader{MaxPages: *maxPages}, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer func() { <-done }() // the batch under way is written before the index closes
	}
	return server.Serve(ctx, ln, srv.Handler(), server.Timeouts{Grace: 10 * time.Second})
}

// makeIndex makes the index f names if it has none, with the embedder
// cite index would give it.
func makeIndex(ctx context.Context, e *env, f *flags) error {
	if index.Exists(f.index) {
		return nil
	}
	st, err := f.openIndex(ctx, createIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	emb, err := indexEmbedder(ctx, e, st, "")
	if err != nil {
		return err
	}
	return st.UseEmbedder(ctx, emb)
}

// serveWatch indexes paths into the default source of st, then keeps them
// in sync until ctx is done, in the background, while the server answers
// from the same store (its in-memory vectors follow every write). What
// the walks leave out is filter's NoIgnore, Exclude and GitExcludes,
// and how web pages are read its KeepBoilerplate, as cite index --watch's
// flags; PDFs and pictures are read by p. The returned channel is closed
// when it is done.
func serveWatch(ctx context.Context, st *index.Store, emb *embed.Embedder, cfg embed.Config, paths []string, filter ingest.Options, p *pdf.Reader, log *slog.Logger) (<-chan struct{}, error) {
	readers := documentReaders(p)
	if filter.KeepBoilerplate {
		readers = wholePages(readers)
	}
	opts := ingest.Options{Embedder: emb, Readers: readers, Skip: watch.Skip, Roots: paths, PruneIgnored: true,
		NoIgnore: filter.NoIgnore, Exclude: filter.Exclude, GitExcludes: filter.GitExcludes, KeepBoilerplate: filter.KeepBoilerplate,
		OnWarning: func(p string, err error) { log.Warn("watch: "+err.Error(), "path", p) },
		OnEvent: func(ev ingest.Event) {
			switch ev.Outcome {
			case ingest.Added, ingest.Updated, ingest.Pruned:
				args := []any{"path", ev.Path}
				if ev.Reason != "" { // pruned: ignored now, not gone
					args = append(args, "reason", ev.Reason)
				}
				log.Info("watch: "+strings.ToLower(ev.Outcome.String()), args...)
				for _, n := range ev.Notes { // pages not read and what to install
					log.Info("watch: note", "path", ev.Path, "note", n)
				}
			case ingest.Skipped, ingest.Failed:
				log.Warn("watch: "+strings.ToLower(ev.Outcome.String()), "path", ev.Path, "reason", ev.Reason, "err", ev.Err)
			}
		}}
	first, err := ingest.New(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	opts.Prune = true // as cite index --watch's changes
	w, err := openWatch(ctx, st, paths, opts, cfg, func(s string) { log.Warn(s) })
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		unlock, err := index.LockWriter(ctx, st.Dir(), nil)
		if err != nil {
			return // ctx done
		}
		stats, err := first.Index(ctx, paths...)
		unlock()
		if err != nil {
			log.Warn("watch: first pass", "err", err)
		}
		log.Info("watch: indexed, watching for changes", "paths", strings.Join(paths, " "), "added", stats.Added, "updated", stats.Updated, "unchanged", stats.Unchanged,
			"ignored", stats.Ignored, "pruned_ignored", stats.PrunedIgnored, "folders", w.Watches())
		if stats.Missing > 0 {
			// Kept by the first pass, as by cite index without --prune;
			// the changes watched from now on prune. Those ignored now
			// were pruned, as cite index prunes them.
			log.Warn("watch: documents kept from before whose files are gone (cite index --prune PATH... removes them)",
				"missing", stats.Missing)
		}
		w.Run(ctx)
	}()
	return done, nil
}

// serveToken returns the server's token: the one given (by given, the
// flag or variable that set it, "" for none), checked, or a random one;
// "" with noToken, which only a loopback addr may have.
func serveToken(token, given string, noToken bool, addr string) (string, error) {
	loopback := server.IsLoopback(addr)
	switch {
	case noToken && given != "" && given != "CITE_TOKEN":
		return "", errors.New("--token and --no-token contradict each other")
	case noToken && !loopback:
		return "", fmt.Errorf("--no-token: --addr %s is not loopback; a server open to the network needs a token", addr)
	case noToken:
		return "", nil
	case given != "":
		if err := server.CheckToken(token, loopback); err != nil {
			return "", fmt.Errorf("%s: %v", given, err)
		}
		return token, nil
	}
	return server.NewToken()
}

// loginURL is the address of the page on ln for a browser, with the token
// that logs it in: the --addr host, or 127.0.0.1 for an unspecified one
// (0.0.0.0, ::), which the server answers on too.
func loginURL(host string, ln net.Addr, token string) string {
	_, port, _ := net.SplitHostPort(ln.String())
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	u := "http://" + net.JoinHostPort(host, port) + "/"
	if token != "" {
		u += "?token=" + url.QueryEscape(token)
	}
	return u
}

// exposure returns the warning cite serve gives when it listens on more
// than loopback (addr as --addr gave it, bound as listened on, hosts the
// names it answers to besides loopback ones), "" on loopback: what other
// machines reach, that it travels unencrypted, and how to keep it to this
// machine. An empty host (":8080", Go's and the system's meaning) or an
// unspecified one (0.0.0.0, ::) is every interface.
func exposure(addr string, bound net.Addr, hosts []string) string {
	if server.IsLoopback(addr) {
		return ""
	}
	host, port, _ := net.SplitHostPort(bound.String())
	given, _, _ := net.SplitHostPort(addr)
	where := "anyone who can reach " + given + " on port " + port
	var b strings.Builder
	if ip := net.ParseIP(given); given == "" || ip != nil && ip.IsUnspecified() {
		fmt.Fprintf(&b, "cite serve: warning: --addr %s listens on every network interface (%s; an address without a host, or with 0.0.0.0 or ::, means all of them), not only on this machine's loopback", addr, bound)
		where = "anyone who can reach this machine on port " + port
	} else {
		fmt.Fprintf(&b, "cite serve: warning: --addr %s is not loopback (%s)", addr, net.JoinHostPort(host, port))
	}
	fmt.Fprintf(&b, ": %s can call the API, and with the token ask, read every indexed document, upload and delete;"+
		" the token, questions and documents travel unencrypted (plain HTTP, no TLS)", where)
	named := slices.ContainsFunc(hosts, func(h string) bool { ip := net.ParseIP(h); return ip == nil || !ip.IsUnspecified() })
	if !named {
		b.WriteString("; requests naming this machine by another name or address than a loopback one are refused unless --host names it")
	}
	fmt.Fprintf(&b, "; --addr 127.0.0.1:%s keeps it to this machine", port)
	return b.String()
}

// modelID is the model id the server lists: "cite-" and the model's name.
func modelID(eng *answer.Engine) string { return "cite-" + eng.Model().Name() }
