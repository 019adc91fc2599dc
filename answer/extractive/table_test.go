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

// TestUnderHeading: a sentence keeps its passage's heading path unless a
// line like a heading (not a table's row) comes before it in the passage.
func TestUnderHeading(t *testing.T) {
	passage := "text of the section before. It goes on here.\n\n$MaximumHistoryCount\n\nDetermines how many commands are saved.\n\nA | B\nc | d\n"
	for _, tc := range []struct {
		at   string
		want bool
	}{
		{"It goes on", false},
		{"Determines", true},
		{"c | d", true},
	} {
		if got := underHeading(passage, strings.Index(passage, tc.at)); got != tc.want {
			t.Errorf("at %q: %v, want %v", tc.at, got, tc.want)
		}
	}
	rows := "Intro sentence of the table here.\n\nA | B\nc | d\n\nAfter the table comes this sentence."
	if underHeading(rows, strings.Index(rows, "After")) {
		t.Error("a table's rows taken for a heading")
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
