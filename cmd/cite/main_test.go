package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/internal/weaviatetest"
)

// citeCommand returns a command that runs this test binary as cite with
// args (TestMain), in the test's environment.
func citeCommand(args ...string) *exec.Cmd {
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CITE_TEST_MAIN_ARGS="+string(a))
	return cmd
}

// startCite starts cite with args in a child process, its output in the
// buffer returned; the test kills it when it ends, if it still runs.
func startCite(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := citeCommand(args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, out
}

// TestMain lets the crash test run the test binary as the cite command.
func TestMain(m *testing.M) {
	if args := os.Getenv("CITE_TEST_MAIN_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			panic(err)
		}
		os.Args = append([]string{"cite"}, a...)
		if os.Getenv("CITE_TEST_NO_PDF_PRESTART") != "" {
			prestartPDF = false // BenchmarkIndexFirstPDF's comparison
		}
		if n, err := strconv.Atoi(os.Getenv("CITE_TEST_RM_BATCH")); err == nil {
			rmBatch = n // the crash test's cite rm, killed between two batches
		}
		main() // signals handled as cite's own
	}
	if os.Getenv("CITE_TEST_MAIN_ARGV") == "1" {
		// The test binary as the cite command, its arguments on the
		// command line (as cite bench starts cite serve).
		os.Args = append([]string{"cite"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// cite runs a command in-process, with an empty environment, and returns
// its exit code and output.
func cite(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return citeEnv(t, nil, args...)
}

// citeEnv runs a command in-process with the environment vars.
func citeEnv(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }})
	return code, stdout.String(), stderr.String()
}

const corpus = "../../testdata/corpus"

// TestCommands runs the commands in turn over the embedded index.
func TestCommands(t *testing.T) { testCommands(t, nil) }

// TestCommandsWeaviate runs the same commands with the chunks in a real
// one-node Weaviate (--store through CITE_STORE): indexing, incremental
// re-runs, search in every mode and with filters, check, reindex, rm and
// prune behave the same.
func TestCommandsWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, 1)
	vars := map[string]string{"CITE_STORE": "weaviate://" + c.Addr() + "?collection=Commands"}
	testCommands(t, vars)

	// A query node: another machine, without the writer's index folder,
	// searches and answers from the collection alone.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	none := filepath.Join(t.TempDir(), "no-index-here")
	code, stdout, stderr := citeEnv(t, vars, "search", "--index", none, "waggle dance")
	if code != 0 || !strings.Contains(stdout, "Honeybee Colonies") {
		t.Fatalf("search on a query node: exit %d\n%s%s", code, stdout, stderr)
	}
	bees, _ := filepath.Abs(filepath.Join(corpus, "honeybees.md"))
	code, stdout, stderr = citeEnv(t, vars, "search", "--index", none, "--doc", bees, "--source", "default", "dance")
	if code != 0 || !strings.Contains(stdout, "Honeybee Colonies") || strings.Contains(stdout, "\n2. ") {
		t.Fatalf("search --doc on a query node: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = citeEnv(t, vars, "ask", "--index", none, "what is WAL mode in SQLite")
	if code != 0 || !strings.Contains(stdout, "sqlite-wal.html") {
		t.Fatalf("ask on a query node: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(none); err == nil {
		t.Errorf("a query node created %s", none)
	}
	// The commands read and wrote the collection, not only the folder.
	w, err := weaviate.Open(t.Context(), weaviate.Config{Addr: c.Addr(), Collection: "Commands"})
	if err != nil {
		t.Fatal(err)
	}
	names, err := w.SourceNames(t.Context())
	if err != nil || !slices.Equal(names, []string{"bees", "default"}) {
		t.Fatalf("sources in Weaviate: %v, %v", names, err)
	}
	inv, err := w.Inventory(t.Context())
	if err != nil || len(inv.Documents) != 5 {
		t.Fatalf("documents in Weaviate: %d, %v", len(inv.Documents), err)
	}
}

func testCommands(t *testing.T, vars map[string]string) {
	idx := filepath.Join(t.TempDir(), "idx")
	abs, _ := filepath.Abs(corpus)
	steps := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		jsonTest func(t *testing.T, out []byte)
	}{
		{"help", []string{"help"}, 0, []string{"Usage: cite COMMAND", "index"}, nil, nil},
		{"no args", nil, 2, nil, []string{"Usage: cite COMMAND"}, nil},
		{"unknown", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}, nil},
		{"index help", []string{"index", "--help"}, 0, nil, []string{"Usage: cite index", "-chunk-size", "pictures of pages (PNG, JPEG", ".mht)", "windows-1252"}, nil},
		{"bad flag", []string{"index", "--bogus", corpus}, 2, nil, []string{"flag provided but not defined: -bogus"}, nil},
		{"search a query starting with -", []string{"search", "--index", idx, "-Recurse"}, 2, nil, []string{"flag provided but not defined: -Recurse", `"-Recurse" is taken for a flag; a QUERY, or words of it, starting with "-" go after --: cite search -- "-Recurse"`}, nil},
		{"ask a question with a word starting with -", []string{"ask", "--index", idx, "what does", "-Force", "do"}, 2, nil, []string{`"-Force" is taken for a flag; a QUESTION, or words of it, starting with "-" go after --: cite ask -- "-Force"`}, nil},
		{"no index yet", []string{"docs", "--index", idx}, 1, nil, []string{"no index", "cite index PATH"}, nil},
		{"index", []string{"index", "--index", idx, corpus}, 0, []string{"5 files: 5 added", "chunks", "MB/s"}, nil, nil},
		{"index again", []string{"index", corpus, "--index", idx}, 0, []string{"5 files: 0 added, 0 updated, 5 unchanged"}, nil, nil},
		{"search", []string{"search", "--index", idx, "waggle dance"}, 0, []string{"1. Honeybee Colonies", "honeybees.md bytes", "waggle"}, nil, nil},
		{"search json", []string{"search", "--index", idx, "--json", "-k", "2", "--mode", "bm25", "write-ahead log"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct {
				Hits []map[string]any `json:"hits"`
			}
			if err := json.Unmarshal(out, &v); err != nil || len(v.Hits) == 0 {
				t.Fatalf("search --json: %v, %s", err, out)
			}
			for _, k := range []string{"rank", "score", "scores", "chunk_id", "document", "heading", "text", "source_span"} {
				if _, ok := v.Hits[0][k]; !ok {
					t.Errorf("hit lacks %q: %v", k, v.Hits[0])
				}
			}
			if doc := v.Hits[0]["document"].(map[string]any); !strings.HasSuffix(doc["path"].(string), "sqlite-wal.html") {
				t.Errorf("first hit %v", doc)
			}
		}},
		{"search filters", []string{"search", "--index", idx, "--path", corpus + "/guides/*", "--per-doc", "1", "--mode", "vector", "goroutines"}, 0, []string{"Concurrency in Go"}, nil, nil},
		{"search a relative path that matches nothing", []string{"search", "--index", idx, "--path", "guides/*", "goroutines"}, 0, []string{"no hits"}, []string{"no indexed document's path matches ", "'*/guides/*' matches below any folder"}, nil},
		{"search a path that matches nothing", []string{"search", "--index", idx, "--path", "/nowhere/*", "goroutines"}, 0, []string{"no hits"}, []string{"no indexed document's path matches /nowhere/*\n"}, nil},
		{"search bad mode", []string{"search", "--index", idx, "--mode", "semantic", "x"}, 2, nil, []string{"unknown search mode"}, nil},
		{"search no query", []string{"search", "--index", idx}, 2, nil, []string{"no QUERY"}, nil},
		{"show a file name", []string{"show", "--index", idx, "honeybees.md"}, 0, []string{"Honeybee Colonies\n", "corpus/honeybees.md (markdown"}, []string{"showing ", "corpus/honeybees.md, the indexed document whose path ends in honeybees.md\n"}, nil},
		{"show a path below the folder indexed", []string{"show", "--index", idx, "guides"}, 1, nil, []string{"document guides: not found\n"}, nil},
		{"check", []string{"check", "--index", idx}, 0, []string{"5 documents", "vectors (hash:2048, 2048 dimensions)", "ok"}, nil, nil},
		{"index other embedder", []string{"index", "--index", idx, "--embedder", "hash:512", corpus}, 1, nil, []string{"cite reindex --embedder hash:512"}, nil},
		{"reindex", []string{"reindex", "--index", idx, "--embedder", "hash:512"}, 0, []string{"5 of 5 chunks embedded with hash:512"}, nil, nil},
		{"check after reindex", []string{"check", "--index", idx, "--json"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct{ Report index.Report }
			if err := json.Unmarshal(out, &v); err != nil || v.Report.Vectors != 5 || v.Report.Embedder.Name != "hash:512" || len(v.Report.Problems) != 0 {
				t.Fatalf("check --json: %v, %s", err, out)
			}
		}},
		{"eval", []string{"eval", "--qa", "../../eval/testdata/qa", "--chunk-size", "24", "--chunk-overlap", "0"}, 0, []string{"2 articles", "4 questions", "RECALL@1", "hybrid max:0.75:0.25", "bm25", "vector"}, nil, nil},
		{"eval answers", []string{"eval", "--qa", "../../eval/testdata/qa", "--answers", "-k", "3"}, 0, []string{"4 questions", "FIRST PASSAGE", "extractive  3     1.000"}, nil, nil},
		{"eval no qa", []string{"eval"}, 2, nil, []string{"eval needs --qa DIR"}, nil},
		{"eval -k 0", []string{"eval", "--qa", "../../eval/testdata/qa", "--answers", "-k", "0"}, 2, nil, []string{"-k 0: want 1 or more"}, nil},
		{"eval -k without answers", []string{"eval", "--qa", "../../eval/testdata/qa", "-k", "3"}, 2, nil, []string{"-k is the passages per answer of --answers"}, nil},
		{"eval into a user's index", []string{"eval", "--qa", "../../eval/testdata/qa", "--index", idx}, 1, nil, []string{"the index holds 5 documents that are not the set's articles", "give a new folder"}, nil},
		{"the user's index without the articles", []string{"docs", "--index", idx}, 0, nil, nil, func(t *testing.T, out []byte) {
			if strings.Contains(string(out), "articles") {
				t.Errorf("cite eval added its articles:\n%s", out)
			}
		}},
		{"index missing", []string{"index", "--index", idx, "nope/missing.md"}, 1, nil, []string{"missing.md: no such file"}, nil},
		{"bad size", []string{"index", "--index", idx, "--max-size", "lots", corpus}, 2, nil, []string{"bad size"}, nil},
		{"bad chunk size", []string{"index", "--index", idx, "--chunk-size", "10", corpus}, 2, nil, []string{"below the minimum"}, nil},
		{"sources", []string{"sources", "--index", idx}, 0, []string{"default", "5"}, nil, nil},
		{"docs", []string{"docs", "--index", idx}, 0, []string{"Honeybee Colonies", "Write-Ahead Logging in SQLite", "Tokenizers for language models"}, nil, nil},
		{"docs of an unknown source", []string{"docs", "--index", idx, "--source", "nosuch"}, 1, nil, []string{`cite docs: data source "nosuch": no such data source (the index has `}, nil},
		{"rm in an unknown source", []string{"rm", "--index", idx, "--source", "nosuch", "*.md"}, 1, nil, []string{`cite rm: data source "nosuch": no such data source (the index has `}, nil},
		{"index into no source", []string{"index", "--index", idx, "--source", "", corpus}, 2, nil, []string{`--source: want a data source's name`}, nil},
		{"an empty query", []string{"search", "--index", idx, " "}, 2, nil, []string{"search: the QUERY is empty"}, nil},
		{"docs json", []string{"docs", "--index", idx, "--json"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct{ Documents []index.Document }
			if err := json.Unmarshal(out, &v); err != nil || len(v.Documents) != 5 {
				t.Fatalf("docs --json: %v, %d documents", err, len(v.Documents))
			}
		}},
		{"show", []string{"show", "--index", idx, corpus + "/honeybees.md"}, 0, []string{"Honeybee Colonies", "royal jelly", "Angle of the run | Direction relative to the sun"}, nil, nil},
		{"show chunks", []string{"show", "--index", idx, "--chunks", filepath.Join(abs, "guides/rag.md")}, 0, []string{"--- chunk 0", "tokens", "file bytes ["}, nil, nil},
		{"show json", []string{"show", "--index", idx, "--json", "--chunks", corpus + "/tokenizers.txt"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct {
				Document index.Document
				Chunks   []chunkJSON
			}
			if err := json.Unmarshal(out, &v); err != nil || len(v.Chunks) == 0 || v.Chunks[0].SourceSpan.End == 0 {
				t.Fatalf("show --json: %v, %+v", err, v)
			}
		}},
		{"show missing", []string{"show", "--index", idx, "nothing-like-this"}, 1, nil, []string{"not found"}, nil},
		{"rm", []string{"rm", "--index", idx, corpus + "/tokenizers.txt"}, 0, []string{"removed", "tokenizers.txt", "1 chunk)"}, nil, nil},
		{"docs after rm", []string{"docs", "--index", idx, "--json"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct{ Documents []index.Document }
			json.Unmarshal(out, &v)
			if len(v.Documents) != 4 {
				t.Fatalf("%d documents after rm", len(v.Documents))
			}
		}},
		{"index other source", []string{"index", "--index", idx, "--source", "bees", corpus + "/honeybees.md", "--json"}, 0, nil, nil, func(t *testing.T, out []byte) {
			var v struct {
				Source string
				Stats  struct{ Added int }
			}
			if err := json.Unmarshal(out, &v); err != nil || v.Source != "bees" || v.Stats.Added != 1 {
				t.Fatalf("index --json: %v %+v", err, v)
			}
		}},
		{"docs by source", []string{"docs", "--index", idx, "--source", "bees"}, 0, []string{"bees", "Honeybee"}, nil, nil},
		{"show ambiguous", []string{"show", "--index", idx, corpus + "/honeybees.md"}, 1, nil, []string{"ambiguous"}, nil},
		{"prune without paths", []string{"index", "--index", idx, "--prune"}, 0, []string{"0 pruned"}, nil, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, stdout, stderr := citeEnv(t, vars, s.args...)
			if code != s.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, s.code, stdout, stderr)
			}
			for _, w := range s.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range s.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if s.jsonTest != nil {
				s.jsonTest(t, []byte(stdout))
			}
		})
	}
}

