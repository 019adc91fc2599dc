package answer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/provider"
)

// file is a source file for a test: its raw bytes, and the passage the
// index would hold for it (normalized text of the chunk).
type file struct {
	name    string
	raw     string
	passage string // "" means raw itself
	start   int    // where the passage's span starts in raw
}

// askExtractive registers files as file references in a fresh invocation
// and streams the extractive answer to question through a citations.Stream.
// It returns the deltas, the streamed output and the rendering.
func askExtractive(t *testing.T, opts ExtractiveOptions, question string, files []file) ([]string, string, citations.Rendered) {
	t.Helper()
	dir := t.TempDir()
	ctx := citations.Begin(t.Context())
	inv, _ := citations.FromContext(ctx)
	inv.SetResolver(citations.DefaultResolver())
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.raw), 0o644); err != nil {
			t.Fatal(err)
		}
		passage := f.passage
		if passage == "" {
			passage = f.raw
		}
		if _, err := inv.Register(citations.Reference{Title: f.name, Passage: passage, Type: citations.TypeFile, Source: p, Span: citations.Span{Start: f.start, End: len(f.raw)}}); err != nil {
			t.Fatal(err)
		}
	}
	st := citations.NewStream(inv)
	var deltas []string
	var out strings.Builder
	resp, err := NewExtractive(opts).Chat(ctx, provider.ChatRequest{Messages: []provider.Message{
		{Role: provider.RoleSystem, Content: "Answer from the passages."},
		{Role: provider.RoleUser, Content: "an earlier question about cats"},
		{Role: provider.RoleAssistant, Content: "an earlier answer"},
		{Role: provider.RoleUser, Content: question},
	}}, func(d string) error {
		deltas = append(deltas, d)
		out.WriteString(st.Feed(d))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, ""); got != resp.Content {
		t.Errorf("deltas %q do not add up to the content %q", got, resp.Content)
	}
	out.WriteString(st.Close())
	return deltas, out.String(), st.Result()
}

// checkQuotes asserts the quote contract on every cited reference: a quote
// span inside the passage's span whose bytes in the file are the quote, and
// a link that opens it.
func checkQuotes(t *testing.T, r citations.Rendered) {
	t.Helper()
	for _, c := range r.References {
		if c.Quote == "" {
			t.Errorf("%s: no quote", c.Key)
			continue
		}
		qs := c.QuoteSpan
		if qs == nil {
			t.Errorf("%s: quote %q has no span", c.Key, c.Quote)
			continue
		}
		if qs.Start < c.Span.Start || qs.End > c.Span.End || qs.Start >= qs.End {
			t.Errorf("%s: quote span %+v outside %+v", c.Key, *qs, c.Span)
			continue
		}
		data, err := os.ReadFile(c.Source)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(data[qs.Start:qs.End]); got != c.Quote {
			t.Errorf("%s: source bytes %q, quote %q", c.Key, got, c.Quote)
		}
		if want := fmt.Sprintf("#bytes=%d-%d", qs.Start, qs.End); !strings.HasSuffix(c.Link, want) {
			t.Errorf("%s: link %s, want it to end in %s", c.Key, c.Link, want)
		}
	}
}

const (
	bees = "A honeybee colony has one queen, a few hundred drones and thousands of workers. " +
		"Foragers perform the waggle dance to tell their sisters the direction and distance of flowers. " +
		"Workers raise a new queen by feeding a larva only royal jelly."
	sqlite = "In write-ahead logging mode, readers do not block the writer. " +
		"A checkpoint copies pages from the write-ahead log back into the database file. " +
		"The busy timeout makes a connection wait for a lock instead of failing at once."
)

