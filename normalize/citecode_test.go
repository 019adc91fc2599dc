package normalize_test

// A differential test of package citations against goldmark. It lives here
// because goldmark may only be imported by package normalize; the test
// package imports citations, which normalize itself must not.

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// citeRegistered is the index range registered in citeRegistry.
const citeRegistered = 9

var citeRegistry = sync.OnceValue(func() *citations.Invocation {
	inv := citations.NewInvocation()
	for i := 1; i <= citeRegistered; i++ {
		inv.Register(citations.Reference{Title: fmt.Sprintf("T%d", i), Type: citations.TypeUpload, ID: strconv.Itoa(i)})
	}
	return inv
})

// commonMark parses and renders plain CommonMark, as a chat client would.
var commonMark = goldmark.New()

// codeTexts returns the contents of the code spans and code blocks of src in
// order, as goldmark parses it, each with trailing white space trimmed.
func codeTexts(src []byte) []string {
	doc := commonMark.Parser().Parse(text.NewReader(src))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var b bytes.Buffer
		switch n.Kind() {
		case ast.KindCodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
		case ast.KindCodeBlock, ast.KindFencedCodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				b.Write(seg.Value(src))
			}
		default:
			return ast.WalkContinue, nil
		}
		out = append(out, strings.TrimRight(b.String(), " \t\r\n"))
		return ast.WalkSkipChildren, nil
	})
	return out
}

var (
	codeHTML = regexp.MustCompile(`(?s)<pre><code[^>]*>.*?</code></pre>|<code>.*?</code>`)
	// A marker as a reader sees it, after the look-alike forms are folded.
	leakedMarker = regexp.MustCompile(`(?i)[\[【]\s*doc\s*[:0-9]`)
	// A bracketed number a reader would take for a citation. cite leaves
	// one after a word character alone, and "words_[1]" may be the end of
	// emphasis ("</em>[1]" here) or an identifier.
	bareNumber = regexp.MustCompile(`(?:^|[^\w\]>]|[^m]>)([\[【]\d+(?:\s*[,;-]\s*\d+)*[\]】])`)
	zeroWidth  = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "")
)

// foldWide maps full-width ASCII forms to ASCII.
func foldWide(s string) string {
	return strings.Map(func(r rune) rune {
		if 0xff01 <= r && r <= 0xff5e {
			return r - 0xff01 + '!'
		}
		return r
	}, s)
}

