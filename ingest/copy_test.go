package ingest

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/provider"
)

// copyFiles are the files TestCopySameContent starts from: a paged
// document (read by a reader), Markdown with a heading for its title, and
// text whose title is its file name.
func copyFiles() fstest.MapFS {
	return fstest.MapFS{
		"d/report.pdf": file("%PAGES\nfirst page about zebras\n" + strings.Repeat("zebra stripes and savanna grass. ", 150) + "\nlast page about yaks"),
		"d/alpha.md":   file("# Alpha\n\n" + paragraphs(12, nil)),
		"d/untitled.txt": file("no title here, as this first paragraph runs on\nover two lines.\n\n" +
			strings.Repeat("plain text about honeybees and their dances. ", 60)),
		"e/other.md": file("# Other\n\nA file nothing copies."),
	}
}

// rename moves the file at from to to, as mv does: same bytes, same times.
func rename(fsys fstest.MapFS, from, to string) {
	fsys[to] = fsys[from]
	delete(fsys, from)
}

// TestCopySameContent: a file renamed, moved or copied, with the same
// bytes as a document indexed with the same settings, is stored as a copy
// of that document (chunks, layout, vectors) without being read by its
// reader or embedded again; the index is then what a fresh index of the
// files would be (documents, chunks, vectors, full-text scores), apart
// from what only the paths give. What changes how a file is cut (its
// format by name, the chunk size) or embedded, and --force, copies nothing.
func TestCopySameContent(t *testing.T) {
	small, err := chunk.New(chunk.Options{Size: 100, Overlap: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		change  func(fsys fstest.MapFS)
		second  func(o *Options)  // the second run's options, from the first's
		reset   bool              // the index changes embedder between the runs (cite reindex)
		version string            // the reader's version in the second run (another OCR mode), if it changes
		paths   []string          // the second run's paths
		copied  map[string]string // path -> copied from, in the second run
		reads   int64             // documents the reader reads in the second run
		titles  map[string]string
	}{
		{
			name: "rename",
			change: func(f fstest.MapFS) {
				rename(f, "d/report.pdf", "d/renamed.pdf")
				rename(f, "d/untitled.txt", "d/new name.txt")
			},
			paths:  []string{"d"},
			copied: map[string]string{"d/renamed.pdf": "d/report.pdf", "d/new name.txt": "d/untitled.txt"},
			titles: map[string]string{"d/new name.txt": "new name.txt", "d/alpha.md": "Alpha"},
		},
		{
			name: "copy",
			change: func(f fstest.MapFS) {
				f["e/report copy.pdf"] = f["d/report.pdf"]
				f["e/alpha.markdown"] = f["d/alpha.md"] // .markdown is read as .md is
			},
			paths:  []string{"."},
			copied: map[string]string{"e/report copy.pdf": "d/report.pdf", "e/alpha.markdown": "d/alpha.md"},
			titles: map[string]string{"e/alpha.markdown": "Alpha", "d/untitled.txt": "untitled.txt"},
		},
		{
			name: "move a folder",
			change: func(f fstest.MapFS) {
				for _, n := range []string{"report.pdf", "alpha.md", "untitled.txt"} {
					rename(f, "d/"+n, "moved/deeper/"+n)
				}
			},
			paths:  []string{"."},
			copied: map[string]string{"moved/deeper/report.pdf": "d/report.pdf", "moved/deeper/alpha.md": "d/alpha.md", "moved/deeper/untitled.txt": "d/untitled.txt"},
			titles: map[string]string{"moved/deeper/untitled.txt": "untitled.txt"},
		},
		{
			name:   "over a changed file",
			change: func(f fstest.MapFS) { f["e/other.md"] = f["d/alpha.md"] },
			paths:  []string{"e"},
			copied: map[string]string{"e/other.md": "d/alpha.md"},
			titles: map[string]string{"e/other.md": "Alpha"},
		},
		{
			name:   "another source",
			change: func(fstest.MapFS) {},
			second: func(o *Options) { o.Source = "other" },
			paths:  []string{"d/report.pdf"},
			copied: map[string]string{"d/report.pdf": "d/report.pdf"},
		},
		{
			name:   "another format by name",
			change: func(f fstest.MapFS) { f["d/alpha.txt"] = f["d/alpha.md"] },
			paths:  []string{"d"},
			copied: map[string]string{"d/alpha.txt": ""},
		},
		{
			name:   "another chunk size",
			change: func(f fstest.MapFS) { f["e/report copy.pdf"] = f["d/report.pdf"] },
			second: func(o *Options) { o.Splitter = small },
			paths:  []string{"."},
			copied: map[string]string{"e/report copy.pdf": "", "d/report.pdf": ""},
			reads:  2,
		},
		{
			name:    "another OCR mode",
			change:  func(f fstest.MapFS) { f["e/report copy.pdf"] = f["d/report.pdf"] },
			version: "ocr=always",
			paths:   []string{"."},
			copied:  map[string]string{"e/report copy.pdf": "", "d/report.pdf": ""},
			reads:   2,
		},
		{
			name:   "force",
			change: func(f fstest.MapFS) { f["e/report copy.pdf"] = f["d/report.pdf"] },
			second: func(o *Options) { o.Force = true },
			paths:  []string{"e"},
			copied: map[string]string{"e/report copy.pdf": ""},
			reads:  1,
		},
		{
			name:   "another embedder",
			change: func(f fstest.MapFS) { rename(f, "d/report.pdf", "d/renamed.pdf") },
			reset:  true,
			paths:  []string{"d"},
			copied: map[string]string{"d/renamed.pdf": "d/report.pdf"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newEmbedServer(t)
			var sniffs, reads atomic.Int64
			version := "ocr=auto"
			opts := Options{Embedder: srv.embedder(t), Readers: []Reader{countingReader{version: &version, sniffs: &sniffs, reads: &reads}}, Prune: true}
			st := newStore(t)
			fsys := copyFiles()
			if _, _, err := run(t, st, fsys, opts, "."); err != nil {
				t.Fatal(err)
			}
			if reads.Load() != 1 {
				t.Fatalf("first run: %d documents read", reads.Load())
			}
			second := opts
			if tc.second != nil {
				tc.second(&second)
			}
			if tc.version != "" {
				version = tc.version // the same Reader as the first run's
			}
			if tc.reset {
				other := newEmbedServer(t)
				second.Embedder = other.embedder(t)
				// What cite reindex does first; its vectors are made
				// by the next run (FillVectors) or, here, by the copy.
				if err := st.ResetVectors(t.Context(), second.Embedder); err != nil {
					t.Fatal(err)
				}
				srv = other
			}
			tc.change(fsys)
			reads.Store(0)
			before := srv.inputs.Load()
			stats, events, err := run(t, st, fsys, second, tc.paths...)
			if err != nil {
				t.Fatal(err)
			}
			copies, copiedVectors := 0, 0
			for p, from := range tc.copied {
				e, ok := events[p]
				if !ok || (e.Outcome != Added && e.Outcome != Updated) || e.From != from {
					t.Errorf("%s: %v from %q, want added or updated from %q", p, e.Outcome, e.From, from)
				}
				if from != "" {
					copies++
					copiedVectors += e.Chunks
				}
			}
			if tc.reset {
				copiedVectors = 0 // the other embedder's vectors are not copied
			}
			if stats.Copied != copies || stats.CopiedVectors != copiedVectors {
				t.Errorf("stats: %d copied with %d vectors, want %d with %d", stats.Copied, stats.CopiedVectors, copies, copiedVectors)
			}
			if n := reads.Load(); n != tc.reads {
				t.Errorf("the reader read %d documents, want %d", n, tc.reads)
			}
			// Nothing embedded for a copy: only the chunks of files read
			// again, and after a change of embedder those of the copies
			// too (the files left as they were get theirs from
			// FillVectors).
			allCopies := true
			for _, e := range events {
				if (e.Outcome == Added || e.Outcome == Updated) && e.From == "" {
					allCopies = false
				}
			}
			switch got := srv.inputs.Load() - before; {
			case tc.reset && got < int64(stats.Chunks):
				t.Errorf("%d chunks embedded, want the %d of the copies at least", got, stats.Chunks)
			case !tc.reset && allCopies && (got != 0 || stats.Vectors != 0 || stats.CopiedVectors != stats.Chunks):
				t.Errorf("%d chunks embedded (%d said), %d vectors copied, for copies of %d chunks", got, stats.Vectors, stats.CopiedVectors, stats.Chunks)
			case !allCopies && got == 0:
				t.Errorf("nothing embedded for the files read again")
			}
			checkIndex(t, st)
			docs, err := st.Documents(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			for p, title := range tc.titles {
				i := slices.IndexFunc(docs, func(d index.Document) bool { return d.Path == p })
				if i < 0 || docs[i].Title != title {
					t.Errorf("%s: title %q, want %q", p, docs[i].Title, title)
				}
			}

			// A fresh index of the files, as the second run left them,
			// with the second run's settings.
			fresh := newStore(t)
			fopts := second
			fopts.Force = false
			if second.Source != opts.Source {
				// The first run's source, as indexed then.
				if _, _, err := run(t, fresh, copyFiles(), opts, "."); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := run(t, fresh, fsys, fopts, "."); err != nil {
				t.Fatal(err)
			}
			if tc.name == "rename" || tc.name == "another embedder" || tc.name == "move a folder" {
				// The second run's paths cover every file: the index
				// holds the files and only them.
				compareIndexes(t, st, fresh)
			} else {
				compareDocuments(t, st, fresh, slices.Collect(maps.Keys(tc.copied)))
			}
		})
	}
}

// docDigest is what a document's copy must have as a fresh index of its
// file does: everything but its id and when it was indexed.
type docDigest struct {
	Doc     index.Document
	Layout  index.Layout
	Chunks  []index.Chunk
	Vectors map[int][]float32 // by ordinal
}

func digest(t *testing.T, st *index.Store) map[string]docDigest {
	t.Helper()
	ctx := t.Context()
	vecs := map[string][]float32{}
	if err := st.Vectors(ctx, func(id string, v []float32) error { vecs[id] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	docs, err := st.Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]docDigest{}
	for _, d := range docs {
		l, err := st.Layout(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		g := docDigest{Layout: l, Chunks: cs, Vectors: map[int][]float32{}}
		for _, c := range cs {
			if v, ok := vecs[c.ID]; ok {
				g.Vectors[c.Ordinal] = v
			}
		}
		d.IndexedAt = t0
		g.Doc = d
		out[d.Source+":"+d.Path] = g
	}
	return out
}

// compareDocuments fails the test unless the documents of paths (in the
// default source, or any) are the same in both indexes.
func compareDocuments(t *testing.T, got, want *index.Store, paths []string) {
	t.Helper()
	g, w := digest(t, got), digest(t, want)
	for k, wd := range w {
		if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasSuffix(k, ":"+p) }) {
			continue
		}
		if gd, ok := g[k]; !ok {
			t.Errorf("%s: not indexed", k)
		} else if !reflect.DeepEqual(gd, wd) {
			t.Errorf("%s: differs from a fresh index:\n got %+v\nwant %+v", k, gd.Doc, wd.Doc)
		}
	}
}

// compareIndexes fails the test unless both indexes hold the same
// documents, chunks and vectors, and full-text and vector searches score
// the same chunks the same.
func compareIndexes(t *testing.T, got, want *index.Store) {
	t.Helper()
	g, w := digest(t, got), digest(t, want)
	if !reflect.DeepEqual(slices.Sorted(maps.Keys(g)), slices.Sorted(maps.Keys(w))) {
		t.Fatalf("documents %v, a fresh index has %v", slices.Sorted(maps.Keys(g)), slices.Sorted(maps.Keys(w)))
	}
	compareDocuments(t, got, want, slices.Collect(maps.Keys(w)))
	for _, q := range []string{"zebra stripes", "honeybees dances", "paragraph words ordinary", "yaks", "alpha other"} {
		if gs, ws := textHits(t, got, q), textHits(t, want, q); !reflect.DeepEqual(gs, ws) {
			t.Errorf("search %q:\n got %v\nwant %v", q, gs, ws)
		}
	}
}

// textHits returns the full-text hits of q, as path, ordinal and score.
func textHits(t *testing.T, st *index.Store, q string) []string {
	t.Helper()
	hits, err := st.SearchText(t.Context(), q, index.Filter{}, 20)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.Chunk)
	}
	recs, err := st.ChunksByRowid(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		r := recs[h.Chunk]
		out = append(out, fmt.Sprintf("%s#%d %.9f", r.Document.Path, r.Ordinal, h.Score))
	}
	return out
}

// TestCopyKeepsToItsEmbedder: vectors stored by one embedder never go
// with a copy made for another, even if the indexer's embedder is not the
// index's (a reindex between the run's start and the copy): the copy's
// chunks are embedded by its own.
func TestCopyKeepsToItsEmbedder(t *testing.T) {
	a, b := newEmbedServer(t), newEmbedServer(t)
	st := newStore(t)
	fsys := copyFiles()
	if _, _, err := run(t, st, fsys, Options{Embedder: a.embedder(t)}, "."); err != nil {
		t.Fatal(err)
	}
	rename(fsys, "d/alpha.md", "d/beta.md")
	ix, err := New(t.Context(), st, Options{FS: fsys, Embedder: a.embedder(t)})
	if err != nil {
		t.Fatal(err)
	}
	other, err := embed.NewOpenAI("another-model", embed.Config{Provider: provider.Config{OpenAIBaseURL: b.srv.URL + "/v1", HTTPClient: &http.Client{Transport: &provider.Transport{MaxAttempts: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	ix.opts.Embedder = other
	var ev Event
	ix.opts.OnEvent = func(e Event) {
		if e.Path == "d/beta.md" {
			ev = e
		}
	}
	stats, _ := ix.Index(t.Context(), "d/beta.md") // its end (FillVectors) refuses the other embedder
	if ev.From != "d/alpha.md" || stats.CopiedVectors != 0 || b.inputs.Load() < int64(ev.Chunks) || ev.Chunks == 0 {
		t.Errorf("copied from %q with %d vectors; the other embedder embedded %d of its %d chunks", ev.From, stats.CopiedVectors, b.inputs.Load(), ev.Chunks)
	}
}