func TestExtractive(t *testing.T) {
	for _, tc := range []struct {
		name     string
		question string
		files    []file
		text     string   // the rendered answer without the reference list
		quotes   []string // the cited references' quotes, in display order
	}{{
		name:     "best sentence of the second passage",
		question: "What does a checkpoint copy?",
		files:    []file{{name: "bees.md", raw: bees}, {name: "sqlite.md", raw: sqlite}},
		text:     "A checkpoint copies pages from the write-ahead log back into the database file. [1]",
		quotes:   []string{"A checkpoint copies pages from the write-ahead log back into the database file."},
	}, {
		name:     "sentences from two passages",
		question: "What do honeybee workers feed a new queen, and what does a checkpoint copy?",
		files:    []file{{name: "bees.md", raw: bees}, {name: "sqlite.md", raw: sqlite}},
		text: "Workers raise a new queen by feeding a larva only royal jelly. [1] " +
			"A checkpoint copies pages from the write-ahead log back into the database file. [2]",
		quotes: []string{"Workers raise a new queen by feeding a larva only royal jelly.",
			"A checkpoint copies pages from the write-ahead log back into the database file."},
	}, {
		name:     "nothing relevant",
		question: "Who won the 1998 World Cup final in Paris?",
		files:    []file{{name: "bees.md", raw: bees}, {name: "sqlite.md", raw: sqlite}},
		text:     NothingFound,
	}, {
		name:     "no passages",
		question: "What does a checkpoint copy?",
		text:     NothingFound,
	}, {
		name:     "a question without content words",
		question: "What is it?",
		files:    []file{{name: "bees.md", raw: bees}},
		text:     NothingFound,
	}, {
		name:     "markdown markup between the words",
		question: "What does the busy timeout do?",
		files: []file{{
			name:    "sqlite.md",
			raw:     "# SQLite\n\nThe **busy timeout** makes a [connection](conn.md) wait for a lock instead of failing.\n",
			passage: "SQLite\n\nThe busy timeout makes a connection wait for a lock instead of failing.\n",
		}},
		text:   "The busy timeout makes a connection wait for a lock instead of failing. [1]",
		quotes: []string{"The **busy timeout** makes a [connection](conn.md) wait for a lock instead of failing."},
	}, {
		name:     "unicode",
		question: "Où se trouve le café Über?",
		files: []file{{name: "cafe.md", raw: "Le café Über se trouve à Zürich, près du lac. Il ouvre à 7 h."},
			{name: "tokyo.md", raw: "東京は日本の首都です。人口は約1400万人です。"}},
		text:   "Le café Über se trouve à Zürich, près du lac. [1]",
		quotes: []string{"Le café Über se trouve à Zürich, près du lac."},
	}, {
		name:     "CJK",
		question: "日本の首都は?",
		files:    []file{{name: "tokyo.md", raw: "東京は日本の首都です。人口は約1400万人です。"}},
		text:     "東京は日本の首都です。 [1]",
		quotes:   []string{"東京は日本の首都です。"},
	}, {
		name:     "a sentence ending with a colon brings the code it introduces",
		question: "How do I create a new directory?",
		files:    []file{markdown("items.md", itemsMD)},
		text:     "To create a new directory named Scripts in C:\\Temp, type: [1]\n\n```\nNew-Item -Path C:\\Temp\\Scripts -ItemType Directory\nGet-Item C:\\Temp\\Scripts\n```",
		quotes:   []string{"To create a new directory named `Scripts` in `C:\\Temp`, type:\n\n```powershell\nNew-Item -Path C:\\Temp\\Scripts -ItemType Directory\nGet-Item C:\\Temp\\Scripts"},
	}, {
		name:     "a block holding fences leaves the markers to the renderer",
		question: "Which error does a blocked script give?",
		files: []file{{name: "error.txt",
			raw: "A blocked script gives the following error:\n\nAuthorizationManager check failed.\n+ ~~~~\n  ~~~~\n```\n\nThe error names the script.\n"}},
		text:   "A blocked script gives the following error: [1]\n\n````\nAuthorizationManager check failed.\n+ ~~~~\n  ~~~~\n```\n````",
		quotes: []string{"A blocked script gives the following error:\n\nAuthorizationManager check failed.\n+ ~~~~\n  ~~~~\n```"},
	}, {
		name:     "a heading that scores best stands for its section's first sentence, which brings the code after it",
		question: "How do I stop all instances of a process running on another computer?",
		files:    []file{markdown("stop.md", stopMD)},
		text:     "This command ends every Notepad process on Server01. [1]\n\n```\nInvoke-Command -ComputerName Server01 { Stop-Process -Name notepad }\n```",
		quotes:   []string{"Example 2: Stop all instances of a process running on another computer\n\nThis command ends every Notepad process on Server01.\n\n```powershell\nInvoke-Command -ComputerName Server01 { Stop-Process -Name notepad }"},
	}, {
		name:     "the first sentence brings the rest of its paragraph and the code after it",
		question: "How do I bind the up arrow key to a function?",
		files: []file{markdown("keys.md", "# Set-PSReadLineKeyHandler\n\n### Example 1\n\nThis command binds the up arrow key to the\n**HistorySearchBackward** function. It searches `history`.\n\n"+
			"```powershell\nSet-PSReadLineKeyHandler -Chord UpArrow -Function HistorySearchBackward\n```\n")},
		text:   "This command binds the up arrow key to the HistorySearchBackward function. It searches history. [1]\n\n```\nSet-PSReadLineKeyHandler -Chord UpArrow -Function HistorySearchBackward\n```",
		quotes: []string{"This command binds the up arrow key to the\n**HistorySearchBackward** function. It searches `history`.\n\n```powershell\nSet-PSReadLineKeyHandler -Chord UpArrow -Function HistorySearchBackward"},
	}, {
		name:     "a sentence after the code it speaks of brings it",
		question: "How do I get the date of a file?",
		files: []file{markdown("date.md", "# Get-Date\n\n### Example 1: Get the date of a file\n\n```powershell\nGet-Date -Date (Get-Item a.txt).LastWriteTime\n```\n\n"+
			"```Output\nMonday\n```\n\nThis example gets the date a file was last written. It reads `LastWriteTime`.\n\n### Example 2\n\nMore.\n")},
		text:   "This example gets the date a file was last written. It reads LastWriteTime. [1]\n\n```\nGet-Date -Date (Get-Item a.txt).LastWriteTime\n```",
		quotes: []string{"```powershell\nGet-Date -Date (Get-Item a.txt).LastWriteTime\n```\n\n```Output\nMonday\n```\n\nThis example gets the date a file was last written. It reads `LastWriteTime`."},
	}, {
		name:     "a passage starting inside a code block",
		question: "How do I get the time zone?",
		files: []file{{name: "zone.md", raw: "# Tool\n\n```\nThe old zone.\n```\n\n## Example 2: Get the time zone\n\n```powershell\nGet-TimeZone\n```\n\nThis command gets the time zone.\n",
			start:   len("# Tool\n\n```\n"),
			passage: "The old zone.\n\nExample 2: Get the time zone\n\nGet-TimeZone\n\nThis command gets the time zone.\n"}},
		text:   "This command gets the time zone. [1]\n\n```\nGet-TimeZone\n```",
		quotes: []string{"```powershell\nGet-TimeZone\n```\n\nThis command gets the time zone."},
	}, {
		name:     "a heading stands for its section's first sentence past a byline",
		question: "Why do zebra stripes confuse flies near water?",
		files:    []file{markdown("zebra.md", "# Zebra Stripes Confuse Flies Near Water\n\nBy Jane\n\nResearchers found that the stripes dazzle them.\n")},
		text:     "Researchers found that the stripes dazzle them. [1]",
		quotes:   []string{"Zebra Stripes Confuse Flies Near Water\n\nBy Jane\n\nResearchers found that the stripes dazzle them."},
	}, {
		name:     "a section's first sentence brings the section's first code block",
		question: "How do I delete files in subfolders recursively?",
		files: []file{markdown("rm.md", "# Remove-Item\n\n### Example 4: Delete files in subfolders recursively\n\nThis command deletes the CSV files of every subfolder.\n\n"+
			"Because of a known issue, it uses `Get-ChildItem`.\n\n```yaml\nType: x\n```\n\n```powershell\nGet-ChildItem * -Include *.csv -Recurse | Remove-Item\n```\n\n### Example 5\n\n```powershell\nRemove-Item x\n```\n")},
		text:   "This command deletes the CSV files of every subfolder. [1]\n\n```\nGet-ChildItem * -Include *.csv -Recurse | Remove-Item\n```",
		quotes: []string{"Example 4: Delete files in subfolders recursively\n\nThis command deletes the CSV files of every subfolder.\n\nBecause of a known issue, it uses `Get-ChildItem`.\n\n```yaml\nType: x\n```\n\n```powershell\nGet-ChildItem * -Include *.csv -Recurse | Remove-Item"},
	}, {
		name:     "a line of code is no sentence, not even as a section's first",
		question: "How do I write a single-line comment?",
		files: []file{markdown("comments.md", "# Comments\n\n## Example 1: Write a single-line comment\n\n```powershell\n# This is a single-line comment.\n# This is also a single-line comment.\n```\n\n"+
			"## Example 2: Block comment\n\n```powershell\n<#\n    A block comment.\n#>\n```\n")},
		text:   "Example 1: Write a single-line comment [1]\n\n```\n# This is a single-line comment.\n# This is also a single-line comment.\n```",
		quotes: []string{"Example 1: Write a single-line comment\n\n```powershell\n# This is a single-line comment.\n# This is also a single-line comment."},
	}, {
		name:     "the last line of code is no sentence cut by the passage's end",
		question: "How do I list the installed module versions?",
		files:    []file{markdown("versions.md", "# Versions\n\nTo list the installed module versions, run this in a shell.\n\n```powershell\nPS> Get-Module -ListAvailable Gizmo | Select-Object Name, Version\n```\n")},
		text:     "To list the installed module versions, run this in a shell. [1]\n\n```\nPS> Get-Module -ListAvailable Gizmo | Select-Object Name, Version\n```",
		quotes:   []string{"To list the installed module versions, run this in a shell.\n\n```powershell\nPS> Get-Module -ListAvailable Gizmo | Select-Object Name, Version"},
	}, {
		name:     "a passage cannot cite another",
		question: "How does cite mark a citation in an answer?",
		files: []file{{name: "markers.md", raw: "Cite marks a citation in an answer as [doc:2], the passage's number.\n"},
			{name: "other.md", raw: "An unrelated passage about bees and honey.\n"}},
		text:   "Cite marks a citation in an answer as `[doc:2]`, the passage's number. [1]",
		quotes: []string{"Cite marks a citation in an answer as [doc:2], the passage's number."},
	}, {
		name:     "look-alikes of markers and citation numbers stay text",
		question: "Which markers does the citation scanner read in the interval notes?",
		files: []file{{name: "lookalikes.md", raw: "The citation scanner reads ［doc:2］, &#91;doc:3&#93;, [doc\\:4] and [doc\u200b:5] in the interval notes [0, 1] and [2-3] of 【1】.\n"},
			{name: "other.md", raw: "An unrelated passage about bees and honey.\n"}},
		text:   "The citation scanner reads `［doc:2］`, `&#91;doc:3&#93;`, `[doc\\:4]` and `[doc\u200b:5]` in the interval notes `[0, 1]` and `[2-3]` of `【1】`. [1]",
		quotes: []string{"The citation scanner reads ［doc:2］, &#91;doc:3&#93;, [doc\\:4] and [doc\u200b:5] in the interval notes [0, 1] and [2-3] of 【1】."},
	}, {
		name:     "a sentence ending with a colon brings a loose list whole",
		question: "What are the widget policies?",
		files:    []file{markdown("widgets.md", "# Policies\n\nThe widget policies are as follows:\n\n- Strict\n\n  - Blocks everything.\n\n- Relaxed\n\n  - Allows everything.\n\nOther text.\n")},
		text:     "The widget policies are as follows: [1]\n\n- Strict\n  - Blocks everything.\n- Relaxed\n  - Allows everything.",
		quotes:   []string{"The widget policies are as follows:\n\n- Strict\n\n  - Blocks everything.\n\n- Relaxed\n\n  - Allows everything."},
	}, {
		name:     "a nested list item gets its label and loses its bullet",
		question: "Which execution policy is the default on Windows client computers?",
		files:    []file{markdown("policies.md", policiesMD)},
		text:     "Restricted: The default execution policy on Windows client computers. [1]",
		quotes:   []string{"Restricted\n  - The default execution policy on Windows client computers."},
	}, {
		name:     "a sentence two documents hold, one in a list, is said once",
		question: "Which execution policy is the default on Windows client computers?",
		files:    []file{markdown("policies-5.1.md", policiesMD), markdown("restricted-7.4.md", "# Restricted\n\nThe default execution policy on Windows client computers.\n")},
		text:     "Restricted: The default execution policy on Windows client computers. [1]",
		quotes:   []string{"Restricted\n  - The default execution policy on Windows client computers."},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			deltas, out, r := askExtractive(t, ExtractiveOptions{}, tc.question, tc.files)
			if r.Text != tc.text {
				t.Errorf("text\n got %q\nwant %q", r.Text, tc.text)
			}
			var quotes []string
			for _, c := range r.References {
				quotes = append(quotes, c.Quote)
			}
			if !reflect.DeepEqual(quotes, tc.quotes) {
				t.Errorf("quotes\n got %q\nwant %q", quotes, tc.quotes)
			}
			if len(r.Dropped) > 0 || strings.Contains(codeSpans.ReplaceAllString(out, ""), "[doc:") {
				t.Errorf("dropped %v, output %q", r.Dropped, out)
			}
			if len(tc.quotes) > 0 && len(deltas) < 2 {
				t.Errorf("%d deltas, want the answer in pieces", len(deltas))
			}
			checkQuotes(t, r)
		})
	}
}