// checkCitationCode renders src with package citations and checks the
// result against goldmark's CommonMark parse:
//
//   - cite leaves code alone: the code spans and blocks of the output are
//     those of the input (so cite never took code for text);
//   - no marker reaches the reader outside code (so cite never took text for
//     code), and every bracketed number outside code is a citation;
//   - the reference list is a top-level paragraph and list, not swallowed
//     by a code block, a block quote or a list item.
func checkCitationCode(t *testing.T, src string) {
	t.Helper()
	r := citations.Render(src, citeRegistry(), citations.Options{})
	out := r.Markdown()
	want, got := codeTexts([]byte(src)), codeTexts([]byte(out))
	if len(r.References) > 0 && len(got) == len(want) && len(want) > 0 {
		// The text before the list is trimmed at the end.
		want[len(want)-1] = strings.TrimRight(want[len(want)-1], " \t\r\n")
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("code changed\ninput  %q\noutput %q\ncode in  %q\ncode out %q", src, out, want, got)
	}
	var h bytes.Buffer
	if err := commonMark.Convert([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	prose := foldWide(zeroWidth.Replace(html.UnescapeString(codeHTML.ReplaceAllString(page, "\x00"))))
	if m := leakedMarker.FindString(prose); m != "" {
		t.Fatalf("marker %q outside code\ninput  %q\noutput %q\nhtml %s", m, src, out, page)
	}
	for _, m := range bareNumber.FindAllStringSubmatch(prose, -1) {
		n, err := strconv.Atoi(strings.Trim(m[1], "[]"))
		if err != nil || n < 1 || n > len(r.References) || m[1] != fmt.Sprintf("[%d]", n) {
			t.Fatalf("bracketed number %q outside code is not a citation\ninput  %q\noutput %q\nhtml %s", m[1], src, out, page)
		}
	}
	if len(r.References) > 0 {
		const list = "<p>Sources cited in this answer:</p>\n<ol>\n"
		k := strings.LastIndex(page, list)
		rest := page[k+len(list):]
		if k < 0 || strings.Count(rest, "<li>") != len(r.References) || strings.TrimSuffix(rest, "</ol>\n") == rest ||
			strings.Contains(rest, "</pre>") || strings.Contains(rest, "</blockquote>") || strings.Contains(rest, "</ul>") {
			t.Fatalf("reference list swallowed\ninput  %q\noutput %q\nhtml %s", src, out, page)
		}
	}
}

// citeCodeCases are inputs where cite's notion of code once disagreed with
// CommonMark.
var citeCodeCases = []string{
	"> ```\n> PRAGMA journal_mode=WAL;\nReaders do not block writers [doc:1].",
	"1. Enable WAL:\n   ```sql\n   PRAGMA journal_mode=WAL;\n```\n\nReaders do not block writers [doc:1].",
	"> Note:\n> ```\n> x\n```\nReaders do not block writers [doc:1].",
	"Run this\n    ```\nReaders do not block writers [doc:1].\n```",
	"  ```\ncode\n    ```\ntext [doc:1]",
	"-     code [doc:1]",
	"1.\n\n\tcode2 [doc:1]",
	">`\n=\n[doc7]`",
	"- a\n\n  ```\n  x [doc:1]\n\n  ```\n[doc:2]",
	"> a `b\n[doc:1]` c [doc:2]",
	"- [doc:1]\n\n  ~~~~\n  x",
	"[doc:1]\n> ```\n> x",
	"-\n  foo [doc:1]\n-\n\n  bar [doc:2]",
	"> - a\n>   ```\n> ```\n> [doc:1]\n",
	"- a\n - b\n  - c\n\n        code [doc:1]\n\n    [doc:2]",
	"1.  a\n\n    b [doc:1]\n\n        c [doc:2]",
	"* a\n*\n\n  [doc:1]",
	"a\n- \nb [doc:1]",
	"a\n2. b `c\n\n[doc:1]`",
	"\t- a\n\t\t```\n\t\t[doc:1]\n```\n[doc:2]",
	">\t```\n>\t[doc:1]\n>\t```\n>\t[doc:2]",
	"According to [5] and [1], WAL is good [doc:1]. See also^[7] and arr[2].",
	"a &#91;doc:2&#93; b [doc\\:3] ［doc:4］ [\u200bdoc:5]",
	// Found by FuzzCitationCode.
	"# ~~~[5][",
	"[doc:7]\n   ```\n````# \n   ```\n\n- \n   ```\n# # #",
	"_[5]_\n---\n",
	"]]_[5]_\n---\n",
	"[doc:```---```]",
	"````[doc:\\`]\n---\n",
}

func TestCitationCode(t *testing.T) {
	for _, src := range citeCodeCases {
		t.Run("", func(t *testing.T) { checkCitationCode(t, src) })
	}
}

// citeFragments are the pieces FuzzCitationCode builds Markdown from. It
// leaves out what cite does not model: HTML ("<"), link reference
// definitions and tables; and tabs, whose stops goldmark counts from the
// enclosing list item's content where CommonMark counts from the line start
// ("-\n  - \t[doc:7]" is indented code in the spec and commonmark.js, a
// paragraph in goldmark). TestCitationCode has tabs where they agree.
var citeFragments = []string{
	"[doc:7]", "[doc:1]", " [doc:2]", "[doc: 3]", "【doc:4】", "[doc:5][doc:6]", "[doc:99]", "[doc:", "[5]", "[1, 2]",
	"word", "more words", " ", "  ", "   ", "    ", "\n", "\n", "\n\n", "\n    ", "\n  ", "\n   ",
	"`", "``", "```", "~~~", "````", "\n```\n", "\n~~~\n", "\n```go\n", "\n   ```\n", "\n    ```\n",
	"- ", "-", "\n- ", "\n  - ", "\n1. ", "1.", "\n2) ", "\n10. ", "* ", "\n> ", "> ", ">", "\n>> ", "+ ",
	"# ", "\n## ", "\n---\n", "---", "=", "\n===\n", "***",
	"\\", "\\`", "[", "]", "[link](http://x)", "*", "_", "&#96;", "&#91;", "\r\n",
}

// emptyItem matches a line that starts an empty list item, such as "-" or
// "- -". goldmark parts from CommonMark (the spec and commonmark.js, which
// cite follows) on what comes after one: in "- -\n\n    x" it closes both
// items and takes x for indented code, where the outer item's content
// "-\n\n  x" holds a paragraph; in "- \n  - ---\n    x" it ends the empty
// item at the thematic break, which is indented enough to belong to it.
// TestCitationCode has empty items where the two agree.
var emptyItem = regexp.MustCompile(`(?m)^[ >]*(?:(?:[-+*]|\d+[.)]) +)*(?:[-+*]|\d+[.)]) *\r?$`)

// FuzzCitationCode checks [checkCitationCode] on Markdown built from
// fragments, one per byte of the input.
func FuzzCitationCode(f *testing.F) {
	for _, s := range []string{"\x00\x0b\x15\x17\x0b\x18", "\x2c\x0a\x18\x30\x0b\x17\x20\x00", "\x31\x1a\x00\x1b\x12\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			return
		}
		var b strings.Builder
		for _, c := range data {
			b.WriteString(citeFragments[int(c)%len(citeFragments)])
		}
		if emptyItem.MatchString(b.String()) {
			return
		}
		checkCitationCode(t, b.String())
	})
}
