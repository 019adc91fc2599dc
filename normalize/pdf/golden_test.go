package pdf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGolden reads the fixtures whose text is its block structure
// (paragraphs, line breaks kept, list items) and compares it with
// testdata/NAME.golden; -update writes the golden files. Check a changed
// golden file reads better before writing it.
func TestGolden(t *testing.T) {
	for _, name := range []string{"code", "lists", "paragraphs", "breaks", "nested", "sideways", "notes"} {
		t.Run(name, func(t *testing.T) {
			d, _, err := read(t, &Reader{}, name+".pdf")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(d.Text+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Text + "\n"; got != string(want) {
				t.Errorf("%s reads\n%s\nwant (%s)\n%s", name, got, golden, strings.TrimSuffix(string(want), "\n"))
			}
		})
	}
}

// TestHeadingNotes: a footnote's superscript marker after a heading
// ("Harbour lights¹", set as <sup>1</sup> and printed by Chromium smaller
// and raised) stays in the text and is left out of the heading path; a
// number set as the heading's own text ("Chapter 3") is kept, and so is a
// marker in a paragraph.
func TestHeadingNotes(t *testing.T) {
	d, _, err := read(t, &Reader{}, "notes.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var got, full []string
	for _, h := range d.Headings {
		got = append(got, h.Text)
		full = append(full, d.Text[h.Offset:h.End])
	}
	if want := []string{"Harbour lights", "Keepers’ duties", "Chapter 3"}; !slices.Equal(got, want) {
		t.Errorf("headings %q, want %q", got, want)
	}
	if want := []string{"Harbour lights1", "Keepers’ duties 3", "Chapter 3"}; !slices.Equal(full, want) {
		t.Errorf("heading lines %q, want %q", full, want)
	}
	if !strings.Contains(d.Text, "a red one and a green one.2") {
		t.Errorf("the paragraph's marker is gone:\n%s", d.Text)
	}
}

// TestHeadingExponents: a raised number at a heading's end that raises a
// unit or a variable ("Area in m²", "E = mc²", "Volume in cm³", printed by
// Chromium from <sup>), or that no note of the document starts with
// ("Lamp hours⁴"), is an exponent and stays in the heading's path, though
// list items numbered 1 to 3 are on the page; a footnote's marker whose
// note pandoc's HTML lists at the document's end ("Keepers’ log¹", "1.
// Kept since 1850.") is left out of it, as in TestHeadingNotes.
func TestHeadingExponents(t *testing.T) {
	d, _, err := read(t, &Reader{}, "exponents.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var got, full []string
	for _, h := range d.Headings {
		got = append(got, h.Text)
		full = append(full, d.Text[h.Offset:h.End])
	}
	if want := []string{"Area in m2", "E = mc2", "Volume in cm3", "Keepers’ log", "Lamp hours4"}; !slices.Equal(got, want) {
		t.Errorf("headings %q, want %q", got, want)
	}
	if want := []string{"Area in m2", "E = mc2", "Volume in cm3", "Keepers’ log1", "Lamp hours4"}; !slices.Equal(full, want) {
		t.Errorf("heading lines %q, want %q", full, want)
	}
}
