package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
)

// syncBuffer is a bytes.Buffer safe to read while a child writes it.
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

// TestIndexWatchSignal runs cite index --watch in a child process, makes a
// change, waits for it in the index, and stops the child with SIGINT or
// SIGTERM: it exits 0.
func TestIndexWatchSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			docs := t.TempDir()
			idx := filepath.Join(t.TempDir(), "idx")
			if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("alpha\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd, out := startCite(t, "index", "--watch", "--quiet", "--index", idx, docs)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitUntil := func(what string, cond func() bool) {
				t.Helper()
				deadline := time.Now().Add(time.Minute)
				for !cond() {
					select {
					case err := <-exited:
						t.Fatalf("cite exited (%v) before %s:\n%s", err, what, out.String())
					default:
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("not within a minute: %s:\n%s", what, out.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			waitUntil("watching", func() bool { return strings.Contains(out.String(), "watching ") })
			if err := os.WriteFile(filepath.Join(docs, "b.md"), []byte("bravo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			waitUntil("b.md indexed", func() bool {
				return poll(t, idx, func(st *index.Store) bool { return countDocs(t, st) == 2 })
			})
			// A rename is a copy of the document the file was.
			if err := os.Rename(filepath.Join(docs, "a.md"), filepath.Join(docs, "c.md")); err != nil {
				t.Fatal(err)
			}
			copied := fmt.Sprintf("added   %s (copied from %s)", filepath.Join(docs, "c.md"), filepath.Join(docs, "a.md"))
			waitUntil("the rename said", func() bool { return strings.Contains(out.String(), copied) })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("after %s: %v, want exit status 0:\n%s", sig, err, out.String())
				}
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %s:\n%s", sig, out.String())
			}
		})
	}
}

// TestServeWatch runs cite serve --watch in a child process, on an index
// made by cite index and on none yet (serve --watch makes it, as cite
// index --watch does): a file made in the watched folder is found by the
// server's search, an upload made while it watches is stored and found
// too, a folder --exclude leaves out is neither indexed nor watched, and
// SIGTERM exits 0.
func TestServeWatch(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(map[bool]string{false: "indexed", true: "no index yet"}[fresh], func(t *testing.T) { testServeWatch(t, fresh) })
	}
}

