package extractive

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cite-rag/cite/citations"
)

// The parsers of package extractive read passages and source files, text the
// user's documents decide. Their interesting inputs are committed under
// testdata/fuzz.

var fuzzPassages = []string{
	"Title\n\nFirst line. Second line.\nThird",
	"• Restricted\n\n◦ The default execution policy.\n◦ Permits commands.\n",
	"To list, type:\n\nls -l\npwd\n\nOutput here.",
	"Name | Value | Default\nRow | 1 | [2]\n",
	"東京は日本の首都です。人口は約1400万人です。",
	"Mr. Smith met Dr. Jones in the U.S. in 2010. \"Stop.\" Then…",
	"◦ x\n▪ y:\n\n• z",
}

// FuzzSplitSentences: every sentence is its own span of the text, trimmed,
// in order; presenting it gives a range of the passage that holds it.
func FuzzSplitSentences(f *testing.F) {
	for _, p := range fuzzPassages {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := 0
		for _, s := range splitSentences(text) {
			if s.start < last || s.end <= s.start || s.end > len(text) || text[s.start:s.end] != s.text || strings.TrimSpace(s.text) != s.text {
				t.Fatalf("%q: sentence %+v after %d", text, s, last)
			}
			last = s.end
			p := present(text, s, nil)
			if p.start < 0 || p.start > s.start || p.end < s.end || p.end > len(text) || p.text == "" {
				t.Fatalf("%q: sentence %+v presented as %+v", text, s, p)
			}
			if len(p.block) > maxBlockLines {
				t.Fatalf("%q: %d block lines", text, len(p.block))
			}
		}
	})
}

// FuzzLocate: a located sentence is a range of the source.
func FuzzLocate(f *testing.F) {
	f.Add("The **busy timeout** makes a [connection](c.md) wait.", "The busy timeout makes a connection wait.")
	f.Add("a a a b a b c", "a b c")
	f.Add("<p>cr&egrave;me &#233;t&eacute; &amp; x&;y&#xZZ;</p>", "crème été & x&;y&#xZZ;")
	f.Add("# T\n\n`$Foo` controls **-x** it.", "T\n\n$Foo controls -x it.")
	f.Add("Run it.\n\n```ps\nGet-Item\n```", "Run it.")
	f.Fuzz(func(t *testing.T, raw, passage string) {
		for _, sn := range splitSentences(passage) {
			s, e, ok := locate([]byte(raw), passage, sn.start, sn.end)
			if ok && (s < 0 || e < s || e > len(raw)) {
				t.Fatalf("%q in %q: %d-%d", sn.text, raw, s, e)
			}
		}
	})
}

// FuzzFencedAfter: the block after a sentence and the paragraph's end are
// ranges of the source past the sentence, within the limits.
func FuzzFencedAfter(f *testing.F) {
	f.Add("Run it.\n\n```powershell\nGet-Item\n```\nmore", 7)
	f.Add("Run it. More\ntext.\n~~~~\n```\n~~~~", 7)
	f.Add("Run it.\r\n\r\n  ```\r\n  a\r\n b", 7)
	f.Add("x\n```yaml\nType: y\n```", 1)
	f.Fuzz(func(t *testing.T, raw string, from int) {
		if from < 0 || from > len(raw) {
			return
		}
		pe := paragraphEnd([]byte(raw), from)
		if pe != -1 && (pe < from || pe > len(raw) || pe-from > maxRest) {
			t.Fatalf("%q from %d: paragraph ends at %d", raw, from, pe)
		}
		lines, end, ok := fencedAfter([]byte(raw), from)
		if ok != (len(lines) > 0) || (ok && (end <= from || end > len(raw) || len(lines) > maxBlockLines)) {
			t.Fatalf("%q from %d: %q, %d, %v", raw, from, lines, end, ok)
		}
	})
}

