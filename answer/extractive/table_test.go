package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
)

// TestTableRows: a question a table's row answers gets that row, each cell
// named by its column's header, quoted as the source has it; also when the
// header row matches best (the question names a column). Rows stay out of
// other answers.
func TestTableRows(t *testing.T) {
	raw := "# Birds\n\n| Bird | Wingspan |\n|---|---|\n| Albatross | 3.5 m |\n| Sparrow | 0.2 m |\n\nOwls hunt mostly at night.\n"
	passage := "Birds\n\nBird | Wingspan\nAlbatross | 3.5 m\nSparrow | 0.2 m\n\nOwls hunt mostly at night."
	for _, tc := range []struct{ question, text, quote string }{
		{"albatross wingspan", "Bird: Albatross; Wingspan: 3.5 m", "Albatross | 3.5 m"},
		{"what is the wingspan of a sparrow", "Bird: Sparrow; Wingspan: 0.2 m", "Sparrow | 0.2 m"},
		{"sparrow", "Bird: Sparrow; Wingspan: 0.2 m", "Sparrow | 0.2 m"},
		{"when do owls hunt", "Owls hunt mostly at night.", "Owls hunt mostly at night."},
	} {
		a := New(Options{ReadSpan: func(context.Context, citations.Reference) ([]byte, error) { return []byte(raw), nil }})
		sents, err := a.Answer(t.Context(), tc.question, []citations.Reference{{
			Index: 1, Title: "Birds", Type: citations.TypeFile, Source: "/b.md", Passage: passage,
			Span: citations.Span{Start: 0, End: len(raw)},
		}})
		if err != nil || len(sents) == 0 {
			t.Fatalf("%q: %v, %d sentences", tc.question, err, len(sents))
		}
		s := sents[0]
		if s.Text != tc.text || s.Quote != tc.quote || s.Span == nil || raw[s.Span.Start:s.Span.End] != tc.quote {
			t.Errorf("%q: %q quoting %q (span %v), want %q quoting %q", tc.question, s.Text, s.Quote, s.Span, tc.text, tc.quote)
		}
	}
}

func TestRowText(t *testing.T) {
	for _, tc := range []struct{ header, row, want string }{
		{"Bird | Wingspan", "Albatross | 3.5 m", "Bird: Albatross; Wingspan: 3.5 m"},
		{"| Bird | Wingspan |", "| Albatross | 3.5 m |", "Bird: Albatross; Wingspan: 3.5 m"},
		{"Bird | Wingspan | Notes", "Albatross | 3.5 m", "Albatross | 3.5 m"}, // cells and headers differ
		{"Bird | Wingspan", "Albatross | ", "Albatross | "},                   // an empty cell at an end: as it is
		{"Bird | Note | Wingspan", "Albatross |  | 3.5 m", "Bird: Albatross; Wingspan: 3.5 m"},
	} {
		if got := rowText(tc.header, tc.row); got != tc.want {
			t.Errorf("rowText(%q, %q) = %q, want %q", tc.header, tc.row, got, tc.want)
		}
	}
}