// Markdown sources of the presentation cases: normalized by package
// normalize, as cite index would.
const (
	itemsMD = "# Items\n\nThe New-Item cmdlet creates files and folders.\n\n" +
		"To create a new directory named `Scripts` in `C:\\Temp`, type:\n\n" +
		"```powershell\nNew-Item -Path C:\\Temp\\Scripts -ItemType Directory\nGet-Item C:\\Temp\\Scripts\n```\n\n" +
		"```output\nMode LastWriteTime Name\nd---- 5/15/2019 Scripts\n```\n"
	policiesMD = "# Execution policies\n\n- AllSigned\n  - Scripts can run.\n  - Requires a signature on every script.\n" +
		"- Restricted\n  - The default execution policy on Windows client computers.\n  - Permits individual commands, but not scripts.\n"
)

// stopMD is a cmdlet's page, with an example section.
const stopMD = "# Stop-Process\n\nStops one or more running processes.\n\n" +
	"## Example 1: Stop all instances of a process\n\nThis command stops all the Notepad processes.\n\n" +
	"```powershell\nStop-Process -Name \"notepad\"\n```\n\n" +
	"## Example 2: Stop all instances of a process running on another computer\n\n" +
	"This command ends every Notepad process on Server01.\n\n" +
	"```powershell\nInvoke-Command -ComputerName Server01 { Stop-Process -Name notepad }\n```\n"

