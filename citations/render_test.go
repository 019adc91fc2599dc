package citations

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testRegistry returns an invocation with references 1..n titled "Doc i",
// linked to /docs/i.md with bytes [10i, 10i+10).
func testRegistry(t testing.TB, n int) *Invocation {
	t.Helper()
	inv := NewInvocation()
	inv.SetResolver(DefaultResolver())
	for i := 1; i <= n; i++ {
		if _, err := inv.Register(Reference{
			Title: fmt.Sprintf("Doc %d", i), Passage: fmt.Sprintf("passage %d", i), ID: fmt.Sprintf("c%d", i),
			Type: TypeFile, Source: fmt.Sprintf("/docs/%d.md", i), Span: Span{10 * i, 10*i + 10},
		}); err != nil {
			t.Fatal(err)
		}
	}
	return inv
}

func citedKeys(r Rendered) []string {
	var k []string
	for _, c := range r.References {
		k = append(k, c.Key)
	}
	return k
}

func dropReasons(r Rendered) []string {
	var d []string
	for _, x := range r.Dropped {
		d = append(d, fmt.Sprintf("%s:%s", x.Marker, x.Reason))
	}
	return d
}

func TestRender(t *testing.T) {
	reg := testRegistry(t, 6)
	tests := []struct {
		name  string
		text  string
		order Order
		want  string   // Text
		keys  []string // references in display order
		drops []string // marker:reason
	}{
		{name: "no markers", text: "plain text  \n\n", want: "plain text  \n\n"},
		{name: "sparse by index", text: "a [doc:5] b [doc:2].", want: "a [2] b [1].", keys: []string{"[doc:2]", "[doc:5]"}},
		{name: "sparse by appearance", text: "a [doc:5] b [doc:2].", order: ByAppearance, want: "a [1] b [2].", keys: []string{"[doc:5]", "[doc:2]"}},
		{name: "repeated", text: "[doc:3] x [doc:3] y [doc:3][doc:3]", want: "[1] x [1] y [1]", keys: []string{"[doc:3]"}},
		{name: "adjacent sorted", text: "x [doc:4][doc:1].", want: "x [1][2].", keys: []string{"[doc:1]", "[doc:4]"}},
		{name: "adjacent by appearance", text: "x [doc:4][doc:1].", order: ByAppearance, want: "x [1][2].", keys: []string{"[doc:4]", "[doc:1]"}},
		{name: "joined", text: "x [doc:4, doc:1, doc:4].", want: "x [1][2].", keys: []string{"[doc:1]", "[doc:4]"}},
		{name: "space separated runs", text: "x [doc:1] [doc:2].", want: "x [1] [2].", keys: []string{"[doc:1]", "[doc:2]"}},
		{name: "uncited dropped", text: "only [doc:6].", want: "only [1].", keys: []string{"[doc:6]"}},
		{name: "unregistered", text: "a [doc:99].", want: "a.", drops: []string{"[doc:99]:unregistered"}},
		{name: "zero", text: "a [doc:0] b", want: "a b", drops: []string{"[doc:0]:zero"}},
		{name: "malformed", text: "a [doc:1-2] b [doc:x].", want: "a b.", drops: []string{"[doc:1-2]:malformed", "[doc:x]:malformed"}},
		{name: "partly hallucinated run", text: "a [doc:99][doc:2, doc:0].", want: "a [1].", keys: []string{"[doc:2]"}, drops: []string{"[doc:99]:unregistered", "[doc:2, doc:0]:zero"}},
		{name: "cut off at the end", text: "see [doc:1", want: "see", drops: []string{"[doc:1:malformed"}},
		{name: "dropped at line start takes the space after it", text: "x\n[doc:9] Next line", want: "x\nNext line", drops: []string{"[doc:9]:unregistered"}},
		{name: "kept at line start keeps the space", text: "[doc:1] Next", want: "[1] Next", keys: []string{"[doc:1]"}},
		{name: "indentation is kept", text: "- [doc:9] item", want: "- item", drops: []string{"[doc:9]:unregistered"}},
		{name: "line of one dropped marker", text: "a\n\n[doc:9]\n\nb", want: "a\n\n\u200b\n\nb", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped before list marker", text: "[doc:9] - x", want: "\u200b- x", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped after structure chars", text: "1[doc:9]. x", want: "1\u200b. x", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped between backticks", text: "a``[doc:9]`b", want: "a``\u200b`b", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped after backslash", text: `a \[doc:9]` + "`b`", want: "a \\\u200b`b`", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped inside a marker prefix", text: "a [d[doc:9]oc:1]", want: "a [d\ufffdoc:1]", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped inside a bare number", text: "a [1[doc:9]] b", want: "a [1\ufffd] b", drops: []string{"[doc:9]:unregistered"}},
		{name: "dropped where one byte cannot tell", text: "a [ [doc:9] x]", want: "a [\ufffd x]", drops: []string{"[doc:9]:unregistered"}},
		{name: "trailing space trimmed before list", text: "a [doc:1]  \n\n", want: "a [1]", keys: []string{"[doc:1]"}},
		{name: "open fence closed", text: "[doc:1]\n\n```sh\nx\n", want: "[1]\n\n```sh\nx\n```", keys: []string{"[doc:1]"}},
		{name: "open indented fence closed at its column", text: "- [doc:1]\n\n  ~~~~\n  x", want: "- [1]\n\n  ~~~~\n  x\n  ~~~~", keys: []string{"[doc:1]"}},
		{name: "open fence in a quote is left to the blank line", text: "[doc:1]\n> ```\n> x", want: "[1]\n> ```\n> x", keys: []string{"[doc:1]"}},
		{name: "open fence without citations untouched", text: "```\nx [doc:1]\n", want: "```\nx [doc:1]\n"},
		{name: "markers in code untouched", text: "`[doc:1]` [doc:2]", want: "`[doc:1]` [1]", keys: []string{"[doc:2]"}},
		// "dance[1]" would read as an index (arr[2], TestRenderBareNumbers).
		{name: "glued to a word, set apart", text: "bees dance[doc:1], 42[doc:2][doc:1], x_[doc:2], [see][doc:1], é[doc:2], (a)[doc:1], _[doc:2]_",
			want: "bees dance [1], 42 [1][2], x_ [2], [see] [1], é[2], (a)[1], _[2]_", keys: []string{"[doc:1]", "[doc:2]"}},
		{name: "glued and dropped", text: "dance[doc:9].", want: "dance.", drops: []string{"[doc:9]:unregistered"}},
		// "[1](x)" would be a link, "[1][x]" a reference link, "[1]: x" a
		// definition.
		{name: "before link syntax, set apart", text: "a [doc:1](rel) b [doc:2][x] c [doc:1][^1]\n[doc:2]: rel\n[doc:1] : d",
			want: "a [1] (rel) b [2] [x] c [1] [^1]\n[2]\u200b: rel\n[1] : d", keys: []string{"[doc:1]", "[doc:2]"}},
		{name: "dropped before link syntax", text: "a [doc:9](rel) b\n[doc:9]: rel", want: "a(rel) b\n: rel", drops: []string{"[doc:9]:unregistered", "[doc:9]:unregistered"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.text, reg, Options{Order: tt.order})
			if r.Text != tt.want {
				t.Errorf("Text\n got %q\nwant %q", r.Text, tt.want)
			}
			if got := citedKeys(r); !slices.Equal(got, tt.keys) {
				t.Errorf("references %q, want %q", got, tt.keys)
			}
			if got := dropReasons(r); !slices.Equal(got, tt.drops) {
				t.Errorf("dropped %q, want %q", got, tt.drops)
			}
			for i, c := range r.References {
				if c.Number != i+1 {
					t.Errorf("reference %d numbered %d", i, c.Number)
				}
			}
			if r.References == nil || r.Dropped == nil {
				t.Errorf("nil slices: references %v, dropped %v", r.References == nil, r.Dropped == nil)
			}
		})
	}
}

