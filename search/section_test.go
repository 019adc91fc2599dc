package search

import (
	"slices"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
)

// TestSectionStartsIn: the sections that start inside a passage, after
// its first byte, with their paths joined as a hit's heading is.
func TestSectionStartsIn(t *testing.T) {
	sections := []index.Section{
		{Offset: 0, Heading: []string{"Costs"}},
		{Offset: 146, Heading: []string{"Keepers"}},
		{Offset: 300, Heading: []string{"Report", "Lamp"}},
	}
	for _, tc := range []struct {
		start, end int
		want       []citations.SectionStart
	}{
		{0, 100, nil},
		{0, 146, nil},
		{0, 147, []citations.SectionStart{{Offset: 146, Heading: "Keepers"}}},
		{146, 400, []citations.SectionStart{{Offset: 300, Heading: "Report > Lamp"}}},
		{100, 400, []citations.SectionStart{{Offset: 146, Heading: "Keepers"}, {Offset: 300, Heading: "Report > Lamp"}}},
		{400, 500, nil},
	} {
		if got := SectionStartsIn(sections, tc.start, tc.end); !slices.Equal(got, tc.want) {
			t.Errorf("[%d, %d): %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}
