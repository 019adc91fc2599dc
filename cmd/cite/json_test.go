package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// nullable are the keys whose value may be null: a score a retriever did
// not give.
var nullable = map[string]bool{"bm25": true, "vector": true}

// jsonKeys returns the object keys of a JSON document, at every depth, and
// marks those whose value is null with a "null " prefix.
func jsonKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			keys[k] = true
			if x == nil && !nullable[k] {
				keys["null "+k] = true
			}
			jsonKeys(x, keys)
		}
	case []any:
		for _, x := range v {
			jsonKeys(x, keys)
		}
	}
}

// TestJSONNaming: every --json output names its keys in snake_case, the
// one convention the README documents, and has arrays, not nulls.
func TestJSONNaming(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"index", corpus},
		{"sources"},
		{"docs"},
		{"show", corpus + "/honeybees.md"},
		{"show", "--chunks", corpus + "/honeybees.md"},
		{"search", "waggle dance"},
		{"check"},
		{"eval", "--qa", "../../eval/testdata/qa", "--chunk-size", "24", "--chunk-overlap", "0"},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			a := append([]string{args[0], "--json"}, args[1:]...)
			if args[0] != "eval" {
				a = append([]string{args[0], "--index", idx, "--json"}, args[1:]...)
			}
			code, stdout, stderr := cite(t, a...)
			if code != 0 {
				t.Fatalf("cite %q: exit %d: %s", a, code, stderr)
			}
			var v any
			if err := json.Unmarshal([]byte(stdout), &v); err != nil {
				t.Fatalf("cite %q: %v", a, err)
			}
			keys := map[string]bool{}
			jsonKeys(v, keys)
			for k := range keys {
				if strings.HasPrefix(k, "null ") {
					t.Errorf("cite %q: %s is null", a, strings.TrimPrefix(k, "null "))
				} else if !snakeCase.MatchString(k) {
					t.Errorf("cite %q: key %q is not snake_case", a, k)
				}
			}
		})
	}
}