// TestIntroducedCode: a sentence ending with a colon that introduces a
// fenced code block brings the block from the source, indentation
// included (the passage's text has lost it), and its quote ends with the
// block's last line; a list it introduces comes from the passage.
func TestIntroducedCode(t *testing.T) {
	raw := "# Py\n\nThe loop prints squares as follows:\n\n```python\nfor i in range(3):\n    if i:\n        print(i * i)\n```\n\nThe steps are:\n\n- one\n- two\n"
	passage := "Py\n\nThe loop prints squares as follows:\n\nfor i in range(3):\nif i:\nprint(i * i)\n\nThe steps are:\n\n• one\n• two"
	for _, tc := range []struct{ question, block, quote string }{
		{"loop prints squares", "```\nfor i in range(3):\n    if i:\n        print(i * i)\n```",
			"The loop prints squares as follows:\n\n```python\nfor i in range(3):\n    if i:\n        print(i * i)"},
		{"what are the steps", "- one\n- two", "The steps are:\n\n- one\n- two"},
	} {
		a := New(Options{ReadSpan: func(context.Context, citations.Reference) ([]byte, error) { return []byte(raw), nil }})
		sents, err := a.Answer(t.Context(), tc.question, []citations.Reference{{
			Index: 1, Title: "Py", Type: citations.TypeFile, Source: "/p.md", Passage: passage,
			Span: citations.Span{Start: 0, End: len(raw)},
		}})
		if err != nil || len(sents) == 0 {
			t.Fatalf("%q: %v, %d sentences", tc.question, err, len(sents))
		}
		if s := sents[0]; s.Block != tc.block || s.Quote != tc.quote {
			t.Errorf("%q: block %q quoting %q, want %q quoting %q", tc.question, s.Block, s.Quote, tc.block, tc.quote)
		}
	}
}

// TestOtherSection: a sentence is in its passage's section, the heading
// path in effect where the passage's own text starts, unless a line like a
// heading (not a table's row) comes before it in the passage; when a line
// of the passage is the path's last heading (a sheet's name, a section's
// heading), the section starts at that line: a sentence before it, the end
// of the section before, is in another.
func TestOtherSection(t *testing.T) {
	const (
		defs  = "text of the section before. It goes on here.\n\n$MaximumHistoryCount\n\nDetermines how many commands are saved.\n\nA | B\nc | d\n"
		rows  = "Intro sentence of the table here.\n\nA | B\nc | d\n\nAfter the table comes this sentence."
		sheet = "Costs\n\nItem | Cost\nLamp oil | 120.50\n\nKeepers\n\nName | Watch\nAda Winter | night and storms"
		doc   = "Keepers\n\nThe keeper lives in the cottage beside the tower.\n\nLamp\n\nThe lamp burns paraffin oil."
		notes = "Harbour lights1\n\nThe harbour has two lights on its breakwater, a red one and a green one.2\nIt has a bell too.\n\nKeepers’ duties 3\n\nThe keeper trims the wick every evening."
		long  = "Keepers of the light and the lamp and the long nights at the top of the tower above the reef"
	)
	for _, tc := range []struct {
		name, passage, heading, at string
		want                       bool
	}{
		{"same section", defs, "", "It goes on", false},
		{"after a heading", defs, "", "Determines", true},
		{"a row after a heading", defs, "", "c | d", true},
		{"after a table", rows, "", "After", false},
		{"the sheet's own name", sheet, "Costs", "Lamp oil", false},
		{"the next sheet", sheet, "Costs", "Ada Winter", true},
		{"the section's own heading", doc, "Lighthouse Report > Keepers", "The keeper", false},
		{"the next section", doc, "Lighthouse Report > Keepers", "The lamp", true},
		{"the section before, shared", doc, "Lighthouse Report > Lamp", "The keeper", true},
		{"the section after the shared text", doc, "Lighthouse Report > Lamp", "The lamp", false},
		{"the section's heading twice", "Notes\n\nOne note here.\n\nNotes\n\nAnother note.", "A > Notes", "Another", true},
		{"a clipped heading", "The end of one.\n\n" + long + "\n\nIt burns well.", "A > Keepers of the light and the…", "It burns", false},
		{"before a clipped heading", "The end of one.\n\n" + long + "\n\nIt burns well.", "A > Keepers of the light and the…", "The end", true},
		{"a first line only the end of the path's", doc, "Report > Old Keepers", "The keeper", true},
		{"the title, then a section", "Lighthouse Report\n\n" + doc, "Lighthouse Report", "The keeper", true},
		{"spaces", "\n  Lamp   oil \n\nIt burns well.", "Fuel > Lamp oil", "It burns", false},
		{"no heading path", doc, "", "The keeper", true},
		// A heading's footnote marker is in the text, not in the path
		// (notes.pdf, printed by Chromium: "Harbour lights<sup>1</sup>"),
		// nor is a line ending in a marker after a sentence's end a
		// heading.
		{"a heading with a marker", notes, "Harbour lights", "The harbour", false},
		{"after a line ending in a marker", notes, "Harbour lights", "It has", false},
		{"the next heading, with a spaced marker", notes, "Harbour lights", "The keeper", true},
		{"a spaced marker", notes, "Harbour lights > Keepers’ duties", "The keeper", false},
		{"before a heading with a spaced marker", notes, "Harbour lights > Keepers’ duties", "It has", true},
		{"a bracketed marker", "Harbour lights[1]\n\nThe harbour has two lights.", "Harbour lights", "The harbour", false},
		{"a superscript marker", "Harbour lights¹\n\nThe harbour has two lights.", "Harbour lights", "The harbour", false},
		{"an exponent in the path", "Area in m2\n\nThe floor is granite.", "Area in m2", "The floor", false},
		{"another heading's number", "Chapter 3\n\nThe third chapter.", "Book > Chapter 4", "The third", true},
	} {
		if got := otherSection(tc.passage, tc.heading, strings.Index(tc.passage, tc.at)); got != tc.want {
			t.Errorf("%s: at %q under %q: %v, want %v", tc.name, tc.at, tc.heading, got, tc.want)
		}
	}
}

