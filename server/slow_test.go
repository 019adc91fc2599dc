package server_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/server"
)

// serveReal runs the handler of a server over the sample corpus on a real
// http.Server (server.Serve) with short read timeouts.
func serveReal(t *testing.T, cfg server.Config) string {
	t.Helper()
	ts, _ := start(t, nil, cfg)
	ts.Close() // only its handler is wanted
	h := ts.Config.Handler
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Serve(ctx, ln, h, server.Timeouts{Grace: time.Second, ReadHeader: 200 * time.Millisecond, Read: 400 * time.Millisecond})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// TestSlowClients: a client that sends its headers or its body too slowly
// is cut off at the read timeouts, and one that never reads its stream
// holds no answer slot; meanwhile other requests are served.
func TestSlowClients(t *testing.T) {
	addr := serveReal(t, server.Config{MaxAnswers: 1})
	cut := func(name, send string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte(send))
		start := time.Now()
		// The read timeouts are under half a second; the bounds only tell
		// a cut-off connection from one held open, with room for a
		// loaded machine.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		b, _ := io.ReadAll(c) // until the server closes the connection
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: not cut off after %v", name, d)
		}
		if strings.Contains(string(b), "200 OK") {
			t.Errorf("%s: answered %q", name, b)
		}
	}
	cut("slow headers", "POST /v1/ask HTTP/1.1\r\nHost: localhost\r\nContent-Type: appl")
	cut("slow body", "POST /v1/ask HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"question\":")

	// A streaming client that never reads: its answer goes into the
	// socket's buffers, and the slot is free for the next question.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"question":"how do checkpoints work"}`
	c.Write([]byte("POST /v1/ask HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	// Its status line: the answer has its slot (the rest of the stream is
	// left unread).
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if line, _ := bufio.NewReader(c).ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("the streaming client got %q", line)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Post("http://"+addr+"/v1/ask", "application/json", strings.NewReader(`{"question":"what is WAL mode"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a client that never reads holds the answer slot: %d %s", resp.StatusCode, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBodyUnreadable: a body that does not arrive before the read timeout
// is answered 408 body_timeout, and one cut short 400 bad_body, on the JSON
// endpoints and on uploads alike; neither message names the connection's
// addresses or the error's text.
func TestBodyUnreadable(t *testing.T) {
	addr := serveReal(t, server.Config{})
	const upload = "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.md\"\r\n\r\n# Notes\n"
	for _, tc := range []struct {
		name, path, ctype, body string
		hangUp                  bool // the client ends its side instead of waiting
		status                  string
		code                    string
	}{
		{"slow JSON", "/v1/ask", "application/json", `{"question":`, false, "408", `"code":"body_timeout","message":"the request body did not arrive in time"`},
		{"slow upload", "/v1/documents", "multipart/form-data; boundary=x", upload, false, "408", `"code":"body_timeout"`},
		{"JSON cut short", "/v1/search", "application/json", `{"query":`, true, "400", `"code":"bad_body","message":"the request body could not be read"`},
		{"upload cut short", "/v1/documents", "multipart/form-data; boundary=x", upload, true, "400", `"code":"bad_body"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte("POST " + tc.path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + tc.ctype + "\r\nContent-Length: 1000\r\n\r\n" + tc.body))
			if tc.hangUp {
				c.(*net.TCPConn).CloseWrite()
			}
			c.SetReadDeadline(time.Now().Add(time.Minute))
			b, _ := io.ReadAll(c)
			out := string(b)
			if !strings.HasPrefix(out, "HTTP/1.1 "+tc.status) || !strings.Contains(out, tc.code) {
				t.Errorf("want %s %s, got %q", tc.status, tc.code, out)
			}
			for _, leak := range []string{"127.0.0.1", "tcp", "i/o", "EOF"} {
				if strings.Contains(out, leak) {
					t.Errorf("the answer names %q: %q", leak, out)
				}
			}
		})
	}
}
