package pdf

import (
	"strings"
	"testing"
)

// A word a typesetter hyphenated with a hyphen-minus at a line's end (TeX,
// OCR; pdfium marks every such hyphen alike) is joined again when the
// document uses it whole elsewhere ("infor-mation") or does not use both
// parts as words ("incompre-hensible"); a compound whose parts it uses
// ("well-known") keeps its hyphen.
func TestReadLineEndHyphens(t *testing.T) {
	para := func(y int, lines ...string) []textLine {
		var out []textLine
		for i, s := range lines {
			out = append(out, textLine{x: 72, y: y - 13*i, text: s})
		}
		return out
	}
	var page []textLine
	page = append(page, para(700,
		"Keepers wrote down the weather and the ships they saw each day, and their",
		"logs hold much infor-",
		"mation about the coast.")...)
	page = append(page, para(640,
		"This information was sent to the harbour office every week with the logs of",
		"the other keepers, and the well-",
		"known storms were listed apart.")...)
	page = append(page, para(580,
		"The keepers knew the coast well, and the storms they had known were in the logs; some",
		"of their entries are incompre-",
		"hensible now.")...)
	d, _, err := (&Reader{OCR: OCRNever}).Read(t.Context(), textPDF([][]textLine{page}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"much information about", "the well-known storms", "are incomprehensible now"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("no %q in\n%s", want, d.Text)
		}
	}
}