func TestRenderNilRegistry(t *testing.T) {
	r := Render("a [doc:1] b", nil, Options{})
	if r.Text != "a b" || len(r.References) != 0 || len(r.Dropped) != 1 {
		t.Errorf("Render with nil registry = %+v", r)
	}
}

// wrongIndex returns references under the wrong index.
type wrongIndex struct{}

func (wrongIndex) Lookup(n int) (Reference, bool) { return Reference{Index: n + 1, Title: "x"}, true }

func TestRenderRejectsMismatchedRegistry(t *testing.T) {
	if r := Render("a [doc:1]", wrongIndex{}, Options{}); len(r.References) != 0 {
		t.Errorf("cited a reference whose index differs from the marker: %+v", r.References)
	}
}

func TestRenderDropSpans(t *testing.T) {
	text := "ab [doc:7] cd [doc:1, doc:0]"
	r := Render(text, testRegistry(t, 1), Options{})
	want := []Drop{
		{Marker: "[doc:7]", Index: 7, Reason: ReasonUnregistered, Span: Span{3, 10}},
		{Marker: "[doc:1, doc:0]", Reason: ReasonZero, Span: Span{14, 28}},
	}
	if !slices.Equal(r.Dropped, want) {
		t.Errorf("Dropped = %+v\nwant %+v", r.Dropped, want)
	}
	for _, d := range r.Dropped {
		if text[d.Span.Start:d.Span.End] != d.Marker {
			t.Errorf("span %v of %q covers %q", d.Span, d.Marker, text[d.Span.Start:d.Span.End])
		}
	}
}

