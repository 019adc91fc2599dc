package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cite-rag/cite/index"
)

// TestIndexOddNames: files whose names are not UTF-8 or hold a newline are
// indexed, shown escaped in tables and JSON (one row each), and found again
// by the escaped name.
func TestIndexOddNames(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	latin1, newline := "caf\xe9.md", "line\nbreak.md"
	for _, n := range []string{latin1, newline, "plain.md"} {
		if err := os.WriteFile(filepath.Join(docs, n), []byte("Text about bees.\n"), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", n, err)
		}
	}
	code, out, errOut := cite(t, "index", "--index", idx, docs)
	if code != 0 || !strings.Contains(out, "3 files: 3 added") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cite(t, "docs", "--index", idx)
	if code != 0 || !strings.Contains(out, `docs/caf\xe9.md`) || !strings.Contains(out, `docs/line\nbreak.md`) {
		t.Fatalf("docs: exit %d\n%s", code, out)
	}
	if lines := strings.Count(out, "\n"); lines != 4 {
		t.Errorf("docs printed %d lines for 3 documents:\n%s", lines, out)
	}
	code, out, _ = cite(t, "docs", "--index", idx, "--json")
	var v struct{ Documents []index.Document }
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
		t.Fatalf("docs --json: exit %d, %v\n%s", code, err, out)
	}
	raw := map[string]bool{}
	for _, d := range v.Documents {
		raw[d.Path] = true
	}
	if !raw[filepath.Join(docs, latin1)] || !raw[filepath.Join(docs, newline)] || !strings.Contains(out, `caf\\xe9.md`) {
		t.Fatalf("docs --json lost the raw names: %v\n%s", raw, out)
	}
	// Found by the escaped name as shown, and by the real one.
	for _, ref := range []string{filepath.Join(docs, `caf\xe9.md`), filepath.Join(docs, latin1)} {
		code, out, errOut = cite(t, "show", "--index", idx, ref)
		if code != 0 || !strings.Contains(out, `caf\xe9.md (markdown`) {
			t.Fatalf("show %q: exit %d\n%s%s", ref, code, out, errOut)
		}
	}
}

