package normalize

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// addSeeds adds the fixtures with the given extensions and, when the shared
// corpus is present, the first 8 KB of a few of its files.
func addSeeds(f *testing.F, exts []string, corpus string, corpusExt string) {
	for _, ext := range exts {
		names, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
		for _, n := range names {
			src, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	if corpus == "" {
		return
	}
	dir, ok := testenv.FindSharedData(corpus)
	if !ok {
		return
	}
	var picked int
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != corpusExt || picked >= 12 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		picked++
		f.Add(src[:min(len(src), 8<<10)])
		return nil
	})
}

func fuzzFormat(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Normalize(format, src)
		if err := checkDocument(src, d); err != nil {
			t.Fatalf("%v\nsource: %q\ntext: %q", err, src, d.Text)
		}
	})
}

// FuzzHTML checks the invariants of the package documentation on any input
// read as HTML.
func FuzzHTML(f *testing.F) {
	addSeeds(f, []string{".html"}, "html", ".html")
	for _, s := range []string{"<pre>\n\n a", "<li><li>", "a&amp", "<td>|<td>", "<meta charset=gb2312>\xff\xfe", "\xfe\xff\x00<\x00b\x00>"} {
		f.Add([]byte(s))
	}
	fuzzFormat(f, HTML)
}

// FuzzMarkdown checks the invariants on any input read as Markdown.
func FuzzMarkdown(f *testing.F) {
	addSeeds(f, []string{".md"}, "markdown", ".md")
	for _, s := range []string{"---\ntitle: x\n---\n", "- a\n  - b\n", "<div>\n\n*a*\n\n</div>", "| a |\n|---|\n| `b\\|c` |", "a<br>b", "1. x\n   1. y", "\xff\xfe#\x00 \x00a\x00\n\x00", "\xfe\xff\x00*\x00b\x00*\xd8\x00"} {
		f.Add([]byte(s))
	}
	fuzzFormat(f, Markdown)
}

// FuzzPlainText checks the invariants on any input read as plain text.
func FuzzPlainText(f *testing.F) {
	addSeeds(f, []string{".txt", ".md"}, "", "")
	for _, s := range []string{"a \r\n\r\n\r\n b", "\xef\xbb\xbf\xff", "\u2028\u00a0x", "\xff\xfeh\x00i\x00\r\x00\n\x00\x00\xd8", "\xfe\xff\x4e\x2d\x00 "} {
		f.Add([]byte(s))
	}
	fuzzFormat(f, PlainText)
}
