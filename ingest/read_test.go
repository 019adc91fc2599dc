package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/normalize"
)

// changingFS holds one file, "f.txt", that a writer rewrites in the middle
// of reads: after the first Read of each of the first `rewrites` opens, the
// file becomes the next version. Reads return at most 8 bytes, so a read
// that goes on after the rewrite mixes two versions.
type changingFS struct {
	mu       sync.Mutex
	versions []string
	cur      int
	mod      time.Time
	keepMod  bool // rewrite without changing the modification time (coarse timestamps)
	rewrites int  // opens during which the file is rewritten; -1 for every one
	opens    int
}

func (c *changingFS) Open(name string) (fs.File, error) {
	if name != "f.txt" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens++
	return &changingFile{fs: c, rewrite: c.rewrites < 0 || c.opens <= c.rewrites}, nil
}

func (c *changingFS) Stat(name string) (fs.FileInfo, error) {
	f, err := c.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.opens-- // a stat is not a read
	c.mu.Unlock()
	return f.Stat()
}

// rewrite makes the file its next version, as a writer would.
func (c *changingFS) rewrite() {
	c.cur = (c.cur + 1) % len(c.versions)
	if !c.keepMod {
		c.mod = c.mod.Add(time.Second)
	}
}

type changingFile struct {
	fs      *changingFS
	off     int
	rewrite bool
}

func (f *changingFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return fileInfo{"f.txt", int64(len(f.fs.versions[f.fs.cur])), f.fs.mod}, nil
}

func (f *changingFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	data := f.fs.versions[f.fs.cur]
	if f.off >= len(data) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 8)], data[f.off:])
	f.off += n
	if f.rewrite {
		f.rewrite = false
		f.fs.rewrite()
	}
	return n, nil
}

func (f *changingFile) Close() error { return nil }

type fileInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o644 }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

// TestTornRead: a file rewritten while it is read is never stored as a mix
// of two versions; it is read again, and skipped if it keeps changing.
func TestTornRead(t *testing.T) {
	readRetryDelay = 0
	defer func() { readRetryDelay = 50 * time.Millisecond }()
	v1 := strings.Repeat("Version one of the file. ", 8)
	v2 := strings.Repeat("Second take on the text. ", 8) // same length
	if len(v1) != len(v2) {
		t.Fatal("versions differ in length")
	}
	for _, tc := range []struct {
		name     string
		recent   bool // modification time now, not long ago
		keepMod  bool
		rewrites int
		prev     bool // a version is indexed already
		want     Outcome
		text     string // stored text, for Added and Updated
		reason   string
	}{
		{name: "rewritten once", rewrites: 1, want: Added, text: v2},
		{name: "rewritten once, same size and mtime", recent: true, keepMod: true, rewrites: 1, want: Added, text: v2},
		{name: "keeps changing", rewrites: -1, want: Skipped, reason: "changed while being read (3 attempts)"},
		{name: "keeps changing, same size and mtime", recent: true, keepMod: true, rewrites: -1, want: Skipped, reason: "changed while being read"},
		{name: "keeps changing, indexed before", rewrites: -1, prev: true, want: Skipped, reason: "the version indexed before is kept"},
		{name: "quiet", want: Added, text: v1},
		{name: "quiet, recent", recent: true, want: Added, text: v1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			mod := t0
			if tc.recent {
				mod = time.Now()
			}
			if tc.prev {
				quiet := &changingFS{versions: []string{"An older version of it."}, mod: t0.Add(-time.Hour)}
				if s, _, err := run(t, st, quiet, Options{}, "f.txt"); err != nil || s.Added != 1 {
					t.Fatalf("first run: %+v, %v", s, err)
				}
			}
			fsys := &changingFS{versions: []string{v1, v2}, mod: mod, keepMod: tc.keepMod, rewrites: tc.rewrites}
			s, events, err := run(t, st, fsys, Options{}, "f.txt")
			if err != nil {
				t.Fatalf("err = %v (a changing file is skipped, not failed)", err)
			}
			e := events["f.txt"]
			want := tc.want
			if tc.prev && want == Added {
				want = Updated
			}
			if e.Outcome != want || !strings.Contains(e.Reason, tc.reason) {
				t.Fatalf("%v %q, want %v %q (stats %+v)", e.Outcome, e.Reason, want, tc.reason, s)
			}
			d, err := st.Document(t.Context(), "", "f.txt")
			switch {
			case tc.prev:
				cs, _ := st.Chunks(t.Context(), d.ID)
				if err != nil || len(cs) != 1 || !strings.Contains(cs[0].Text, "older version") {
					t.Fatalf("old version not kept: %v, %+v", err, cs)
				}
			case want == Skipped:
				if err == nil {
					t.Fatalf("stored %+v", d)
				}
			default:
				cs, _ := st.Chunks(t.Context(), d.ID)
				if err != nil || index.Text(cs) != strings.TrimSpace(tc.text) {
					t.Fatalf("stored %q, %v; want %q", index.Text(cs), err, tc.text)
				}
				if !d.ModTime.Equal(fsys.mod) {
					t.Errorf("stored mtime %v, want the version's %v", d.ModTime, fsys.mod)
				}
			}
			checkIndex(t, st)
		})
	}
}

// rewriteFS is the operating system's file system, with a real rewrite of
// the file on disk in the middle of the first read of it.
type rewriteFS struct {
	osFS
	path, data string
	once       sync.Once
	t          *testing.T
}

