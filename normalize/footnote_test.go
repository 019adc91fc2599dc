package normalize

import (
	"slices"
	"testing"
)

// TestHeadingNotes: a footnote reference in a heading stays in the text
// ("Title[1]") and is left out of the heading's Text, its heading path, so
// that citations read "Title"; text that only looks like a marker stays.
func TestHeadingNotes(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		src    string
		want   []string // the headings' Text
		lines  []string // the headings' lines in the text
	}{
		{"markdown", Markdown, "# Title[^1]\n\nBody.\n\n[^1]: A note.\n", []string{"Title"}, []string{"Title[1]"}},
		{"markdown, spaced", Markdown, "## Keepers' duties [^a]\n\nBody.\n\n[^a]: A note.\n", []string{"Keepers' duties"}, []string{"Keepers' duties [1]"}},
		{"markdown, inside", Markdown, "## Lights[^1] and bells\n\n[^1]: A note.\n", []string{"Lights and bells"}, []string{"Lights[1] and bells"}},
		{"markdown, two", Markdown, "## Lights[^1][^2]\n\n[^1]: One.\n[^2]: Two.\n", []string{"Lights"}, []string{"Lights[1][2]"}},
		{"markdown, marker alone", Markdown, "## [^1]\n\n[^1]: A note.\n", []string{"[1]"}, []string{"[1]"}},
		{"markdown, no note", Markdown, "## Step [1]\n\nBody.\n", []string{"Step [1]"}, []string{"Step [1]"}},
		{"html, pandoc", HTML, `<h2>Harbour lights<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a></h2><p>Body.</p>`, []string{"Harbour lights"}, []string{"Harbour lights[1]"}},
		{"html, epub", HTML, `<h1>Bells <a epub:type="noteref" href="#n2">[2]</a></h1><p>Body.</p>`, []string{"Bells"}, []string{"Bells [2]"}},
		{"html, a plain sup", HTML, `<h2>E = mc<sup>2</sup></h2>`, []string{"E = mc2"}, []string{"E = mc2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Normalize(tt.format, []byte(tt.src))
			var got, lines []string
			for _, h := range d.Headings {
				got = append(got, h.Text)
				lines = append(lines, d.Text[h.Offset:h.End])
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(lines, tt.lines) {
				t.Errorf("headings %q on lines %q, want %q on %q\ntext: %q", got, lines, tt.want, tt.lines, d.Text)
			}
			if err := checkDocument([]byte(tt.src), d); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestAppendHeadingNotes: an EPUB chapter's headings, appended to an
// extracted document, keep their markers in the text and out of their
// heading paths.
func TestAppendHeadingNotes(t *testing.T) {
	ch := Normalize(Markdown, []byte("# Lights[^1] and bells\n\nBody.\n\n[^1]: A note.\n"))
	var x Extracted
	x.Append(ch)
	d := x.Document("")
	if len(d.Headings) != 1 || d.Headings[0].Text != "Lights and bells" || d.Text[d.Headings[0].Offset:d.Headings[0].End] != "Lights[1] and bells" {
		t.Errorf("headings %+v\ntext %q", d.Headings, d.Text)
	}
}