func testServeWatch(t *testing.T, fresh bool) {
	docs := t.TempDir()
	idx := filepath.Join(t.TempDir(), "idx")
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(docs, "drafts/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "drafts/deep/d.md"), []byte("wombatfig drafted.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !fresh {
		if code, _, errOut := cite(t, "index", "--index", idx, "--exclude", "drafts", docs); code != 0 {
			t.Fatalf("index: %d %s", code, errOut)
		}
	}
	cmd, out := startCite(t, "serve", "--watch", "--exclude", "drafts", "--no-token", "--addr", "127.0.0.1:0", "--index", idx, docs)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !cond() {
			select {
			case err := <-exited:
				t.Fatalf("cite exited (%v) before %s:\n%s", err, what, out.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("not within a minute: %s:\n%s", what, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	var base string
	waitUntil("listening", func() bool {
		m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil && strings.Contains(out.String(), "watching for changes")
	})
	finds := func(word string) bool {
		body, _ := json.Marshal(map[string]any{"query": word, "k": 3})
		resp, err := http.Post(base+"/v1/search", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == 200 && strings.Contains(string(data), word)
	}
	if err := os.WriteFile(filepath.Join(docs, "b.md"), []byte("zebracorn lives here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitUntil("the new file found by the server", func() bool { return finds("zebracorn") })
	if finds("wombatfig") {
		t.Error("a file in the folder --exclude leaves out was indexed")
	}
	if !strings.Contains(out.String(), "folders=1") {
		t.Errorf("the folder --exclude leaves out is watched, want only the PATH:\n%s", out.String())
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "up.md")
	fw.Write([]byte("quokkaberry uploaded.\n"))
	mw.Close()
	for range 20 { // with changes being indexed meanwhile
		os.WriteFile(filepath.Join(docs, "b.md"), []byte("zebracorn lives here, again.\n"), 0o644)
	}
	resp, err := http.Post(base+"/v1/documents", mw.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("upload while watching: %d %s", resp.StatusCode, data)
	}
	waitUntil("the upload found", func() bool { return finds("quokkaberry") })
	waitUntil("the edit found", func() bool { return finds("again") })

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after SIGTERM: %v, want exit status 0:\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after SIGTERM:\n%s", out.String())
	}
	// The server checked the index when it opened it and closed it
	// cleanly: the next writer need not check it again.
	st, err := index.Open(t.Context(), idx, index.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.QuickChecked() {
		t.Error("quick_check ran on the index cite serve closed cleanly")
	}
}

// TestServeWatchFlags: cite serve takes cite index --watch's ignore flags
// with --watch, and refuses them without it.
func TestServeWatchFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"--exclude without --watch", []string{"serve", "--exclude", "drafts"}, 2, "--exclude, --no-ignore and --keep-boilerplate are for --watch"},
		{"--no-ignore without --watch", []string{"serve", "--no-ignore"}, 2, "--exclude, --no-ignore and --keep-boilerplate are for --watch"},
		{"--keep-boilerplate without --watch", []string{"serve", "--keep-boilerplate"}, 2, "--exclude, --no-ignore and --keep-boilerplate are for --watch"},
		{"a bad glob", []string{"serve", "--watch", "--exclude", "[", dir}, 2, `--exclude "[": syntax error in pattern`},
		{"help", []string{"serve", "--help"}, 0, "-exclude GLOB"},
		{"help: --no-ignore", []string{"serve", "--help"}, 0, "-no-ignore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cite(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("cite %q: exit %d, want %d, stderr without %q:\n%s", tc.args, code, tc.code, tc.stderr, errOut)
			}
		})
	}
}

// TestWatchDocuments watches a folder as cite index --watch does while a
// PDF and a Word file enter it, one of them by an editor's atomic save,
// and one is deleted: each change reaches search, a PDF's hits with their
// page.
func TestWatchDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := t.TempDir()
	find := watchFixture(t, dir)
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("not within a minute: %s", what)
			}
		}
	}
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pdf := filepath.Join(dir, "rivers.pdf")
	copyFile(filepath.Join(documents, "rivers.pdf"), pdf)
	wait("the new PDF found", func() bool { return find("Chambord", pdf) })
	docx := filepath.Join(dir, "lighthouse.docx")
	copyFile(filepath.Join(documents, "lighthouse.docx"), docx+".tmp")
	if err := os.Rename(docx+".tmp", docx); err != nil {
		t.Fatal(err)
	}
	wait("the Word file saved atomically found", func() bool { return find("diaphone", docx) })
	// The PDF replaced by another, atomically: its words change.
	copyFile(filepath.Join(pdfFixtures, "report.pdf"), pdf+".tmp")
	if err := os.Rename(pdf+".tmp", pdf); err != nil {
		t.Fatal(err)
	}
	wait("the replaced PDF's words found, the old ones gone", func() bool { return find("Eddystone", pdf) && !find("Chambord", pdf) })
	if err := os.Remove(docx); err != nil {
		t.Fatal(err)
	}
	wait("the deleted Word file pruned", func() bool { return !find("diaphone", docx) })
}

