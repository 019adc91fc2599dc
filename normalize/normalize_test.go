package normalize

import (
	"encoding/binary"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestFormatString(t *testing.T) {
	for f, want := range map[Format]string{PlainText: "text", Markdown: "markdown", HTML: "html", Format(9): "Format(9)"} {
		if got := f.String(); got != want {
			t.Errorf("Format(%d).String() = %q, want %q", int(f), got, want)
		}
	}
}

// TestText checks single rules on small inputs, one format at a time.
func TestText(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		src    string
		want   string
	}{
		{"text: runs collapse", PlainText, "a \t\f\v b", "a b"},
		{"text: lines trimmed", PlainText, "  a  \n  b  ", "a\nb"},
		{"text: blank lines capped", PlainText, "a\n\n\n\n\nb", "a\n\nb"},
		{"text: blank lines with blanks", PlainText, "a\n \n\t\n \nb", "a\n\nb"},
		{"text: CRLF and lone CR", PlainText, "a\r\nb\rc", "a\nb\nc"},
		{"text: BOM dropped", PlainText, "\uFEFFa", "a"},
		{"text: BOM inside kept", PlainText, "a\uFEFFb", "a\uFEFFb"},
		{"text: invalid run is one U+FFFD", PlainText, "a\xff\xfe\xfdb", "a\uFFFDb"},
		{"text: NUL", PlainText, "a\x00b", "a\uFFFDb"},
		{"text: Unicode spaces", PlainText, "a\u00a0\u2003\u3000b", "a b"},
		{"text: line separators", PlainText, "a\u2028b\u2029c\u0085d", "a\nb\nc\nd"},
		{"text: only whitespace", PlainText, " \n\t\r\n ", ""},
		{"text: empty", PlainText, "", ""},

		// Footnote references (DPUB-ARIA role doc-noteref, EPUB's
		// epub:type, O'Reilly's data-type) read "[n]", not a digit run
		// into the word or number before them; back links are not text.
		{"html: noteref role", HTML, `dawn.<a href="#fn1" class="footnote-ref" role="doc-noteref"><sup>1</sup></a> The`, "dawn.[1] The"},
		{"html: noteref epub:type", HTML, `harbour<a href="#fn2" epub:type="noteref">2</a> and`, "harbour[2] and"},
		{"html: noteref data-type", HTML, `5 seconds.<sup><a data-type="noteref" href="#x">23</a></sup> If`, "5 seconds.[23] If"},
		{"html: noteref already bracketed", HTML, `x<a role="doc-noteref" href="#n"> [3]</a>`, "x [3]"},
		{"html: noteref empty", HTML, `x<a role="doc-noteref" href="#n"></a> y`, "x y"},
		{"html: backlink", HTML, `<ol><li role="doc-endnote"><p>High water.<a href="#fnref1" role="doc-backlink">↩︎</a></p></li></ol>after`, "1. High water.\n\nafter"},
		{"html: other links", HTML, `<a href="#x" role="button">a</a>b<a name="n">1</a>`, "ab1"},
		{"html: br", HTML, "a<br>b<br/>c<br />d</br>e", "a\nb\nc\nd\ne"},
		{"html: two br", HTML, "a<br><br>b", "a\n\nb"},
		{"html: p", HTML, "<p>a</p><p>b</p>", "a\n\nb"},
		{"html: div", HTML, "<div>a</div><div>b</div>", "a\nb"},
		{"html: inline tags vanish", HTML, "a<b>b</b><i>c</i> <span>d</span>", "abc d"},
		{"html: source newlines collapse", HTML, "<p>a\nb\r\nc</p>", "a b c"},
		{"html: pre keeps lines", HTML, "<pre>\na\n  b\n\n\n\nc</pre>", "a\nb\n\nc"},
		{"html: code keeps lines", HTML, "<code>a\nb</code>", "a\nb"},
		{"html: script", HTML, "a<script>b</script>c", "ac"},
		{"html: style", HTML, "a<style>b{}</style>c", "ac"},
		{"html: template", HTML, "a<template><p>b</p></template>c", "ac"},
		{"html: nested svg", HTML, "a<svg><svg><text>b</text></svg><text>c</text></svg>d", "ad"},
		{"html: comment", HTML, "a<!-- b -->c", "ac"},
		{"html: entities", HTML, "&lt;&amp;&gt;&#65;&#x42;&copy", "<&>AB©"},
		{"html: nbsp", HTML, "a&nbsp;&nbsp;b", "a b"},
		{"html: table", HTML, "<table><tr><td>a<td>b<tr><td>c<td>d</table>", "a | b\nc | d"},
		{"html: list", HTML, "<ul><li>a<li>b</ul>", "• a\n• b"},
		{"html: ordered list", HTML, "<ol start=2><li>a<li>b</ol>", "2. a\n3. b"},
		{"html: head dropped", HTML, "<head><meta x><link y>junk?</head>", "junk?"},
		{"html: less-than is text", HTML, "a < b and c<1", "a < b and c<1"},
		{"html: less-than letter is a tag", HTML, "a<b c", "a"},
		{"html: unterminated tag at end", HTML, "a<b", "a"},

		{"md: soft break", Markdown, "a\nb", "a b"},
		{"md: hard break", Markdown, "a  \nb", "a\nb"},
		{"md: paragraphs", Markdown, "a\n\n\n\nb", "a\n\nb"},
		{"md: heading", Markdown, "# H\ntext", "H\n\ntext"},
		{"md: emphasis", Markdown, "*a* __b__ ~~c~~", "a b c"},
		{"md: escapes", Markdown, `\*a\* \\ \q`, `*a* \ \q`},
		{"md: entities need semicolon", Markdown, "&amp; &copy &#65;", "& &copy A"},
		{"md: link text", Markdown, "[text](http://u)", "text"},
		{"md: image alt", Markdown, "![alt](i.png)", "alt"},
		{"md: autolink", Markdown, "<http://u>", "http://u"},
		{"md: code span keeps markup", Markdown, "`<b>&amp;</b>`", "<b>&amp;</b>"},
		{"md: fenced code keeps markup", Markdown, "```\n<b>\n  x\n```", "<b>\nx"},
		{"md: inline html", Markdown, "a <b>b</b> c", "a b c"},
		{"md: inline br", Markdown, "a<br>b", "a\nb"},
		{"md: html block", Markdown, "<div>\n<p>a &amp; b</p>\n</div>", "a & b"},
		{"md: html comment", Markdown, "<!-- x -->\n\na", "a"},
		{"md: list", Markdown, "- a\n- b", "• a\n• b"},
		{"md: ordered list", Markdown, "3. a\n4. b", "3. a\n4. b"},
		{"md: table", Markdown, "| a | b |\n|---|---|\n| c | d |", "a | b\nc | d"},
		{"md: quote", Markdown, "> a\n> b", "a b"},
		{"md: link definition", Markdown, "[x]: http://u\n\ntext", "text"},
		{"md: front matter", Markdown, "---\ntitle: T\n---\nbody", "body"},
		{"md: BOM", Markdown, "\uFEFF# H", "H"},
		// Footnotes: a reference is its number, as in Word and EPUB (in
		// order of first reference); a definition stays where it is, one
		// paragraph per note, starting with its number.
		{"md: footnote", Markdown, "Dawn.[^tide] Then.\n\n[^tide]: High water.\n", "Dawn.[1] Then.\n\n[1] High water."},
		{"md: footnotes numbered by reference", Markdown, "a[^b] b[^a] c[^b]\n\n[^a]: A.\n[^b]: B.\n", "a[1] b[2] c[1]\n\n[2] A.\n\n[1] B."},
		{"md: footnote defined before use", Markdown, "[^n]: Note.\n\n# H\n\nx[^n]", "[1] Note.\n\nH\n\nx[1]"},
		{"md: footnote of two paragraphs", Markdown, "x[^n]\n\n[^n]: One.\n\n    Two.\n\nafter", "x[1]\n\n[1] One.\n\nTwo.\n\nafter"},
		{"md: footnote never referenced", Markdown, "x\n\n[^u]: Unused.", "x\n\n[^u]: Unused."},
		{"md: footnote never defined", Markdown, "x[^none] y", "x[^none] y"},
		{"md: footnote starting with a list", Markdown, "x[^n]\n\n[^n]:\n    - a\n    - b\n", "x[1]\n\n[1]\n\n• a\n• b"},
		{"md: footnote in a quote", Markdown, "> q[^n]\n>\n> [^n]: In quote.\n\nafter", "q[1]\n\n[1] In quote.\n\nafter"},
		{"md: empty footnote", Markdown, "x[^e]\n\n[^e]:\n\ny", "x[1]\n\n[1]\n\ny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Normalize(tt.format, []byte(tt.src))
			if d.Text != tt.want {
				t.Errorf("Text = %q, want %q", d.Text, tt.want)
			}
			if err := checkDocument([]byte(tt.src), d); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		src    string
		want   string
	}{
		{"html title", HTML, "<title> A &amp;\n B </title><h1>H</h1>", "A & B"},
		{"html h1 fallback", HTML, "<h2>Two</h2><h1>One <br> line</h1>", "One line"},
		{"html empty title falls back", HTML, "<title> </title><h1>H</h1>", "H"},
		{"html svg title ignored", HTML, "<svg><title>icon</title></svg><h1>H</h1>", "H"},
		{"html none", HTML, "<p>text</p>", ""},
		{"md front matter", Markdown, "---\ntitle: \" FM \"\n---\n# H", "FM"},
		{"md h1", Markdown, "## Two\n\nSetext\n===", "Setext"},
		{"md html h1", Markdown, "<h1 align=\"center\">Logo</h1>\n\ntext", "Logo"},
		{"md none", Markdown, "text", ""},
		{"text never", PlainText, "# Title", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.format, []byte(tt.src)).Title; got != tt.want {
				t.Errorf("Title = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSourceSpan pins down the offset map semantics on small documents.
func TestSourceSpan(t *testing.T) {
	src := "<p>Caf&eacute;  au\n lait</p><p>x</p>"
	d := FromHTML([]byte(src))
	if d.Text != "Café au lait\n\nx" {
		t.Fatalf("Text = %q", d.Text)
	}
	span := func(s, e int) string {
		a, b := d.SourceSpan(s, e)
		return src[a:b]
	}
	// "Café au lait\n\nx": Caf 0-3, é 3-5, space 5, au 6-8, space 8, lait 9-13, \n\n 13-15, x 15.
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"copied text", 0, 3, "Caf"},
		{"decoded entity", 3, 5, "&eacute;"},
		{"entity then copy", 3, 6, "&eacute;  "},
		{"half an entity starts at its start", 4, 5, "&eacute;"},
		{"collapsed whitespace", 5, 6, "  "},
		{"word", 6, 8, "au"},
		{"whitespace with a line break", 8, 9, "\n "},
		{"paragraph break covers the tags", 13, 15, "</p><p>"},
		{"whole text", 0, len(d.Text), src[3 : len(src)-4]},
		{"empty range", 6, 6, ""},
		{"clamped", -5, 1000, src[3 : len(src)-4]},
		{"reversed", 5, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := span(tt.start, tt.end); got != tt.want {
				t.Errorf("SourceSpan(%d,%d) -> %q, want %q", tt.start, tt.end, got, tt.want)
			}
		})
	}
	if a, b := d.SourceSpan(6, 6); a != strings.Index(src, "au") || b != a {
		t.Errorf("SourceSpan(6,6) = %d,%d", a, b)
	}
	if a, b := (&Document{}).SourceSpan(0, 10); a != 0 || b != 0 {
		t.Errorf("empty document: SourceSpan = %d,%d", a, b)
	}
}

// TestSourceSpanLegacyCharset checks that offsets point into the original
// bytes of pages in legacy encodings, not into their UTF-8 decoding.
func TestSourceSpanLegacyCharset(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		word string // in the text
		orig []byte // the source bytes it maps to
	}{
		{
			name: "windows-1252",
			src:  mustEncode(t, charmap.Windows1252.NewEncoder().String, `<meta charset="windows-1252"><p>Un café crème.</p>`),
			word: "crème",
			orig: mustEncodeBytes(t, charmap.Windows1252.NewEncoder().String, "crème"),
		},
		{
			name: "gbk",
			src:  mustEncode(t, simplifiedchinese.GBK.NewEncoder().String, `<meta charset="gbk"><p>人工 智能 AI</p>`),
			word: "智能",
			orig: mustEncodeBytes(t, simplifiedchinese.GBK.NewEncoder().String, "智能"),
		},
		{
			name: "ascii in gbk",
			src:  mustEncode(t, simplifiedchinese.GBK.NewEncoder().String, `<meta charset="gbk"><p>人工 智能 AI</p>`),
			word: "AI",
			orig: []byte("AI"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FromHTML(tt.src)
			i := strings.Index(d.Text, tt.word)
			if i < 0 {
				t.Fatalf("%q not in %q", tt.word, d.Text)
			}
			a, b := d.SourceSpan(i, i+len(tt.word))
			if got := tt.src[a:b]; string(got) != string(tt.orig) {
				t.Errorf("SourceSpan -> %q, want %q", got, tt.orig)
			}
			if err := checkDocument(tt.src, d); err != nil {
				t.Error(err)
			}
		})
	}
}

func mustEncode(t *testing.T, enc func(string) (string, error), s string) []byte {
	t.Helper()
	out, err := enc(s)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(out)
}

func mustEncodeBytes(t *testing.T, enc func(string) (string, error), s string) []byte {
	return mustEncode(t, enc, s)
}

func TestSniffEncoding(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"undeclared ASCII", "<p>a</p>", "utf-8"},
		{"undeclared UTF-8", "<p>café</p>", "utf-8"},
		{"undeclared legacy", "<p>caf\xe9</p>", "windows-1252"},
		{"undeclared mostly UTF-8", "<p>café caf\xe9</p>", "utf-8"},
		{"UTF-8 BOM", "\xef\xbb\xbf<p>a</p>", "utf-8"},
		{"UTF-16LE BOM", "\xff\xfe<\x00", "utf-16le"},
		{"UTF-16BE BOM", "\xfe\xff\x00<", "utf-16be"},
		{"meta charset", "<meta charset=\"windows-1252\"><p>caf\xe9</p>", "windows-1252"},
		{"meta http-equiv", "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><p>\x93\xfa</p>", "shift_jis"},
		{"late meta", "<html><head>" + strings.Repeat("<!-- padding -->", 100) + "<meta charset=\"koi8-r\"></head><p>\xf0</p>", "koi8-r"},
		{"meta after body ignored", "<body>" + strings.Repeat(" ", 2000) + "<meta charset=\"koi8-r\"><p>\xf0</p>", "windows-1252"},
		{"stale declaration", "<meta charset=\"gb2312\"><p>人工</p>", "utf-8"},
		{"declared UTF-16 means UTF-8", "<meta charset=\"utf-16\"><p>a</p>", "utf-8"},
		{"declared UTF-8 with bad bytes", "<meta charset=\"utf-8\"><p>caf\xe9</p>", "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sniffEncoding([]byte(tt.src)).name; got != tt.want {
				t.Errorf("encoding = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHTMLEntity(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"&amp;x", 5, "&"},
		{"&ampx", 4, "&"},
		{"&copyright", 5, "©"},
		{"&notit;", 4, "¬"},
		{"&notin;", 7, "∉"},
		{"&#65;", 5, "A"},
		{"&#65x", 4, "A"},
		{"&#x41;", 6, "A"},
		{"&#150;", 6, "–"},
		{"&#0;", 4, "\uFFFD"},
		{"&#x110000;", 10, "\uFFFD"},
		{"&NotEqualTilde;", 15, "≂̸"},
		{"&foo;", 0, ""},
		{"&#;", 0, ""},
		{"&", 0, ""},
		{"& b", 0, ""},
	}
	for _, tt := range tests {
		n, dec := htmlEntity([]byte(tt.in))
		if n != tt.n || string(dec) != tt.want {
			t.Errorf("htmlEntity(%q) = %d, %q; want %d, %q", tt.in, n, dec, tt.n, tt.want)
		}
	}
}

func TestItemMarker(t *testing.T) {
	bullet, ordered := listLevel{}, func(n int) listLevel { return listLevel{ordered: true, num: n} }
	tests := []struct {
		lists []listLevel
		want  string
	}{
		{nil, "• "},
		{[]listLevel{bullet}, "• "},
		{[]listLevel{bullet, bullet}, "◦ "},
		{[]listLevel{bullet, bullet, bullet}, "▪ "},
		{[]listLevel{bullet, bullet, bullet, bullet}, "• "},
		{[]listLevel{ordered(3)}, "3. "},
		{[]listLevel{{ordered: true, num: 3, delim: ')'}}, "3) "},
		{[]listLevel{ordered(2), ordered(1)}, "2.1. "},
		{[]listLevel{ordered(1), ordered(2), ordered(3), ordered(4)}, "2.3.4. "},
		{[]listLevel{ordered(2), bullet, ordered(5)}, "5. "},
		{[]listLevel{bullet, ordered(2), bullet}, "◦ "},
	}
	for _, tt := range tests {
		var lists []listLevel
		for _, l := range tt.lists {
			lists = pushList(lists, l)
		}
		if got := string(itemMarker(nil, lists)); got != tt.want {
			t.Errorf("itemMarker(%v) = %q, want %q", tt.lists, got, tt.want)
		}
	}
}

// TestLargeDocument checks that the offset map stays small on markup-dense
// Markdown (a new segment at every emphasis, link and code span): far fewer
// entries than bytes, a few bytes each.
func TestLargeDocument(t *testing.T) {
	var sb strings.Builder
	for i := range 20000 {
		sb.WriteString("A line of *Markdown* text with a [link](http://example.com) and `code`,\nwrapped")
		if i%5 == 0 {
			sb.WriteString("\n\n")
		} else {
			sb.WriteString("\n")
		}
	}
	src := []byte(sb.String())
	d := FromMarkdown(src)
	if err := checkDocument(src, d); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %d segments, %.2f bytes of map per source byte", len(src), d.m.segs.len(), float64(d.m.segs.size())/float64(len(src)))
	if d.m.segs.len()*5 > len(src) {
		t.Errorf("%d segments for %d bytes", d.m.segs.len(), len(src))
	}
}

// TestConcurrent normalizes the fixtures from several goroutines at once (the
// goldmark parser is shared): run with -race, results equal the sequential ones.
func TestConcurrent(t *testing.T) {
	names := fixtures(t)
	want := make([]string, len(names))
	srcs := make([][]byte, len(names))
	for i, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = src
		want[i] = Normalize(formatOf(n), src).Text
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range names {
				i := (k + g) % len(names)
				if got := Normalize(formatOf(names[i]), srcs[i]).Text; got != want[i] {
					t.Errorf("%s: concurrent result differs", names[i])
				}
			}
		})
	}
	wg.Wait()
}

