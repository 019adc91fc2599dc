package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/normalize"
)

func corpusFiles(tb testing.TB, sub, ext string) []string {
	tb.Helper()
	dir := testenv.SharedData(tb, sub)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// TestCorpusChunks normalizes and chunks every file of the shared Markdown
// and HTML corpora, as cite index does, and checks every chunk: valid
// UTF-8, within 500 tokens counted on its own, not redundant, and together
// covering every byte of the normalized text; and every source span inside
// the file.
func TestCorpusChunks(t *testing.T) {
	md := corpusFiles(t, "markdown", ".md")
	html := corpusFiles(t, "html", ".html")
	if testing.Short() || testenv.Race {
		md, html = md[:len(md)/20], html[:len(html)/10]
	}
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files, chunks, tokens, bytes int
	for _, list := range [][]string{md, html} {
		for _, f := range list {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			format, why := detect(f, src)
			if why != "" {
				t.Errorf("%s: skipped: %s", f, why)
				continue
			}
			nd := normalize.Normalize(format, src)
			cs, n := sp.Split(nd.Text, headingsOf(nd))
			if err := sp.Verify(nd.Text, cs); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			for _, c := range cs {
				if !utf8.ValidString(c.Text) {
					t.Errorf("%s chunk %d: invalid UTF-8", f, c.Ordinal)
				}
				if s, e := nd.SourceSpan(c.Start, c.End); s < 0 || e > len(src) || s > e {
					t.Errorf("%s chunk %d: source span [%d,%d) outside %d bytes", f, c.Ordinal, s, e, len(src))
				}
			}
			files++
			chunks += len(cs)
			tokens += n
			bytes += len(src)
		}
	}
	t.Logf("%d files, %.1f MB, %d tokens, %d chunks: 0 invalid UTF-8, 0 over %d tokens, 0 redundant, all bytes covered", files, float64(bytes)/1e6, tokens, chunks, sp.Size())
}

func headingsOf(nd *normalize.Document) []chunk.Heading {
	hs := make([]chunk.Heading, len(nd.Headings))
	for i, h := range nd.Headings {
		hs[i] = chunk.Heading{Offset: h.Offset, Level: h.Level, Text: h.Text}
	}
	return hs
}