// TestRmFoldersAndGlobs removes what cite index took from a folder or a
// glob with the same arguments: every document under a folder (in every
// data source, or in --source's), the paths a glob matches; a path under
// which nothing is stored is an error, and a document in two sources stays
// ambiguous.
func TestRmFoldersAndGlobs(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	for _, args := range [][]string{{"index", "--index", idx, corpus}, {"index", "--index", idx, "--source", "bees", corpus + "/honeybees.md"}} {
		if code, _, stderr := cite(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
	}
	for _, s := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"ambiguous", []string{corpus + "/honeybees.md"}, 1, nil, []string{"ambiguous"}},
		{"a session's source", []string{"--source", "session:abc", corpus}, 1, nil, []string{`data source "session:abc": no such data source (the index has bees, default)`}},
		{"folder of a source", []string{"--source", "bees", corpus}, 0, []string{"honeybees.md (bees, 1 chunk)"}, nil},
		{"glob", []string{corpus + "/guides/*.md"}, 0, []string{"go-concurrency.md (default, 1 chunk)", "rag.md (default, 1 chunk)"}, nil},
		{"nothing there", []string{corpus + "/guides", corpus + "/sqlite-wal.html"}, 1, []string{"sqlite-wal.html (default, 1 chunk)"}, []string{"guides: not found"}},
		{"folder", []string{corpus}, 0, []string{"honeybees.md (default, 1 chunk)", "tokenizers.txt (default, 1 chunk)"}, nil},
	} {
		code, stdout, stderr := cite(t, append([]string{"rm", "--index", idx}, s.args...)...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", s.name, code, s.code, stdout, stderr)
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, w, stdout)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", s.name, w, stderr)
			}
		}
	}
	st := openRead(t, idx)
	if n := countDocs(t, st); n != 0 {
		t.Errorf("%d documents left", n)
	}
	if rep, err := st.Check(t.Context()); err != nil || !rep.OK() {
		t.Errorf("check: %v %+v", err, rep.Problems)
	}
}