func TestMarkdown(t *testing.T) {
	inv := NewInvocation()
	inv.SetResolver(DefaultResolver())
	for _, ref := range []Reference{
		{Title: "Guide", Type: TypeFile, Source: "/d/guide.md", Span: Span{0, 40}},
		{Title: "Notes", Type: TypeUpload},
		{Title: "Site (beta)", Type: TypeWeb, Source: "https://example.com/a b/(x)"},
	} {
		if _, err := inv.Register(ref); err != nil {
			t.Fatal(err)
		}
	}
	r := Render("One [doc:1], two [doc:2], three [doc:3].\n", inv, Options{})
	want := "One [1], two [2], three [3].\n\n---\nSources cited in this answer:\n\n" +
		"1. [Guide](file:///d/guide.md#bytes=0-40)\n" +
		"2. Notes\n" +
		"3. [Site (beta)](https://example.com/a%20b/%28x%29)\n"
	if got := r.Markdown(); got != want {
		t.Errorf("Markdown\n got %q\nwant %q", got, want)
	}
	if got := Render("no citations\n", inv, Options{}).Markdown(); got != "no citations\n" {
		t.Errorf("Markdown without citations = %q", got)
	}
}

func TestEscapeTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Plain title", "Plain title"},
		{"*bold* _it_ `code`", `\*bold\* \_it\_ \` + "`code\\`"},
		{"[link](x) ![img]", `\[link\](x) \!\[img\]`},
		{"<b>&amp;</b>", `\<b\>\&amp;\</b\>`},
		{`back\slash ~strike~ a|b $x$`, `back\\slash \~strike\~ a\|b \$x\$`},
		{"# heading", `\# heading`},
		{"- item", `\- item`},
		{"+ item", `\+ item`},
		{"=== x", `\=== x`},
		{"1. item", `1\. item`},
		{"12) item", `12\) item`},
		{"Version 1.2 - notes", "Version 1.2 - notes"},
		{"2024 review", "2024 review"},
		{"Überblick — 引用 📎", "Überblick — 引用 📎"},
	}
	for _, tt := range tests {
		if got := string(appendTitle(nil, tt.in)); got != tt.want {
			t.Errorf("appendTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDisplayTitle(t *testing.T) {
	tests := []struct {
		ref  Reference
		want string
	}{
		{Reference{Title: " Two \n lines\t"}, "Two lines"},
		{Reference{Title: "One  space"}, "One space"},
		{Reference{Title: "Trailing "}, "Trailing"},
		{Reference{Title: "No\u00a0break"}, "No break"},
		{Reference{Title: "Clean title"}, "Clean title"},
		{Reference{Source: "/a/b/notes.md"}, "notes.md"},
		{Reference{Source: `C:\a\report.pdf`}, "report.pdf"},
		{Reference{ID: "chunk-7"}, "chunk-7"},
		{Reference{}, "Untitled"},
	}
	for _, tt := range tests {
		if got := tt.ref.DisplayTitle(); got != tt.want {
			t.Errorf("DisplayTitle(%+v) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestRenderedJSON(t *testing.T) {
	inv := NewInvocation()
	if _, err := inv.Register(Reference{Title: "Guide", Passage: "p", ID: "g#0", Type: TypeFile, Source: "/g.md", Span: Span{3, 9}, Link: "file:///g.md#bytes=3-9"}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(Render("x [doc:1] [doc:5]", inv, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"text":"x [1]","references":[{"number":1,"key":"[doc:1]","index":1,"title":"Guide","passage":"p",` +
		`"reference_id":"g#0","reference_type":"file","source":"/g.md","span":{"start":3,"end":9},"link":"file:///g.md#bytes=3-9"}],` +
		`"dropped":[{"marker":"[doc:5]","index":5,"reason":"unregistered","span":{"start":10,"end":17}}]}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Render("nothing", inv, Options{}))
	if want := `{"text":"nothing","references":[],"dropped":[]}`; string(b) != want {
		t.Errorf("JSON without citations = %s, want %s", b, want)
	}
}

func TestRenderManyReferences(t *testing.T) {
	const n = 1000
	reg := testRegistry(t, n)
	var b strings.Builder
	for i := n; i >= 1; i-- { // cite in reverse
		fmt.Fprintf(&b, "claim %d [doc:%d]. ", i, i)
	}
	text := b.String()
	for _, order := range []Order{ByIndex, ByAppearance} {
		r := Render(text, reg, Options{Order: order})
		if len(r.References) != n || len(r.Dropped) != 0 {
			t.Fatalf("order %d: %d references, %d dropped", order, len(r.References), len(r.Dropped))
		}
		for i, c := range r.References {
			wantIndex := i + 1
			if order == ByAppearance {
				wantIndex = n - i
			}
			if c.Number != i+1 || c.Index != wantIndex {
				t.Fatalf("order %d: reference %d = number %d index %d", order, i, c.Number, c.Index)
			}
		}
		if ms := Parse(r.Text); len(ms) != 0 {
			t.Fatalf("order %d: markers left: %v", order, ms[0])
		}
		if order == ByIndex && !strings.HasPrefix(r.Text, "claim 1000 [1000]. claim 999 [999].") {
			t.Errorf("by index: text starts %q", r.Text[:40])
		}
		if order == ByAppearance && !strings.HasPrefix(r.Text, "claim 1000 [1]. claim 999 [2].") {
			t.Errorf("by appearance: text starts %q", r.Text[:40])
		}
	}
}

// TestRenderBareNumbers checks the policy for bracketed numbers the model
// wrote itself: outside code and not part of link syntax or code-like text,
// they would pass for citations, so they are dropped as bare.
func TestRenderBareNumbers(t *testing.T) {
	reg := testRegistry(t, 2)
	tests := []struct {
		name  string
		text  string
		want  string
		drops []string // marker:reason
	}{
		{name: "tester's example", text: "According to [5] and [1], WAL is good [doc:1]. See also^[7] and arr[2].",
			want:  "According to, WAL is good [1]. See also^ and arr[2].",
			drops: []string{"[5]:bare", "[1]:bare", "[7]:bare"}},
		{name: "adjacent", text: "a [1][2] b", want: "a b", drops: []string{"[1]:bare", "[2]:bare"}},
		{name: "list", text: "a [1, 2] b [3;4]", want: "a b", drops: []string{"[1, 2]:bare", "[3;4]:bare"}},
		{name: "range", text: "a [1-3] b [4–6].", want: "a b.", drops: []string{"[1-3]:bare", "[4–6]:bare"}},
		{name: "in a run with a marker", text: "a [doc:1][2] b [3][doc:2]", want: "a [1] b [2]", drops: []string{"[2]:bare", "[3]:bare"}},
		{name: "at line start", text: "x\n[4] next", want: "x\nnext", drops: []string{"[4]:bare"}},
		{name: "wide brackets", text: "a 【3】 b ［4］", want: "a b", drops: []string{"【3】:bare", "［4］:bare"}},
		{name: "escaped bracket", text: `a \[5] b`, want: `a \ b`, drops: []string{"[5]:bare"}},
		{name: "entity brackets", text: "a &#91;5&#93; b", want: "a b", drops: []string{"&#91;5&#93;:bare"}},
		{name: "after punctuation", text: "it is (see [2]).", want: "it is.", drops: []string{"[2]:bare"}},
		{name: "in emphasis", text: "an _[5]_ b", want: "an __ b", drops: []string{"[5]:bare"}},
		{name: "cjk text", text: "东京是首都[1]。", want: "东京是首都。", drops: []string{"[1]:bare"}},

		{name: "index after a word", text: "arr[2] and Logs[2006] and x_[1] and v2[0]", want: "arr[2] and Logs[2006] and x_[1] and v2[0]"},
		{name: "link text", text: "see [1](./x) and [2](<a b>)", want: "see [1](./x) and [2](<a b>)"},
		// The same to another host, neutralized (TestLinks).
		{name: "external link text", text: "see [1](http://x)", want: `see 1 \[link: x\]`},
		{name: "no link without a closing parenthesis", text: "see [1](x and\ny)", want: "see(x and\ny)", drops: []string{"[1]:bare"}},
		{name: "before a reference label", text: "see [2][ref] and [3][]", want: "see[ref] and[]", drops: []string{"[2]:bare", "[3]:bare"}},
		{name: "reference link label", text: "see [the docs][1]", want: "see [the docs][1]"},
		{name: "link reference definition", text: "[1]: /docs/1.md", want: "[1]: /docs/1.md"},
		// Its label shown would read as a citation: it goes with the destination.
		{name: "external link reference definition", text: "[1]: http://example.com", want: `\[link: example.com\]`},
		{name: "colon mid-line is no definition", text: "see [1]: x", want: "see: x", drops: []string{"[1]:bare"}},
		{name: "footnote", text: "a[^1] b [^2]\n\n[^1]: note", want: "a[^1] b [^2]\n\n[^1]: note"},
		{name: "not numbers", text: "[a] [1.5] [-1] [1,] [x1] [1 2] [1234567890]", want: "[a] [1.5] [-1] [1,] [x1] [1 2] [1234567890]"},
		{name: "in code", text: "`[1]` and\n\n    [2]\n", want: "`[1]` and\n\n    [2]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.text, reg, Options{})
			if r.Text != tt.want {
				t.Errorf("Text\n got %q\nwant %q", r.Text, tt.want)
			}
			if got := dropReasons(r); !slices.Equal(got, tt.drops) {
				t.Errorf("dropped %q, want %q", got, tt.drops)
			}
			if ms := Parse(tt.text); slices.ContainsFunc(ms, func(m Marker) bool { return m.Index == 0 && !m.Malformed }) {
				t.Errorf("Parse reports a bare number as a marker: %+v", ms)
			}
		})
	}
}

// TestRenderLookalikes checks text that a reader sees as a marker although
// its bytes differ: it is read as the marker it shows.
func TestRenderLookalikes(t *testing.T) {
	reg := testRegistry(t, 3)
	tests := []struct {
		name  string
		text  string
		want  string
		drops []string
	}{
		{name: "escaped colon", text: `a [doc\:2] b`, want: "a [1] b"},
		{name: "escaped closer", text: `a [doc:2\] b`, want: "a [1] b"},
		{name: "entity brackets", text: "a &#91;doc:2&#93; b", want: "a [1] b"},
		{name: "hex and named entities", text: "a &#x5B;doc&colon;2&rsqb; b &lbrack;doc:3&#X5d;", want: "a [1] b [2]"},
		{name: "zero-width space", text: "a [\u200bdoc:2] b", want: "a [1] b"},
		{name: "zero-width inside", text: "a [d\u200boc:\u20602\ufeff] b", want: "a [1] b"},
		{name: "zero-width entity", text: "a [&#8203;doc:2] b", want: "a [1] b"},
		{name: "full-width brackets", text: "a ［doc:2］ b", want: "a [1] b"},
		{name: "full-width letters and digits", text: "a ［ｄｏｃ：２］ b", want: "a [1] b"},
		{name: "no-break space", text: "a [doc:\u00a02] b", want: "a [1] b"},
		{name: "unregistered look-alike", text: "a &#91;doc:9&#93; b", want: "a b", drops: []string{"&#91;doc:9&#93;:unregistered"}},
		{name: "malformed look-alike", text: "a [doc\\:x] b", want: "a b", drops: []string{"[doc\\:x]:malformed"}},
		{name: "escaped entity is text", text: `a \&#91;doc:2] b`, want: `a \&#91;doc:2] b`},
		{name: "backslash before a letter is no escape", text: `a [\doc:2] b`, want: `a [\doc:2] b`},
		{name: "in code", text: "`&#91;doc:2&#93;` ［doc:2］", want: "`&#91;doc:2&#93;` [1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.text, reg, Options{})
			if r.Text != tt.want {
				t.Errorf("Text\n got %q\nwant %q", r.Text, tt.want)
			}
			if got := dropReasons(r); !slices.Equal(got, tt.drops) {
				t.Errorf("dropped %q, want %q", got, tt.drops)
			}
		})
	}
}

// TestListHeading: an answer that quotes a document's own "References:"
// block still has one list that is unmistakably the answer's.
func TestListHeading(t *testing.T) {
	text := "The paper says [doc:1]:\n\n> References:\n>\n> 1. Smith, 2019\n> 2. Jones, 2020\n"
	md := Render(text, testRegistry(t, 1), Options{}).Markdown()
	want := "The paper says [1]:\n\n> References:\n>\n> 1. Smith, 2019\n> 2. Jones, 2020\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"
	if md != want {
		t.Fatalf("got %q\nwant %q", md, want)
	}
	if strings.Count(md, ListHeading) != 1 || strings.Count(md, "References:") != 1 {
		t.Errorf("the lists are not told apart: %q", md)
	}
}

// TestListSection: the reference list names the section of a passage its
// link cannot open at (extracted text without a page or slide), without
// the heading that is the title; a passage with a page, or a file's bytes,
// shows none; SetHeading changes it.
func TestListSection(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  Reference
		want string
	}{
		{"a Word file", Reference{Title: "Prefs", Heading: "Prefs > $OFS", Extracted: true}, "1. [Prefs § \\$OFS](file:///docs/p.docx)\n"},
		{"no title heading", Reference{Title: "Prefs", Heading: "Setup > Keys", Extracted: true}, "1. [Prefs § Setup › Keys](file:///docs/p.docx)\n"},
		{"the title alone", Reference{Title: "Prefs", Heading: "Prefs", Extracted: true}, "1. [Prefs](file:///docs/p.docx)\n"},
		{"a page", Reference{Title: "Prefs", Heading: "Prefs > $OFS", Extracted: true, Location: Location{Page: 3}}, "1. [Prefs, p. 3](file:///docs/p.docx#page=3)\n"},
		{"a file's bytes", Reference{Title: "Prefs", Heading: "Prefs > $OFS", Span: Span{0, 10}}, "1. [Prefs](file:///docs/p.docx#bytes=0-10)\n"},
	} {
		inv := NewInvocation()
		inv.SetResolver(DefaultResolver())
		ref := tc.ref
		ref.Type, ref.Source, ref.Passage, ref.ID = TypeFile, "/docs/p.docx", "passage", "c1"
		if _, err := inv.Register(ref); err != nil {
			t.Fatal(err)
		}
		md := Render("Text [doc:1].", inv, Options{}).Markdown()
		if _, list, _ := strings.Cut(md, ListHeading+"\n\n"); list != tc.want {
			t.Errorf("%s: list %q, want %q", tc.name, list, tc.want)
		}
	}
	inv := testRegistry(t, 1)
	if err := inv.SetHeading(1, "A > B"); err != nil || inv.References()[0].Heading != "A > B" {
		t.Errorf("SetHeading: %v, %+v", err, inv.References()[0])
	}
	if err := inv.SetHeading(2, "A"); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("SetHeading of [doc:2]: %v", err)
	}
}

// TestRenderConnectors: the words and punctuation that joined a dropped
// marker to the others go with it, and parentheses left empty go too, so
// that the answer reads as if the model had cited only the kept sources.
// Prose is never removed beyond them.
func TestRenderConnectors(t *testing.T) {
	reg := testRegistry(t, 6)
	tests := []struct {
		name  string
		text  string
		want  string
		drops []string
	}{
		// A connector between a kept and a dropped marker.
		{name: "and after kept", text: "as shown in [doc:1] and [doc:9].", want: "as shown in [1].", drops: []string{"[doc:9]:unregistered"}},
		{name: "and before kept", text: "as shown in [doc:9] and [doc:1].", want: "as shown in [1]."},
		{name: "and at a sentence start", text: "[doc:9] and [doc:1] agree.", want: "[1] agree."},
		{name: "and at a line start", text: "x\n[doc:9] and [doc:1] agree.", want: "x\n[1] agree."},
		{name: "or", text: "see [doc:1] or [doc:9].", want: "see [1]."},
		{name: "and/or", text: "see [doc:9] and/or [doc:1].", want: "see [1]."},
		{name: "ampersand", text: "in [doc:1] & [doc:9].", want: "in [1]."},
		{name: "as well as", text: "in [doc:1] as well as [doc:9].", want: "in [1]."},
		{name: "comma", text: "in [doc:1], [doc:9].", want: "in [1]."},
		{name: "comma without space", text: "in [doc:9],[doc:1].", want: "in [1]."},
		{name: "semicolon", text: "in [doc:1]; [doc:9].", want: "in [1]."},
		{name: "comma and", text: "in [doc:1], and [doc:9].", want: "in [1]."},
		{name: "capitalized", text: "in [doc:1] And [doc:9].", want: "in [1]."},
		{name: "space only", text: "in [doc:9] [doc:1].", want: "in [1]."},
		// Lists of three or more: the dropped one takes the connector before it.
		{name: "list, middle dropped", text: "in [doc:1], [doc:9] and [doc:2].", want: "in [1] and [2]."},
		{name: "list, last dropped", text: "in [doc:1], [doc:2], and [doc:9].", want: "in [1], [2]."},
		{name: "list, first dropped", text: "in [doc:9], [doc:1] and [doc:2].", want: "in [1] and [2]."},
		{name: "all kept", text: "in [doc:1], [doc:2] and [doc:3].", want: "in [1], [2] and [3]."},
		{name: "all dropped", text: "shown [doc:9] and [doc:8].", want: "shown.", drops: []string{"[doc:9]:unregistered", "[doc:8]:unregistered"}},
		// Parentheses.
		{name: "empty parentheses", text: "it is ([doc:9]).", want: "it is."},
		{name: "parentheses, comma", text: "it is ([doc:1], [doc:9]).", want: "it is ([1])."},
		{name: "parentheses, dropped first", text: "it is ([doc:9]; [doc:1]).", want: "it is ([1])."},
		{name: "parentheses, all dropped", text: "it is ([doc:9], [doc:8]), and more.", want: "it is, and more."},
		{name: "parentheses glued", text: "it is([doc:9]).", want: "it is."},
		{name: "parentheses kept glued", text: "it is([doc:1]).", want: "it is([1])."},
		{name: "see in parentheses", text: "it is (see [doc:9]).", want: "it is."},
		{name: "see in parentheses, kept", text: "it is (see [doc:1] and [doc:9]).", want: "it is (see [1])."},
		{name: "see also, e.g., cf.", text: "a (See also [doc:9]) b (e.g. [doc:9]) c (cf. [doc:9]).", want: "a b c."},
		{name: "full-width parentheses", text: "东京是首都（[doc:9]）。", want: "东京是首都。"},
		{name: "full-width parentheses, kept", text: "东京（【doc:1】、[doc:9]）。", want: "东京（[1]）。"},
		{name: "full-width comma", text: "东京【doc:9】，【doc:1】。", want: "东京[1]。"},
		{name: "bare number in parentheses", text: "it is ([5]).", want: "it is.", drops: []string{"[5]:bare"}},
		{name: "bare number joined", text: "in [doc:1] and [5].", want: "in [1].", drops: []string{"[5]:bare"}},
		{name: "parentheses between backticks", text: "a``([doc:9])`b", want: "a``\u200b`b"},
		// Punctuation stays once.
		{name: "between commas", text: "Paris, [doc:9], is big.", want: "Paris, is big."},
		{name: "between periods", text: "Paris [doc:1]. [doc:9]. Next", want: "Paris [1]. Next"},
		{name: "parentheses between commas", text: "Paris, ([doc:9]), is big.", want: "Paris, is big."},
		{name: "between ellipses", text: "wait... [doc:9]... x", want: "wait...... x"},
		// Different marks: the stronger stays (a sentence end, then ";",
		// ":" and ","), the one before if they are equal.
		{name: "comma, then period", text: "a, [doc:9]. b", want: "a. b"},
		{name: "semicolon, then comma", text: "a; [doc:9], b", want: "a; b"},
		{name: "comma, then semicolon", text: "a, [doc:9]; b", want: "a; b"},
		{name: "colon, then period", text: "a: [doc:9]. b", want: "a. b"},
		{name: "colon, then comma", text: "a: [doc:9], b", want: "a: b"},
		{name: "comma, then question mark", text: "is it a, [doc:9]? b", want: "is it a? b"},
		{name: "comma, then exclamation mark", text: "a, [doc:9]! b", want: "a! b"},
		{name: "period, then comma", text: "a. [doc:9], b", want: "a. b"},
		{name: "question mark, then period", text: "a? [doc:9]. b", want: "a? b"},
		{name: "comma, parentheses, period", text: "a, ([doc:9]). b", want: "a. b"},
		{name: "comma glued, then period", text: "a,[doc:9]. b", want: "a. b"},
		{name: "comma, then period at the end", text: "a, [doc:9].", want: "a."},
		{name: "comma, then period at a line end", text: "a, [doc:9].\nb", want: "a.\nb"},
		{name: "comma, then all dropped and period", text: "a, [doc:9] and [doc:8]. b", want: "a. b"},
		{name: "comma kept with a kept chain", text: "a, [doc:1] and [doc:9]. b", want: "a, [1]. b"},
		{name: "comma, nothing after", text: "a, [doc:9]", want: "a,"},
		{name: "comma, then a word", text: "a, [doc:9] b", want: "a, b"},
		{name: "comma after a period stays", text: "e.g., [doc:9]. b", want: "e.g.,. b"},
		{name: "period in a number stays", text: "a, [doc:9].5 b", want: "a,.5 b"},
		{name: "comma, then period, kept", text: "a, [doc:1]. b", want: "a, [1]. b"},
		{name: "kept between commas", text: "Paris, [doc:1], is big.", want: "Paris, [1], is big."},
		// Locators go with their citation; parentheses left with only
		// connectors or locators go.
		{name: "locator in parentheses", text: "x ([doc:9] p. 4).", want: "x."},
		{name: "locator after a comma", text: "x ([doc:9], p. 4) y", want: "x y"},
		{name: "locator kept", text: "x ([doc:1] p. 4).", want: "x ([1] p. 4)."},
		{name: "locator of the dropped one", text: "x ([doc:1] p. 2; [doc:9] p. 4)", want: "x ([1] p. 2)"},
		{name: "locator of the dropped first", text: "x ([doc:9] p. 2; [doc:1] p. 4)", want: "x ([1] p. 4)"},
		{name: "page range", text: "x ([doc:9], pp. 3-5) y", want: "x y"},
		{name: "page range with en dash", text: "x ([doc:9], pp. 3–5) y", want: "x y"},
		{name: "page", text: "x ([doc:9], page 4) y", want: "x y"},
		{name: "section sign", text: "x ([doc:9] § 2.3) y", want: "x y"},
		{name: "chapter", text: "x ([doc:9], ch. 3) y", want: "x y"},
		{name: "line", text: "x ([doc:9] line 5) y", want: "x y"},
		{name: "at", text: "x ([doc:9] at 12) y", want: "x y"},
		{name: "capitalized locator", text: "x ([doc:9], P. 4) y", want: "x y"},
		{name: "locator without parentheses", text: "as shown [doc:9], p. 4. Next", want: "as shown. Next"},
		{name: "locator then connector", text: "in [doc:9] p. 4 and [doc:1] p. 2.", want: "in [1] p. 2."},
		{name: "locator before a closing parenthesis", text: "(see the manual [doc:9], p. 4)", want: "(see the manual)"},
		{name: "connector word in parentheses", text: "cats (and [doc:9]) dogs", want: "cats dogs"},
		{name: "connector word in parentheses, kept", text: "cats (and [doc:1]) dogs", want: "cats (and [1]) dogs"},
		{name: "or in parentheses", text: "cats (or [doc:9] p. 4) dogs", want: "cats dogs"},
		{name: "prose in parentheses stays", text: "x (see the manual [doc:9]) y", want: "x (see the manual) y"},
		{name: "number followed by a word is no locator", text: "in [doc:9] at 12 sites", want: "in at 12 sites"},
		{name: "time is no locator", text: "in [doc:9] at 12:30.", want: "in at 12:30."},
		{name: "word is no locator", text: "in [doc:9] pages of it", want: "in pages of it"},
		{name: "locator without a number", text: "x ([doc:9] p. iv) y", want: "x ( p. iv) y"},
		// Left alone: prose, and parentheses around more than citations.
		{name: "and before prose", text: "cats [doc:9] and dogs [doc:1].", want: "cats and dogs [1]."},
		{name: "and then prose", text: "in [doc:1] and [doc:9] and more.", want: "in [1] and more."},
		{name: "word that starts like one", text: "in [doc:1] android [doc:9].", want: "in [1] android."},
		{name: "sentence between", text: "a [doc:1]. And [doc:9] b.", want: "a [1]. And b."},
		{name: "parentheses with prose", text: "it (as [doc:9] says) is.", want: "it (as says) is."},
		{name: "parentheses not closed", text: "it ([doc:9], x", want: "it (x"},
		{name: "parentheses with more, locator", text: "x ([doc:9] p. 4, and more)", want: "x (and more)"},
		{name: "parentheses with more, period", text: "x ([doc:9]. More)", want: "x (. More)"},
		{name: "link text is not joined", text: "in [doc:9] and [1](x).", want: "in and [1](x)."},
		{name: "line end between", text: "in [doc:1] and\n[doc:9] x", want: "in [1] and\nx"},
		{name: "code", text: "`[doc:1] and [doc:9]` [doc:9] and [doc:1]", want: "`[doc:1] and [doc:9]` [1]"},
		{name: "link destination", text: "[text]([doc:9])", want: "[text]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.text, reg, Options{})
			if r.Text != tt.want {
				t.Errorf("Render(%q)\n got %q\nwant %q", tt.text, r.Text, tt.want)
			}
			if tt.drops != nil {
				if got := dropReasons(r); !slices.Equal(got, tt.drops) {
					t.Errorf("dropped %q, want %q", got, tt.drops)
				}
			}
			for i := 0; i <= len(tt.text); i++ {
				want := Render(tt.text, reg, Options{Order: ByAppearance}).Markdown()
				if got, _ := streamAll(reg, tt.text, i); got != want {
					t.Fatalf("streamed, split at %d:\n got %q\nwant %q", i, got, want)
				}
			}
		})
	}
}
