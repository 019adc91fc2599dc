package office

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/normalize"
)

var update = flag.Bool("update", false, "rewrite golden files (and, with pandoc installed, the fixtures pandoc makes)")

// render is the golden form of a document: title, headings, pages, text.
func render(d *normalize.Document) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "title: %q\n", d.Title)
	for _, h := range d.Headings {
		fmt.Fprintf(&sb, "heading %d @%d: %s\n", h.Level, h.Offset, h.Text)
	}
	for _, p := range d.Pages {
		fmt.Fprintf(&sb, "page %d @%d\n", p.Number, p.Offset)
	}
	sb.WriteString("----\n")
	sb.WriteString(d.Text)
	sb.WriteString("\n")
	return sb.String()
}

// fixtures are the documents pandoc makes from testdata/src: the source,
// the fixture committed, and the kind Detect must find.
var fixtures = []struct {
	src, file string
	kind      Kind
}{
	{"report.md", "report.docx", DOCX},
	{"report.md", "report.odt", ODT},
	{"slides.md", "slides.pptx", PPTX},
	{"book.md", "book.epub", EPUB},
	{"lines.md", "lines.docx", DOCX},
	{"lines.md", "lines.odt", ODT},
	{"lines.md", "lines.pptx", PPTX},
	{"lines.md", "lines.epub", EPUB},
	{"notes.md", "notes.docx", DOCX},
	{"notes.md", "notes.odt", ODT},
	{"notes.md", "notes.epub", EPUB},
}

func readFixture(t *testing.T, data []byte, want Kind) *normalize.Document {
	t.Helper()
	k, ok := Detect(data)
	if !ok || k != want {
		t.Fatalf("Detect = %v, %v; want %v", k, ok, want)
	}
	d, err := Read(t.Context(), k, data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, got, want)
	}
}

// TestGolden reads the committed pandoc fixtures and compares the text with
// testdata/golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, f.file, render(readFixture(t, data, f.kind)))
		})
	}
}

// TestPandoc makes each fixture again with the pandoc installed and checks
// that it reads as the golden file says (pandoc's zips differ in dates, not
// in text). Without pandoc it skips, and fails under CI=true.
func TestPandoc(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pandoc is not installed (Debian: apt-get install pandoc)")
		}
		t.Skip("pandoc is not installed")
	}
	dir := t.TempDir()
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			out := filepath.Join(dir, f.file)
			cmd := exec.CommandContext(t.Context(), "pandoc", filepath.Join("testdata", "src", f.src), "-o", out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pandoc: %v\n%s", err, b)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(filepath.Join("testdata", f.file), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkGolden(t, f.file, render(readFixture(t, data, f.kind)))
		})
	}
}

// TestLineBreaks reads an address and a verse written with line breaks
// within a paragraph (pandoc: w:br, text:line-break, a:br, <br>) and two
// code blocks (w:br; a:t with newlines; one text:p a line), made by pandoc
// from testdata/src/lines.md, and wants each line kept on a line of its own,
// as the HTML of the EPUB keeps them.
func TestLineBreaks(t *testing.T) {
	want := []string{
		"\nSend it to:\nHarbour Master\n12 Quay Street\n",
		"\nRow, row, the tide is turning,\nRow, row, the lamps are burning.\n",
		"\nGet-Process\nStop-Process -Name x\n", // ODT: the next block runs on
		"\nmanifest --vessel Hope\n\n--tons 52",
	}
	tests := []struct {
		file string
		kind Kind
	}{
		{"lines.docx", DOCX},
		{"lines.odt", ODT},
		{"lines.pptx", PPTX},
		{"lines.epub", EPUB},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d := readFixture(t, data, tt.kind)
			for _, w := range want {
				if !strings.Contains(d.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, d.Text)
				}
			}
		})
	}
}

