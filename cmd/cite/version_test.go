package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
)

func TestVersionOf(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"a clone, committed", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: set("GOOS", "linux", "GOARCH", "amd64", "vcs.revision", "c7c00a399b29d6c0b2f4", "vcs.time", "2026-11-27T06:36:55Z", "vcs.modified", "false")},
			"cite (devel) c7c00a399b29 2026-11-27T06:36:55Z go1.26.8 linux/amd64"},
		{"a clone, changed", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: set("GOOS", "linux", "GOARCH", "arm64", "vcs.revision", "c7c00a399b29d6c0b2f4", "vcs.modified", "true")},
			"cite (devel) c7c00a399b29+dirty go1.26.8 linux/arm64"},
		{"a pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261127063655-c7c00a399b29"},
			Settings: set("GOOS", "darwin", "GOARCH", "arm64", "vcs.revision", "c7c00a399b29d6c0b2f4")},
			"cite v0.0.0-20261127063655-c7c00a399b29 go1.26.8 darwin/arm64"},
		{"go install @v1.2.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: set("GOOS", "linux", "GOARCH", "amd64")},
			"cite v1.2.0 go1.26.8 linux/amd64"},
	} {
		if got := versionOf(tc.bi, true); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := versionOf(nil, false); !strings.HasPrefix(got, "cite (unknown) go") {
		t.Errorf("no build info: %q", got)
	}
}

// TestVersionCommand: cite version, --version and -version print one line
// and exit 0.
func TestVersionCommand(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		code, out, errOut := cite(t, arg)
		if code != 0 || !strings.HasPrefix(out, "cite ") || strings.Count(out, "\n") != 1 || errOut != "" {
			t.Errorf("cite %s: exit %d\n%s%s", arg, code, out, errOut)
		}
	}
}

// TestUnknownCommand: a mistyped command is named with the command meant,
// when one is clearly meant, and the usage follows. A flag given before the
// command is said to go after it, though its name is a command's.
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--index idx show notes.md", `cite: flags go after the command: cite show --index …`},
		{"--json docs", `cite: flags go after the command: cite docs --json …`},
		{"serch", `cite: unknown command "serch" (did you mean "search"?)`},
		{"indx", `cite: unknown command "indx" (did you mean "index"?)`},
		{"idx", `cite: unknown command "idx" (did you mean "index"?)`},
		{"Search", `cite: unknown command "Search" (did you mean "search"?)`},
		{"--verison", `cite: unknown command "--verison" (did you mean "version"?)`},
		{"chek", `cite: unknown command "chek" (did you mean "check"?)`},
		{"s", `cite: unknown command "s"` + "\n"},   // too short to tell
		{"ch", `cite: unknown command "ch"` + "\n"}, // check or chat
		{"frobnicate", `cite: unknown command "frobnicate"` + "\n"},
	} {
		code, out, errOut := cite(t, strings.Fields(tc.arg)...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, tc.want) || !strings.Contains(errOut, "Usage: cite COMMAND") {
			t.Errorf("cite %s: exit %d\n%s%s", tc.arg, code, out, errOut)
		}
	}
}

