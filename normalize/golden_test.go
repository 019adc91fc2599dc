package normalize

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// formatOf returns the format of a fixture from its extension.
func formatOf(name string) Format {
	switch filepath.Ext(name) {
	case ".html":
		return HTML
	case ".md":
		return Markdown
	}
	return PlainText
}

// fixtures returns the hand-written fixtures in testdata.
func fixtures(t testing.TB) []string {
	t.Helper()
	var names []string
	for _, pat := range []string{"*.html", "*.md", "*.txt"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) == 0 {
		t.Fatal("no fixtures in testdata")
	}
	return names
}

// render shows a Document for a golden file: the title, each heading with
// the source bytes its span maps back to, and the text.
func render(src []byte, d *Document) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "title: %q\n", d.Title)
	fmt.Fprintf(&buf, "headings:\n")
	for _, h := range d.Headings {
		s, e := d.SourceSpan(h.Offset, h.End)
		fmt.Fprintf(&buf, "  h%d @%d %q <- src[%d:%d] %q\n", h.Level, h.Offset, h.Text, s, e, src[s:e])
	}
	fmt.Fprintf(&buf, "text:\n%s\n", d.Text)
	return buf.Bytes()
}

// TestGolden normalizes every fixture in testdata and compares the result
// with its .golden file; a page named *_whole.html is read whole
// (Options.KeepBoilerplate). Run `go test ./normalize -update` to rewrite
// them, then review the diff.
//
// html_page_pandoc.html was made by pandoc 2.17 (`pandoc -s --toc`) from
// a Markdown file with a title block (title, author, date) and two
// sections; the other pages are written by hand.
func TestGolden(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			d := NormalizeWith(formatOf(name), src, Options{KeepBoilerplate: strings.HasSuffix(name, "_whole.html")})
			if err := checkDocument(src, d); err != nil {
				t.Errorf("invariant: %v", err)
			}
			got := render(src, d)
			golden := strings.TrimSuffix(name, filepath.Ext(name)) + filepath.Ext(name) + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, golden, got, want)
			}
		})
	}
}
