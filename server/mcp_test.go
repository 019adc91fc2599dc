package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/search"
	"github.com/cite-rag/cite/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTP calls cite's MCP tools with the SDK's own client over
// streamable HTTP, through the server's auth.
func TestMCPHTTP(t *testing.T) {
	ts, _ := start(t, nil, server.Config{Token: "tok"})
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	// Without the token the session cannot start.
	if _, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil); err == nil {
		t.Fatal("connected without a token")
	}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{"tok"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "list_sources,read_document,search_data_sources,search_documents" {
		t.Errorf("tools %v", names)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: map[string]any{"query": "waggle dance", "k": 2}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct{ Passages []server.Passage }
	json.Unmarshal(b, &out)
	if len(out.Passages) == 0 || out.Passages[0].Title != "Honeybee Colonies" || !strings.Contains(out.Passages[0].Link, "honeybees.md#bytes=") {
		t.Fatalf("%s", b)
	}
	doc := out.Passages[0].DocumentID
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_document", Arguments: map[string]any{"document_id": doc}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), "waggle dance") {
		t.Errorf("%s", b)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_documents", Arguments: map[string]any{"query": "x", "document_ids": []string{}}})
	if err != nil || !res.IsError {
		t.Errorf("no document ids accepted: %v %+v", err, res)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_sources", Arguments: map[string]any{}})
	if b, _ := json.Marshal(res.StructuredContent); err != nil || !strings.Contains(string(b), `"default"`) {
		t.Errorf("%v %s", err, b)
	}
}

// connectMCP connects the SDK's client to ts's /mcp.
func connectMCP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestSessionDocumentsHidden: a session's documents are not found by the
// MCP tools, by id or by path, nor deleted outside the session.
func TestSessionDocumentsHidden(t *testing.T) {
	ts, _, _ := startAt(t, t.TempDir(), true, nil, server.Config{})
	resp, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
	var sess struct{ ID string }
	json.Unmarshal([]byte(out), &sess)
	ct, body := multipartBody(t, "plan.md", "# Plan\n\nThe quarterly plan moves the apiary to the orchard in May.\n")
	resp, out = do(t, "POST", ts.URL+"/v1/sessions/"+sess.ID+"/documents", ct, body)
	var up uploadResult
	json.Unmarshal([]byte(out), &up)
	if resp.StatusCode != 201 || up.Files[0].Document == nil {
		t.Fatalf("session upload: %d %s", resp.StatusCode, out)
	}
	doc := up.Files[0].Document
	cs := connectMCP(t, ts.URL)
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read by id", "read_document", map[string]any{"document_id": doc.ID}},
		{"read by path", "read_document", map[string]any{"document_id": doc.Path}},
		{"search by id", "search_documents", map[string]any{"query": "apiary orchard", "document_ids": []string{doc.ID}}},
		{"search by path", "search_documents", map[string]any{"query": "apiary orchard", "document_ids": []string{doc.Path}}},
		{"search a data source", "search_data_sources", map[string]any{"query": "quarterly plan apiary orchard", "sources": []string{"session:" + sess.ID}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if !res.IsError || strings.Contains(string(b), "orchard") {
				t.Errorf("a session's document is seen: %s", b)
			}
		})
	}
	if resp, out := do(t, "DELETE", ts.URL+"/v1/documents/"+doc.ID, "", ""); resp.StatusCode != 404 {
		t.Errorf("deleted outside its session: %d %s", resp.StatusCode, out)
	}
	if _, out := do(t, "GET", ts.URL+"/v1/sessions/"+sess.ID, "", ""); !strings.Contains(out, doc.ID) {
		t.Errorf("the session lost its document: %s", out)
	}
}

// TestMCPStdioBadLines: over stdio, a line that is not one JSON-RPC
// message is answered with a JSON-RPC error and skipped; the requests
// around it are answered, those still owed when the input ends included.
func TestMCPStdioBadLines(t *testing.T) {
	ctx := t.Context()
	st, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix, _ := ingest.New(ctx, st, ingest.Options{})
	if _, err := ix.Index(ctx, "../testdata/corpus"); err != nil {
		t.Fatal(err)
	}
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	}
	bad := []struct {
		name, line string
		id         any
		code       float64
	}{
		{"not JSON", `{not json`, nil, -32700},
		{"batch", `[1,2]`, nil, -32600},
		{"not an object", `"str"`, nil, -32600},
		{"wrong version", `{"jsonrpc":"1.0","id":"v","method":"tools/list"}`, "v", -32600},
		{"no method", `{"jsonrpc":"2.0","id":8}`, 8.0, -32600},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, nil, -32600},
		{"result and error", `{"jsonrpc":"2.0","id":"r","result":{},"error":{"code":1,"message":"m"}}`, "r", -32600},
		{"too long", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 1000) + `"}}`, nil, -32600},
	}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_data_sources","arguments":{"query":"waggle dance"}}}`) // and no newline
	var out bytes.Buffer
	err = server.ServeMCPStdio(ctx, server.MCP(server.Deps{Store: st, Searcher: s}, "test"), strings.NewReader(strings.Join(lines, "\n")), &out, server.StdioOptions{MaxLineBytes: 1000, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("the server ended with %v", err)
	}
	type reply struct {
		ID     any
		Result json.RawMessage
		Error  *struct {
			Code    float64
			Message string
		}
	}
	var replies []reply
	for line := range strings.Lines(out.String()) {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a line of output is not JSON: %q", line)
		}
		replies = append(replies, r)
	}
	answered := map[float64]bool{}
	var errs []reply
	for _, r := range replies {
		if id, ok := r.ID.(float64); ok && r.Error == nil && r.Result != nil {
			answered[id] = true
		} else {
			errs = append(errs, r)
		}
	}
	for _, id := range []float64{0, 1, 2} {
		if !answered[id] {
			t.Errorf("request %v not answered: %s", id, out.String())
		}
	}
	if len(errs) != len(bad) {
		t.Fatalf("%d error replies, want %d: %+v", len(errs), len(bad), errs)
	}
	for i, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			if r := errs[i]; r.ID != b.id || r.Error == nil || r.Error.Code != b.code || r.Error.Message == "" {
				t.Errorf("got id %v, error %+v; want id %v, code %v", r.ID, r.Error, b.id, b.code)
			}
		})
	}
}

