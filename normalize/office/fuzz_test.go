package office

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// fuzzRead checks that reading never panics, and that a document read has
// pages in order within its text.
func fuzzRead(f *testing.F, kind Kind, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	testenv.BoundMinimize(f)
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

func FuzzReadPPTX(f *testing.F) {
	fuzzRead(f, PPTX, fixture(f, "slides.pptx"))
}

func FuzzReadXLSX(f *testing.F) {
	fuzzRead(f, XLSX, fixture(f, "budget.xlsx"),
		xlsxOf(f, `<si><r><t>a</t></r><rPh><t>b</t></rPh></si>`, `<numFmts><numFmt numFmtId="164" formatCode="yyyy"/></numFmts><cellXfs><xf numFmtId="164"/><xf numFmtId="9"/></cellXfs>`, "",
			xlsxSheet{name: "S", data: `<row r="2"><c r="B2" t="s"><v>0</v></c><c s="1"><v>45000.5</v></c><c s="2"><v>1</v></c></row>`}))
}

func FuzzReadODS(f *testing.F) {
	fuzzRead(f, ODS, fixture(f, "budget.ods"))
}

// fuzzSeeds are the interesting inputs committed under testdata/fuzz
// (go test -run TestFuzzSeeds -update rewrites them).
func fuzzSeeds(t testing.TB) map[string]map[string][]byte {
	return map[string]map[string][]byte{
		"FuzzReadDOCX": {
			"truncated":    readTB(t, "report.docx")[:3000],
			"bomb":         bomb(t, 5<<20, false),
			"lying-bomb":   bomb(t, 5<<20, true),
			"xxe":          zipOf(t, "[Content_Types].xml", docxTypes, "word/document.xml", `<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><w:document `+wNS+`><w:body>`+p("", r("&x;"))+`</w:body></w:document>`),
			"style-loop":   docxOf(t, p("A", r("x")), `<w:style w:styleId="A"><w:basedOn w:val="B"/></w:style><w:style w:styleId="B"><w:basedOn w:val="A"/></w:style>`),
			"textbox":      docxOf(t, p("", `<w:r><mc:AlternateContent><mc:Choice><w:txbxContent>`+p("", r("box"))+`</w:txbxContent></mc:Choice><mc:Fallback>`+p("", r("fb"))+`</mc:Fallback></mc:AlternateContent></w:r>`), ""),
			"note-in-note": docxOf(t, p("", `<w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:endnoteReference w:id="1"/></w:r>`), ""),
			"note-in-heading": docxOf(t, p("Title", r("T")+`<w:r><w:footnoteReference w:id="1"/></w:r>`)+p("Heading1", `<w:r><w:footnoteReference w:id="1"/></w:r>`+r(" A ")+`<w:r><w:footnoteReference w:id="1"/></w:r>`+r("\uFDD0 B \uFDD1")),
				`<w:style w:styleId="Title"><w:name w:val="Title"/></w:style><w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>`),
		},
		"FuzzReadODT": {
			"truncated": readTB(t, "report.odt")[:4000],
			"changes":   odtOf(t, `<style:style style:name="P" style:family="paragraph" style:parent-style-name="P"/>`, `<text:tracked-changes><text:changed-region><text:deletion><text:p>x</text:p></text:deletion></text:changed-region></text:tracked-changes><text:p text:style-name="P">a<text:note><text:note-body><text:p>n<text:note><text:note-body><text:p>m</text:p></text:note-body></text:note></text:p></text:note-body></text:note><draw:frame><draw:text-box><text:list><text:list-item><text:h>h</text:h></text:list-item></text:list></draw:text-box></draw:frame></text:p>`),
			"table":     odtOf(t, "", `<table:table><table:table-row><table:table-cell table:number-columns-repeated="99999"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`),
		},
		"FuzzReadEPUB": {
			"truncated":        readTB(t, "book.epub")[:3000],
			"missing-chapters": epubOf(t, `<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="../../b.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/><itemref idref="b"/><itemref idref="gone"/><itemref idref="b"/></spine>`, "OEBPS/a.xhtml", `<p>kept</p>`),
			"nav-loop":         epubOf(t, `<manifest><item id="n" href="../../n.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c" href="c.xhtml" media-type="text/html"/></manifest><spine toc="n"><itemref idref="n"/><itemref idref="c"/><itemref idref="c"/></spine>`, "n.xhtml", `<nav><a href="OEBPS/c.xhtml">T</a>`, "OEBPS/c.xhtml", `<h3>x</h3><p>y`),
		},
		"FuzzReadXLSX": {
			"truncated": readTB(t, "budget.xlsx")[:3000],
			"huge-refs": xlsxOf(t, "", "", `<workbookPr date1904="true"/>`, xlsxSheet{name: "S", data: `<row r="99999999999"><c r="ZZZZZZZZ1"><v>1</v></c><c r="1A" t="s"><v>-1</v></c><c t="b"><v>x</v></c></row><row r="-3"><c s="-1"><v>1e400</v></c></row>`}),
			"formats": xlsxOf(t, `<si><t>s</t></si>`, `<numFmts><numFmt numFmtId="164" formatCode="#,##0.00\ [$€-407];[Red]\(#,##0.00\)"/><numFmt numFmtId="165" formatCode="[hh]:mm:ss.00"/><numFmt numFmtId="166" formatCode="# ??/??;;&quot;zero&quot;;&quot;T &quot;@"/><numFmt numFmtId="167" formatCode="[&gt;=1E6]0.0,,&quot;M&quot;;[&lt;0]\-0;0.00E+00"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="167"/></cellXfs>`, "",
				xlsxSheet{name: "F", data: `<row r="1"><c s="1"><v>-1234.5</v></c><c s="2"><v>1.00001</v></c><c s="3"><v>3.14159</v></c><c s="3" t="s"><v>0</v></c><c s="4"><v>2500000</v></c><c s="4"><v>-7</v></c><c s="4"><v>0.000123</v></c></row>`}),
			"shared-loop": xlsxOf(t, `<si><t>a<si><t>b</t></si></t></si>`, `<cellXfs><xf numFmtId="999999999999"/></cellXfs>`, "", xlsxSheet{name: "S", state: "veryHidden"}, xlsxSheet{name: "S", data: `<row><c t="s"><v>0</v></c></row>`}),
		},
		"FuzzReadODS": {
			"truncated": readTB(t, "budget.ods")[:3000],
			"data-styles": odsOf(t, `<number:number-style style:name="N1"><number:fraction number:min-integer-digits="0" number:min-numerator-digits="9" number:min-denominator-digits="9"/><style:map style:condition="value()&gt;=0" style:apply-style-name="N2"/></number:number-style><number:currency-style style:name="N2"><number:text>"(</number:text><number:currency-symbol>$</number:currency-symbol><number:number number:decimal-places="99" number:min-decimal-places="-3" number:display-factor="1e300"/><style:map style:condition="value()&gt;0" style:apply-style-name="N1"/></number:currency-style><style:style style:name="c" style:family="table-cell" style:data-style-name="N1"/>`,
				`<table:table table:name="A"><table:table-column table:number-columns-repeated="99999999" table:default-cell-style-name="c"/><table:table-row><table:table-cell office:value-type="float" office:value="-1e308"/><table:table-cell office:value-type="time" office:time-value="-P1W2DT99999999H"/><table:table-cell table:style-name="c" office:value-type="currency" office:value="NaN"/></table:table-row></table:table>`),
			"million-rows": odsOf(t, "", `<table:table table:name="A"><table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`),
			"nested":       odsOf(t, `<style:style style:family="table"><style:table-properties table:display="false"/></style:style>`, `<table:table><table:table-row><table:table-cell><table:table table:name="in"><table:table-row><table:table-cell><text:p>n</text:p></table:table-cell></table:table-row></table:table><office:annotation><text:p>c</text:p></office:annotation></table:table-cell></table:table-row></table:table>`),
		},
		"FuzzReadPPTX": {
			"truncated":     readTB(t, "slides.pptx")[:5000],
			"order-missing": pptxOf(t, []int{3, 1, 9}, map[int]string{1: "n"}, sp("title", "", "a"), sp("idx", "", "b\n*c"), sp("", "1,2", "d")),
			"groups":        pptxOf(t, []int{1}, nil, `<p:grpSp><p:grpSp>`+sp("", "", "deep")+`</p:grpSp></p:grpSp><p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc/></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`),
		},
	}
}

func readTB(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFuzzSeeds checks that the committed fuzz inputs are the ones
// fuzzSeeds makes (by name), and rewrites them with -update.
func TestFuzzSeeds(t *testing.T) {
	for target, seeds := range fuzzSeeds(t) {
		dir := filepath.Join("testdata", "fuzz", target)
		for name, b := range seeds {
			file := filepath.Join(dir, name)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				s := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
				if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: %v (go test -run TestFuzzSeeds -update writes it)", file, err)
			}
		}
	}
}

func FuzzReadODT(f *testing.F) {
	fuzzRead(f, ODT, fixture(f, "report.odt"))
}

func FuzzReadEPUB(f *testing.F) {
	fuzzRead(f, EPUB, fixture(f, "book.epub"))
}

// FuzzReadOLE reads compound files (what a password-protected DOCX or an
// old .doc is): their FAT, DIFAT and directory chains are followed within
// the file's sectors. The seeds are three-sector files (tinyOLE): the
// fuzzer minimizes each input that finds new code by cutting byte ranges,
// which for the 17 KB report.doc took all of its minute.
func FuzzReadOLE(f *testing.F) {
	f.Add(tinyOLE("EncryptionInfo", "EncryptedPackage"))
	f.Add(tinyOLE("WordDocument"))
	f.Add(tinyOLE("PowerPoint Document", "Pictures"))
	fuzzRead(f, OLE)
}

// tinyOLE writes a compound file of 512-byte sectors: the header, one FAT
// sector and one directory sector holding the root and empty streams of
// the given names (at most three).
func tinyOLE(streams ...string) []byte {
	b := make([]byte, 3*512)
	put32 := func(off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	copy(b, oleMagic)
	binary.LittleEndian.PutUint16(b[0x18:], 0x3E) // minor version
	binary.LittleEndian.PutUint16(b[0x1A:], 3)    // major version
	binary.LittleEndian.PutUint16(b[0x1C:], 0xFFFE)
	binary.LittleEndian.PutUint16(b[0x1E:], 9) // sector shift
	binary.LittleEndian.PutUint16(b[0x20:], 6) // mini sector shift
	put32(0x2C, 1)                             // FAT sectors
	put32(0x30, 1)                             // first directory sector
	put32(0x38, 4096)                          // mini stream cutoff
	put32(0x3C, 0xFFFFFFFE)                    // no mini FAT
	put32(0x44, 0xFFFFFFFE)                    // no DIFAT sectors
	for i := range 109 {
		put32(0x4C+4*i, 0xFFFFFFFF)
	}
	put32(0x4C, 0) // the FAT is sector 0
	fat := 512
	for i := 0; i < 128; i++ {
		put32(fat+4*i, 0xFFFFFFFF)
	}
	put32(fat, 0xFFFFFFFD)   // sector 0 is a FAT sector
	put32(fat+4, 0xFFFFFFFE) // sector 1, the directory, ends its chain
	entry := func(i int, name string, typ byte) {
		e := b[1024+128*i : 1024+128*(i+1)]
		n := 0
		for _, r := range name {
			binary.LittleEndian.PutUint16(e[n:], uint16(r))
			n += 2
		}
		binary.LittleEndian.PutUint16(e[0x40:], uint16(n+2))
		e[0x42] = typ
		for _, off := range []int{0x44, 0x48, 0x4C} { // no siblings, no child
			binary.LittleEndian.PutUint32(e[off:], 0xFFFFFFFF)
		}
		binary.LittleEndian.PutUint32(e[0x74:], 0xFFFFFFFE) // no data
	}
	entry(0, "Root Entry", 5)
	for i, s := range streams[:min(len(streams), 3)] {
		entry(i+1, s, 2)
	}
	return b
}
