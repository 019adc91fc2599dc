package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
)

// TestSessionDocumentsHidden: the documents cite serve's sessions upload
// into the index (data source "session:ID") are seen by no command: not
// listed, searched, shown, attached or folded into another hit as its
// copy, by id, by path or by naming their data source.
func TestSessionDocumentsHidden(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	// What cite serve does with an upload into session ID: a copy under
	// uploads/sessions/ID, indexed into "session:ID". One file of its
	// own, and a copy of a corpus page, whose chunks are the page's.
	const id = "0123456789abcdef0123456789abcdef"
	up := filepath.Join(idx, "uploads", "sessions", id)
	os.MkdirAll(up, 0o755)
	os.WriteFile(filepath.Join(up, "plan.md"), []byte("# Plan\n\nThe quarterly zzsecretword plan moves the apiary to the orchard.\n"), 0o644)
	bees, err := os.ReadFile(filepath.Join(corpus, "honeybees.md"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(up, "honeybees.md"), bees, 0o644)
	st, err := index.Open(t.Context(), idx, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := embed.New("hash", embed.Config{})
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: "session:" + id, Embedder: emb})
	if err == nil {
		_, err = ix.Index(t.Context(), up)
	}
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := st.Documents(t.Context(), "session:"+id)
	st.Close()
	if len(docs) != 2 {
		t.Fatalf("session documents: %d, want 2", len(docs))
	}
	plan := filepath.Join(up, "plan.md")
	planID := docs[1].ID // by path: honeybees.md, plan.md
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"search", []string{"search", "quarterly plan apiary orchard"}},
		{"search json", []string{"search", "--json", "quarterly plan apiary orchard"}},
		{"search a copy", []string{"search", "--json", "waggle dance"}},
		{"search a copy bm25", []string{"search", "--json", "--mode", "bm25", "-k", "30", "waggle dance"}},
		{"search the session's source", []string{"search", "--source", "session:" + id, "plan"}},
		{"search --doc by path", []string{"search", "--doc", plan, "plan"}},
		{"search --doc by id", []string{"search", "--doc", planID, "plan"}},
		{"search --path", []string{"search", "--json", "--path", up + "/*", "plan apiary waggle"}},
		{"docs", []string{"docs"}},
		{"docs json", []string{"docs", "--json"}},
		{"docs of the session's source", []string{"docs", "--json", "--source", "session:" + id}},
		{"sources", []string{"sources"}},
		{"sources json", []string{"sources", "--json"}},
		{"show by path", []string{"show", plan}},
		{"show by id", []string{"show", planID}},
		{"show by id prefix", []string{"show", planID[:8]}},
		{"ask", []string{"ask", "--json", "what does the quarterly plan move to the orchard"}},
		{"ask a copy", []string{"ask", "--json", "what is the waggle dance"}},
		{"ask --doc", []string{"ask", "--doc", plan, "what does the plan move"}},
		{"ask --source", []string{"ask", "--source", "session:" + id, "what does the plan move"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stdout, stderr := cite(t, append([]string{tc.args[0], "--index", idx}, tc.args[1:]...)...)
			// The session's text, and its id unless the arguments name it
			// (an error may repeat them).
			secrets := []string{"zzsecretword"}
			if !strings.Contains(strings.Join(tc.args, " "), id) {
				secrets = append(secrets, id)
			}
			for _, secret := range secrets {
				if strings.Contains(stdout, secret) || strings.Contains(stderr, secret) {
					t.Errorf("a session's document is seen (%q):\n%s%s", secret, stdout, stderr)
				}
			}
		})
	}
	// Nor removed, by path, id, folder or glob, naming the data source or not.
	for _, args := range [][]string{{plan}, {planID}, {up}, {up + "/*"}, {idx}, {"--source", "session:" + id, up}} {
		code, stdout, stderr := cite(t, append([]string{"rm", "--index", idx}, args...)...)
		if code != 1 || strings.Contains(stdout, "removed") {
			t.Errorf("rm %q: exit %d: %s%s", args, code, stdout, stderr)
		}
	}
	st, err = index.Open(t.Context(), idx, index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if docs, _ := st.Documents(t.Context(), "session:"+id); len(docs) != 2 {
		t.Errorf("after cite rm: %d session documents, want 2", len(docs))
	}
}

// TestServeSessionFlags: the session limits of cite serve out of range are
// usage errors naming the flag.
func TestServeSessionFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--session-ttl", "-1h"}, "--session-ttl -1h0m0s: want 0 (never) or more"},
		{[]string{"--max-sessions", "0"}, "--max-sessions 0: want 1 or more"},
		{[]string{"--max-session-files", "-1"}, "--max-session-files -1: want 1 or more"},
		{[]string{"--max-session-bytes", "0"}, "--max-session-bytes 0: want 1 or more"},
	} {
		code, _, stderr := cite(t, append([]string{"serve", "--index", t.TempDir()}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
