package normalize

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestExtracted(t *testing.T) {
	tests := []struct {
		name     string
		build    func(x *Extracted)
		title    string
		text     string
		headings []Heading
		pages    []Page
	}{
		{
			name: "blocks",
			build: func(x *Extracted) {
				x.Heading(1, "  Annual\nreport ")
				x.Paragraph("First line\nwraps  here.")
				x.ListItem(1, false, "one")
				x.ListItem(2, true, "nested")
				x.ListItem(2, true, "again")
				x.ListItem(1, false, "two")
				x.Row("a", "", "c")
				x.Row("d", "e", "f")
				x.EndTable()
				x.Lines("code\n    indented\nend")
			},
			title:    "Annual report",
			text:     "Annual report\n\nFirst line wraps here.\n\n• one\n1. nested\n2. again\n• two\n\na | | c\nd | e | f\n\ncode\nindented\nend",
			headings: []Heading{{Level: 1, Text: "Annual report", Offset: 0, End: 13}},
		},
		{
			name: "pages",
			build: func(x *Extracted) {
				x.Page(1)
				x.Paragraph("one")
				x.Page(2) // empty: not recorded
				x.Page(3)
				x.Heading(2, "Three")
				x.Paragraph("three")
				x.Page(3) // not increasing: ignored
				x.Paragraph("more")
			},
			text:     "one\n\nThree\n\nthree\n\nmore",
			headings: []Heading{{Level: 2, Text: "Three", Offset: 5, End: 10}},
			pages:    []Page{{1, 0}, {3, 5}},
		},
		{
			name:  "whitespace and invalid bytes",
			build: func(x *Extracted) { x.Paragraph(" \x00a\xffb\u00a0 c ") },
			title: "Given",
			text:  "\uFFFDa\uFFFDb c",
		},
		{
			name:  "empty",
			build: func(x *Extracted) { x.Page(1); x.Paragraph("  ") },
			text:  "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x Extracted
			tt.build(&x)
			d := x.Document(tt.title)
			if d.Text != tt.text {
				t.Errorf("text = %q, want %q", d.Text, tt.text)
			}
			if tt.title != "" && d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
			if !reflect.DeepEqual(d.Headings, tt.headings) {
				t.Errorf("headings = %+v, want %+v", d.Headings, tt.headings)
			}
			if !reflect.DeepEqual(d.Pages, tt.pages) {
				t.Errorf("pages = %+v, want %+v", d.Pages, tt.pages)
			}
			// The source is the text: spans are the identity.
			for _, r := range [][2]int{{0, 0}, {0, len(d.Text)}, {1, len(d.Text) / 2}, {len(d.Text), len(d.Text)}} {
				s, e := min(r[0], len(d.Text)), min(r[1], len(d.Text))
				if gs, ge := d.SourceSpan(s, e); gs != s || ge != e {
					t.Errorf("SourceSpan(%d, %d) = %d, %d", s, e, gs, ge)
				}
			}
		})
	}
}

func TestPageRange(t *testing.T) {
	var x Extracted
	x.Page(1)
	x.Paragraph(strings.Repeat("a", 10))
	x.Page(2)
	x.Paragraph(strings.Repeat("b", 10))
	d := x.Document("")
	tests := []struct{ start, end, first, last int }{
		{0, 5, 1, 1},
		{0, 10, 1, 1},
		{5, 14, 1, 2},
		{12, 22, 2, 2},
		{22, 22, 2, 2},
	}
	for _, tt := range tests {
		if f, l := d.PageRange(tt.start, tt.end); f != tt.first || l != tt.last {
			t.Errorf("PageRange(%d, %d) = %d, %d; want %d, %d", tt.start, tt.end, f, l, tt.first, tt.last)
		}
	}
	if f, l := FromMarkdown([]byte("x")).PageRange(0, 1); f != 0 || l != 0 {
		t.Errorf("no pages: %d, %d", f, l)
	}
}

// TestParagraphAcross: a paragraph that page breaks cut is one paragraph
// whose later pages start where their parts do, after the space or, for a
// word hyphenated at the foot of a page, inside the word.
func TestParagraphAcross(t *testing.T) {
	var x Extracted
	x.Page(1)
	x.Paragraph("First.")
	x.ParagraphAcross(PagePart{Page: 1, Text: "the keepers fished from"}, PagePart{Page: 2, Text: "the landing on quiet eve", Space: true}, PagePart{Page: 3, Text: "nings."})
	x.Page(3)
	x.Paragraph("Next.")
	d := x.Document("")
	if want := "First.\n\nthe keepers fished from the landing on quiet evenings.\n\nNext."; d.Text != want {
		t.Fatalf("text %q, want %q", d.Text, want)
	}
	want := []Page{{1, 0}, {2, strings.Index(d.Text, "the landing")}, {3, strings.Index(d.Text, "nings.")}}
	if !slices.Equal(d.Pages, want) {
		t.Errorf("pages %v, want %v", d.Pages, want)
	}
	if p, pe := d.PageRange(strings.Index(d.Text, "fished"), strings.Index(d.Text, "quiet")); p != 1 || pe != 2 {
		t.Errorf("a span across the break: pages %d-%d, want 1-2", p, pe)
	}
}