func TestMarkdownCostly(t *testing.T) {
	nested := func(depth int) []byte {
		var b strings.Builder
		for d := range depth {
			b.WriteString(strings.Repeat("  ", d) + "- item\n")
		}
		return []byte(b.String())
	}
	prose := strings.Repeat("Some [linked](https://example.com/a_(b)) text with `code`, *emphasis* and a ![picture](data:image/png;base64,"+strings.Repeat("QUJD", 5000)+").\n\n    indented code\n\n", 200)
	for _, tc := range []struct {
		name string
		md   []byte
		want bool
	}{
		{"prose", []byte(prose), false},
		{"nested-10", nested(10), false},
		{"nested-2000", nested(2000), true},
		{"brackets", []byte(strings.Repeat("[", 1<<20)), true},
		{"links", []byte(strings.Repeat("[a](", 1<<18)), true},
		{"angle-links", []byte(strings.Repeat("[a](< ", 1<<17)), true},
		// A reference list as long as a big changelog's, and one of
		// 100,000 definitions (quadratic in goldmark: 10 s at 1.4 MB).
		{"link-references-1000", []byte(strings.Repeat("[v1.0]: https://example.com/compare/v0.9...v1.0\n", 1000) + prose), false},
		{"link-references", []byte(strings.Repeat("[x]: http://a\n", 100_000) + "[x] and [x]\n"), true},
		// A table of 2,000 rows and a table of 4,000 columns (1.5 GB of
		// syntax tree at 6 MB).
		{"table", []byte("| name | kind | value |\n| --- | --- | --- |\n" + strings.Repeat("| `alpha` | *string* | the first value of three |\n", 2000)), false},
		{"wide-table", []byte("|" + strings.Repeat("a|", 4000) + "\n|" + strings.Repeat("-|", 4000) + "\n" + strings.Repeat("|"+strings.Repeat("x|", 4000)+"\n", 100)), true},
		{"emphasis", []byte(strings.Repeat("*a **b ", 200_000)), true},
		// Escapes and entities are text goldmark merges: no nodes.
		{"escapes", []byte(strings.Repeat(`\*`, 1<<20)), false},
		{"entities", []byte(strings.Repeat("&amp;", 1<<19)), false},
		{"inline-html", []byte(strings.Repeat("<b>a</b> ", 1<<17)), true},
	} {
		if got := markdownCostly(tc.md); got != tc.want {
			t.Errorf("%s: markdownCostly = %v, want %v", tc.name, got, tc.want)
		}
		if why := markdownCostlyWhy(tc.md); (why != "") != tc.want {
			t.Errorf("%s: markdownCostlyWhy = %q, want a reason %v", tc.name, why, tc.want)
		}
	}
	// A costly document still gives its text.
	if d := FromMarkdown([]byte(strings.Repeat("[a](", 1<<18))); len(d.Text) != 1<<20 {
		t.Errorf("links: %d bytes of text, want %d", len(d.Text), 1<<20)
	}
}