// TestCloses: a sentence's end before a footnote marker closes it, as a
// PDF's text has the marker ("one.2", "one.²", "one.[2]"); a number with a
// decimal point does not.
func TestCloses(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"The harbour has two lights, a red one and a green one.", true},
		{"The harbour has two lights, a red one and a green one.2", true},
		{"The harbour has two lights, a red one and a green one.12", true},
		{"The harbour has two lights, a red one and a green one.²", true},
		{"The harbour has two lights, a red one and a green one.[2]", true},
		{"The harbour has two lights, “a red one and a green one.”3", true},
		{"The harbour has two lights, a red one and a green one.1234", false},
		{"Upgrade the lamp to version 1.2", false},
		{"The lamp oil costs 3.50", false},
		{"The harbour has two lights", false},
		{"Harbour lights1", false},
		{"2", false},
	} {
		if got := closes(tc.text); got != tc.want {
			t.Errorf("closes(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestSection: an answer's sentence names the section it is in, the
// passage's heading path, when it comes after that section's heading (a
// sheet's name, a Word heading) the passage starts with or has after the
// text it shares with the passage before, and before the next heading; a
// sentence of another section, before or after, names none, never the
// passage's. Where the reference knows where the sections inside its
// passage start (a later sheet, a Word file's next heading), a sentence
// after one names that section.
func TestSection(t *testing.T) {
	const (
		sheet = "Costs\n\nItem | Cost | Bought\nLamp oil | 120.50 | 2026-03-14\nBrass polish | 14.00 | 2026-04-02\n\nKeepers\n\nName | Watch\nAda Winter | night and storms\nTom Reed | day"
		doc   = "Keepers\n\nThe keeper lives in the cottage beside the tower. He trims the wick every evening.\n\nLamp\n\nThe lamp burns paraffin oil supplied by the harbour board."
	)
	const at = 4000 // where the passage starts in the document's text
	startOf := func(passage, line, heading string) []citations.SectionStart {
		return []citations.SectionStart{{Offset: at + strings.Index(passage, line+"\n"), Heading: heading}}
	}
	for _, tc := range []struct {
		name, passage, heading, question, text, want string
		starts                                       []citations.SectionStart
	}{
		{"a sheet's row", sheet, "Costs", "what did lamp oil cost", "Item: Lamp oil; Cost: 120.50; Bought: 2026-03-14", "Costs", nil},
		{"the next sheet's row", sheet, "Costs", "what is Ada Winter's watch", "Name: Ada Winter; Watch: night and storms", "", nil},
		{"a Word paragraph", doc, "Report > Keepers", "where does the keeper live", "The keeper lives in the cottage beside the tower.", "Report > Keepers", nil},
		{"the next section's paragraph", doc, "Report > Keepers", "what oil does the lamp burn", "The lamp burns paraffin oil supplied by the harbour board.", "", nil},
		{"a section after shared text", doc, "Report > Lamp", "what oil does the lamp burn", "The lamp burns paraffin oil supplied by the harbour board.", "Report > Lamp", nil},
		{"the shared text of the section before", doc, "Report > Lamp", "where does the keeper live", "The keeper lives in the cottage beside the tower.", "", nil},
		{"the next sheet's row, its start known", sheet, "Costs", "what is Ada Winter's watch", "Name: Ada Winter; Watch: night and storms", "Keepers", startOf(sheet, "Keepers", "Keepers")},
		{"a sheet's row, the next sheet's start known", sheet, "Costs", "what did lamp oil cost", "Item: Lamp oil; Cost: 120.50; Bought: 2026-03-14", "Costs", startOf(sheet, "Keepers", "Keepers")},
		{"the next section's paragraph, its start known", doc, "Report > Keepers", "what oil does the lamp burn", "The lamp burns paraffin oil supplied by the harbour board.", "Report > Lamp", startOf(doc, "Lamp", "Report > Lamp")},
	} {
		sents, err := New(Options{}).Answer(t.Context(), tc.question, []citations.Reference{citations.Reference{
			Index: 1, Title: "Lighthouse", Type: citations.TypeFile, Source: "/l.docx", Passage: tc.passage,
			Span: citations.Span{Start: at, End: at + len(tc.passage)}, Heading: tc.heading, Extracted: true,
		}.WithSectionStarts(tc.starts)})
		if err != nil || len(sents) == 0 {
			t.Fatalf("%s: %v, %d sentences", tc.name, err, len(sents))
		}
		if s := sents[0]; s.Text != tc.text || s.Heading != tc.want {
			t.Errorf("%s: %q under %q, want %q under %q", tc.name, s.Text, s.Heading, tc.text, tc.want)
		}
	}
}

// TestStopwordQuestions: a question of stopwords alone is answered only by
// a sentence that has its words in a row; else nothing is found.
func TestStopwordQuestions(t *testing.T) {
	passage := "What it is depends on the hive. The queen lays eggs. Hamlet asks: to be or not to be, that is the question."
	for _, tc := range []struct{ question, want string }{
		{"what is it", ""},
		{"a", ""},
		{"is it", ""},
		{"to be or not to be", "Hamlet asks: to be or not to be, that is the question."},
		{"what it is", "What it is depends on the hive."},
	} {
		if got := firstSentence(t, New(Options{}), tc.question, []citations.Reference{{Index: 1, Title: "T", Type: citations.TypeUpload, Passage: passage}}); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.question, got, tc.want)
		}
	}
}

// TestRepeatedSentence: a sentence two passages hold, one with typographic
// quotes and one without (a Word file and its Markdown), is said once.
func TestRepeatedSentence(t *testing.T) {
	refs := []citations.Reference{
		{Index: 1, Title: "A", Type: citations.TypeUpload, Passage: "The queen’s eggs hatch in three days."},
		{Index: 2, Title: "B", Type: citations.TypeUpload, Passage: "The queen's eggs hatch in three days."},
	}
	sents, err := New(Options{}).Answer(t.Context(), "when do the queen's eggs hatch", refs)
	if err != nil || len(sents) != 1 {
		t.Fatalf("%v: %d sentences: %+v", err, len(sents), sents)
	}
}

// firstSentence returns the text of the first sentence x answers question
// with from passages, "" when it answers nothing.
func firstSentence(t *testing.T, x *Answerer, question string, passages []citations.Reference) string {
	t.Helper()
	sents, err := x.Answer(t.Context(), question, passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) == 0 {
		return ""
	}
	return sents[0].Text
}
