package ingest

import (
	"testing"

	"github.com/cite-rag/cite/normalize"
)

// TestSheetTitle: a document's title is its own, else its first heading,
// else a plain text's first line; but a spreadsheet without a title of its
// own is named by its file, since its first heading (and first line) is
// only its first sheet's name.
func TestSheetTitle(t *testing.T) {
	sheets := &normalize.Document{Text: "Costs\n\nItem | Cost", Headings: []normalize.Heading{{Level: 1, Text: "Costs"}}}
	titled := &normalize.Document{Title: "Lighthouse Budget", Text: sheets.Text, Headings: sheets.Headings}
	for _, tc := range []struct {
		name       string
		nd         *normalize.Document
		formatName string
		want       string
	}{
		{"xlsx", sheets, "xlsx", "budget.xlsx"},
		{"ods", sheets, "ods", "budget.xlsx"},
		{"xlsx with a title", titled, "xlsx", "Lighthouse Budget"},
		{"docx", sheets, "docx", "Costs"},
		{"text", &normalize.Document{Text: "Costs\n\nItem | Cost"}, "text", "Costs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := titleOf(tc.nd, normalize.PlainText, tc.formatName, "dir/budget.xlsx"); got != tc.want {
				t.Errorf("titleOf = %q, want %q", got, tc.want)
			}
		})
	}
}
