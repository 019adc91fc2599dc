package office

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzRead checks that reading never panics, and that a document read has
// pages in order within its text.
func fuzzRead(f *testing.F, kind Kind, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	small := Reader{Limits: Limits{MaxTotal: 4 << 20, MaxEntries: 200}}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, ok := Detect(data)
		if ok && k != kind {
			return
		}
		d, err := small.Read(t.Context(), kind, data)
		if err != nil {
			return
		}
		last := -1
		for _, p := range d.Pages {
			if p.Offset < last || p.Offset > len(d.Text) {
				t.Fatalf("page %d at %d (text %d bytes)", p.Number, p.Offset, len(d.Text))
			}
			last = p.Offset
		}
	})
}

func fixture(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzReadDOCX(f *testing.F) {
	fuzzRead(f, DOCX,
		fixture(f, "report.docx"),
		docxOf(f, p("Kop1", r("a"))+`<w:tbl><w:tr><w:tc>`+p("", r("x"))+`</w:tc></w:tr></w:tbl>`+p("", r("b")+`<w:r><w:footnoteReference w:id="1"/></w:r>`),
			`<w:style w:styleId="Kop1"><w:name w:val="heading 1"/><w:basedOn w:val="Kop1"/></w:style>`),
	)
}