func TestSearchFlags(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"negative per-doc", []string{"--per-doc", "-5", "bees"}, 2, []string{"--per-doc", "-5"}},
		{"bad path glob", []string{"--path", "[", "bees"}, 2, []string{"--path", `"["`, "never closed"}},
		{"unknown source", []string{"--source", "nosuch", "bees"}, 1, []string{`"nosuch"`, "no such data source", "default"}},
		{"punctuation only", []string{"?!"}, 0, nil},
		// A filter given twice is refused: the flag package kept the last
		// alone, and --doc a --doc b searched b without a word.
		{"two documents", []string{"--doc", "honeybees.md", "--doc", "sqlite-wal.html", "bees"}, 2, []string{"-doc", `given twice ("honeybees.md", then "sqlite-wal.html")`}},
		{"two sources", []string{"--source", "default", "--source", "notes", "bees"}, 2, []string{"-source", "given twice"}},
		{"two paths", []string{"--path", "*.md", "--path", "*.html", "bees"}, 2, []string{"-path", "given twice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cite(t, append([]string{"search", "--index", idx}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestSearchMissingVectors: after an interrupted reindex, cite search says
// how many chunks have no vector and what fixes it, in text and in JSON.
func TestSearchMissingVectors(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, corpus); code != 0 {
		t.Fatal(stderr)
	}
	// What a reindex killed right after dropping the old vectors leaves.
	st, err := index.Open(t.Context(), idx, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := embed.New("hash:512", embed.Config{})
	if err := st.ResetVectors(t.Context(), emb); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, stdout, stderr := cite(t, "search", "--index", idx, "waggle dance")
	if code != 0 || !strings.Contains(stdout, "Honeybee") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{"warning", "5 of 5 chunks", "no vector", "cite check --repair"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	_, stdout, _ = cite(t, "search", "--index", idx, "--json", "waggle dance")
	var v struct {
		Hits     []map[string]any
		Warnings []struct{ Code, Message, Fix string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Hits) == 0 || len(v.Warnings) != 1 || v.Warnings[0].Code != "missing_vectors" || v.Warnings[0].Fix != "cite check --repair" ||
		!strings.Contains(v.Warnings[0].Message, "5 of 5 chunks") {
		t.Errorf("search --json: %s", stdout)
	}
	// Repaired, it is quiet.
	if code, _, stderr := cite(t, "check", "--index", idx, "--repair"); code != 0 {
		t.Fatal(stderr)
	}
	if _, _, stderr := cite(t, "search", "--index", idx, "waggle dance"); stderr != "" {
		t.Errorf("after repair: %s", stderr)
	}
}

// TestShowChunksJSON: cite show --chunks --json gives each chunk's byte
// ranges as {"start","end"} objects, span (normalized text) and
// source_span (file), like a search hit's source_span.
func TestShowChunksJSON(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	code, stdout, stderr := cite(t, "show", "--index", idx, "--chunks", "--json", corpus+"/honeybees.md")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	var v struct {
		Chunks []map[string]json.RawMessage `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || len(v.Chunks) == 0 {
		t.Fatalf("show: %v\n%s", err, stdout)
	}
	for i, c := range v.Chunks {
		for _, flat := range []string{"start", "end", "source_start", "source_end"} {
			if _, ok := c[flat]; ok {
				t.Errorf("chunk %d has a flat %q", i, flat)
			}
		}
		for _, k := range []string{"span", "source_span"} {
			var r struct{ Start, End *int }
			if err := json.Unmarshal(c[k], &r); err != nil || r.Start == nil || r.End == nil || *r.End <= *r.Start {
				t.Errorf("chunk %d %s = %s, want {\"start\",\"end\"}", i, k, c[k])
			}
		}
	}
}

// TestJSONPaths: a file whose name is not UTF-8 (café in Latin-1) shows in
// every --json output that carries its path as the reversible caf\xe9,
// never as caf\ufffd: one escaping everywhere, as the README says. (cite
// check --json's problems are index.Problem, whose JSON TestProblemJSON
// checks.)
func TestJSONPaths(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "caf\xe9.md")
	if err := os.WriteFile(name, []byte("# Cafe\n\nThe zzlatin cafe serves zzlatin coffee.\n"), 0o644); err != nil {
		t.Skipf("this file system refuses a Latin-1 name: %v", err)
	}
	// A file skipped, so that cite index --json names it among its
	// problems.
	skipped := filepath.Join(dir, "caf\xe9.bin")
	if err := os.WriteFile(skipped, []byte{0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	want := index.EscapePath(name)
	if !strings.HasSuffix(want, `caf\xe9.md`) {
		t.Fatalf("EscapePath = %q", want)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, _, stderr := cite(t, "index", "--index", idx, dir); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"index", []string{"index", "--index", idx, "--force", dir}, index.EscapePath(skipped)},
		{"docs", []string{"docs", "--index", idx}, want},
		{"show", []string{"show", "--index", idx, want}, want},
		{"show chunks", []string{"show", "--index", idx, "--chunks", want}, want},
		{"search", []string{"search", "--index", idx, "zzlatin"}, want},
		{"ask", []string{"ask", "--index", idx, "what does the zzlatin cafe serve?"}, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stdout, stderr := cite(t, append(tc.args, "--json")...)
			if !json.Valid([]byte(stdout)) {
				t.Fatalf("not JSON: %s\n%s", stdout, stderr)
			}
			if strings.Contains(stdout, `\ufffd`) || strings.Contains(stdout, "\ufffd") {
				t.Errorf("the name lost its byte:\n%s", stdout)
			}
			// As JSON text, the escape's backslash is itself escaped.
			if !strings.Contains(stdout, strings.ReplaceAll(tc.want, `\`, `\\`)) {
				t.Errorf("no %s in:\n%s", tc.want, stdout)
			}
		})
	}
}

// TestStoreFlagHelp: --help names the value of --store as STORE; it read
// "-store embedded", as if embedded were the value to give.
func TestStoreFlagHelp(t *testing.T) {
	for _, cmd := range []string{"search", "ask", "chat", "index", "docs"} {
		t.Run(cmd, func(t *testing.T) {
			_, _, stderr := cite(t, cmd, "--help")
			if !strings.Contains(stderr, "-store STORE\n") || strings.Contains(stderr, "-store embedded") {
				t.Errorf("cite %s --help:\n%s", cmd, stderr)
			}
		})
	}
}
