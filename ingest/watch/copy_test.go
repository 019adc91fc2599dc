package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/provider"
)

// slowReader reads a made-up paged format (files starting "%PAGES\\n", a
// page a line), counting the documents it reads: it stands for a PDF
// reader that runs OCR, which a renamed file must not run again.
type slowReader struct{ reads *atomic.Int64 }

func (slowReader) Sniff(data []byte) (string, bool) {
	return "pages", bytes.HasPrefix(data, []byte("%PAGES\n"))
}

func (r slowReader) Read(_ context.Context, _ string, data []byte) (*normalize.Document, error) {
	r.reads.Add(1)
	var x normalize.Extracted
	for i, line := range strings.Split(strings.TrimPrefix(string(data), "%PAGES\n"), "\n") {
		x.Page(i + 1)
		x.Paragraph(line)
	}
	return x.Document(""), nil
}

// countingEmbedder is an embedder of models served by an OpenAI-compatible
// /v1/embeddings on loopback, counting the texts it embeds.
func countingEmbedder(t *testing.T, inputs *atomic.Int64) *embed.Embedder {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		inputs.Add(int64(len(req.Input)))
		data := []map[string]any{}
		for i, in := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{1, float32(len(in) % 7), float32(strings.Count(in, "e"))}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(srv.Close)
	e, err := embed.NewOpenAI("fake-embed", embed.Config{Provider: provider.Config{OpenAIBaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: &provider.Transport{MaxAttempts: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestWatchRenameCopies: a file or folder renamed in a watched folder (mv:
// the old path removed, the new one created, seen in either order) or
// copied is stored as a copy of the document it was: not read again (no
// OCR) nor embedded, whatever the order of its paths among the batch's
// (a rename among more changed paths than one indexing call takes, its old
// path in the first call, its new in a later one).
func TestWatchRenameCopies(t *testing.T) {
	paged := func(word string) string {
		return "%PAGES\n" + strings.Repeat(word+" on a scanned page. ", 40) + "\n" + strings.Repeat("another page of "+word+". ", 40)
	}
	for _, tc := range []struct {
		name   string
		before map[string]string // files, by path relative to the folder
		change func(p func(string) string)
		after  []string          // the documents then
		copied map[string]string // document -> the one copied
		other  int               // files of new content (read and embedded)
	}{
		{
			name:   "mv a.pdf b.pdf",
			before: map[string]string{"a.pdf": paged("alpha")},
			change: func(p func(string) string) { do(t, os.Rename(p("a.pdf"), p("b.pdf"))) },
			after:  []string{"b.pdf"},
			copied: map[string]string{"b.pdf": "a.pdf"},
		},
		{
			name:   "cp a.pdf c.pdf",
			before: map[string]string{"a.pdf": paged("alpha")},
			change: func(p func(string) string) {
				data, err := os.ReadFile(p("a.pdf"))
				do(t, err)
				write(t, p("c.pdf"), string(data))
			},
			after:  []string{"a.pdf", "c.pdf"},
			copied: map[string]string{"c.pdf": "a.pdf"},
		},
		{
			name:   "mv a folder",
			before: map[string]string{"sub/a.pdf": paged("alpha"), "sub/deep/b.pdf": paged("bravo"), "sub/c.md": "# Charlie\n\ncharlie text."},
			change: func(p func(string) string) { do(t, os.Rename(p("sub"), p("moved"))) },
			after:  []string{"moved/a.pdf", "moved/c.md", "moved/deep/b.pdf"},
			copied: map[string]string{"moved/a.pdf": "sub/a.pdf", "moved/deep/b.pdf": "sub/deep/b.pdf", "moved/c.md": "sub/c.md"},
		},
		{
			name:   "mv among many changes",
			before: map[string]string{"a.pdf": paged("alpha")},
			change: func(p func(string) string) {
				for i := range 2 * flushGroup {
					write(t, p(fmt.Sprintf("m%02d.md", i)), fmt.Sprintf("new file %d.\n", i))
				}
				do(t, os.Rename(p("a.pdf"), p("z.pdf")))
			},
			after: func() []string {
				out := []string{}
				for i := range 2 * flushGroup {
					out = append(out, fmt.Sprintf("m%02d.md", i))
				}
				return append(out, "z.pdf")
			}(),
			copied: map[string]string{"z.pdf": "a.pdf"},
			other:  2 * flushGroup,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := func(rel string) string { return filepath.Join(dir, rel) }
			for rel, text := range tc.before {
				write(t, p(rel), text)
			}
			var reads, inputs atomic.Int64
			var mu sync.Mutex
			from := map[string]string{} // copies made, by document
			iopts := ingest.Options{
				Prune: true, Workers: 2, Skip: Skip,
				Readers:  []ingest.Reader{slowReader{&reads}},
				Embedder: countingEmbedder(t, &inputs),
				OnEvent: func(e ingest.Event) {
					if e.From != "" {
						rel, _ := filepath.Rel(dir, e.Path)
						src, _ := filepath.Rel(dir, e.From)
						mu.Lock()
						from[filepath.ToSlash(rel)] = filepath.ToSlash(src)
						mu.Unlock()
					}
				},
			}
			f := startWith(t, dir, iopts, nil)
			if n := reads.Load(); n != int64(strings.Count(fmt.Sprint(tc.before), "%PAGES")) {
				t.Fatalf("first pass read %d documents", n)
			}
			reads.Store(0)
			embedded := inputs.Load()
			tc.change(p)
			eventually(t, fmt.Sprintf("documents %v", tc.after), func() bool { return slices.Equal(f.docs(t), tc.after) })
			f.stop()
			mu.Lock()
			defer mu.Unlock()
			for doc, src := range tc.copied {
				if from[doc] != src {
					t.Errorf("%s: copied from %q, want %q", doc, from[doc], src)
				}
			}
			if n := reads.Load(); n != 0 {
				t.Errorf("%d documents read again", n)
			}
			if n := inputs.Load() - embedded; tc.other == 0 && n != 0 || tc.other > 0 && n != int64(tc.other) {
				t.Errorf("%d chunks embedded, want %d (the new files')", n, tc.other)
			}
			if rep, err := f.store.Check(context.Background()); err != nil || !rep.OK() {
				t.Errorf("check: %+v, %v", rep.Problems, err)
			}
		})
	}
}

// recorder is an Indexer that records the paths of each call.
type recorder struct{ calls [][]string }

func (r *recorder) Index(_ context.Context, paths ...string) (ingest.Stats, error) {
	r.calls = append(r.calls, slices.Clone(paths))
	return ingest.Stats{}, nil
}

// TestFlushOrder: a batch indexes the paths that are there before those
// that are gone (a rename's new path copies the document of its old one
// before that is pruned, in one call or across calls), and a path gone
// only a moment ago, when MaxDelay cuts a batch, waits for the next one:
// its rename's new path is about to be reported.
func TestFlushOrder(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	for _, rel := range []string{"b.md", "d.pdf"} {
		write(t, p(rel), "there")
	}
	const quiet = time.Second
	now := time.Now()
	for _, tc := range []struct {
		name    string
		pending map[string]time.Duration // path -> how long ago it changed
		calls   [][]string
		left    []string
	}{
		{"gone last", map[string]time.Duration{"a.pdf": 2 * quiet, "b.md": 2 * quiet, "c.md": 2 * quiet, "d.pdf": 2 * quiet},
			[][]string{{"b.md", "d.pdf", "a.pdf", "c.md"}}, nil},
		{"gone just now waits", map[string]time.Duration{"a.pdf": 0, "b.md": 0, "c.md": 2 * quiet},
			[][]string{{"b.md", "c.md"}}, []string{"a.pdf"}},
		{"only gone just now", map[string]time.Duration{"a.pdf": quiet / 2},
			nil, []string{"a.pdf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			w := &Watcher{opts: Options{Indexer: rec, Quiet: quiet}, pending: map[string]time.Time{}, writing: map[string]writes{}}
			for rel, ago := range tc.pending {
				w.pending[p(rel)] = now.Add(-ago)
			}
			w.flush(t.Context())
			var calls [][]string
			for _, c := range rec.calls {
				var rels []string
				for _, q := range c {
					rels = append(rels, filepath.Base(q))
				}
				calls = append(calls, rels)
			}
			var left []string
			for q := range w.pending {
				left = append(left, filepath.Base(q))
			}
			slices.Sort(left)
			if !reflect.DeepEqual(calls, tc.calls) || !slices.Equal(left, tc.left) {
				t.Errorf("indexed %v, left %v; want %v, %v", calls, left, tc.calls, tc.left)
			}
		})
	}
}