// TestUTF16 reads text and Markdown that start with a UTF-16 byte-order
// mark (Notepad's "Unicode", Windows PowerShell's >) as their UTF-8 forms
// are read, with spans that lead back to their own bytes; they were
// skipped.
func TestUTF16(t *testing.T) {
	const md = "# Budget 2027\n\nThe budget is 40,000 €. Alice approves *purchases* above 5,000 €.\n\n- 東京 office\n"
	const txt = "Meeting notes\r\nThe budget for 2027 is 40,000 euros.\r\n"
	encode := func(s string, order binary.AppendByteOrder, bom []byte) []byte {
		out := slices.Clone(bom)
		for _, u := range utf16.Encode([]rune(s)) {
			out = order.AppendUint16(out, u)
		}
		return out
	}
	decode := func(b []byte, order binary.ByteOrder) string {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = order.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u))
	}
	for _, tc := range []struct {
		name  string
		src   string
		norm  func([]byte) *Document
		order interface {
			binary.ByteOrder
			binary.AppendByteOrder
		}
		bom []byte
	}{
		{"Markdown, little-endian", md, FromMarkdown, binary.LittleEndian, []byte{0xFF, 0xFE}},
		{"Markdown, big-endian", md, FromMarkdown, binary.BigEndian, []byte{0xFE, 0xFF}},
		{"text, little-endian", txt, FromPlainText, binary.LittleEndian, []byte{0xFF, 0xFE}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.norm([]byte(tc.src))
			src := encode(tc.src, tc.order, tc.bom)
			got := tc.norm(src)
			if got.Text != want.Text || got.Title != want.Title || !reflect.DeepEqual(got.Headings, want.Headings) {
				t.Fatalf("read\n%q (title %q)\nwant\n%q (title %q)", got.Text, got.Title, want.Text, want.Title)
			}
			for _, w := range []string{"40,000", "Alice approves", "東京", "Meeting notes"} {
				i := strings.Index(got.Text, w)
				if i < 0 {
					continue
				}
				s, e := got.SourceSpan(i, i+len(w))
				if s%2 != 0 || e%2 != 0 || decode(src[s:e], tc.order) != w {
					t.Errorf("%q spans bytes %d-%d of the source, which read %q", w, s, e, decode(src[s:e-e%2], tc.order))
				}
			}
		})
	}
}