// FuzzInlineText: whatever the text holds, markers of its own included,
// the text and then a marker render with that marker cited as [1] and
// nothing dropped, and so does a block after it.
func FuzzInlineText(f *testing.F) {
	for _, s := range []string{"Into Logs[2006] and `x` or ``y`` [1].", "variable`s value", "a [doc:2] b", "```", "\\`[3]`", "【doc:2】 and [ DOC : 2 ] and [doc2", "~~~"} {
		f.Add(s, "~~~\n[2]\n```")
		f.Add(s, "• [doc:2]\n◦ `x")
	}
	inv := citations.NewInvocation()
	for _, src := range []string{"/d/a.md", "/d/b.md"} { // [doc:2] in the text must not cite b
		inv.Register(citations.Reference{Title: "t", Type: citations.TypeFile, Source: src, Span: citations.Span{Start: 0, End: 1}})
	}
	f.Fuzz(func(t *testing.T, text, block string) {
		if !utf8.ValidString(text) || !utf8.ValidString(block) || strings.ContainsAny(text, "\n\r") || strings.Contains(block, "\r") {
			return // one line of passage text
		}
		if markerLike.MatchString(text) && !mayHoldMarker(text) {
			t.Fatalf("%q: markerLike matches, mayHoldMarker says no", text)
		}
		var lines []string
		if block != "" {
			lines = strings.Split(block, "\n")
		}
		answer := inlineText(strings.TrimSpace(text)) + " [doc:1]"
		if len(lines) > 0 {
			answer += "\n\n" + markdownBlock(lines)
		}
		r := citations.Render(answer, inv, citations.Options{})
		if len(r.References) != 1 || len(r.Dropped) != 0 {
			t.Fatalf("%q: references %+v, dropped %+v", answer, r.References, r.Dropped)
		}
	})
}

// FuzzFencedBefore: the blocks of a source are in order and apart, and the
// block a sentence speaks of is one of them, before it, within the limits.
func FuzzFencedBefore(f *testing.F) {
	f.Add("## Example 1\n\n```powershell\nGet-Item\n```\n\n```Output\nx\n```\n\nThis gets it.", 45)
	f.Add("```\nx\n```\n\n# Run\n\n```\n\nThis runs.", 26)
	f.Add("# Run\r\n\r\n  ~~~~\r\n  a\r\n~~~~~\r\n\r\nIt runs.", 31)
	f.Add("````\n```\n````\nThe code.", 14)
	f.Add("## Example\n\nIt runs.\n\nMore.\n\n```output\nx\n```\n\n```\ny\n```\n", 12)
	f.Fuzz(func(t *testing.T, raw string, at int) {
		if at < 0 || at > len(raw) {
			return
		}
		blocks := fencedBlocks([]byte(raw))
		prev := 0
		for _, b := range blocks {
			if b.open < prev || b.end <= b.open || b.end > len(raw) || (!b.closed && b.end != len(raw)) {
				t.Fatalf("%q: blocks %+v", raw, blocks)
			}
			prev = b.end
		}
		if from := paragraphEnd([]byte(raw), at); from >= 0 {
			lines, end, ok := fencedInSection([]byte(raw), at, from)
			if ok != (len(lines) > 0) || (ok && (end <= from || end > len(raw) || len(lines) > maxBlockLines)) {
				t.Fatalf("%q at %d, from %d: section block %q to %d, %v", raw, at, from, lines, end, ok)
			}
		}
		lines, start, ok := fencedBefore([]byte(raw), at, raw[at:])
		if !ok {
			return
		}
		if len(lines) == 0 || len(lines) > maxBlockLines || start < 0 || start >= at {
			t.Fatalf("%q at %d: %q from %d", raw, at, lines, start)
		}
		if !slices.ContainsFunc(blocks, func(b fence) bool { return b.open == start && b.closed && b.end < at }) {
			t.Fatalf("%q at %d: block at %d is none of %+v", raw, at, start, blocks)
		}
	})
}
