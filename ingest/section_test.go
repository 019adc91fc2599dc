package ingest

import (
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/normalize"
)

// TestSectionsOf: an extracted document's layout keeps where each section
// starts and its heading path there, bounded as the chunker bounds the
// chunks' paths; a document normalize read itself keeps none.
func TestSectionsOf(t *testing.T) {
	long := strings.Repeat("keeper ", 60)
	nd := &normalize.Document{Text: "x", Headings: []normalize.Heading{
		{Level: 1, Text: "Costs", Offset: 0},
		{Level: 1, Text: "Keepers", Offset: 146},
		{Level: 2, Text: "Night", Offset: 200},
		{Level: 3, Text: long, Offset: 250},
		{Level: 2, Text: "Day", Offset: 400},
	}}
	want := []index.Section{
		{Offset: 0, Heading: []string{"Costs"}},
		{Offset: 146, Heading: []string{"Keepers"}},
		{Offset: 200, Heading: []string{"Keepers", "Night"}},
		{Offset: 250, Heading: []string{"Keepers", "Night", chunk.Clip(long, chunk.MaxHeadingBytes)}},
		{Offset: 400, Heading: []string{"Keepers", "Day"}},
	}
	l := layoutOf(nd, true)
	if l == nil || !slices.EqualFunc(l.Sections, want, func(a, b index.Section) bool {
		return a.Offset == b.Offset && slices.Equal(a.Heading, b.Heading)
	}) {
		t.Errorf("sections %+v, want %+v", l, want)
	}
	if l := layoutOf(nd, false); l != nil {
		t.Errorf("a document normalize read has a layout: %+v", l)
	}
}