func (r *rewriteFS) Open(name string) (fs.File, error) {
	f, err := r.osFS.Open(name)
	if err != nil || "/"+name != r.path {
		return f, err
	}
	return &rewriteFile{f, r}, nil
}

type rewriteFile struct {
	fs.File
	r *rewriteFS
}

func (f *rewriteFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p[:min(len(p), 16)])
	f.r.once.Do(func() {
		if err := os.WriteFile(f.r.path, []byte(f.r.data), 0o644); err != nil {
			f.r.t.Error(err)
		}
	})
	return n, err
}

// TestTornReadOS rewrites a real file, in place, after the first 16 bytes
// of its first read: what is stored is the new version whole.
func TestTornReadOS(t *testing.T) {
	readRetryDelay = 0
	defer func() { readRetryDelay = 50 * time.Millisecond }()
	p := filepath.Join(t.TempDir(), "f.txt")
	v1 := strings.Repeat("Version one of the file. ", 40)
	v2 := strings.Repeat("Second take on the text. ", 40)
	if err := os.WriteFile(p, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	s, _, err := run(t, st, &rewriteFS{path: p, data: v2, t: t}, Options{}, strings.TrimPrefix(p, "/"))
	if err != nil || s.Added != 1 {
		t.Fatalf("%+v, %v", s, err)
	}
	d, err := st.Document(t.Context(), "", strings.TrimPrefix(p, "/"))
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := st.Chunks(t.Context(), d.ID)
	if got := index.Text(cs); got != strings.TrimSpace(v2) {
		t.Fatalf("stored %q..., want the second version whole", got[:60])
	}
}

// TestReadBuffer: a worker reads each file into the memory of the last
// one, each read giving that file's bytes, except after a file larger than
// keptRead or bytes lent to a reader, which stay as they were.
func TestReadBuffer(t *testing.T) {
	sized := func(n int, c byte) string { return strings.Repeat(string(c), n) }
	fsys := fstest.MapFS{}
	steps := []struct {
		name  string
		data  string
		lend  bool // hand the bytes to what keeps them
		reuse bool // read into the last file's memory
	}{
		{"a", sized(3000, 'a'), false, false},
		{"b", sized(2000, 'b'), false, true},
		{"empty", "", false, true},
		{"c", sized(3500, 'c'), false, true},
		{"lent", sized(1000, 'l'), true, true},
		{"after-lent", sized(1000, 'm'), false, false},
		{"large", sized(keptRead+1, 'x'), false, false},
		{"after-large", sized(100, 'y'), false, false},
		{"last", sized(50, 'z'), false, true},
	}
	for _, s := range steps {
		fsys[s.name] = file(s.data)
	}
	var rb readBuffer
	var last, lent []byte
	for _, s := range steps {
		buf := rb.next()
		data, _, err := readStable(t.Context(), fsys, s.name, DefaultMaxSize, buf)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != s.data {
			t.Fatalf("%s: read %d bytes %.10q..., want %d bytes %.10q...", s.name, len(data), data, len(s.data), s.data)
		}
		if same := last != nil && cap(data) > 0 && &data[:1][0] == &last[:1][0]; same != s.reuse {
			t.Errorf("%s: read into the last file's memory: %v, want %v", s.name, same, s.reuse)
		}
		if lent != nil && string(lent) != sized(1000, 'l') {
			t.Fatalf("%s: the bytes lent were overwritten", s.name)
		}
		last = buf.Bytes()[:0]
		if s.lend {
			rb.lent, lent = true, data
		}
	}
}

// keepingReader keeps the bytes of each file it reads, as a reader that
// goes on reading past its time may.
type keepingReader struct {
	mu   sync.Mutex
	kept map[string][]byte
}

func (r *keepingReader) Sniff(data []byte) (string, bool) {
	return "kept", bytes.HasPrefix(data, []byte("%KEEP "))
}

func (r *keepingReader) Read(_ context.Context, _ string, data []byte) (*normalize.Document, error) {
	name, _, _ := bytes.Cut(data, []byte("\n"))
	r.mu.Lock()
	r.kept[string(name)] = data
	r.mu.Unlock()
	var x normalize.Extracted
	x.Page(1)
	x.Paragraph(string(data))
	return x.Document(""), nil
}

// TestReaderKeepsBytes: the bytes of a file handed to a Reader are not
// overwritten by the files read after it.
func TestReaderKeepsBytes(t *testing.T) {
	fsys := fstest.MapFS{}
	want := map[string]string{}
	for i := range 20 {
		name := fmt.Sprintf("%%KEEP %02d", i)
		data := name + "\n" + strings.Repeat(fmt.Sprintf("kept text %02d ", i), 50)
		fsys[fmt.Sprintf("d/doc%02d", i)] = file(data)
		want[name] = data
		// Markdown between them, read into the same worker's memory.
		fsys[fmt.Sprintf("d/doc%02d.md", i)] = file(strings.Repeat(fmt.Sprintf("markdown %02d ", i), 60))
	}
	r := &keepingReader{kept: map[string][]byte{}}
	s, _, err := run(t, newStore(t), fsys, Options{Workers: 1, Readers: []Reader{r}}, "d")
	if err != nil || s.Added != 40 {
		t.Fatalf("%+v, %v", s, err)
	}
	if len(r.kept) != len(want) {
		t.Fatalf("read %d files, want %d", len(r.kept), len(want))
	}
	for name, data := range r.kept {
		if string(data) != want[name] {
			t.Errorf("%s: kept bytes became %.40q...", name, data)
		}
	}
}