// codeSpans are inline code spans, where "[doc:2]" is text.
var codeSpans = regexp.MustCompile("`+[^`]*`+")

// markdown is a file whose passage is the normalized text of src.
func markdown(name, src string) file {
	return file{name: name, raw: src, passage: normalize.FromMarkdown([]byte(src)).Text}
}

func TestExtractiveUnreadableSource(t *testing.T) {
	// A source that cannot be read still gets an answer; its quote has no
	// span and its link stays the passage's.
	ctx := citations.Begin(t.Context())
	inv, _ := citations.FromContext(ctx)
	inv.SetResolver(citations.DefaultResolver())
	missing := filepath.Join(t.TempDir(), "gone.md")
	inv.Register(citations.Reference{Passage: sqlite, Type: citations.TypeFile, Source: missing, Span: citations.Span{Start: 10, End: 10 + len(sqlite)}})
	resp, err := NewExtractive(ExtractiveOptions{}).Chat(ctx, provider.ChatRequest{Messages: []provider.Message{{Role: provider.RoleUser, Content: "What does a checkpoint copy?"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(resp.Content, " [doc:1]") {
		t.Fatalf("content %q", resp.Content)
	}
	ref, _ := inv.Lookup(1)
	if ref.Quote == "" || ref.QuoteSpan != nil || !strings.HasSuffix(ref.Link, "#bytes=10-"+fmt.Sprint(10+len(sqlite))) {
		t.Fatalf("reference %+v", ref)
	}
}

func TestExtractiveErrors(t *testing.T) {
	e := NewExtractive(ExtractiveOptions{})
	req := provider.ChatRequest{Messages: []provider.Message{{Role: provider.RoleUser, Content: "What does a checkpoint copy?"}}}
	if _, err := e.Chat(t.Context(), req, nil); !errors.Is(err, ErrNoInvocation) {
		t.Errorf("without an invocation: %v", err)
	}
	ctx := citations.Begin(t.Context())
	inv, _ := citations.FromContext(ctx)
	inv.Register(citations.Reference{Passage: sqlite, Type: citations.TypeUpload})
	stop := errors.New("client gone")
	n := 0
	if _, err := e.Chat(ctx, req, func(string) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("onDelta error: %v after %d deltas", err, n)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Chat(cctx, req, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	failing := NewExtractive(ExtractiveOptions{TermStats: func(context.Context, []string) (index.TermStats, error) {
		return index.TermStats{}, errors.New("index closed")
	}})
	if _, err := failing.Chat(ctx, req, nil); err == nil || !strings.Contains(err.Error(), "index closed") {
		t.Errorf("term statistics failing: %v", err)
	}
	if e.Name() != "extractive" || !e.Local() {
		t.Errorf("Name %q, Local %v", e.Name(), e.Local())
	}
}

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
		{"html", "<p>Caf&eacute; <b>opens</b> at seven daily now.</p>", "Café opens at seven daily now.", "Café opens at seven daily now.", ""},
		{"html with few words lost", "<p>The caf&eacute; <b>opens</b> at seven every single morning of the week.</p>", "The café opens at seven every single morning of the week.", "The café opens at seven every single morning of the week.", "The caf&eacute; <b>opens</b> at seven every single morning of the week."},
		{"changed file", "Something else entirely.", "Gamma delta.", "Gamma delta.", ""},
		{"code that opens and closes it", "# T\n\n`Remove-Widget` deletes widgets from `C:\\garage`.\n", "T\n\nRemove-Widget deletes widgets from C:\\garage.\n",
			"Remove-Widget deletes widgets from C:\\garage.", "`Remove-Widget` deletes widgets from `C:\\garage`."},
		{"emphasis that opens it, a link that closes it", "x\n\n**Warning** see [the zebra guide](z.md#a).\n", "x\n\nWarning see the zebra guide.\n",
			"Warning see the zebra guide.", "**Warning** see [the zebra guide](z.md#a)."},
		{"a reference link and no punctuation", "Read _the [guide][g]_\n", "Read the guide\n", "Read the guide", "Read _the [guide][g]_"},
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

func ExampleExtractive() {
	ctx := citations.Begin(context.Background())
	inv, _ := citations.FromContext(ctx)
	inv.Register(citations.Reference{Title: "SQLite notes", Type: citations.TypeUpload, Passage: "In write-ahead logging mode, readers do not block the writer. " +
		"A checkpoint copies pages from the write-ahead log back into the database file."})

	model := NewExtractive(ExtractiveOptions{})
	st := citations.NewStream(inv)
	_, err := model.Chat(ctx, provider.ChatRequest{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "What does a checkpoint copy?"},
	}}, func(delta string) error {
		fmt.Print(st.Feed(delta))
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Close())
	// Output:
	// A checkpoint copies pages from the write-ahead log back into the database file. [1]
	//
	// References:
	//
	// 1. SQLite notes
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

func TestLabel(t *testing.T) {
	var b strings.Builder
	label(&b, []citations.Reference{
		{Index: 1, Title: "About [doc:3]", Passage: " Cite writes [doc:2], 【doc:3】 or [ DOC 4 ]; a[1] stays; ［doc:5］ and &#91;doc:6&#93; too.\n"},
		{Index: 2, Title: "Plain", Passage: "No markers."},
	})
	want := "[doc:1] About (doc:3)\nCite writes (doc:2), (doc:3) or ( DOC 4 ); a[1] stays; (doc:5) and (doc:6) too.\n\n[doc:2] Plain\nNo markers.\n\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	if ms := citations.Parse(b.String()); len(ms) != 2 {
		t.Errorf("markers %+v, want the two labels only", ms)
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

func TestWithoutCitations(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"WAL keeps it [1]. Readers go on [2][3].", "WAL keeps it. Readers go on."},
		{"Joined [1, 2] and [3; 4] go.", "Joined and go."},
		{"Code-like a[1] and Logs[2006] stay.", "Code-like a[1] and Logs[2006] stay."},
		{"A link [1](http://x) stays, `x [2]` too.", "A link [1](http://x) stays, `x [2]` too."},
		{"Before\n```\nx = y [1]\n```\nafter [2].", "Before\n```\nx = y [1]\n```\nafter."},
		{"[1] opens it.", " opens it."},
		{"Not a number [a] or [doc:1].", "Not a number [a] or [doc:1]."},
	} {
		if got := withoutCitations(tc.in); got != tc.want {
			t.Errorf("withoutCitations(%q) = %q, want %q", tc.in, got, tc.want)
		}
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