// TestWatchOwnOutput: cite index --watch with its output going to a file in
// the watched folder does not index that file (each line it wrote there
// would be a change to index again, and another line).
func TestWatchOwnOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the output's path comes from /proc")
	}
	docs := t.TempDir()
	idx := filepath.Join(t.TempDir(), "idx")
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("alpha lynx\n"), 0o644)
	log, err := os.Create(filepath.Join(docs, "watch.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := citeCommand("index", "--watch", "--index", idx, docs)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	read := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(read(), "watching") {
		if time.Now().After(deadline) {
			t.Fatalf("not watching within a minute:\n%s", read())
		}
		time.Sleep(20 * time.Millisecond)
	}
	os.WriteFile(filepath.Join(docs, "b.md"), []byte("beta lynx\n"), 0o644)
	for !strings.Contains(read(), "b.md") {
		if time.Now().After(deadline) {
			t.Fatalf("b.md not indexed within a minute:\n%s", read())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The lines written about b.md changed watch.log before c.md is
	// written: once c.md is indexed, a change to watch.log would have
	// been seen too (a fixed sleep was this wait, too short on a loaded
	// machine to show a failure).
	os.WriteFile(filepath.Join(docs, "c.md"), []byte("charlie lynx\n"), 0o644)
	deadline = time.Now().Add(time.Minute)
	for !strings.Contains(read(), "c.md") {
		if time.Now().After(deadline) {
			t.Fatalf("c.md not indexed within a minute:\n%s", read())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if out := read(); strings.Contains(out, "watch.log") {
		t.Errorf("its own output was indexed:\n%s", out)
	}
	if code, out, _ := cite(t, "docs", "--index", idx); code != 0 || strings.Contains(out, "watch.log") || !strings.Contains(out, "b.md") {
		t.Errorf("docs: exit %d\n%s", code, out)
	}
}

// TestWatchAfterReindex: a cite reindex to another embedder while cite
// index --watch runs does not stop the watch; the files changed after it
// are embedded with the index's new embedder (they failed "chunk 0 has a
// vector of 2048 dimensions, the index's embedder makes 256" until a
// restart).
func TestWatchAfterReindex(t *testing.T) {
	docs := t.TempDir()
	idx := filepath.Join(t.TempDir(), "idx")
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("alpha lynx\n"), 0o644)
	cmd, out := startCite(t, "index", "--watch", "--index", idx, docs)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "watching") {
		if time.Now().After(deadline) {
			t.Fatalf("not watching within a minute:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, stdout, stderr := cite(t, "reindex", "--embedder", "hash:256", "--index", idx); code != 0 {
		t.Fatalf("reindex: exit %d\n%s%s", code, stdout, stderr)
	}
	os.WriteFile(filepath.Join(docs, "b.md"), []byte("beta lynx\n"), 0o644)
	for !strings.Contains(out.String(), "b.md") {
		if time.Now().After(deadline) {
			t.Fatalf("b.md not indexed within a minute:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := out.String(); regexp.MustCompile(`(?m)^failed`).MatchString(s) || strings.Contains(s, "mismatch") {
		t.Errorf("after the reindex:\n%s", s)
	}
	code, stdout, _ := cite(t, "check", "--json", "--index", idx)
	var rep struct {
		Report index.Report `json:"report"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.Report.Documents != 2 || rep.Report.Vectors != rep.Report.Chunks || rep.Report.Embedder.Name != "hash:256" {
		t.Errorf("check: exit %d %v\n%s", code, err, stdout)
	}
}

// TestWatchIgnoredNowLeaves: under cite index --watch and cite serve
// --watch (without --prune), a change to a .gitignore that ignores files
// indexed before removes their documents, as a deletion would (git no
// longer counts them in the tree, and their folders are no longer
// watched, so they would go stale), saying why; undoing it adds them
// again.
func TestWatchIgnoredNowLeaves(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		ready  string // in the output once watching
		pruned string // the line saying a document left, %s its path
	}{
		{"index", []string{"index", "--watch"}, "watching ", "pruned  %s: its file is ignored"},
		{"serve", []string{"serve", "--watch", "--no-token", "--addr", "127.0.0.1:0"}, "watching for changes", `msg="watch: pruned" path=%s reason="its file is ignored`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := t.TempDir()
			idx := filepath.Join(t.TempDir(), "idx")
			for rel, text := range map[string]string{"a.md": "alpha.\n", "drafts/d.md": "delta draft.\n", "run.log": "lima log.\n"} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(docs, rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(docs, rel), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd, out := startCite(t, append(tc.args, "--index", idx, docs)...)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitUntil := func(what string, cond func() bool) {
				t.Helper()
				deadline := time.Now().Add(time.Minute)
				for !cond() {
					select {
					case err := <-exited:
						t.Fatalf("cite exited (%v) before %s:\n%s", err, what, out.String())
					default:
					}
					if time.Now().After(deadline) {
						t.Fatalf("not within a minute: %s:\n%s", what, out.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			indexed := func(n int) func() bool {
				return func() bool { return poll(t, idx, func(st *index.Store) bool { return countDocs(t, st) == n }) }
			}
			waitUntil("watching", func() bool { return strings.Contains(out.String(), tc.ready) })
			waitUntil("3 documents", indexed(3))
			if err := os.WriteFile(filepath.Join(docs, ".gitignore"), []byte("drafts/\n*.log\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			waitUntil("the ignored files' documents removed", indexed(1))
			// Each line is written once its document has left the index, so
			// a reader of the index can see it gone before the line is out.
			for _, rel := range []string{"drafts/d.md", "run.log"} {
				line := fmt.Sprintf(tc.pruned, filepath.Join(docs, rel))
				waitUntil(fmt.Sprintf("%q in the output", line), func() bool { return strings.Contains(out.String(), line) })
			}
			if err := os.Remove(filepath.Join(docs, ".gitignore")); err != nil {
				t.Fatal(err)
			}
			waitUntil("the files no longer ignored indexed again", indexed(3))
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("after SIGTERM: %v, want exit status 0:\n%s", err, out.String())
				}
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after SIGTERM:\n%s", out.String())
			}
		})
	}
}

// TestServeWatchSaysKept: cite serve --watch's first pass keeps, as cite
// index without --prune does, the documents whose files are gone since
// the index was made, and says so, with the command that removes them
// (serve has no --prune); those ignored since leave the index, as cite
// index and the changes watched remove them.
func TestServeWatchSaysKept(t *testing.T) {
	docs := t.TempDir()
	idx := filepath.Join(t.TempDir(), "idx")
	for rel, text := range map[string]string{"a.md": "alpha.\n", "drafts/d.md": "delta draft.\n", "gone.md": "golf.\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(docs, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := cite(t, "index", "--index", idx, docs); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(docs, ".gitignore"), []byte("drafts/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(docs, "gone.md")); err != nil {
		t.Fatal(err)
	}
	cmd, out := startCite(t, "serve", "--watch", "--no-token", "--addr", "127.0.0.1:0", "--index", idx, docs)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "missing=") {
		if time.Now().After(deadline) {
			t.Fatalf("not said within a minute:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, want := range []string{"cite index --prune PATH... removes them", "missing=1", "pruned_ignored=1",
		`msg="watch: pruned" path=` + filepath.Join(docs, "drafts", "d.md") + ` reason="its file is ignored`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

// TestIndexWatchFirstPassPrunes: documents whose files an ignore file
// leaves out since the last run leave the index in the first pass of
// cite index --watch, as the changes watched and cite index remove them,
// saying why; documents whose files are gone stay (no --prune), and so do
// those of another folder, not watched, that the same rules would ignore.
func TestIndexWatchFirstPassPrunes(t *testing.T) {
	top := t.TempDir()
	docs, other := filepath.Join(top, "docs"), filepath.Join(top, "other")
	idx := filepath.Join(t.TempDir(), "idx")
	for rel, text := range map[string]string{"docs/a.md": "alpha.\n", "docs/build/b.md": "bravo build.\n", "docs/gone.md": "golf.\n", "other/build/c.md": "charlie.\n"} {
		p := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := cite(t, "index", "--index", idx, docs, other); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	for _, d := range []string{docs, other} {
		if err := os.WriteFile(filepath.Join(d, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(docs, "gone.md")); err != nil {
		t.Fatal(err)
	}
	cmd, out := startCite(t, "index", "--watch", "--index", idx, docs)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "watching ") {
		if time.Now().After(deadline) {
			t.Fatalf("not watching within a minute:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	for _, want := range []string{"pruned  " + filepath.Join(docs, "build", "b.md") + ": its file is ignored", "1 pruned (files ignored now)", "1 missing"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, out.String())
		}
	}
	var paths []string
	poll(t, idx, func(st *index.Store) bool {
		docs, err := st.Documents(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			paths = append(paths, strings.TrimPrefix(d.Path, top))
		}
		return true
	})
	slices.Sort(paths)
	if want := []string{"/docs/a.md", "/docs/gone.md", "/other/build/c.md"}; !slices.Equal(paths, want) {
		t.Errorf("indexed %q, want %q", paths, want)
	}
}