// TestWindows1252: text and Markdown that are not UTF-8 but mostly ASCII,
// with no UTF-8 sequence (Latin-1 notes from older Windows editors), are
// read as windows-1252, spans leading back to their own bytes; text with
// more than one byte in five past ASCII (Cyrillic in windows-1251) or with
// UTF-8 in it is not.
func TestWindows1252(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		latin     bool
		text      string // of FromMarkdown
		word      string // a word of text whose span is checked
		wordSrc   string // its bytes in src
	}{
		{"Latin-1 notes", "# Caf\xe9 notes\n\nThe cr\xe8me br\xfbl\xe9e costs \x809 at Chez L\xe9on.\n", true,
			"Café notes\n\nThe crème brûlée costs €9 at Chez Léon.", "brûlée", "br\xfbl\xe9e"},
		{"Cyrillic, windows-1251", "\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0", false, "", "", ""},
		{"UTF-8 with a bad byte", "caf\xc3\xa9 and caf\xe9", false, "", "", ""},
		{"UTF-8", "café", false, "café", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Windows1252([]byte(tc.src)); got != tc.latin {
				t.Fatalf("Windows1252 = %v, want %v", got, tc.latin)
			}
			if tc.text == "" {
				return
			}
			d := FromMarkdown([]byte(tc.src))
			if d.Text != tc.text {
				t.Fatalf("text %q, want %q", d.Text, tc.text)
			}
			if tc.word != "" {
				i := strings.Index(d.Text, tc.word)
				s, e := d.SourceSpan(i, i+len(tc.word))
				if tc.src[s:e] != tc.wordSrc {
					t.Errorf("%q spans %q of the source, want %q", tc.word, tc.src[s:e], tc.wordSrc)
				}
			}
			if p := FromPlainText([]byte(tc.src)); !strings.Contains(p.Text, "€9") && tc.latin {
				t.Errorf("plain text %q not decoded", p.Text)
			}
		})
	}
}