// zipOf builds a zip of the given entries, in the order given (name, body
// pairs).
func zipOf(t testing.TB, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		m := zip.Deflate
		if entries[i] == "mimetype" || entries[i+1] == "" {
			// An empty entry is stored: deflating it costs a compressor's
			// reset (hundreds of KB cleared), which for the 10,000 entries
			// of the entry-limit tests took minutes under -race.
			m = zip.Store
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: entries[i], Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	wNS         = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml"`
	docxTypes   = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
	docxRels    = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`
	docxDocRels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="/word/numbering.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/><Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/></Relationships>`
)

// docxOf builds a minimal DOCX (hand-written XML, for what pandoc cannot
// make): body is the content of w:body; styles the content of w:styles.
func docxOf(t testing.TB, body, styles string) []byte {
	t.Helper()
	return zipOf(t,
		"[Content_Types].xml", docxTypes,
		"_rels/.rels", docxRels,
		"word/_rels/document.xml.rels", docxDocRels,
		"word/document.xml", `<?xml version="1.0"?><w:document `+wNS+`><w:body>`+body+`</w:body></w:document>`,
		"word/styles.xml", `<?xml version="1.0"?><w:styles `+wNS+`>`+styles+`</w:styles>`,
		"word/numbering.xml", `<?xml version="1.0"?><w:numbering `+wNS+`><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="5"><w:abstractNumId w:val="0"/></w:num></w:numbering>`,
		"word/footnotes.xml", `<?xml version="1.0"?><w:footnotes `+wNS+`><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>The note.</w:t></w:r></w:p></w:footnote></w:footnotes>`,
		"word/comments.xml", `<?xml version="1.0"?><w:comments `+wNS+`><w:comment w:id="0"><w:p><w:r><w:t>A COMMENT</w:t></w:r></w:p></w:comment></w:comments>`,
	)
}

func p(style, runs string) string {
	if style != "" {
		style = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + style + runs + `</w:p>`
}

func r(text string) string { return `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r>` }

// TestDOCX covers what pandoc does not write: style chains, outline levels,
// tracked changes, comments, text boxes, fields, a table of contents.
func TestDOCX(t *testing.T) {
	chain := `<w:style w:type="paragraph" w:styleId="Kop1"><w:name w:val="heading 1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Mine"><w:name w:val="My Heading"/><w:basedOn w:val="Kop1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Deeper"><w:name w:val="Deeper"/><w:basedOn w:val="Mine"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Outline"><w:name w:val="Chapter"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Loop"><w:name w:val="Loop"/><w:basedOn w:val="Loop2"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Loop2"><w:name w:val="Loop2"/><w:basedOn w:val="Loop"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Steps"><w:name w:val="Steps"/><w:pPr><w:numPr><w:numId w:val="5"/></w:numPr></w:pPr></w:style>`
	tests := []struct {
		name, body, want string
		headings, title  string
	}{
		{
			name:     "basedOn chain",
			body:     p("Deeper", r("Deep")) + p("Mine", r("Mine")) + p("Kop1", r("Kop")) + p("Loop", r("body")),
			want:     "Deep\n\nMine\n\nKop\n\nbody",
			headings: "1 Deep @0; 1 Mine @6; 1 Kop @12",
		},
		{
			name:     "outline levels",
			body:     p("Outline", r("Style level")) + `<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr>` + r("Direct") + `</w:p>` + `<w:p><w:pPr><w:pStyle w:val="Kop1"/><w:outlineLvl w:val="9"/></w:pPr>` + r("Body level") + `</w:p>`,
			want:     "Style level\n\nDirect\n\nBody level",
			headings: "3 Style level @0; 2 Direct @13; 1 Body level @21",
		},
		{
			name:     "title style",
			body:     p("Titel", r("The Title")) + p("", r("text")),
			want:     "The Title\n\ntext",
			headings: "1 The Title @0",
			title:    "The Title",
		},
		{
			name: "tracked changes",
			body: p("", r("kept ")+`<w:del w:id="1" w:author="a"><w:r><w:delText>deleted </w:delText></w:r></w:del>`+
				`<w:ins w:id="2" w:author="a">`+r("inserted ")+`</w:ins>`+
				`<w:moveFrom w:id="3" w:author="a">`+r("moved-away ")+`</w:moveFrom>`+
				`<w:moveTo w:id="4" w:author="a">`+r("moved-here")+`</w:moveTo>`),
			want: "kept inserted moved-here",
		},
		{
			name: "comments",
			body: p("", `<w:commentRangeStart w:id="0"/>`+r("text")+`<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>`),
			want: "text",
		},
		{
			name: "text box after its paragraph, once",
			body: p("", r("Anchor")+`<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>`+p("", r("In the box"))+`</w:txbxContent></wps:txbx></w:drawing></mc:Choice>`+
				`<mc:Fallback><w:pict><v:textbox><w:txbxContent>`+p("", r("In the box"))+`</w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r>`+r(" continues")) +
				p("", r("Next")),
			want: "Anchor continues\n\nIn the box\n\nNext",
		},
		{
			name: "fields and breaks",
			body: p("", `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>`+r("7")+`<w:r><w:fldChar w:fldCharType="end"/></w:r>`+
				`<w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:noBreakHyphen/><w:t>d</w:t><w:softHyphen/></w:r>`),
			want: "7a b\nc-d",
		},
		{
			name: "line breaks kept in a paragraph, spaces in a heading and a list item",
			body: p("Kop1", r("Two")+`<w:r><w:br/></w:r>`+r("lines")) +
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="5"/></w:numPr></w:pPr>` + r("an") + `<w:r><w:br/></w:r>` + r("item") + `</w:p>` +
				p("", r("12 Quay Street")+`<w:r><w:br/></w:r><w:r><w:br/></w:r>`+r("Bergen")+`<w:r><w:br/></w:r>`),
			want:     "Two lines\n\n1. an item\n\n12 Quay Street\n\nBergen",
			headings: "1 Two lines @0",
		},
		{
			name: "table of contents left out",
			body: `<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/></w:docPartObj></w:sdtPr><w:sdtContent>` + p("", r("Contents ... 1")) + `</w:sdtContent></w:sdt>` +
				`<w:sdt><w:sdtContent>` + p("", r("In a control")) + `</w:sdtContent></w:sdt>`,
			want: "In a control",
		},
		{
			name: "numbering from a style and direct",
			body: p("Steps", r("first")) + p("Steps", r("second")) +
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="5"/></w:numPr></w:pPr>` + r("bullet") + `</w:p>` +
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="0"/></w:numPr></w:pPr>` + r("not a list") + `</w:p>`,
			want: "1. first\n2. second\n• bullet\n\nnot a list",
		},
		{
			name: "footnote referenced twice, numbered once",
			body: p("", r("a")+`<w:r><w:footnoteReference w:id="1"/></w:r>`) + p("", r("b")+`<w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:footnoteReference w:id="99"/></w:r>`),
			want: "a[1]\n\nb[1]\n\nNotes\n\n[1] The note.",
		},
		{
			name: "table with nested table and empty cell",
			body: `<w:tbl><w:tr><w:tc>` + p("", r("a")) + p("", r("a2")) + `</w:tc><w:tc>` + p("", "") + `</w:tc><w:tc><w:tbl><w:tr><w:tc>` + p("", r("x")) + `</w:tc><w:tc>` + p("", r("y")) + `</w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>` + p("", r("after")),
			want: "a a2 | | x y\n\nafter",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read(t.Context(), DOCX, docxOf(t, tt.body, chain))
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != tt.want {
				t.Errorf("text = %q, want %q", d.Text, tt.want)
			}
			if got := headings(d); tt.headings != "" && got != tt.headings {
				t.Errorf("headings = %q, want %q", got, tt.headings)
			}
			if tt.title != "" && d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
			if strings.Contains(d.Text, "COMMENT") {
				t.Errorf("a comment is in the text")
			}
		})
	}
}

func TestDetect(t *testing.T) {
	pdf := []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n")
	tests := []struct {
		name string
		data []byte
		kind Kind
		ok   bool
	}{
		{"docx", docxOf(t, p("", r("x")), ""), DOCX, true},
		{"odt mimetype", zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text"), ODT, true},
		{"epub mimetype", zipOf(t, "mimetype", "application/epub+zip"), EPUB, true},
		{"pptx", zipOf(t, "[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`), PPTX, true},
		{"spreadsheet", zipOf(t, "[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`), XLSX, true},
		{"ods", zipOf(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet"), ODS, true},
		{"workbook without types", zipOf(t, "xl/workbook.xml", "<workbook/>"), XLSX, true},
		{"drawing", zipOf(t, "mimetype", "application/vnd.oasis.opendocument.graphics"), Unknown, false},
		{"plain zip", zipOf(t, "a.txt", "hello"), Unknown, false},
		{"pdf named .docx", pdf, Unknown, false},
		{"empty", nil, Unknown, false},
		{"truncated zip", docxOf(t, p("", r("x")), "")[:40], Unknown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := Detect(tt.data)
			if k != tt.kind || ok != tt.ok {
				t.Errorf("Detect = %v, %v; want %v, %v", k, ok, tt.kind, tt.ok)
			}
		})
	}
}

// bomb is a DOCX whose document.xml decompresses to size bytes; lie sets
// the sizes in its headers to 100 bytes.
func bomb(t testing.TB, size int64, lie bool) []byte {
	t.Helper()
	// A deflate stream of 1 MiB of "a" ending in a sync flush (byte
	// aligned, not final, no reference outside itself) repeated, then a
	// final empty block: size bytes for a thousandth of that.
	deflate := func(b []byte, final bool) []byte {
		var out bytes.Buffer
		fw, _ := flate.NewWriter(&out, flate.BestCompression)
		fw.Write(b)
		if final {
			fw.Close()
		} else {
			fw.Flush()
		}
		return out.Bytes()
	}
	var raw bytes.Buffer
	head := `<?xml version="1.0"?><w:document ` + wNS + `><w:body><w:p><w:r><w:t>`
	raw.Write(deflate([]byte(head), false))
	chunk := deflate(bytes.Repeat([]byte("a"), 1<<20), false)
	for n := int64(len(head)); n < size; n += 1 << 20 {
		raw.Write(chunk)
	}
	raw.Write(deflate(nil, true))
	size = int64(len(head)) + (size-int64(len(head))+(1<<20)-1)/(1<<20)*(1<<20)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range [][2]string{{"[Content_Types].xml", docxTypes}, {"_rels/.rels", docxRels}} {
		f, _ := w.Create(e[0])
		f.Write([]byte(e[1]))
	}
	h := &zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(size)}
	if lie {
		h.UncompressedSize64 = 100
	}
	f, err := w.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(raw.Bytes())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestZipBomb reads zip bombs named .docx: refused with ErrTooLarge while
// decompressing, whatever the headers say.
func TestZipBomb(t *testing.T) {
	small := Reader{Limits: Limits{MaxTotal: 1 << 20}}
	for _, lie := range []bool{false, true} {
		t.Run(fmt.Sprintf("lying headers %v", lie), func(t *testing.T) {
			data := bomb(t, 8<<20, lie)
			if k, ok := Detect(data); !ok || k != DOCX {
				t.Fatalf("Detect = %v, %v", k, ok)
			}
			_, err := small.Read(t.Context(), DOCX, data)
			want := ErrTooLarge
			if lie {
				want = ErrDamaged // archive/zip stops at the size its header says
			}
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			t.Log(err)
		})
	}
	t.Run("default limits", func(t *testing.T) {
		data := bomb(t, DefaultMaxTotal+(1<<20), false)
		t.Logf("%d bytes of zip", len(data))
		_, err := Read(t.Context(), DOCX, data)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if want := "more than 128 MiB"; !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	})
	t.Run("entries", func(t *testing.T) {
		many := Reader{Limits: Limits{MaxEntries: 3}}
		_, err := many.Read(t.Context(), DOCX, docxOf(t, p("", r("x")), ""))
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	// A document with more entries than the limit is still the format it
	// is: detected as such, it fails saying why, where it was skipped as
	// "its content is not EPUB" (the detection opened the zip with the
	// entry limit and took the refusal for another format).
	t.Run("detected past the entry limit", func(t *testing.T) {
		for _, tt := range []struct {
			kind    Kind
			entries []string
		}{
			{EPUB, []string{"mimetype", "application/epub+zip"}},
			{ODT, []string{"mimetype", "application/vnd.oasis.opendocument.text"}},
			{DOCX, []string{"[Content_Types].xml", docxTypes, "_rels/.rels", docxRels, "word/document.xml", `<w:document ` + wNS + `><w:body>` + p("", r("x")) + `</w:body></w:document>`}},
		} {
			entries := tt.entries
			for i := range DefaultMaxEntries {
				entries = append(entries, fmt.Sprintf("junk/%d", i), "")
			}
			data := zipOf(t, entries...)
			if k, ok := Detect(data); !ok || k != tt.kind {
				t.Errorf("%v: Detect = %v, %v; want %v, true", tt.kind, k, ok, tt.kind)
			}
			_, err := Read(t.Context(), tt.kind, data)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "zip entries") {
				t.Errorf("%v: Read: %v, want ErrTooLarge naming the zip entries", tt.kind, err)
			}
		}
	})
	t.Run("depth", func(t *testing.T) {
		deep := strings.Repeat("<w:sdt><w:sdtContent>", 200) + p("", r("x")) + strings.Repeat("</w:sdtContent></w:sdt>", 200)
		_, err := Read(t.Context(), DOCX, docxOf(t, deep, ""))
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
}

// TestXMLHygiene: no external entity is ever read, and damaged parts are
// reported as damaged.
func TestXMLHygiene(t *testing.T) {
	xxe := `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/hostname">]><w:document ` + wNS + `><w:body>` + p("", r("&xxe;")) + `</w:body></w:document>`
	data := zipOf(t, "[Content_Types].xml", docxTypes, "_rels/.rels", docxRels, "word/document.xml", xxe)
	_, err := Read(t.Context(), DOCX, data)
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("external entity: err = %v, want ErrDamaged", err)
	}
	for name, data := range map[string][]byte{
		"not a zip":      []byte("hello"),
		"no document":    zipOf(t, "[Content_Types].xml", docxTypes),
		"broken XML":     zipOf(t, "[Content_Types].xml", docxTypes, "word/document.xml", "<w:document><w:body>"),
		"zip path trick": zipOf(t, "[Content_Types].xml", strings.ReplaceAll(docxTypes, "/word/document.xml", "/../../etc/passwd")),
	} {
		_, err := Read(t.Context(), DOCX, data)
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: err = %v, want ErrDamaged", name, err)
		}
	}
}

// headings lists d's headings as "level text @offset; ...".
func headings(d *normalize.Document) string {
	var s []string
	for _, h := range d.Headings {
		s = append(s, fmt.Sprintf("%d %s @%d", h.Level, h.Text, h.Offset))
	}
	return strings.Join(s, "; ")
}

// TestHeadingNotes: a heading with a footnote reference keeps its marker
// in the text ("Harbour lights[1]") and reads without it in its heading
// path, and so in citations ("Harbour lights"); a heading whose number is
// its own ("Chapter 3") keeps it.
func TestHeadingNotes(t *testing.T) {
	for _, f := range fixtures {
		if f.src != "notes.md" {
			continue
		}
		t.Run(f.file, func(t *testing.T) {
			d := readFixture(t, readTB(t, f.file), f.kind)
			var got []string
			for _, h := range d.Headings {
				got = append(got, h.Text)
				marked := h.Text == "Harbour lights" || h.Text == "Keepers’ duties"
				if full := d.Text[h.Offset:h.End]; marked != (full != h.Text) || marked && !(strings.HasPrefix(full, h.Text) && strings.HasSuffix(full, "]")) {
					t.Errorf("heading %q: its text reads %q, not its marker after it", h.Text, d.Text[h.Offset:h.End])
				}
			}
			want := []string{"Harbour lights", "Keepers’ duties", "Chapter 3", "Notes"}
			if f.kind == EPUB {
				want = want[:3] // the notes are the chapter's, under no heading of their own
			}
			if i := slices.Index(got, "Harbour lights"); i < 0 || !slices.Equal(got[i:], want) {
				t.Errorf("headings %q, want %q", got, want)
			}
			if d.Title != "Harbour notes" {
				t.Errorf("title %q", d.Title)
			}
		})
	}
}
