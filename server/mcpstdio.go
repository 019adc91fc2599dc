package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioOptions configure [ServeMCPStdio]. Zero fields take the defaults.
type StdioOptions struct {
	// MaxLineBytes bounds one line, one JSON-RPC message (default the MCP
	// SDK's, 16 MiB).
	MaxLineBytes int
	Logger       *slog.Logger
}

// ServeMCPStdio runs srv over newline-delimited JSON-RPC on r and w (cite
// mcp: standard input and output) until r ends or ctx is done.
//
// The SDK's stdio transport ends the connection at the first line it cannot
// decode, dropping the replies it still owes. Here such a line is answered
// with a JSON-RPC error instead, and skipped: -32700 (parse error) when it
// is not JSON, -32600 (invalid request) when it is JSON but not one
// JSON-RPC message (a batch, for one: MCP has none since 2025-06-18), or
// over opts.MaxLineBytes. Each is logged, without the line.
func ServeMCPStdio(ctx context.Context, srv *mcp.Server, r io.Reader, w io.Writer, opts StdioOptions) error {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = mcp.DefaultMaxLineLength
	}
	owed := &owedReplies{changed: make(chan struct{}, 1)}
	out := &lockedWriter{w: w, owed: owed}
	in := &lineFilter{br: bufio.NewReaderSize(r, 64<<10), out: out, log: opts.Logger, max: opts.MaxLineBytes, owed: owed}
	// The filter bounds lines; the SDK's own bound would count its
	// read-ahead too.
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: out, MaxLineLength: -1})
}

// lockedWriter serializes writes: the SDK's replies and the filter's
// errors each go out in one Write, never interleaved.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	owed *owedReplies
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	l.owed.written(p)
	return n, err
}

// writeOwn writes the filter's own reply, which settles no request of
// the SDK's.
func (l *lockedWriter) writeOwn(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p)
}

// owedReplies counts the requests passed on to the SDK and not answered
// yet: at the end of the input they are waited for, since the SDK ends
// the session, and drops what it has not written, as soon as its reader
// ends.
type owedReplies struct {
	mu      sync.Mutex
	n       int
	changed chan struct{}
}

// MCPDrainTimeout bounds how long [ServeMCPStdio] waits, at the end of its
// input, for the replies it owes.
const MCPDrainTimeout = 30 * time.Second

func (o *owedReplies) add() {
	o.mu.Lock()
	o.n++
	o.mu.Unlock()
}

// written counts msg off if it is a reply.
func (o *owedReplies) written(msg []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &head) != nil || head.Method != nil || head.ID == nil || string(head.ID) == "null" {
		return
	}
	o.mu.Lock()
	o.n = max(0, o.n-1)
	o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

// wait waits until no reply is owed, or d has passed.
func (o *owedReplies) wait(d time.Duration) {
	timeout := time.After(d)
	for {
		o.mu.Lock()
		n := o.n
		o.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-o.changed:
		case <-timeout:
			return
		}
	}
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter passes on the lines of br that are JSON-RPC messages, one
// per line, and answers the others with a JSON-RPC error.
type lineFilter struct {
	br   *bufio.Reader
	out  *lockedWriter
	log  *slog.Logger
	max  int
	owed *owedReplies
	line []byte // the line being read
	buf  []byte // what Read has yet to return
	err  error  // the reader's error, once buf is drained
	// drained is set once the replies owed at the end of the input
	// were waited for.
	drained bool
	// initialized is set once an initialize request was passed on.
	initialized bool
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			if !f.drained {
				f.owed.wait(MCPDrainTimeout)
				f.drained = true
			}
			return 0, f.err
		}
		line, tooLong, err := f.next()
		f.err = err
		if tooLong {
			f.reject(nil, jsonrpc.CodeInvalidRequest, "a message is one line of at most "+limitSize(int64(f.max)))
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 && f.check(msg) {
			f.buf = append(msg, '\n')
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// next reads one line, newline excluded; tooLong reports that it was over
// f.max bytes, and was read to its end and dropped.
func (f *lineFilter) next() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.br.ReadSlice('\n')
		if len(f.line)+len(chunk) <= f.max+1 {
			f.line = append(f.line, chunk...)
		} else {
			tooLong = true
			f.line = f.line[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(f.line, []byte("\n")), tooLong, err
	}
}

// check reports whether msg is one JSON-RPC message, and answers it with
// an error if it is not.
func (f *lineFilter) check(msg []byte) bool {
	if !json.Valid(msg) {
		f.reject(nil, jsonrpc.CodeParseError, "parse error: a line is not JSON")
		return false
	}
	switch msg[0] {
	case '{':
	case '[':
		f.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		return false
	default:
		f.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
		return false
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		f.reject(usableID(msg), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return false
	}
	// The SDK takes a message without a method for a response, and one
	// whose id is null for a notification: it drops the first, and
	// answers neither.
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	json.Unmarshal(msg, &head)
	switch {
	case head.Method != nil && string(head.ID) == "null":
		f.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: a request's id is a string or an integer, not null (a notification has none)")
		return false
	case head.Method == nil && (head.ID == nil || (head.Result == nil) == (head.Error == nil)):
		f.reject(usableID(msg), jsonrpc.CodeInvalidRequest, `invalid request: a message has a "method" (a request or notification), or an "id" and a "result" or "error" (a response)`)
		return false
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return true
	}
	// Until initialize, the SDK answers most requests with an error of
	// code 0, which is none of JSON-RPC's.
	if !f.initialized && !beforeInitialize(req) {
		f.reject(usableID(msg), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %q before initialize; send initialize first", trimRunes(req.Method, 64)))
		return false
	}
	if req.Method == "initialize" {
		f.initialized = true
	}
	f.owed.add()
	return true
}

// beforeInitialize reports whether the SDK serves req before the session
// is initialized: initialize itself, ping and a few others, and any
// request of the sessionless protocol, which names its version in _meta.
func beforeInitialize(req *jsonrpc.Request) bool {
	switch req.Method {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover":
		return true
	}
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(req.Params, &params)
	_, ok := params.Meta[mcp.MetaKeyProtocolVersion]
	return ok
}

// usableID returns msg's id if it is a string or an integer, else nil.
func usableID(msg []byte) any {
	var head struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(msg, &head) != nil {
		return nil
	}
	switch v := head.ID.(type) {
	case string:
		return v
	case float64:
		if v == math.Trunc(v) {
			return v
		}
	}
	return nil
}

// reject writes a JSON-RPC error reply with id (null when nil) and logs it.
func (f *lineFilter) reject(id any, code int64, msg string) {
	f.log.Warn("mcp: message rejected", "code", code, "reason", msg)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	f.out.writeOwn(append(b, '\n'))
}
