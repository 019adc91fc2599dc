package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestJSONPaths: a file whose name is not UTF-8 (café in Latin-1) shows in
// every JSON answer that carries its path, over HTTP and MCP, as the
// reversible caf\xe9, as cite's command line shows it, never as caf\ufffd.
func TestJSONPaths(t *testing.T) {
	files := t.TempDir()
	name := filepath.Join(files, "caf\xe9.md")
	if err := os.WriteFile(name, []byte("# Cafe\n\nThe zzlatin cafe serves zzlatin coffee.\n"), 0o644); err != nil {
		t.Skipf("this file system refuses a Latin-1 name: %v", err)
	}
	ts, _, st := startAt(t, t.TempDir(), false, nil, server.Config{})
	emb, _ := embed.New("hash", embed.Config{})
	ix, err := ingest.New(t.Context(), st, ingest.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(t.Context(), files); err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(index.EscapePath(name), `\`, `\\`) // as JSON text
	check := func(what, body string) {
		t.Helper()
		if !strings.Contains(body, want) || strings.Contains(body, `\ufffd`) {
			t.Errorf("%s: want %s in\n%s", what, want, body)
		}
	}
	_, body := do(t, "GET", ts.URL+"/v1/documents", "", "")
	check("documents", body)
	_, body = do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"zzlatin"}`)
	check("search", body)
	_, body = do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"what does the zzlatin cafe serve?"}`)
	check("ask", body)

	cs := connectMCP(t, ts.URL)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: map[string]any{"query": "zzlatin"}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	check("mcp search_data_sources", string(b))
}