// TestMarkdownCostlyNote checks that Markdown read as plain text, because
// goldmark would take far longer on it than on prose, says so in a note
// naming what made it costly; Markdown goldmark reads has no note.
func TestMarkdownCostlyNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   string
		want string // in the note; "" for no note
	}{
		{"prose", "# Title\n\nSome [linked](https://example.com) text.\n", ""},
		{"changelog", strings.Repeat("[v1.0]: https://example.com/compare/v0.9...v1.0\n", 1000) + "See [v1.0].\n", ""},
		{"link-references", strings.Repeat("[x]: http://a\n", 100_000) + "[x] and [x]\n", `it has 100001 lines starting with "[" (link reference definitions)`},
		{"links", strings.Repeat("[a](", 1<<18), "long runs of"},
		{"nested", nestedList(2000), "nested very deep"},
		{"emphasis", strings.Repeat("*a **b ", 200_000), "emphasis marks"},
	} {
		d := FromMarkdown([]byte(tc.md))
		if tc.want == "" {
			if len(d.Notes) != 0 {
				t.Errorf("%s: notes %q, want none", tc.name, d.Notes)
			}
			continue
		}
		if len(d.Notes) != 1 || !strings.HasPrefix(d.Notes[0], "read as plain text, not as Markdown: ") || !strings.Contains(d.Notes[0], tc.want) {
			t.Errorf("%s: notes %q, want one reading as plain text with %q", tc.name, d.Notes, tc.want)
		}
		if len(d.Headings) != 0 || d.Text == "" {
			t.Errorf("%s: %d headings, %d bytes of text; want the text as it is", tc.name, len(d.Headings), len(d.Text))
		}
	}
}

// nestedList is a list nested depth levels deep.
func nestedList(depth int) string {
	var b strings.Builder
	for d := range depth {
		b.WriteString(strings.Repeat("  ", d) + "- item\n")
	}
	return b.String()
}