// TestIndexEmbedderDown: when the embedder fails, the summary and the error
// agree (no file failed; chunks are without vectors) and the reason is
// printed.
func TestIndexEmbedderDown(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 { // the first call learns the dimension
			http.Error(w, `{"error":{"message":"model unavailable"}}`, http.StatusBadRequest) // not retried
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0,0,0]}],"model":"m"}`))
	}))
	defer srv.Close()
	vars := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "test"}
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := citeEnv(t, vars, "index", "--index", idx, "--embedder", "openai:m", corpus)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "0 failed") || !strings.Contains(out, "chunks without vectors") {
		t.Errorf("stdout:\n%s", out)
	}
	if strings.Contains(errOut, "1 failed") || !strings.Contains(errOut, "stored without vectors") || !strings.Contains(errOut, "model unavailable") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

func TestIndexMaxSize(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("word ", 2000)), 0o644) // 10,000 bytes
	os.WriteFile(filepath.Join(dir, "small.txt"), []byte("A few words."), 0o644)              // indexed: the run succeeds
	idx := filepath.Join(t.TempDir(), "idx")
	code, _, errOut := cite(t, "index", "--index", idx, "--max-size", "5kB", dir)
	if code != 0 || !strings.Contains(errOut, "too large (10.0 kB, limit 5.0 kB)") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	code, _, errOut = cite(t, "index", "--help")
	if code != 0 || !strings.Contains(errOut, "1MB = 1,000,000 bytes") {
		t.Fatalf("help: %s", errOut)
	}
}

// TestIndexNothingIndexed: cite index exits 1 when no document could be
// indexed from its paths, and says why (every file skipped, and for which
// reasons; no files found); a run that finds its files unchanged succeeds
// (issue 20, item 12).
func TestIndexNothingIndexed(t *testing.T) {
	skipped, empty, good := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(skipped, "a.bin"), []byte{0, 1, 2, 3}, 0o644)
	os.WriteFile(filepath.Join(skipped, "b.md"), nil, 0o644)
	os.WriteFile(filepath.Join(skipped, "c.md"), nil, 0o644)
	os.WriteFile(filepath.Join(empty, ".hidden.md"), []byte("# Hidden\n\nText."), 0o644)
	os.WriteFile(filepath.Join(good, "a.md"), []byte("# A\n\nText."), 0o644)
	idx := filepath.Join(t.TempDir(), "idx")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"every file skipped", []string{skipped}, 1, []string{"nothing indexed: every file found was skipped (binary file: 1, empty file: 2)"}},
		{"every file skipped, json", []string{"--json", skipped}, 1, []string{"nothing indexed"}},
		{"no files found", []string{empty}, 1, []string{"nothing indexed: no files found", "starts with a dot"}},
		{"indexed", []string{good}, 0, nil},
		{"unchanged", []string{good}, 0, nil},
		{"indexed and skipped", []string{good, skipped}, 0, []string{"empty file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cite(t, append([]string{"index", "--index", idx}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tc.code == 0 && strings.Contains(stderr, "nothing indexed") {
				t.Errorf("stderr: %s", stderr)
			}
			if tc.args[0] == "--json" && !json.Valid([]byte(stdout)) {
				t.Errorf("not JSON: %s", stdout)
			}
		})
	}
}

// TestIndexConcurrentRuns: two cite index runs at once on the same index do
// the work once: the second waits for the first and finds every file
// unchanged.
func TestIndexConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	docs, idx := filepath.Join(dir, "docs"), filepath.Join(dir, "idx")
	os.Mkdir(docs, 0o755)
	const files = 60
	writeCorpus(t, docs, files, 4<<10, 7)
	type result struct {
		code        int
		out, errOut string
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			code, out, errOut := cite(t, "index", "--index", idx, "--quiet", docs)
			results <- result{code, out, errOut}
		}()
	}
	var outs []string
	waited := false
	for range 2 {
		r := <-results
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
		}
		outs = append(outs, r.out)
		waited = waited || strings.Contains(r.errOut, "waiting for another cite index")
	}
	first := fmt.Sprintf("%d files: %d added, 0 updated, 0 unchanged", files, files)
	second := fmt.Sprintf("%d files: 0 added, 0 updated, %d unchanged", files, files)
	if !(strings.Contains(outs[0], first) && strings.Contains(outs[1], second)) && !(strings.Contains(outs[1], first) && strings.Contains(outs[0], second)) {
		t.Fatalf("two runs did not share the work:\n%s\n%s", outs[0], outs[1])
	}
	t.Logf("second run waited visibly: %v", waited)
}

// TestIndexFlagErrors: chunk flags out of range are usage errors naming the
// flag, not quietly read as a default.
func TestIndexFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chunk-size", "0"}, "--chunk-size 0"},
		{[]string{"--chunk-size", "-5"}, "--chunk-size -5"},
		{[]string{"--chunk-size", "8"}, "--chunk-size 8"},
		{[]string{"--chunk-overlap", "-1"}, "--chunk-overlap -1"},
		{[]string{"--chunk-size", "100", "--chunk-overlap", "100"}, "--chunk-overlap 100"},
		{[]string{"--embedder", "hash:1048576"}, "--embedder: hash embedder: dimension 1048576 out of range"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			code, _, errOut := cite(t, append(append([]string{"index", "--index", idx}, tc.args...), corpus)...)
			if code != exitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d and %q:\n%s", code, exitUsage, tc.want, errOut)
			}
		})
	}
	// Overlap 0 is none, and is stored as such.
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", "--chunk-size", "100", "--chunk-overlap", "0", corpus); code != 0 {
		t.Fatalf("overlap 0: exit %d\n%s%s", code, out, errOut)
	}
}

// TestIndexPruneGoneFolder: cite index --prune on a folder that was deleted
// prunes its documents and succeeds.
func TestIndexPruneGoneFolder(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/one.md", "b/two.md", "b/three.md"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("# Bees\n\nText about bees.\n"), 0o644)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", dir); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	os.RemoveAll(filepath.Join(dir, "b"))
	code, out, errOut := cite(t, "index", "--index", idx, "--prune", filepath.Join(dir, "b"))
	if code != 0 || !strings.Contains(out, "0 failed, 2 pruned") || strings.Contains(errOut, "failed") {
		t.Errorf("prune: exit %d\n%s%s", code, out, errOut)
	}
}

// TestIndexMissing: cite index without --prune says which indexed
// documents' files are gone, keeps them and succeeds; a folder given that is
// gone fails, saying how many documents from it are kept.
func TestIndexMissing(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/one.md", "a/gone.md", "b/two.md", "b/three.md"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("# Bees\n\nText about bees.\n"), 0o644)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", dir); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	os.Remove(filepath.Join(dir, "a", "gone.md"))
	code, out, errOut := cite(t, "index", "--index", idx, "--quiet", dir)
	if code != 0 || !strings.Contains(out, "3 files: 0 added, 0 updated, 3 unchanged, 0 skipped, 0 failed, 1 missing (files gone, still indexed: --prune removes them)") ||
		!strings.Contains(errOut, "missing "+filepath.Join(dir, "a", "gone.md")+": its file is gone; still indexed (cite index --prune or cite rm removes it)") {
		t.Errorf("a file gone: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cite(t, "index", "--index", idx, "--json", dir)
	var res struct {
		Stats    struct{ Missing int }
		Problems []problem
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Stats.Missing != 1 || len(res.Problems) != 1 || res.Problems[0].Outcome != "missing" {
		t.Errorf("--json: exit %d, %v\n%s", code, err, out)
	}
	os.RemoveAll(filepath.Join(dir, "b"))
	code, out, errOut = cite(t, "index", "--index", idx, filepath.Join(dir, "b"))
	if code != 1 || !strings.Contains(errOut, "no such file or directory; 2 documents indexed from it are kept (cite index --prune removes them)") {
		t.Errorf("a folder gone: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := cite(t, "docs", "--index", idx); code != 0 || strings.Count(out, "Bees") != 4 {
		t.Errorf("the documents are not all kept: exit %d\n%s%s", code, out, errOut)
	}
}

// TestInterruptedExit: a command whose context is cancelled (Ctrl-C) says
// it was interrupted and exits 130.
func TestInterruptedExit(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr strings.Builder
	idx := filepath.Join(t.TempDir(), "idx")
	code := run(ctx, []string{"index", "--index", idx, corpus}, &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	if code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stdout.String()+stderr.String(), "failed ") || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestIndexIgnoreFiles: cite index honours .gitignore and .ignore files and
// --exclude, counts what it left out without a line per file, indexes a
// file named though ignored, keeps the documents ignored since without
// saying their files are gone, and prunes them with --prune; --no-ignore
// reads no ignore files, and a bad ignore file is a warning naming it.
func TestIndexIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	p := func(rel string) string { return filepath.Join(dir, "proj", rel) }
	for rel, text := range map[string]string{
		".gitignore":           "node_modules/\n*.log\n[broken\n",
		"README.md":            "Text about bees.\n",
		"node_modules/a/x.md":  "A dependency.\n",
		"node_modules/b/y.md":  "Another dependency.\n",
		"notes.log":            "A log.\n",
		"docs/drafts/d.md":     "A draft.\n",
		"docs/guide.md":        "A guide.\n",
		"docs/old/.ignore":     "*\n",
		"docs/old/history.md":  "Old history.\n",
		"docs/old/history2.md": "More old history.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p(rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := cite(t, "index", "--index", idx, "--exclude", "drafts", p(""))
	if code != 0 || !strings.Contains(out, "2 files: 2 added") || !strings.Contains(out, "5 ignored (ignore files, --exclude, saved pages' _files)") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "node_modules") || strings.Contains(errOut, "history") {
		t.Errorf("a line for an ignored file:\n%s", errOut)
	}
	if want := `warning ` + p(".gitignore") + `: line 3: "[broken": syntax error in pattern: left out`; !strings.Contains(errOut, want) {
		t.Errorf("no warning %q:\n%s", want, errOut)
	}
	// Named, an ignored file is indexed.
	code, out, errOut = cite(t, "index", "--index", idx, p("notes.log"))
	if code != 0 || !strings.Contains(out, "1 file: 1 added") {
		t.Fatalf("index notes.log: exit %d\n%s%s", code, out, errOut)
	}
	// --no-ignore: everything; --json counts.
	code, out, errOut = cite(t, "index", "--index", idx, "--no-ignore", "--json", p(""))
	var v struct {
		Stats struct {
			Added, Unchanged, Ignored, Missing int
			IgnoredIndexed                     int `json:"ignored_indexed"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Stats.Added != 5 || v.Stats.Unchanged != 3 || v.Stats.Ignored != 0 {
		t.Fatalf("index --no-ignore --json: exit %d, %v, %+v\n%s%s", code, err, v.Stats, out, errOut)
	}
	// Ignored again: pruned, saying why, not missing (without --prune,
	// which is for files gone).
	code, out, errOut = cite(t, "index", "--index", idx, p(""))
	if code != 0 || !strings.Contains(out, "5 pruned (files ignored now)") || strings.Contains(out, "missing") ||
		!strings.Contains(errOut, "pruned  "+p("node_modules/a/x.md")+": its file is ignored") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cite(t, "index", "--index", idx, "--json", p(""))
	var w struct {
		Stats struct {
			Pruned         int
			IgnoredIndexed int `json:"ignored_indexed"`
			Ignored        int
		}
	}
	if err := json.Unmarshal([]byte(out), &w); code != 0 || err != nil || w.Stats.Pruned != 0 || w.Stats.IgnoredIndexed != 0 || w.Stats.Ignored != 4 {
		t.Fatalf("index --json: exit %d, %v, %+v\n%s%s", code, err, w.Stats, out, errOut)
	}
	code, out, errOut = cite(t, "index", "--index", idx, "--prune", p(""))
	if code != 0 || !strings.Contains(out, "0 pruned") || strings.Contains(out, "still indexed") {
		t.Fatalf("index --prune: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cite(t, "docs", "--index", idx)
	if code != 0 || strings.Count(out, "\n") != 4 { // a header, README.md, docs/guide.md and docs/drafts/d.md
		t.Errorf("docs after --prune: exit %d\n%s", code, out)
	}
	code, _, errOut = cite(t, "index", "--index", idx, "--exclude", "[", p(""))
	if code != 2 || !strings.Contains(errOut, "--exclude") {
		t.Errorf("--exclude [: exit %d\n%s", code, errOut)
	}
}