// TestNoIndexHint: a command run in a folder below an indexed one, with no
// index of its own, fails (it does not read another folder's index) and
// names the nearest index above; with none above, it says only that there
// is none.
func TestNoIndexHint(t *testing.T) {
	top := t.TempDir()
	idx := filepath.Join(top, ".cite")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	sub := filepath.Join(top, "a", "b")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	for _, args := range [][]string{{"search", "bees"}, {"ask", "what do bees make"}, {"docs"}} {
		code, out, errOut := cite(t, args...)
		want := "no index (run cite index PATH to create one); the nearest index above this folder is " + idx + ": run cite there, or pass --index " + idx
		if code != exitFailure || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("cite %s: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	lone := t.TempDir()
	t.Chdir(lone)
	if nearestIndex(lone) != "" {
		t.Skipf("an index above %s: %s", lone, nearestIndex(lone))
	}
	if code, _, errOut := cite(t, "search", "bees"); code != exitFailure || strings.Contains(errOut, "nearest") {
		t.Errorf("no index above: exit %d\n%s", code, errOut)
	}
}

// TestIndexBelowAnIndex: cite index in a folder below an indexed one, with
// no index of its own, makes no second index unless --index or CITE_INDEX
// says so.
func TestIndexBelowAnIndex(t *testing.T) {
	top := t.TempDir()
	idx := filepath.Join(top, ".cite")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	file := mustAbs(t, filepath.Join(corpus, "honeybees.md"))
	sub := filepath.Join(top, "a")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	code, out, errOut := cite(t, "index", file)
	if want := "no index in this folder, and the nearest index above it is " + idx + ": run cite there, or pass --index " + idx + " (--index .cite makes a new one here)"; code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("below an index: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(sub, ".cite")); !os.IsNotExist(err) {
		t.Errorf("a second index was made: %v", err)
	}
	if code, out, errOut := cite(t, "index", "--index", ".cite", "--quiet", file); code != 0 || !index.Exists(filepath.Join(sub, ".cite")) {
		t.Errorf("--index .cite: exit %d\n%s%s", code, out, errOut)
	}
	os.RemoveAll(filepath.Join(sub, ".cite"))
	if code, out, errOut := citeEnv(t, map[string]string{"CITE_INDEX": ".cite"}, "index", "--quiet", file); code != 0 || !index.Exists(filepath.Join(sub, ".cite")) {
		t.Errorf("CITE_INDEX=.cite: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNoIndexNoFolder: commands that write to an existing index (check
// --repair, reindex) leave nothing behind where there is none, and an
// index folder given that is a file is named as such.
func TestNoIndexNoFolder(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	for _, args := range [][]string{{"check", "--repair"}, {"reindex", "--embedder", "hash:512"}, {"rm", "x.md"}} {
		code, _, errOut := cite(t, append([]string{args[0], "--index", idx}, args[1:]...)...)
		if code != exitFailure || !strings.Contains(errOut, "no index") {
			t.Errorf("cite %s: exit %d\n%s", args[0], code, errOut)
		}
		if _, err := os.Stat(idx); !os.IsNotExist(err) {
			t.Errorf("cite %s made %s: %v", args[0], idx, err)
			os.RemoveAll(idx)
		}
	}
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{{"index", corpus}, {"search", "bees"}, {"check"}} {
		code, _, errOut := cite(t, append([]string{args[0], "--index", file}, args[1:]...)...)
		if want := file + " is a file, not an index folder"; code != exitFailure || !strings.Contains(errOut, want) {
			t.Errorf("cite %s --index FILE: exit %d\n%s", args[0], code, errOut)
		}
	}
}

// TestCheckWaitsForWriter: cite check waits while a cite index holds the
// writer lock (the tables it compares change in turn), saying so, and
// checks once it is released.
func TestCheckWaitsForWriter(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	unlock, err := index.LockWriter(t.Context(), idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr syncBuffer
		code := run(t.Context(), []string{"check", "--index", idx}, &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
		done <- result{code, stdout.String(), stderr.String()}
	}()
	select {
	case r := <-done:
		t.Fatalf("check did not wait for the writer: exit %d\n%s%s", r.code, r.out, r.err)
	case <-time.After(500 * time.Millisecond):
	}
	unlock()
	r := <-done
	if r.code != 0 || !strings.Contains(r.out, "ok") || !strings.Contains(r.err, "waiting for a cite index to finish") {
		t.Errorf("check: exit %d\n%s%s", r.code, r.out, r.err)
	}
}

// TestChatAndMCPTakeNoArguments: a question given to cite chat as an
// argument is refused, pointing to cite ask, rather than left unanswered.
func TestChatAndMCPTakeNoArguments(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", "--index", idx, "what is a goroutine"}, `chat takes no arguments: type the questions (did you mean cite ask "what is a goroutine"?)`},
		{[]string{"mcp", "--index", idx, "extra"}, "mcp takes no arguments"},
	} {
		if code, _, errOut := cite(t, tc.args...); code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("cite %s: exit %d\n%s", tc.args[0], code, errOut)
		}
	}
}

// TestIndexUnreadableRow: cite index on an index with a row it cannot read
// says so and points to cite check --repair, not that no files were found.
func TestIndexUnreadableRow(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	db, err := sql.Open("sqlite3", filepath.Join(idx, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE documents SET mtime = 'x' WHERE rowid = 1`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cite(t, "index", "--index", idx, corpus)
	if code != exitFailure || !strings.Contains(errOut, "cite check --repair fixes it") || strings.Contains(errOut, "no files found") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}
