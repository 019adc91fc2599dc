package index

import (
	"errors"
	"fmt"
	"github.com/cite-rag/cite/index/embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cite-rag/cite/chunk"
)

// putTexts stores a document of one chunk per text, with vectors of e.
func putTexts(t *testing.T, st *Store, e *embed.Embedder, path string, texts ...string) {
	t.Helper()
	var cs []Chunk
	off := 0
	for i, text := range texts {
		v, err := e.EmbedDocuments(t.Context(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text), Vector: v[0]})
		off += len(text)
	}
	doc := &Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}
	if _, err := st.PutDocument(t.Context(), doc, cs); err != nil {
		t.Fatal(err)
	}
}

// readOnlyFixture makes an index of two documents with vectors, and a
// vector cache that one more write has made stale, and closes it cleanly
// (no -wal or -shm file left).
func readOnlyFixture(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := embed.New("hash:64", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	putTexts(t, st, e, "/bees", "honeybees dance in the hive", "the queen lays eggs")
	if err := st.LoadVectors(ctx); err != nil { // writes the cache
		t.Fatal(err)
	}
	putTexts(t, st, e, "/wal", "sqlite writes ahead of the log")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, cacheFile)); err != nil {
		t.Fatalf("no vector cache: %v", err)
	}
	return dir
}

// folderState lists the files of dir with their sizes and times.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprint(fi.ModTime(), fi.Mode(), fi.Size())
	}
	return out
}

// checkReadOnly opens dir read-only and reads, searches and checks it;
// writes must fail with ErrReadOnly. writable says whether the process may
// write the folder (then opening for writing works).
func checkReadOnly(t *testing.T, dir string, writable bool) {
	ctx := t.Context()
	st, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open read-only: %v", err)
	}
	defer st.Close()
	docs, err := st.Documents(ctx, "")
	if err != nil || len(docs) != 2 {
		t.Fatalf("documents: %d, %v", len(docs), err)
	}
	if rs, err := st.SearchText(ctx, "honeybee", Filter{}, 5); err != nil || len(rs) != 1 {
		t.Fatalf("full-text search: %v, %v", rs, err)
	}
	e, _ := embed.New("hash:64", embed.Config{})
	q, err := e.EmbedQuery(ctx, "sqlite log", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := st.SearchVectors(ctx, q, Filter{}, 5); err != nil || len(rs) != 3 {
		t.Fatalf("vector search: %v, %v", rs, err)
	}
	if rep, err := st.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %+v, %v", rep, err)
	}
	if err := st.SaveVectorCache(ctx); err != nil {
		t.Fatalf("save vector cache: %v", err)
	}
	writes := map[string]func() error{
		"put": func() error {
			_, err := st.PutDocument(ctx, &Document{Source: "s", Path: "/new", Hash: "h"}, nil)
			return err
		},
		"delete": func() error { _, err := st.DeleteDocument(ctx, docs[0].ID); return err },
		"touch":  func() error { return st.Touch(ctx, docs[0].ID, 1, time.Now()) },
		"repair": func() error { _, err := st.Repair(ctx); return err },
		"reset":  func() error { return st.ResetVectors(ctx, e) },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v, want ErrReadOnly", name, err)
		}
	}
	w, err := Open(ctx, dir, Options{})
	switch {
	case writable && err != nil:
		t.Errorf("open for writing: %v", err)
	case !writable && (!errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "index is read-only")):
		t.Errorf("open for writing a folder that is not writable: %v, want ErrReadOnly", err)
	}
	if w != nil {
		w.Close()
	}
}

// TestReadOnlyOpen: an index opened read-only in a folder it could write
// reads, searches and checks, and refuses writes, leaving the database and
// the stale vector cache alone.
func TestReadOnlyOpen(t *testing.T) {
	dir := readOnlyFixture(t)
	before := folderState(t, dir)
	st, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	checkReadOnly(t, dir, true)
	after := folderState(t, dir)
	for _, name := range []string{dbFile, cacheFile} {
		if before[name] != after[name] {
			t.Errorf("%s changed: %s -> %s", name, before[name], after[name])
		}
	}
	if _, err := Open(t.Context(), dir, Options{ReadOnly: true, Create: true}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Create and ReadOnly: %v", err)
	}
	if _, err := Open(t.Context(), filepath.Join(dir, "none"), Options{ReadOnly: true}); !errors.Is(err, ErrNoIndex) {
		t.Errorf("read-only open of no index: %v", err)
	}
}

// TestReadOnlyFolder: an index in a folder the process may not write (no
// -wal or -shm file, which SQLite cannot create there; a vector cache it
// cannot replace) is searched read-only, and opening it for writing says
// it is read-only. Root may write anything, so as root the check runs in a
// child process with the uid of nobody.
func TestReadOnlyFolder(t *testing.T) {
	if dir := os.Getenv("CITE_TEST_READONLY_DIR"); dir != "" {
		checkReadOnly(t, dir, false)
		return
	}
	for _, withWriter := range []bool{false, true} {
		name := "closed"
		if withWriter {
			name = "writer open"
		}
		t.Run(name, func(t *testing.T) { readOnlyFolder(t, withWriter) })
	}
}

func readOnlyFolder(t *testing.T, withWriter bool) {
	dir := readOnlyFixture(t)
	if withWriter {
		// A writer holds the index open with commits in its log: the -wal
		// and -shm files exist, and the reader may read but not write them.
		w, err := Open(t.Context(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		docs, err := w.Documents(t.Context(), "")
		if err == nil {
			err = w.Touch(t.Context(), docs[0].ID, 7, time.Now())
		}
		if err != nil {
			t.Fatal(err)
		}
		w.ckpt.wait() // the file changes no more
		if fi, err := os.Stat(filepath.Join(dir, dbFile+"-wal")); err != nil || fi.Size() == 0 {
			t.Fatalf("no log: %v", err)
		}
	}
	lock := func(mode fs.FileMode, dirMode fs.FileMode) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Chmod(filepath.Join(dir, e.Name()), mode)
		}
		os.Chmod(dir, dirMode)
	}
	lock(0o444, 0o555)
	t.Cleanup(func() { lock(0o644, 0o755) })
	before := folderState(t, dir)
	if os.Getuid() != 0 {
		checkReadOnly(t, dir, false)
	} else {
		runAsNobody(t, "TestReadOnlyFolder", "CITE_TEST_READONLY_DIR="+dir)
	}
	after := folderState(t, dir)
	if len(before) != len(after) {
		t.Errorf("folder changed: %v -> %v", before, after)
	}
	for name := range before {
		if before[name] != after[name] {
			t.Errorf("%s changed", name)
		}
	}
}

// runAsNobody runs one test of this binary as the user nobody, with env
// added to its environment, and fails with its output if it fails.
func runAsNobody(t *testing.T, test string, env ...string) {
	t.Helper()
	// The test binary's folder is private to root: copy it where nobody
	// may run it, and let nobody through the folders above the index.
	bin := filepath.Join(t.TempDir(), "index.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin))} {
		os.Chmod(p, 0o755)
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CITE_TEST_READONLY_DIR="); ok {
			for p := filepath.Dir(v); p != "/" && p != "."; p = filepath.Dir(p) {
				if strings.HasPrefix(p, os.TempDir()+string(filepath.Separator)) {
					os.Chmod(p, 0o755)
				}
			}
		}
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("cannot run as nobody: %v", err)
		}
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("as nobody, the test did not run:\n%s", out)
	}
}
