package extractive

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/analysis"
)

func TestSplitSentences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"Mr. Smith met Dr. Jones in the U.S. in 2010. They talked.", []string{"Mr. Smith met Dr. Jones in the U.S. in 2010.", "They talked."}},
		{"J. R. R. Tolkien wrote it. It sold 3.5 million copies.", []string{"J. R. R. Tolkien wrote it.", "It sold 3.5 million copies."}},
		{"Use e.g. the flag. Or not.", []string{"Use e.g. the flag.", "Or not."}},
		{`He said "stop." Then he left.`, []string{`He said "stop."`, "Then he left."}},
		{"Title\n\nFirst line. Second line.\nThird", []string{"Title", "First line.", "Second line.", "Third"}},
		{"東京は日本の首都です。人口は約1400万人です。", []string{"東京は日本の首都です。", "人口は約1400万人です。"}},
		{"  \n  ", nil},
	} {
		var got []string
		for _, s := range splitSentences(tc.text) {
			got = append(got, s.text)
			if tc.text[s.start:s.end] != s.text {
				t.Errorf("%q: span %d-%d is not %q", tc.text, s.start, s.end, s.text)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSentences(%q)\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// TestSentenceKinds: a line without closing punctuation is no sentence (a
// heading, code), nor is a table row or a line of fewer than four words; but a
// list item, or a sentence cut by the passage's end, of ten words or more
// is, and so is a closed sentence of CJK text.
func TestSentenceKinds(t *testing.T) {
	for _, tc := range []struct {
		text    string
		heading bool
	}{
		{"Title of a section that goes on for more than ten words\n", true},
		{"Example 3: Get-Item -Path C:\\Temp | Remove-Item -Recurse -Force -WhatIf\n", true},
		{"Name | Value | Default | Required | Accepts wildcards | Position\n", true},
		{"Short title\n", true},
		{"Too short.\n", true},
		{"A sentence of four words.\n", false},
		{"• An item of a list that needs no period at its end\n", false},
		{"• A short item\n", true},
		{"A sentence that the passage's end cuts after ten words or", false},
		{"A sentence the end cuts short", true},
		{"東京は日本の首都です。", false},
		{"A sentence with a footnote mark after it.[citation needed]\n", false},
		{"Get-Item -Path $paths[1] -Force -Recurse | Select-Object -First $n[2]\n", true},
		{"Name | The name of the thing to find.\n", true},
		{"| maximum allowed range of sixteen items.\n", true},
	} {
		ss := splitSentences(tc.text)
		if len(ss) != 1 || ss[0].heading != tc.heading {
			t.Errorf("%q: %+v, want one sentence, heading %v", tc.text, ss, tc.heading)
		}
	}
}

func TestLocate(t *testing.T) {
	for _, tc := range []struct {
		name, raw, passage, sentence string
		want                         string // "" when not located
	}{
		{"verbatim", "# T\n\nAlpha beta. Gamma delta.", "T\n\nAlpha beta. Gamma delta.", "Gamma delta.", "Gamma delta."},
		{"repeated, the nearer one", "Gamma delta. x x x x x x x x x x Gamma delta.", "Gamma delta. x x x x x x x x x x Gamma delta.", "", ""},
		{"emphasis and links", "The *quick* [fox](f.md) jumps.", "The quick fox jumps.", "The quick fox jumps.", "The *quick* [fox](f.md) jumps."},
		{"html", "<p>Caf&eacute; <b>opens</b> at seven daily now.</p>", "Café opens at seven daily now.", "Café opens at seven daily now.", "Caf&eacute; <b>opens</b> at seven daily now."},
		{"a reference inside a word", "<p>The numbat cr&egrave;me eats termites daily.</p><p>Other para.</p>", "The numbat crème eats termites daily.\n\nOther para.",
			"The numbat crème eats termites daily.", "The numbat cr&egrave;me eats termites daily."},
		{"numeric references, one at the end", "<p>Her r&#233;sum&#233; lists the caf&#xE9;</p>", "Her résumé lists the café", "Her résumé lists the café", "Her r&#233;sum&#233; lists the caf&#xE9;"},
		{"an ampersand that is none", "<p>Salt &amp pepper & more cr&egrave;me here.</p>", "Salt & pepper & more crème here.", "Salt & pepper & more crème here.", "Salt &amp pepper & more cr&egrave;me here."},
		{"html with few words lost", "<p>The caf&eacute; <b>opens</b> at seven every single morning of the week.</p>", "The café opens at seven every single morning of the week.", "The café opens at seven every single morning of the week.", "The caf&eacute; <b>opens</b> at seven every single morning of the week."},
		{"changed file", "Something else entirely.", "Gamma delta.", "Gamma delta.", ""},
		{"code that opens and closes it", "# T\n\n`Remove-Widget` deletes widgets from `C:\\garage`.\n", "T\n\nRemove-Widget deletes widgets from C:\\garage.\n",
			"Remove-Widget deletes widgets from C:\\garage.", "`Remove-Widget` deletes widgets from `C:\\garage`."},
		{"emphasis that opens it, a link that closes it", "x\n\n**Warning** see [the zebra guide](z.md#a).\n", "x\n\nWarning see the zebra guide.\n",
			"Warning see the zebra guide.", "**Warning** see [the zebra guide](z.md#a)."},
		{"a reference link and no punctuation", "Read _the [guide][g]_\n", "Read the guide\n", "Read the guide", "Read _the [guide][g]_"},
		{"code that opens it with a sign", "# T\n\n`$Foo` controls the zebra count.\n", "T\n\n$Foo controls the zebra count.\n",
			"$Foo controls the zebra count.", "`$Foo` controls the zebra count."},
		{"a parameter that opens it", "# T\n\n`-Force` makes the giraffe move.\n", "T\n\n-Force makes the giraffe move.\n",
			"-Force makes the giraffe move.", "`-Force` makes the giraffe move."},
		{"a sign in emphasis", "x\n\n**$5** buys *a* zebra ride.\n", "x\n\n$5 buys a zebra ride.\n", "$5 buys a zebra ride.", "**$5** buys *a* zebra ride."},
		{"a sign the source lacks", "x\n\nFoo controls the zebra count.\n", "x\n\n$Foo controls the zebra count.\n", "$Foo controls the zebra count.", "Foo controls the zebra count."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := strings.Index(tc.passage, tc.sentence)
			end := start + len(tc.sentence)
			if tc.sentence == "" { // the second occurrence
				start = strings.LastIndex(tc.passage, "Gamma delta.")
				end = len(tc.passage)
				tc.want = "Gamma delta."
			}
			s, e, ok := locate([]byte(tc.raw), tc.passage, start, end)
			got := ""
			if ok {
				got = tc.raw[s:e]
			}
			if got != tc.want {
				t.Fatalf("located %q, want %q", got, tc.want)
			}
			if tc.name == "repeated, the nearer one" && s != strings.LastIndex(tc.raw, "Gamma") {
				t.Fatalf("located the first occurrence, at %d", s)
			}
		})
	}
}

func TestQuestionCue(t *testing.T) {
	for q, want := range map[string]cue{
		"How many touchdowns did Newton get?": cueNumber,
		"When was the stadium picked?":        cueDate,
		"In what year did it open?":           cueDate,
		"Who was the MVP?":                    cueName,
		"Where did it take place?":            cuePlace,
		"What color was used?":                cueNone,
	} {
		if got := questionCue(q); got != want {
			t.Errorf("questionCue(%q) = %d, want %d", q, got, want)
		}
	}
	if !hasCue("It opened in 1995.", cueDate, foldedWords("When did it open?")) ||
		hasCue("It opened in 1995.", cueDate, foldedWords("What opened in 1995?")) {
		t.Error("hasCue")
	}
	if !hasCue("The game was played at Levi's Stadium.", cuePlace, foldedWords("Where was the game played?")) ||
		hasCue("Levi's Stadium hosted the game.", cuePlace, foldedWords("Where was the game played?")) {
		t.Error("hasCue: a place is a name after in, at, near...")
	}
}

func TestDropTypeWords(t *testing.T) {
	for _, tc := range []struct{ question, want string }{
		{"How old was Newton during Super Bowl 50?", "newton super bowl 50"},
		{"How many yards did he run?", "yard run"},
		{"How long is the old bridge?", "old bridg"},
		{"What is the old name of the city?", "old name citi"},
		{"How old?", "old"}, // nothing else left: the terms stay
		{"How do checkpoints work?", "checkpoint"},
		{"How does the busy timeout work", "busi timeout"},
		{"How did work change?", "work chang"},
		{"and how do checkpoints work?", "checkpoint"},
		{"OK, so how does the busy timeout work", "busi timeout"},
		{"Then, what is the busy timeout?", "busi timeout"},
		{"Well water: how does it work?", "well water work"},
	} {
		got := strings.Join(dropTypeWords(tc.question, analysis.AnalyzeQuery(tc.question)), " ")
		if got != tc.want {
			t.Errorf("dropTypeWords(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestPresent(t *testing.T) {
	long := strings.Repeat("x\n", maxBlockLines+1)
	for _, tc := range []struct {
		name, passage, sentence string // sentence: its text, found in passage
		text, quoted            string // quoted: the passage range the quote covers
		block                   string // its lines joined
	}{
		{"plain", "One. Two is here.", "Two is here.", "Two is here.", "Two is here.", ""},
		{"top-level bullet dropped", "Intro\n• An item here.", "• An item here.", "An item here.", "• An item here.", ""},
		{"nested item under a label", "• Label\n◦ First.\n◦ Second one.", "◦ Second one.", "Label: Second one.", "Label\n◦ First.\n◦ Second one.", ""},
		{"label with a colon, blank lines", "• Label:\n\n◦ First.\n\n◦ Second one.", "◦ Second one.", "Label: Second one.", "Label:\n\n◦ First.\n\n◦ Second one.", ""},
		{"deeper nesting skipped", "◦ Mode\n▪ Sub.\n▪ Deep one.", "▪ Deep one.", "Mode: Deep one.", "Mode\n▪ Sub.\n▪ Deep one.", ""},
		{"parent is a sentence", "• The parent item is a sentence.\n◦ Child one.", "◦ Child one.", "Child one.", "◦ Child one.", ""},
		{"parent is too long", "• one two three four five six seven\n◦ Child one.", "◦ Child one.", "Child one.", "◦ Child one.", ""},
		{"parent too far", "• Label\n" + strings.Repeat("◦ Sibling.\n", maxBlockBytes/12) + "◦ Child one.", "◦ Child one.", "Child one.", "◦ Child one.", ""},
		{"no parent", "Text line.\n◦ Child one.", "◦ Child one.", "Child one.", "◦ Child one.", ""},
		{"bullet not at the line's start", "Use • here.", "• here.", "• here.", "• here.", ""},
		{"colon and code", "To list, type:\n\nls -l\npwd\n\nOutput.", "To list, type:", "To list, type:", "To list, type:\n\nls -l\npwd", "ls -l\npwd"},
		{"colon and a list to the end", "The modes are:\n• a\n• b\n", "The modes are:", "The modes are:", "The modes are:\n• a\n• b", "• a\n• b"},
		{"colon at the end", "Type this:", "Type this:", "Type this:", "Type this:", ""},
		{"an alert's label", "[!NOTE] Tab completion works here.", "[!NOTE] Tab completion works here.", "Note: Tab completion works here.", "[!NOTE] Tab completion works here.", ""},
		{"an alert's label, loose", "[!NOTEWORTHY] Not one.", "[!NOTEWORTHY] Not one.", "[!NOTEWORTHY] Not one.", "[!NOTEWORTHY] Not one.", ""},
		{"colon, blank lines to the end", "Type this:\n\n", "Type this:", "Type this:", "Type this:", ""},
		{"colon and too many lines", "Type this:\n" + long, "Type this:", "Type this:", "Type this:", ""},
		{"colon and too many bytes", "Type this:\n" + strings.Repeat("y", maxBlockBytes+1), "Type this:", "Type this:", "Type this:", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := strings.Index(tc.passage, tc.sentence)
			if i < 0 {
				t.Fatalf("%q not in the passage", tc.sentence)
			}
			p := present(tc.passage, sentence{text: tc.sentence, start: i, end: i + len(tc.sentence)}, nil)
			block := strings.Join(p.block, "\n")
			if p.text != tc.text || tc.passage[p.start:p.end] != tc.quoted || block != tc.block {
				t.Errorf("got %q, quoting %q, block %q; want %q, quoting %q, block %q",
					p.text, tc.passage[p.start:p.end], block, tc.text, tc.quoted, tc.block)
			}
		})
	}
}

func TestMarkdownBlock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"code", []string{"ls -l", "  pwd"}, "```\nls -l\n  pwd\n```"},
		{"code holding fences", []string{"~~~", "a ```` b", "```"}, "`````\n~~~\na ```` b\n```\n`````"},
		{"list", []string{"• a", "◦ b", "▪ c", "• d"}, "- a\n  - b\n    - c\n- d"},
		{"list and not", []string{"• a", "b"}, "```\n• a\nb\n```"},
		{"ordered list is code", []string{"1. a", "2. b"}, "```\n1. a\n2. b\n```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := markdownBlock(tc.lines); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInlineText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"No brackets here.", "No brackets here."},
		{"The tag <img src=x onerror=alert(1)> and a < b.", "The tag \\<img src=x onerror=alert(1)> and a < b."},
		{"See [the guide](javascript:alert(1)) and [x] alone.", "See \\[the guide](javascript:alert(1)) and [x] alone."},
		{"Go to <https://x.example> or <!-- c -->.", "Go to \\<https://x.example> or \\<!-- c -->."},
		{"Into the Logs[2006] directory.", "Into the `Logs[2006]` directory."},
		{"Moves Logs[Sept`06] into Logs[2006].", "Moves Logs[Sept\\`06] into `Logs[2006]`."},
		{"The variable`s value [1]", "The variable\\`s value `[1]`"},
		{"Cite [doc:2] and [ DOC : 3 ] and 【doc:1】 here.", "Cite `[doc:2]` and `[ DOC : 3 ]` and `【doc:1】` here."},
		{"Cut [doc:2", "Cut `[doc:2`"},
		{"~~~ fence", "\\~~~ fence"},
		{"Moves Logs[`06][1] in.", "Moves ``Logs[`06][1]`` in."},
		{"Ends in `[1]`", "Ends in `` `[1]` ``"},
		{"Array $a[1], then [x].", "Array `$a[1]`, then [x]."},
	} {
		if got := inlineText(tc.in); got != tc.want {
			t.Errorf("inlineText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// clippedX is a block of more than maxBlockLines lines "x" as an answer
// shows it.
var clippedX = append(slices.Repeat([]string{"x"}, maxBlockLines-1), "…")

func TestFencedAfter(t *testing.T) {
	long := strings.Repeat("x\n", maxBlockLines+1)
	for _, tc := range []struct {
		name, raw string // raw: the sentence is "Run it." at its start
		lines     []string
		quoted    string // raw up to the block's end
	}{
		{"fence after a blank line", "Run it.\n\n```powershell\nGet-Item\n  Set-Item\n```\nmore", []string{"Get-Item", "  Set-Item"}, "Run it.\n\n```powershell\nGet-Item\n  Set-Item"},
		{"tilde fence right after", "Run it.\n~~~~\n```\n~~~\n~~~~\n", []string{"```", "~~~"}, "Run it.\n~~~~\n```\n~~~"},
		{"indented fence loses its indent", "Run it.\r\n\r\n  ```\r\n  a\r\n b\r\n  ```\r\n", []string{"a", "b"}, "Run it.\r\n\r\n  ```\r\n  a\r\n b"},
		{"cut by the chunk's edge", "Run it.\n\n```\na\nb", []string{"a", "b"}, "Run it.\n\n```\na\nb"},
		{"the paragraph goes on", "Run it. And more.\n\n```\na\n```", nil, ""},
		{"the next line is text", "Run it.\nMore text.\n\n```\na\n```", nil, ""},
		{"indented four: code, not a fence", "Run it.\n\n    ```\n    a\n    ```", nil, ""},
		{"backtick in the info string", "Run it.\n\n``` a`b\nx\n```", nil, ""},
		{"empty block", "Run it.\n\n```\n\n```", nil, ""},
		{"too many lines: the first ones, then …", "Run it.\n\n```\n" + long + "```", clippedX, "Run it.\n\n```\n" + strings.Repeat("x\n", maxBlockLines-2) + "x"},
		{"too many bytes", "Run it.\n\n```\n" + strings.Repeat("y", maxBlockBytes) + "\n```", nil, ""},
		{"nothing after", "Run it.", nil, ""},
		{"metadata", "Run it.\n\n```yaml\nType: String\n```", nil, ""},
		{"output", "Run it.\n\n```Output\n42\n```", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, end, ok := fencedAfter([]byte(tc.raw), len("Run it."))
			if !reflect.DeepEqual(lines, tc.lines) || ok != (tc.lines != nil) || (ok && tc.raw[:end] != tc.quoted) {
				t.Errorf("got %q, %v, quoting %q; want %q, quoting %q", lines, ok, tc.raw[:end], tc.lines, tc.quoted)
			}
		})
	}
}

func TestParagraphEnd(t *testing.T) {
	for _, tc := range []struct {
		name, raw string // the sentence is "Run it." at raw's start
		want      int    // -1, or the length of the paragraph
	}{
		{"ends the paragraph", "Run it.\n\nNext.", len("Run it.")},
		{"trailing spaces", "Run it.  \r\n\r\nNext.", len("Run it.")},
		{"goes on over lines", "Run it. And\nmore here.\n\n```\nx\n```", len("Run it. And\nmore here.")},
		{"a fence interrupts it", "Run it. More.\n```\nx\n```", len("Run it. More.")},
		{"the source ends first", "Run it. More.", -1},
		{"too long", "Run it. " + strings.Repeat("word ", maxRest/5+1) + "\n\n", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paragraphEnd([]byte(tc.raw), len("Run it.")); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestMayHoldMarker(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"", false}, {"plain [1] text", false}, {"a [doc:2]", true}, {"[ \tDOC 3]", true},
		{"【doc:1】", true}, {"【 Doc", true}, {"[do", false}, {"[documents]", true}, {"(doc:2)", false},
	} {
		if got := mayHoldMarker(tc.text); got != tc.want {
			t.Errorf("mayHoldMarker(%q) = %v, want %v", tc.text, got, tc.want)
		}
		if got := markerLike.MatchString(tc.text); got && !tc.want {
			t.Errorf("%q matches markerLike but mayHoldMarker says no", tc.text)
		}
	}
}

func TestFencedBefore(t *testing.T) {
	long := strings.Repeat("x\n", maxBlockLines+1)
	const said = "It runs."
	for _, tc := range []struct {
		name, raw string // the sentence is said, at the end of raw
		lines     []string
		quoted    string // raw from the block's opening fence
	}{
		{"heading, code, sentence", "## Example 1: Run\n\n```powershell\nGet-Item\n  Set-Item\n```\n\n", []string{"Get-Item", "  Set-Item"}, "```powershell\nGet-Item\n  Set-Item\n```\n\n"},
		{"right after the fence", "# Run\n~~~\na\n~~~\n", []string{"a"}, "~~~\na\n~~~\n"},
		{"output between", "### Example\n\n```powershell\nGet-Date\n```\n\n```Output\nMonday\n```\n\n", []string{"Get-Date"}, "```powershell\nGet-Date\n```\n\n```Output\nMonday\n```\n\n"},
		{"indented fence loses its indent", "# Run\r\n\r\n  ```\r\n  a\r\n b\r\n  ```\r\n\r\n", []string{"a", "b"}, "  ```\r\n  a\r\n b\r\n  ```\r\n\r\n"},
		{"inside a block", "```\nx\n```\n\n# Run\n\n```\n\n", nil, ""},
		{"a heading in the code", "# Run\n\n```\n# Run\n\n```\n\n", []string{"# Run"}, "```\n# Run\n\n```\n\n"},
		{"a longer fence holds the shorter", "# Run\n\n````\n```\nx\n````\n\n", []string{"```", "x"}, "````\n```\nx\n````\n\n"},
		{"prose before the block", "Some text.\n\n```\na\n```\n\n", nil, ""},
		{"the paragraph starts earlier", "# Run\n\n```\na\n```\n\nFirst. ", nil, ""},
		{"only output", "# Run\n\n```Output\n42\n```\n\n", nil, ""},
		{"metadata", "# Run\n\n```yaml\nType: String\n```\n\n", nil, ""},
		{"too many lines: the first ones, then …", "# Run\n\n```\n" + long + "```\n\n", clippedX, "```\n" + long + "```\n\n"},
		{"too many bytes", "# Run\n\n```\n" + strings.Repeat("y", maxBlockBytes) + "\n```\n\n", nil, ""},
		{"unclosed", "# Run\n\n```\na\n\n", nil, ""},
		{"nothing before", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.raw + said
			lines, start, ok := fencedBefore([]byte(raw), len(tc.raw), said)
			if !reflect.DeepEqual(lines, tc.lines) || ok != (tc.lines != nil) || (ok && raw[start:len(tc.raw)] != tc.quoted) {
				t.Errorf("got %q, %v, quoting %q; want %q, quoting %q", lines, ok, raw[start:len(tc.raw)], tc.lines, tc.quoted)
			}
		})
	}
	// A sentence that speaks of the example needs no heading.
	raw := "Some text.\n\n```\na\n```\n\nThis example runs a."
	if lines, _, ok := fencedBefore([]byte(raw), strings.Index(raw, "This"), "This example runs a."); !ok || !reflect.DeepEqual(lines, []string{"a"}) {
		t.Errorf("about the example: got %q, %v", lines, ok)
	}
}

func TestFencedBlocks(t *testing.T) {
	raw := "a\n```go\nx\n```\n  ~~~~ Output more\ny\n~~~\n~~~~~\n``` a`b\n```\nz\n"
	got := fencedBlocks([]byte(raw))
	want := []fence{
		{open: 2, end: 13, info: "go", lines: []string{"x"}, ends: []int{9}, closed: true},
		{open: 14, end: len(raw) - len("\n``` a`b\n```\nz\n"), info: "output", lines: []string{"y", "~~~"}, ends: []int{34, 38}, closed: true},
		{open: len(raw) - len("```\nz\n"), end: len(raw), lines: []string{"z"}, ends: []int{58}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestFencedInSection(t *testing.T) {
	const head = "## Example 1\n\n"
	const said = "It runs."
	for _, tc := range []struct {
		name, rest string // raw is head + said + rest
		lines      []string
		quoted     string // rest up to the block's last line
	}{
		{"after more paragraphs", "\n\nMore text.\n\n```powershell\nGet-Item\n```\n", []string{"Get-Item"}, "\n\nMore text.\n\n```powershell\nGet-Item"},
		{"past output and metadata", "\n\n```Output\n1\n```\n\n~~~yaml\na: b\n~~~\n\n```\nx\n```", []string{"x"}, "\n\n```Output\n1\n```\n\n~~~yaml\na: b\n~~~\n\n```\nx"},
		{"cut by the chunk's edge", "\n\n```\nx\ny", []string{"x", "y"}, "\n\n```\nx\ny"},
		{"a heading ends the section", "\n\n## Example 2\n\n```\nx\n```\n", nil, ""},
		{"a heading in a block is code", "\n\n```\n# x\n```\n", []string{"# x"}, "\n\n```\n# x"},
		{"too far", "\n\n" + strings.Repeat("word ", maxGap/5+1) + "\n\n```\nx\n```\n", nil, ""},
		{"too long: the first lines, then …", "\n\n```\n" + strings.Repeat("x\n", maxBlockLines+1) + "```\n", clippedX, "\n\n```\n" + strings.Repeat("x\n", maxBlockLines-2) + "x"},
		{"a first line too long", "\n\n```\n" + strings.Repeat("y", maxBlockBytes) + "\n```\n", nil, ""},
		{"no block", "\n\nMore text.\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := head + said + tc.rest
			from := len(head + said)
			lines, end, ok := fencedInSection([]byte(raw), len(head), from)
			if !reflect.DeepEqual(lines, tc.lines) || ok != (tc.lines != nil) || (ok && raw[from:end] != tc.quoted) {
				t.Errorf("got %q, %v, to %d; want %q, quoting %q", lines, ok, end, tc.lines, tc.quoted)
			}
		})
	}
	// Not the first paragraph of a section: nothing.
	raw := "Intro.\n\nIt runs.\n\n```\nx\n```\n"
	if _, _, ok := fencedInSection([]byte(raw), len("Intro.\n\n"), len("Intro.\n\nIt runs.")); ok {
		t.Error("a paragraph after prose brought the section's code")
	}
}

// TestRunOn: a run of words without an end (a transcript without
// punctuation) is cut into citable pieces of at most pieceWords words,
// after a comma in a piece's second half where there is one, and an answer
// quotes the piece that holds the question's words, not the whole run.
func TestRunOn(t *testing.T) {
	filler := strings.Repeat("so we went down to the river and then ", 30) // 270 words
	for _, tc := range []struct {
		name   string
		text   string
		pieces int
		want   string // the answer's sentence
	}{
		{"no punctuation", filler + "the launch code is zebra forty two and that was it",
			8, strings.Repeat("river and then so we went down to the ", 3) + "river and then the launch code is zebra forty two and that was"},
		{"commas", strings.Repeat("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone twentytwo, ", 8) + "the launch code is zebra forty two.",
			8, "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone twentytwo, the launch code is zebra forty two."},
		{"a long sentence stays whole", strings.Repeat("word ", maxSentenceWords-10) + "and the launch code is zebra forty two.", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := splitSentences(tc.text)
			if len(ss) != tc.pieces {
				t.Errorf("%d sentences, want %d", len(ss), tc.pieces)
			}
			words := 0
			for _, s := range ss {
				n := len(strings.Fields(s.text))
				words += n
				if tc.text[s.start:s.end] != s.text || s.heading || (tc.pieces > 1 && (n > pieceWords || !s.fragment)) {
					t.Errorf("sentence %+v (%d words)", s, n)
				}
			}
			if words != len(strings.Fields(tc.text)) {
				t.Errorf("the sentences hold %d words, the text %d", words, len(strings.Fields(tc.text)))
			}
			if tc.want == "" {
				return
			}
			sents, err := New(Options{}).Answer(t.Context(), "what is the launch code", []citations.Reference{{Index: 1, Title: "transcript.txt", Type: citations.TypeUpload, Passage: tc.text}})
			if err != nil || len(sents) == 0 {
				t.Fatalf("%v: %d sentences", err, len(sents))
			}
			if sents[0].Text != tc.want {
				t.Errorf("answer %q, want %q", sents[0].Text, tc.want)
			}
		})
	}
}
