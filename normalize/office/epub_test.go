package office

import (
	"fmt"
	"slices"
	"testing"
)

// epubOf builds a minimal EPUB (hand-written, for what pandoc does not
// make): opf is the package document at OEBPS/book.opf, then more entries.
func epubOf(t testing.TB, opf string, entries ...string) []byte {
	t.Helper()
	return zipOf(t, append([]string{
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", `<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/book.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>Book</dc:title></metadata>` + opf + `</package>`,
	}, entries...)...)
}

func xhtml(body string) string {
	return `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>ignored</title></head><body>` + body + `</body></html>`
}

func TestEPUB(t *testing.T) {
	tests := []struct {
		name, text, heads string
		data              []byte
	}{
		{
			name: "spine order, nav titles for chapters without a heading",
			data: epubOf(t,
				`<manifest><item id="a" href="text/a%20one.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b.xhtml" media-type="application/xhtml+xml"/><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="css" href="s.css" media-type="text/css"/></manifest>`+
					`<spine><itemref idref="b"/><itemref idref="nav"/><itemref idref="css"/><itemref idref="a"/></spine>`,
				"OEBPS/nav.xhtml", `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="text/a%20one.xhtml#x">First&nbsp;chapter</a></li><li><a href="text/b.xhtml">Second</a><br></li></ol></nav><nav epub:type="landmarks"><a href="text/b.xhtml">Landmark</a></nav></body></html>`,
				"OEBPS/text/a one.xhtml", xhtml(`<p>Untitled text.</p><h2>Later</h2><ul><li>x</li><li>y</li></ul>`),
				"OEBPS/text/b.xhtml", xhtml(`<h1>Own heading</h1><p>B text.</p>`),
			),
			text:  "Own heading\n\nB text.\n\nFirst chapter\n\nUntitled text.\n\nLater\n\n• x\n• y",
			heads: "1 Own heading @0; 1 First chapter @22; 2 Later @53",
		},
		{
			name: "EPUB 2 NCX",
			data: epubOf(t,
				`<manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="c1" href="c1.html" media-type="application/xhtml+xml"/></manifest><spine toc="ncx"><itemref idref="c1"/></spine>`,
				"OEBPS/toc.ncx", `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint id="p1"><navLabel><text>Chapter One</text></navLabel><content src="c1.html#start"/></navPoint></navMap></ncx>`,
				"OEBPS/c1.html", xhtml(`<p>Text.</p>`),
			),
			text:  "Chapter One\n\nText.",
			heads: "1 Chapter One @0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, ok := Detect(tt.data); !ok || k != EPUB {
				t.Fatalf("Detect = %v, %v", k, ok)
			}
			d, err := Read(t.Context(), EPUB, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != tt.text {
				t.Errorf("text = %q, want %q", d.Text, tt.text)
			}
			if got := headings(d); got != tt.heads {
				t.Errorf("headings = %q, want %q", got, tt.heads)
			}
			if d.Title != "Book" {
				t.Errorf("title = %q", d.Title)
			}
		})
	}
}

// TestEPUBMissingChapters: a chapter the spine names that the file does not
// hold (or that the manifest does not list) is left out and noted, so that
// a book read without it says so; it was left out silently, and a book of
// one such chapter was skipped as "no text after normalization" alone.
func TestEPUBMissingChapters(t *testing.T) {
	data := epubOf(t,
		`<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b.xhtml" media-type="application/xhtml+xml"/><item id="up" href="../../../etc/passwd" media-type="application/xhtml+xml"/></manifest>`+
			`<spine><itemref idref="a"/><itemref idref="b"/><itemref idref="gone"/><itemref idref="up"/></spine>`,
		"OEBPS/a.xhtml", xhtml(`<p>Kept.</p>`),
	)
	d, err := Read(t.Context(), EPUB, data)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "Kept." {
		t.Errorf("text = %q", d.Text)
	}
	want := []string{
		`chapter "OEBPS/text/b.xhtml" is missing from the file: left out`,
		`chapter "gone" of the spine is not in the manifest: left out`,
		`chapter "etc/passwd" is missing from the file: left out`,
	}
	if !slices.Equal(d.Notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", d.Notes, want)
	}
}

// TestEPUBMissingChaptersCapped: a spine of many missing chapters is noted
// in a few lines, not one a chapter.
func TestEPUBMissingChaptersCapped(t *testing.T) {
	spine := ""
	for i := range 8 {
		spine += fmt.Sprintf(`<itemref idref="c%d"/>`, i)
	}
	data := epubOf(t, `<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/>`+spine+`</spine>`,
		"OEBPS/a.xhtml", xhtml(`<p>Kept.</p>`))
	d, err := Read(t.Context(), EPUB, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Notes) != 6 || d.Notes[5] != "3 more chapters of the spine are missing: left out" {
		t.Errorf("notes: %q", d.Notes)
	}
}