func TestIndexEnvVariable(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "from-env")
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "CITE_INDEX" {
			return idx
		}
		return ""
	}
	if code := run(t.Context(), []string{"index", corpus}, &env{stdout: &stdout, stderr: &stderr, getenv: getenv}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(idx, "index.db")); err != nil {
		t.Fatalf("CITE_INDEX not used: %v", err)
	}
}

// writeCorpus writes n Markdown files of about size bytes of varied text,
// which depends on seed.
func writeCorpus(t *testing.T, dir string, n, size int, seed uint64) {
	t.Helper()
	words := strings.Fields("the a of to in colony queen worker honey comb wax flower nectar dance sun angle distance forager hive larva brood egg summer winter season field bee swarm drone pollen water wing")
	rng := rand.New(rand.NewPCG(seed, 11))
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n\n", i)
		for b.Len() < size {
			if rng.IntN(12) == 0 {
				fmt.Fprintf(&b, "\n## Section %d\n\n", rng.IntN(1000))
			}
			for range 8 + rng.IntN(20) {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString("end.\n\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%04d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCrashMidIndex kills cite with SIGKILL while it writes: several
// times while cite index adds documents, then while it updates them, while
// cite rm deletes them and while cite index --prune removes those whose
// files are gone. After each kill the index must be consistent (no partial
// document, no duplicate chunk, no document half old and half new), and a
// re-run must complete the work.
func TestCrashMidIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test writes a 6 MB corpus")
	}
	testCrashMidIndex(t, nil)
}

// TestCrashMidIndexWeaviate is TestCrashMidIndex with the chunks in a real
// Weaviate (--store): after each SIGKILL the collection shows no document
// missing one of the chunks it lists, and what differs from the manifest
// is pending; after the re-runs it matches the manifest exactly (no
// orphan, duplicate or missing chunk).
func TestCrashMidIndexWeaviate(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test writes a 6 MB corpus")
	}
	c := weaviatetest.Start(t, 1)
	testCrashMidIndex(t, map[string]string{"CITE_STORE": "weaviate://" + c.Addr() + "?collection=Crash"})
}

func testCrashMidIndex(t *testing.T, vars map[string]string) {
	dir := t.TempDir()
	docs, idx := filepath.Join(dir, "docs"), filepath.Join(dir, "idx")
	os.Mkdir(docs, 0o755)
	const files = 400
	writeCorpus(t, docs, files, 16<<10, 7)

	// Add: kill three times, each after the run committed some documents.
	committed := 0
	for round := range 3 {
		rep := killWhen(t, vars, fmt.Sprintf("add round %d", round), idx, []string{"index", "--index", idx, "--quiet", docs}, func(st *index.Store) bool {
			return countDocs(t, st) >= committed+15
		})
		// The first round always stops mid-run. A later one may find the
		// rest of the files in the batch that crossed its mark (the writer
		// takes what is ready when it is free, up to a batch's limits): it
		// was then killed as it closed, and the add is complete.
		if rep.Documents < committed+15 || rep.Documents > files || round == 0 && rep.Documents == files {
			t.Fatalf("add round %d: %d documents after the kill, want between %d and %d", round, rep.Documents, committed+15, files-1)
		}
		committed = rep.Documents
		if committed == files {
			t.Logf("add round %d: the last batch held every file left", round)
			break
		}
	}
	code, stdout, stderr := citeEnv(t, vars, "index", "--index", idx, "--quiet", docs)
	if code != 0 {
		t.Fatalf("re-run: exit %d: %s %s", code, stdout, stderr)
	}
	if want := fmt.Sprintf("%d files: %d added, 0 updated, %d unchanged", files, files-committed, committed); !strings.Contains(stdout, want) {
		t.Fatalf("re-run: %s, want %q", stdout, want)
	}

	// Update: every file changes; each document must be wholly old or new.
	old := hashes(t, idx)
	writeCorpus(t, docs, files, 16<<10, 8)
	rep := killWhen(t, vars, "update", idx, []string{"index", "--index", idx, "--quiet", docs}, func(st *index.Store) bool {
		return countChanged(t, st, old) >= 15
	})
	if n := countChanged(t, openRead(t, idx), old); rep.Documents != files || n < 15 || n >= files {
		t.Fatalf("update: %d documents, %d of them updated, after the kill", rep.Documents, n)
	}
	if code, stdout, stderr := citeEnv(t, vars, "index", "--index", idx, "--quiet", docs); code != 0 || !strings.Contains(stdout, "0 added") {
		t.Fatalf("update re-run: exit %d: %s %s", code, stdout, stderr)
	}

	// Delete: cite rm of half the files, 5 documents a transaction (1,024
	// unless a test says otherwise: all of them in one).
	entries, _ := os.ReadDir(docs)
	rm := []string{"rm", "--index", idx}
	for _, e := range entries[:files/2] {
		rm = append(rm, filepath.Join(docs, e.Name()))
	}
	rmVars := map[string]string{"CITE_TEST_RM_BATCH": "5"}
	maps.Copy(rmVars, vars)
	rep = killWhen(t, rmVars, "delete", idx, rm, func(st *index.Store) bool { return countDocs(t, st) <= files-10 })
	if rep.Documents <= files/2 || rep.Documents > files-10 {
		t.Fatalf("delete: %d documents after the kill, want between %d and %d", rep.Documents, files/2+1, files-10)
	}

	// Prune: the other half of the files go; cite index --prune removes
	// their documents.
	for _, e := range entries[files/2:] {
		os.Remove(filepath.Join(docs, e.Name()))
	}
	before := rep.Documents
	rep = killWhen(t, vars, "prune", idx, []string{"index", "--index", idx, "--quiet", "--prune", docs}, func(st *index.Store) bool {
		return countDocs(t, st) <= before-10
	})
	if rep.Documents > before-10 || rep.Documents == 0 {
		t.Fatalf("prune: %d documents after the kill, want between 1 and %d", rep.Documents, before-10)
	}
	if code, stdout, stderr := citeEnv(t, vars, "index", "--index", idx, "--quiet", "--prune", docs); code != 0 {
		t.Fatalf("prune re-run: exit %d: %s %s", code, stdout, stderr)
	}
	final, err := openRead(t, idx).Check(t.Context())
	if err != nil || !final.OK() {
		t.Fatalf("after re-runs: %v %+v", err, final)
	}
	if vars["CITE_STORE"] != "" {
		if rep := checkReplica(t, vars["CITE_STORE"], idx); !rep.OK() {
			t.Fatalf("after re-runs, the Weaviate collection differs from the index: %+v", rep.Problems)
		}
	}
}

// checkReplica compares the collection at store with the index in idx.
func checkReplica(t *testing.T, store, idx string) index.Report {
	t.Helper()
	cfg, err := weaviate.ParseURL(store)
	if err != nil {
		t.Fatal(err)
	}
	w, err := weaviate.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(t.Context(), idx, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetReplica(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	var rep index.Report
	if err := st.CheckReplica(t.Context(), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// killWhen runs cite with args in a child process, polls the index until
// done says the child has written enough, kills it with SIGKILL and
// checks the index. It fails, with the child's output, if the child exits
// on its own first.
func killWhen(t *testing.T, vars map[string]string, what, idx string, args []string, done func(*index.Store) bool) index.Report {
	t.Helper()
	cmd := citeCommand(args...)
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for !poll(t, idx, done) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%s: no progress in 2 minutes; output:\n%s", what, out.String())
		}
		select {
		case err := <-exited:
			t.Fatalf("%s: cite %s exited (%v) before it could be killed; output:\n%s", what, args[0], err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	// The process killed left no record of a clean close: the next writer
	// checks the whole file.
	vst, err := index.Open(t.Context(), idx, index.Options{Verify: true})
	if err != nil {
		t.Fatalf("%s: open with Verify after crash: %v; output:\n%s", what, err, out.String())
	}
	if !vst.QuickChecked() {
		t.Errorf("%s: the open after SIGKILL did not run quick_check", what)
	}
	vst.Close()
	st, err := index.Open(t.Context(), idx, index.Options{})
	if err != nil {
		t.Fatalf("%s: open after crash: %v; output:\n%s", what, err, out.String())
	}
	defer st.Close()
	rep, err := st.Check(t.Context())
	if err != nil || !rep.OK() {
		t.Fatalf("%s: index inconsistent after SIGKILL: %v %+v", what, err, rep.Problems)
	}
	t.Logf("%s: killed with %d documents, %d chunks; index consistent", what, rep.Documents, rep.Chunks)
	if store := vars["CITE_STORE"]; store != "" {
		// The collection may be behind, but only for pending documents,
		// and never shows a version without all its chunks.
		pending, err := st.PendingReplica(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		wrep := checkReplica(t, store, idx)
		for _, p := range wrep.Problems {
			switch {
			case strings.Contains(p.Problem, "lacks some of its chunks"):
				t.Fatalf("%s: after SIGKILL the collection lists chunks it does not hold: %+v", what, p)
			case p.DocumentID != "" && !slices.Contains(pending, p.DocumentID):
				t.Fatalf("%s: after SIGKILL the collection differs for a document not pending: %+v", what, p)
			}
		}
		t.Logf("%s: %d documents pending for Weaviate, %d differences, all of pending documents or orphans", what, len(pending), len(wrep.Problems))
	}
	return rep
}

// poll opens the index read-only, as a concurrent reader does, and asks
// done about it; false if there is no index yet.
func poll(t *testing.T, idx string, done func(*index.Store) bool) bool {
	st, err := index.Open(t.Context(), idx, index.Options{ReadOnly: true})
	if errors.Is(err, index.ErrNoIndex) || errors.Is(err, index.ErrReadOnly) {
		return false // not created, or not migrated yet
	}
	if err != nil {
		t.Fatalf("open while cite writes: %v", err)
	}
	defer st.Close()
	return done(st)
}

func countDocs(t *testing.T, st *index.Store) int {
	docs, err := st.Documents(t.Context(), "")
	if err != nil {
		t.Fatalf("read while cite writes: %v", err)
	}
	return len(docs)
}

// openRead opens an index read-only until the end of the test.
func openRead(t *testing.T, idx string) *index.Store {
	t.Helper()
	st, err := index.Open(t.Context(), idx, index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// hashes returns the content hash of each document, by id.
func hashes(t *testing.T, idx string) map[string]string {
	docs, err := openRead(t, idx).Documents(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		out[d.ID] = d.Hash
	}
	return out
}

func countChanged(t *testing.T, st *index.Store, old map[string]string) int {
	docs, err := st.Documents(t.Context(), "")
	if err != nil {
		t.Fatalf("read while cite writes: %v", err)
	}
	n := 0
	for _, d := range docs {
		if old[d.ID] != d.Hash {
			n++
		}
	}
	return n
}

// TestCheckRepair: vectors lost (here, dropped as an interrupted cite
// reindex leaves them) are reported by cite check and made by --repair.
func TestCheckRepair(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errOut)
	}
	st, err := index.Open(t.Context(), idx, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := embed.New("hash:1024", embed.Config{})
	if err := st.ResetVectors(t.Context(), emb); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, _ := cite(t, "check", "--index", idx)
	if code != 1 || !strings.Contains(out, "5 chunks have no vector") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	code, out, _ = cite(t, "check", "--index", idx, "--repair")
	if code != 0 || !strings.Contains(out, "made 5 missing vectors with hash:1024") || !strings.Contains(out, "ok") {
		t.Fatalf("check --repair: exit %d\n%s", code, out)
	}
	code, out, _ = cite(t, "search", "--index", idx, "--mode", "vector", "honeybee colony")
	if code != 0 || !strings.Contains(out, "1. Honeybee Colonies") {
		t.Fatalf("search after repair: exit %d\n%s", code, out)
	}
}

// TestReadOnlyIndex: the read commands work on an index the user may not
// write (here a folder of another user's, with a vector cache); the write
// commands say the index is read-only. Root may write anything, so as root
// the commands run as the user nobody.
func TestReadOnlyIndex(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := cite(t, "search", "--index", idx, "--mode", "vector", "honeybee"); code != 0 {
		t.Fatalf("search: %d %s %s", code, out, errOut)
	}
	entries, _ := os.ReadDir(idx)
	for _, e := range entries {
		os.Chmod(filepath.Join(idx, e.Name()), 0o444)
	}
	os.Chmod(idx, 0o555)
	t.Cleanup(func() { os.Chmod(idx, 0o755) })
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"search", "waggle dance"}, 0, "1. Honeybee Colonies"},
		{[]string{"search", "--mode", "vector", "waggle dance"}, 0, "1. Honeybee Colonies"},
		{[]string{"docs"}, 0, "Honeybee Colonies"},
		{[]string{"sources"}, 0, "default"},
		{[]string{"show", "--chunks", filepath.Join(mustAbs(t, corpus), "honeybees.md")}, 0, "--- chunk 0"},
		{[]string{"check"}, 0, "ok"},
		{[]string{"index", mustAbs(t, corpus)}, 1, "index is read-only"},
		{[]string{"rm", filepath.Join(mustAbs(t, corpus), "honeybees.md")}, 1, "index is read-only"},
		{[]string{"check", "--repair"}, 1, "index is read-only"},
	} {
		args := append([]string{c.args[0], "--index", idx}, c.args[1:]...)
		code, out := citeUnprivileged(t, args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("cite %s: exit %d, want %d and %q:\n%s", strings.Join(c.args, " "), code, c.code, c.out, out)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// citeUnprivileged runs a command as a user who may not write what root
// made: in-process unless the test runs as root, then in a child process
// (this test binary as cite) as the user nobody. It returns the exit code
// and the output, stdout and stderr together.
func citeUnprivileged(t *testing.T, args ...string) (int, string) {
	t.Helper()
	if os.Getuid() != 0 {
		code, stdout, stderr := cite(t, args...)
		return code, stdout + stderr
	}
	bin := filepath.Join(t.TempDir(), "cite.test")
	if _, err := os.Stat(bin); err != nil {
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Let nobody through the temporary folders (made 0700).
	for _, a := range append([]string{bin}, args...) {
		for p := filepath.Dir(a); strings.HasPrefix(p, os.TempDir()+"/"); p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 == 0 {
				os.Chmod(p, fi.Mode().Perm()|0o005)
			}
		}
	}
	a, _ := json.Marshal(args)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CITE_TEST_MAIN_ARGS="+string(a))
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Skipf("cannot run as nobody: %v", err)
	}
	return 0, string(out)
}

// TestCorruptIndex: a damaged database file stops the commands with a
// message naming the fix; cite index does not write into it; cite check
// finds it; cite check --repair keeps it aside, rebuilds the index from
// what is readable and re-reads the files of documents whose chunks were
// lost.
func TestCorruptIndex(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(file string, size int64) error
	}{
		{"truncated", func(file string, size int64) error { return os.Truncate(file, size/2) }},
		{"garbage in the middle", func(file string, size int64) error {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(bytes.Repeat([]byte{0xA5}, 4096), size/2/4096*4096)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
				t.Fatalf("index: %d %s %s", code, out, errOut)
			}
			file := filepath.Join(idx, "index.db")
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.damage(file, fi.Size()); err != nil {
				t.Fatal(err)
			}
			damaged, _ := os.ReadFile(file)
			for _, args := range [][]string{
				{"index", "--index", idx, "--force", corpus},
				{"check", "--index", idx},
			} {
				code, out, errOut := cite(t, args...)
				if code != 1 || !strings.Contains(out+errOut, "cite check --repair") {
					t.Errorf("cite %s: exit %d, want 1 and the fix named:\n%s%s", args[0], code, out, errOut)
				}
			}
			if now, _ := os.ReadFile(file); !bytes.Equal(now, damaged) {
				t.Fatalf("the damaged file was written")
			}
			code, out, errOut := cite(t, "check", "--index", idx, "--repair")
			if code != 0 || !strings.Contains(out, "kept it as") || !strings.Contains(out, "recovered") || !strings.Contains(out, "5 documents") || !strings.HasSuffix(out, "ok\n") {
				t.Fatalf("check --repair: exit %d\n%s%s", code, out, errOut)
			}
			t.Log(out)
			kept, _ := filepath.Glob(filepath.Join(idx, "index.db.corrupt-*"))
			if len(kept) != 1 {
				t.Fatalf("damaged file kept as %v", kept)
			}
			if now, _ := os.ReadFile(kept[0]); !bytes.Equal(now, damaged) {
				t.Errorf("the damaged file kept aside is not as it was")
			}
			code, out, _ = cite(t, "check", "--index", idx, "--json")
			var v struct{ Report index.Report }
			if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Report.Documents != 5 || v.Report.Chunks < 5 || v.Report.Vectors != v.Report.Chunks {
				t.Fatalf("check after repair: exit %d, %v\n%s", code, err, out)
			}
			for _, args := range [][]string{
				{"search", "--index", idx, "--mode", "vector", "waggle dance"},
				{"index", "--index", idx, corpus},
			} {
				if code, out, errOut := cite(t, args...); code != 0 {
					t.Errorf("cite %s after repair: exit %d\n%s%s", args[0], code, out, errOut)
				}
			}
		})
	}
}

// TestRepairUnreadableIndex: a database file of which nothing can be read
// (not a database, an empty file, a damaged first page, which holds the
// schema) is named damaged, not read-only, and cite check --repair keeps it
// aside and makes a new, empty index, saying so.
func TestRepairUnreadableIndex(t *testing.T) {
	garbage := make([]byte, 8192)
	for i := range garbage {
		garbage[i] = byte(i*7919>>3) ^ 0x5A
	}
	for _, c := range []struct {
		name   string
		damage func(file string) error
	}{
		{"random bytes", func(file string) error { return os.WriteFile(file, garbage, 0o644) }},
		{"a line of text", func(file string) error { return os.WriteFile(file, []byte("garbage\n"), 0o644) }},
		{"empty file", func(file string) error { return os.Truncate(file, 0) }},
		{"first page overwritten", func(file string) error {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(garbage[:4000], 100)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
				t.Fatalf("index: %d %s %s", code, out, errOut)
			}
			file := filepath.Join(idx, "index.db")
			if err := c.damage(file); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"search", "--index", idx, "waggle dance"},
				{"check", "--index", idx},
			} {
				code, out, errOut := cite(t, args...)
				if code != 1 || !strings.Contains(out+errOut, "cite check --repair") || strings.Contains(out+errOut, "read-only") {
					t.Errorf("cite %s: exit %d, want 1 and the damage and its fix named:\n%s%s", args[0], code, out, errOut)
				}
			}
			code, out, errOut := cite(t, "check", "--index", idx, "--repair")
			if code != 0 || !strings.Contains(out, "kept it as") || !strings.Contains(out, "nothing could be recovered") || !strings.HasSuffix(out, "ok\n") {
				t.Fatalf("check --repair: exit %d\n%s%s", code, out, errOut)
			}
			if kept, _ := filepath.Glob(filepath.Join(idx, "index.db.corrupt-*")); len(kept) != 1 {
				t.Errorf("damaged file kept as %v", kept)
			}
			if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
				t.Fatalf("index after repair: %d %s %s", code, out, errOut)
			}
			if code, out, errOut := cite(t, "search", "--index", idx, "waggle dance"); code != 0 || out == "" {
				t.Errorf("search after repair: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestCleanCloseSkipsCheck: each command that writes the index checks it
// when it opens it, and closes it cleanly, so that the next one to open it
// need not check the whole file again; cite check --repair, which opens
// it without that check, leaves the next one to check it.
func TestCleanCloseSkipsCheck(t *testing.T) {
	dir := t.TempDir()
	docs, idx := filepath.Join(dir, "docs"), filepath.Join(dir, "idx")
	os.Mkdir(docs, 0o755)
	writeCorpus(t, docs, 20, 4<<10, 3)
	steps := []struct {
		name      string
		before    func()
		args      []string
		wantCheck bool // the open after the command runs quick_check
	}{
		{"index (creates)", nil, []string{"index", "--index", idx, "--quiet", docs}, false},
		{"index of one changed file", func() {
			os.WriteFile(filepath.Join(docs, "doc0003.md"), []byte("one changed file\n"), 0o644)
		}, []string{"index", "--index", idx, "--quiet", docs}, false},
		{"rm", nil, []string{"rm", "--index", idx, filepath.Join(docs, "doc0004.md")}, false},
		{"check --repair", nil, []string{"check", "--index", idx, "--repair"}, true},
		{"index after the repair", nil, []string{"index", "--index", idx, "--quiet", docs}, false},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		if code, stdout, stderr := cite(t, s.args...); code != 0 {
			t.Fatalf("%s: exit %d: %s %s", s.name, code, stdout, stderr)
		}
		st, err := index.Open(t.Context(), idx, index.Options{Verify: true})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if st.QuickChecked() != s.wantCheck {
			t.Errorf("after %s: quick_check ran: %v, want %v", s.name, st.QuickChecked(), s.wantCheck)
		}
		st.Close()
	}
}

// TestCheckingMessage: a writable open that has to run quick_check (no
// record of a clean close) says why it waits once the check has run for
// checkingDelay; an open after a clean close says nothing.
func TestCheckingMessage(t *testing.T) {
	defer func(d time.Duration) { checkingDelay = d }(checkingDelay)
	checkingDelay = 0
	dir := t.TempDir()
	docs, idx := filepath.Join(dir, "docs"), filepath.Join(dir, "idx")
	os.Mkdir(docs, 0o755)
	writeCorpus(t, docs, 5, 2<<10, 3)
	if code, stdout, stderr := cite(t, "index", "--index", idx, "--quiet", docs); code != 0 {
		t.Fatalf("index: exit %d: %s %s", code, stdout, stderr)
	}
	for _, c := range []struct {
		name   string
		before func()
		want   bool
	}{
		{"after a clean close", nil, false},
		{"without a clean-close record", func() {
			if err := os.Remove(filepath.Join(idx, "index.clean")); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		if c.before != nil {
			c.before()
		}
		code, stdout, stderr := cite(t, "index", "--index", idx, "--quiet", docs)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s %s", c.name, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, "cite: checking the index ("); got != c.want {
			t.Errorf("%s: said it checks the index: %v, want %v; stderr:\n%s", c.name, got, c.want, stderr)
		}
	}
}
