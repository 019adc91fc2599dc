package citations

import (
	"slices"
	"testing"
)

// TestSectionStarts: a reference keeps the section starts it is given,
// stays comparable, and a copy without them has none.
func TestSectionStarts(t *testing.T) {
	for _, starts := range [][]SectionStart{
		nil,
		{{Offset: 4120, Heading: "Keepers"}},
		{{Offset: 1, Heading: "Report > Lamp"}, {Offset: 300, Heading: ""}, {Offset: 1 << 40, Heading: "Ünïcode › ok"}},
	} {
		r := Reference{Index: 1, Passage: "p"}.WithSectionStarts(starts)
		if got := r.SectionStarts(); !slices.Equal(got, starts) {
			t.Errorf("SectionStarts() = %v, want %v", got, starts)
		}
		if r != r.WithSectionStarts(starts) {
			t.Error("a reference is not comparable with its copy")
		}
		if got := r.WithSectionStarts(nil).SectionStarts(); got != nil {
			t.Errorf("without starts: %v", got)
		}
	}
	// A damaged encoding reads as far as it is whole.
	r := Reference{}.WithSectionStarts([]SectionStart{{Offset: 5, Heading: "Costs"}})
	r.sectionStarts = r.sectionStarts[:len(r.sectionStarts)-2]
	if got := r.SectionStarts(); got != nil {
		t.Errorf("cut short: %v", got)
	}
}