// TestMCPStdioBeforeInitialize: over stdio, a request before initialize
// (other than ping) is refused with JSON-RPC's -32600 and its id; after
// initialize, requests are served.
func TestMCPStdioBeforeInitialize(t *testing.T) {
	st, err := index.Open(t.Context(), t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := search.Open(t.Context(), st, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sources","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_sources","arguments":{}}}`,
	}, "\n")
	var out bytes.Buffer
	if err := server.ServeMCPStdio(t.Context(), server.MCP(server.Deps{Store: st, Searcher: s}, "test"), strings.NewReader(in), &out, server.StdioOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	got := map[float64]string{}
	for line := range strings.Lines(out.String()) {
		var r struct {
			ID     float64
			Result json.RawMessage
			Error  *struct{ Code float64 }
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a line of output is not JSON: %q", line)
		}
		switch {
		case r.Error != nil:
			got[r.ID] = fmt.Sprint(r.Error.Code)
		case r.Result != nil:
			got[r.ID] = "result"
		}
	}
	want := map[float64]string{1: "-32600", 2: "result", 3: "result", 4: "result"}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v:\n%s", got, want, out.String())
	}
}

// TestMCPSessionsBounded: initialize requests that are never followed by
// a DELETE leave nothing behind.
func TestMCPSessionsBounded(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	initialize := func() {
		t.Helper()
		resp, out := do(t, "POST", ts.URL+"/mcp", "application/json",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			"Accept", "application/json, text/event-stream")
		if resp.StatusCode != 200 || !strings.Contains(out, `"serverInfo"`) {
			t.Fatalf("initialize: %d %s", resp.StatusCode, out)
		}
	}
	initialize() // the first connection's goroutines
	before := runtime.NumGoroutine()
	for range 300 {
		initialize()
	}
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before+50 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after 300 initializations, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A client works as before.
	cs := connectMCP(t, ts.URL)
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_sources", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatal(err, res)
	}
}

