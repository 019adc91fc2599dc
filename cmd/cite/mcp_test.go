package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startMCP runs cite mcp on the index idx as a child process (this test
// binary) and connects the MCP SDK's own client to it over stdio.
func startMCP(t *testing.T, idx string) *mcp.ClientSession {
	t.Helper()
	cmd := citeCommand("mcp", "--index", idx)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPStdio runs cite mcp as a child process and calls it with the MCP
// SDK's own client over stdio.
func TestMCPStdio(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	cs := startMCP(t, idx)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: map[string]any{"query": "write-ahead log checkpoint", "k": 1}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	// k 0 is out of the schema's 1 to 20, not the default.
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: map[string]any{"query": "checkpoint", "k": 0}}); err != nil || !res.IsError {
		t.Errorf("k 0: %v %+v, want a tool error", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), "sqlite-wal.html#bytes=") || !strings.Contains(string(b), `"title":"Write-Ahead Logging in SQLite"`) {
		t.Errorf("%s", b)
	}
}

// TestMCPAfterReindex: a cite mcp that outlives a cite reindex to another
// embedder embeds its queries with the new one: its searches are hybrid,
// without the warning of a vector search that failed.
func TestMCPAfterReindex(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(errOut)
	}
	cs := startMCP(t, idx)
	search := func() string {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_data_sources", Arguments: map[string]any{"query": "write-ahead log checkpoint", "k": 2}})
		if err != nil || res.IsError {
			t.Fatal(err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	if out := search(); strings.Contains(out, "warnings") {
		t.Errorf("before: %s", out)
	}
	if code, _, errOut := cite(t, "reindex", "--index", idx, "--embedder", "hash:512"); code != 0 {
		t.Fatal(errOut)
	}
	if out := search(); strings.Contains(out, "warnings") || !strings.Contains(out, "sqlite-wal.html") {
		t.Errorf("after the reindex: %s", out)
	}
}

// TestMCPReadPages: read_document says how many passages the document has
// and where the next call starts, and gives a passage whole even past
// max_chars.
func TestMCPReadPages(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, errOut := cite(t, "index", "--index", idx, "--chunk-size", "100", "--chunk-overlap", "0", corpus+"/honeybees.md"); code != 0 {
		t.Fatal(errOut)
	}
	cs := startMCP(t, idx)
	var got []string
	for start := 0; start >= 0; {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_document", Arguments: map[string]any{"document_id": mustAbs(t, corpus+"/honeybees.md"), "start": start, "max_chars": 100}})
		if err != nil || res.IsError {
			t.Fatal(err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Passages  []struct{ Passage string }
			Total     int
			NextStart *int `json:"next_start"`
		}
		json.Unmarshal(b, &out)
		if len(out.Passages) != 1 || out.Total < 3 || len(got) > out.Total {
			t.Fatalf("start %d: %s", start, b)
		}
		got = append(got, out.Passages[0].Passage)
		start = -1
		if out.NextStart != nil {
			start = *out.NextStart
		} else if len(got) != out.Total {
			t.Fatalf("no next_start after %d of %d passages", len(got), out.Total)
		}
	}
	if !strings.Contains(strings.Join(got, " "), "waggle dance") {
		t.Errorf("the passages read do not hold the document: %q", got)
	}
}
