package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cite-rag/cite/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goTypes are what an error of decoding JSON says when it speaks of Go's
// types rather than JSON's.
var goTypes = []string{"Go ", "server.", "struct", "[]string", "map[", "interface", "type int", "float64", "Request", "chatMessage"}

// TestJSONTypeErrors: a JSON body or MCP tool arguments of the wrong
// shape are refused naming the field and the JSON type it wants, never a
// Go type.
func TestJSONTypeErrors(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	for _, tc := range []struct{ name, path, body, says string }{
		{"array body", "/v1/ask", `[]`, "invalid JSON body: the body must be a JSON object"},
		{"string body", "/v1/chat/completions", `"q"`, "invalid JSON body: the body must be a JSON object"},
		{"string k", "/v1/ask", `{"question":"q","k":"5"}`, `invalid JSON body: \"k\": want an integer, got a string`},
		{"fractional k", "/v1/ask", `{"question":"q","k":1.5}`, `\"k\": want an integer, got 1.5`},
		{"huge k", "/v1/search", `{"query":"q","k":1e400}`, `\"k\": want an integer, got 1e400`},
		{"source number", "/v1/ask", `{"question":"q","sources":[5]}`, `\"sources\": want a string, got a number`},
		{"sources string", "/v1/ask", `{"question":"q","sources":"x"}`, `\"sources\": want an array, got a string`},
		{"session_id", "/v1/ask", `{"question":"q","session_id":7}`, `\"session_id\": want a string, got a number`},
		{"stream string", "/v1/chat/completions", `{"stream":"yes","messages":[{"role":"user","content":"q"}]}`, `\"stream\": want true or false, got a string`},
		{"messages object", "/v1/chat/completions", `{"messages":{"role":"user"}}`, `\"messages\": want an array, got an object`},
		{"role number", "/v1/chat/completions", `{"messages":[{"role":5,"content":"q"}]}`, `\"messages.role\": want a string, got a number`},
		{"not JSON", "/v1/ask", `{"question":q}`, "invalid JSON body: not JSON: invalid character 'q' looking for beginning of value (at byte 13)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := do(t, "POST", ts.URL+tc.path, "application/json", tc.body)
			if resp.StatusCode != 400 || !strings.Contains(out, `"code":"bad_json"`) || !strings.Contains(out, tc.says) {
				t.Errorf("%d %s, want bad_json saying %s", resp.StatusCode, out, tc.says)
			}
			for _, g := range goTypes {
				if strings.Contains(out, g) {
					t.Errorf("%s names %q", out, g)
				}
			}
		})
	}

	cs := connectMCP(t, ts.URL)
	for _, tc := range []struct {
		name, tool string
		args       any
		says       string
	}{
		{"huge start", "read_document", map[string]any{"document_id": "x", "start": 1e30}, `"start": want an integer, got 1e+30`},
		{"huge k", "search_data_sources", map[string]any{"query": "q", "k": 1e30}, `"k": want an integer, got 1e+30`},
		{"string start", "read_document", map[string]any{"document_id": "x", "start": "abc"}, `"start": want an integer, got a string`},
		{"sources string", "search_data_sources", map[string]any{"query": "q", "sources": "x"}, `"sources": want an array, got a string`},
		{"array arguments", "search_data_sources", json.RawMessage(`[1]`), "the arguments must be a JSON object"},
		{"no query", "search_data_sources", map[string]any{"k": 2}, `the arguments: required: missing properties: ["query"]`},
		{"unknown argument", "search_data_sources", map[string]any{"query": "q", "kk": 1}, `unknown field "kk"`},
	} {
		t.Run("mcp "+tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res.Content)
			out := string(b)
			var text string
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			if !res.IsError || !strings.Contains(text, tc.says) {
				t.Errorf("%s, want an error saying %s", out, tc.says)
			}
			for _, g := range goTypes {
				if strings.Contains(text, g) {
					t.Errorf("%s names %q", text, g)
				}
			}
		})
	}
}
