package answer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
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
	// ---
	// Sources cited in this answer:
	//
	// 1. SQLite notes
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

func TestWithoutCitations(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"WAL keeps it [1]. Readers go on [2][3].", "WAL keeps it. Readers go on."},
		{"Joined [1, 2] and [3; 4] go.", "Joined and go."},
		{"Code-like a[1] and Logs[2006] stay.", "Code-like a[1] and Logs[2006] stay."},
		{"A link [1](http://x) stays, `x [2]` too.", "A link [1](http://x) stays, `x [2]` too."},
		{"Before\n```\nx = y [1]\n```\nafter [2].", "Before\n```\nx = y [1]\n```\nafter."},
		{"[1] opens it.", " opens it."},
		{"Not a number [a] or [doc:1].", "Not a number [a] or [doc:1]."},
		// Citations as package citations renders them after letters beyond
		// ASCII, and after "_" that is emphasis; a label stays.
		{"东京是首都[1]。Café[2], _[3]_ and x_[4], [see][5], [see] [6].", "东京是首都。Café, __ and x_[4], [see][5], [see]."},
		// The reference list an OpenAI client sends back with the answer.
		{"WAL keeps it [1].\n\n---\nSources cited in this answer:\n\n1. [WAL](file:///d/wal.html#bytes=1-9)\n2. [B § x](file:///b.md)\n", "WAL keeps it."},
		{"Text [1].\n\n---\nSources cited in this answer:\n\nNot a list.", "Text.\n\n---\nSources cited in this answer:\n\nNot a list."},
	} {
		if got := withoutCitations(tc.in); got != tc.want {
			t.Errorf("withoutCitations(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