// TestMCPArguments: out-of-range tool arguments are refused with a tool
// error naming the argument, and a document named twice is searched once.
func TestMCPArguments(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	cs := connectMCP(t, ts.URL)
	call := func(tool string, args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return res, string(b)
	}
	res, out := call("search_data_sources", map[string]any{"query": "waggle dance", "k": 1})
	var found struct{ Passages []server.Passage }
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &found)
	if res.IsError || len(found.Passages) != 1 {
		t.Fatalf("search: %s", out)
	}
	doc := found.Passages[0]
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		says       string
	}{
		{"negative k", "search_data_sources", map[string]any{"query": "bees", "k": -5}, "k: 1 to 20 passages (default 5), not -5"},
		{"large k", "search_data_sources", map[string]any{"query": "bees", "k": 21}, "not 21"},
		{"zero k", "search_data_sources", map[string]any{"query": "bees", "k": 0}, "k: 1 to 20 passages (default 5), not 0"},
		{"document zero k", "search_documents", map[string]any{"query": "bees", "document_ids": []string{doc.DocumentID}, "k": 0}, "k: 1 to 20 passages (default 5), not 0"},
		{"document k", "search_documents", map[string]any{"query": "bees", "document_ids": []string{doc.DocumentID}, "k": 100}, "k: 1 to 20"},
		{"negative start", "read_document", map[string]any{"document_id": doc.DocumentID, "start": -5}, "start: the first passage to read, 0 or more, not -5"},
		{"start past the end", "read_document", map[string]any{"document_id": doc.DocumentID, "start": 999}, "are numbered 0 to "},
		{"negative max_chars", "read_document", map[string]any{"document_id": doc.DocumentID, "max_chars": -1}, "max_chars: 100 to 20000 (default 8000), not -1"},
		{"small max_chars", "read_document", map[string]any{"document_id": doc.DocumentID, "max_chars": 50}, "not 50"},
		{"relative path outside the index", "read_document", map[string]any{"document_id": "../testdata/nosuch.md"}, `document_id: no document \"../testdata/nosuch.md\"`},
		{"unknown document", "search_documents", map[string]any{"query": "bees", "document_ids": []string{"nosuchdocument"}}, `document_ids: no document \"nosuchdocument\"`},
		{"a part of a file name", "read_document", map[string]any{"document_id": "eybees.md"}, `document_id: no document \"eybees.md\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res, out := call(tc.tool, tc.args); !res.IsError || !strings.Contains(out, tc.says) {
				t.Errorf("%s, want an error saying %s", out, tc.says)
			}
		})
	}
	// A path relative to the working directory, as cite show takes it.
	t.Run("relative path", func(t *testing.T) {
		res, out := call("read_document", map[string]any{"document_id": "../testdata/corpus/honeybees.md", "max_chars": 100})
		var got struct{ Passages []server.Passage }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &got)
		if res.IsError || len(got.Passages) == 0 || !strings.HasSuffix(got.Passages[0].Source, "/testdata/corpus/honeybees.md") {
			t.Errorf("%s", out)
		}
	})
	// The end of one document's path, as cite show takes it.
	for _, ref := range []string{"honeybees.md", "guides/rag.md"} {
		t.Run("the end of a path: "+ref, func(t *testing.T) {
			res, out := call("read_document", map[string]any{"document_id": ref, "max_chars": 100})
			var got struct{ Passages []server.Passage }
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &got)
			if res.IsError || len(got.Passages) == 0 || !strings.HasSuffix(got.Passages[0].Source, "/testdata/corpus/"+ref) {
				t.Errorf("%s", out)
			}
			res, out = call("search_documents", map[string]any{"query": "the", "document_ids": []string{ref}})
			if res.IsError {
				t.Errorf("search_documents: %s", out)
			}
		})
	}
	t.Run("duplicate document ids", func(t *testing.T) {
		res, out := call("search_documents", map[string]any{"query": "waggle dance", "document_ids": []string{doc.DocumentID, doc.DocumentID, doc.Source}})
		var got struct{ Passages []server.Passage }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &got)
		seen := map[string]bool{}
		for _, p := range got.Passages {
			if seen[p.ChunkID] {
				t.Errorf("chunk %s returned twice: %s", p.ChunkID, out)
			}
			seen[p.ChunkID] = true
		}
		if res.IsError || len(got.Passages) == 0 {
			t.Errorf("%s", out)
		}
	})
}

// TestMCPErrorsHidden: a tool that fails inside the server (here, the
// index closed under it) says so with a stable message, not the error's
// text, which names the database.
func TestMCPErrorsHidden(t *testing.T) {
	ts, _, st := startAt(t, t.TempDir(), true, nil, server.Config{})
	cs := connectMCP(t, ts.URL)
	st.Close()
	for _, call := range []*mcp.CallToolParams{
		{Name: "search_data_sources", Arguments: map[string]any{"query": "waggle dance"}},
		{Name: "read_document", Arguments: map[string]any{"document_id": "abc"}},
		{Name: "list_sources", Arguments: map[string]any{}},
	} {
		res, err := cs.CallTool(t.Context(), call)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if !res.IsError || strings.Contains(string(b), "sql") || !strings.Contains(string(b), "its log has the details") {
			t.Errorf("%s: %s", call.Name, b)
		}
	}
}

// TestMCPDuplicateKeys: tool arguments that give a key twice (the go-sdk
// would keep the last) are refused with a tool error naming the key, over
// HTTP (/mcp) and over stdio (cite mcp), as the model tool loop refuses
// them.
func TestMCPDuplicateKeys(t *testing.T) {
	tests := []struct{ tool, args, key string }{
		{"search_data_sources", `{"query":"waggle dance","query":"tax law"}`, "query"},
		{"search_data_sources", `{"query":"bees","k":1,"sources":["a"],"k":20}`, "k"},
		{"read_document", `{"document_id":"x","start":0,"start":1}`, "start"},
	}
	want := func(key string) string {
		return fmt.Sprintf("the arguments give %q twice; give each argument once", key)
	}
	t.Run("http", func(t *testing.T) {
		ts, _ := start(t, nil, server.Config{})
		cs := connectMCP(t, ts.URL)
		for _, tc := range tests {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want(tc.key) {
				t.Errorf("%s %s: %s, want the error %q", tc.tool, tc.args, b, want(tc.key))
			}
		}
		// The same arguments once each are answered.
		if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: json.RawMessage(`{"query":"waggle dance","k":1}`)}); err != nil || res.IsError {
			t.Errorf("%v %+v", err, res)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		ctx := t.Context()
		st, err := index.Open(ctx, t.TempDir(), index.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := search.Open(ctx, st, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines := []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		}
		for i, tc := range tests {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tc.tool, tc.args))
		}
		var out bytes.Buffer
		if err := server.ServeMCPStdio(ctx, server.MCP(server.Deps{Store: st, Searcher: s}, "test"), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, server.StdioOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
			t.Fatal(err)
		}
		got := map[float64]string{}
		for line := range strings.Lines(out.String()) {
			var r struct {
				ID     float64
				Result struct {
					IsError bool
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if r.Result.IsError && len(r.Result.Content) == 1 {
				got[r.ID] = r.Result.Content[0].Text
			}
		}
		for i, tc := range tests {
			if g := got[float64(i+1)]; g != want(tc.key) {
				t.Errorf("%s %s: %q, want the error %q\n%s", tc.tool, tc.args, g, want(tc.key), out.String())
			}
		}
	})
}
