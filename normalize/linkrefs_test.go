package normalize

import (
	"reflect"
	"sync"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// goldmarkParser is goldmark's parser with the extensions mdParser has and
// its default paragraph transformers: the oracle of TestLinkRefs and
// FuzzLinkRefs.
var goldmarkParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithParserOptions(footnoteOptions()...), goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
})

// linkRefCases hold link reference definitions, and paragraphs that start
// like one, where goldmark looks for them: at a paragraph's start, after
// spaces or a tab, in lists and block quotes, after a setext heading line,
// and in table cells.
var linkRefCases = []string{
	"[a]: /url\n\n[a]",
	"   [a]: /url 'title'\n[a] text",
	"\t[a]: /url\n",
	"    [a]: /url\n",
	"text\n[a]: /url\n\n[a]",
	"[a]: /url\n[b]: /other\ntext [a] [b]\n",
	"[a]\n\n[a]: /url",
	"[not a definition] text\n",
	"[a]:\n/url\n'title'\n\n[a]",
	"- [a]: /url\n- [a]\n",
	"> [a]: /url\n> [a]\n",
	"1.  [a]: /url\n\n    [a]",
	"-\t[a]: /url\n",
	"[a]: /url\n===\n",
	"| [a]: /url |\n|---|\n| x |\n",
	"[a]: <>\n[a]",
	"[\na\n]: /url\n[\na\n]",
	"\u00a0[a]: /url\n[a]",
	"\r\n[a]: /url\r\n[a]",
}

// TestLinkRefs checks that mdParser, which calls goldmark's link
// reference transformer only where a definition can start, normalizes as
// goldmark's default parser does: on the cases above, the fixtures, and
// the shared corpus when present.
func TestLinkRefs(t *testing.T) {
	for _, s := range linkRefCases {
		checkLinkRefs(t, []byte(s))
	}
	for _, f := range loadCorpus(t, "testdata", ".md") {
		checkLinkRefs(t, f.src)
	}
	if dir, ok := testenv.FindSharedData("markdown"); ok && !testing.Short() && !testenv.Race {
		for _, f := range loadCorpus(t, dir, ".md") {
			checkLinkRefs(t, f.src)
		}
	}
}

func checkLinkRefs(t *testing.T, src []byte) {
	t.Helper()
	got := normalizeMarkdownWith(mdParser(), src)
	want := normalizeMarkdownWith(goldmarkParser(), src)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %q %+v\nwant %q %+v", src[:min(len(src), 300)], got.Text, got.Headings, want.Text, want.Headings)
	}
}

// FuzzLinkRefs checks mdParser against goldmark's default parser on any
// input.
func FuzzLinkRefs(f *testing.F) {
	for _, s := range linkRefCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkLinkRefs(t, src)
	})
}
