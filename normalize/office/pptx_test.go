package office

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

const (
	pNS       = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	pptxTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`
	relNS     = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
)

// pptxOf builds a minimal PPTX (hand-written XML, for what pandoc does not
// make): slides are the spTree contents of slide1.xml, slide2.xml, ...;
// order lists the slide files in presentation order; notes maps a slide
// file to its notes' body text.
func pptxOf(t testing.TB, order []int, notes map[int]string, slides ...string) []byte {
	t.Helper()
	entries := []string{"[Content_Types].xml", pptxTypes}
	ids, rels := "", ""
	for i, n := range order {
		ids += fmt.Sprintf(`<p:sldId id="%d" r:id="rId%d"/>`, 256+i, n)
		rels += fmt.Sprintf(`<Relationship Id="rId%d" Type="%s/slide" Target="slides/slide%d.xml"/>`, n, relNS, n)
	}
	entries = append(entries,
		"ppt/presentation.xml", `<p:presentation `+pNS+`><p:sldIdLst>`+ids+`</p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+rels+`</Relationships>`)
	for i, s := range slides {
		n := i + 1
		entries = append(entries, fmt.Sprintf("ppt/slides/slide%d.xml", n), `<p:sld `+pNS+`><p:cSld><p:spTree>`+s+`</p:spTree></p:cSld></p:sld>`)
		if text, ok := notes[n]; ok {
			entries = append(entries,
				fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), fmt.Sprintf(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="%s/notesSlide" Target="../notesSlides/notesSlide%d.xml"/></Relationships>`, relNS, n),
				fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n), `<p:notes `+pNS+`><p:cSld><p:spTree>`+sp("sldImg", "", "")+sp("body", "", text)+sp("sldNum", "", "7")+`</p:spTree></p:cSld></p:notes>`)
		}
	}
	return zipOf(t, entries...)
}

// sp is a shape: ph its placeholder type ("" for none, "idx" for a content
// placeholder without a type), at the offset "x,y" when given, with one
// paragraph per line of text ("*" starts a bulleted one, "#" a numbered).
func sp(ph, at, text string) string {
	nv := `<p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>`
	switch ph {
	case "":
	case "idx":
		nv = `<p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr>`
	default:
		nv = `<p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr><p:ph type="` + ph + `"/></p:nvPr></p:nvSpPr>`
	}
	pr := `<p:spPr/>`
	if at != "" {
		var x, y int
		fmt.Sscanf(at, "%d,%d", &x, &y)
		pr = fmt.Sprintf(`<p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="10" cy="10"/></a:xfrm></p:spPr>`, x, y)
	}
	body := ""
	for _, line := range splitLines(text) {
		ppr := `<a:pPr><a:buNone/></a:pPr>`
		switch {
		case len(line) > 0 && line[0] == '*':
			ppr, line = `<a:pPr lvl="1"><a:buChar char="•"/></a:pPr>`, line[1:]
		case len(line) > 0 && line[0] == '#':
			ppr, line = `<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>`, line[1:]
		case ph == "idx":
			ppr = `<a:pPr lvl="0"/>`
		}
		body += `<a:p>` + ppr + `<a:r><a:t>` + line + `</a:t></a:r></a:p>`
	}
	return `<p:sp>` + nv + pr + `<p:txBody><a:bodyPr/>` + body + `</p:txBody></p:sp>`
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '\n' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func TestPPTX(t *testing.T) {
	tests := []struct {
		name         string
		data         []byte
		text, heads  string
		pages, title string
		notes        string // the reader's notes, joined by "; "
	}{
		{
			name:  "presentation order, not file names",
			data:  pptxOf(t, []int{2, 1, 3}, nil, sp("title", "", "File one"), sp("ctrTitle", "", "File two")+sp("subTitle", "", "sub"), sp("title", "", "File three")),
			text:  "File two\n\nsub\n\nFile one\n\nFile three",
			heads: "1 File two @0; 1 File one @15; 1 File three @25",
			pages: "[{1 0} {2 15} {3 25}]",
			title: "File two",
		},
		{
			name:  "title first, boxes top to bottom then left to right, footers left out",
			data:  pptxOf(t, []int{1}, nil, sp("", "500,900", "bottom")+sp("", "900,100", "top right")+sp("title", "0,400", "Title")+sp("", "100,100", "top left")+sp("sldNum", "0,0", "1")+sp("ftr", "0,0", "Company")),
			text:  "Title\n\ntop left\n\ntop right\n\nbottom",
			pages: "[{1 0}]",
		},
		{
			name:  "tree order when placeholders have no position",
			data:  pptxOf(t, []int{1}, nil, sp("idx", "", "one\ntwo\n*sub")+sp("", "", "#first\n#second")+sp("title", "", "T")),
			text:  "T\n\n• one\n• two\n◦ sub\n\n1. first\n2. second",
			heads: "1 T @0",
		},
		{
			name: "groups, tables and alternate content",
			data: pptxOf(t, []int{1}, nil, `<p:grpSp>`+sp("", "", "in group")+`<p:grpSp>`+sp("", "", "deeper")+`</p:grpSp></p:grpSp>`+
				`<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>a</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>b</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`+
				`<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="x">`+sp("", "", "choice")+`</mc:Choice><mc:Fallback>`+sp("", "", "fallback")+`</mc:Fallback></mc:AlternateContent>`),
			text: "in group\n\ndeeper\n\na | b\n\nchoice",
		},
		{
			name:  "speaker notes after the slide's text, marked",
			data:  pptxOf(t, []int{1, 2}, map[int]string{1: "Say hello."}, sp("title", "", "One")+sp("", "", "body"), sp("title", "", "Two")),
			text:  "One\n\nbody\n\nSpeaker notes:\n\nSay hello.\n\nTwo",
			pages: "[{1 0} {2 39}]",
		},
		{
			name:  "missing slide part left out and noted",
			data:  pptxOf(t, []int{1, 4}, nil, sp("title", "", "Only")),
			text:  "Only",
			notes: `slide 2 ("ppt/slides/slide4.xml") is missing from the file: left out`,
		},
		{
			name: "a slide without its relationship left out and noted",
			data: func() []byte {
				data := pptxOf(t, []int{1, 2}, nil, sp("title", "", "One"), sp("title", "", "Two"))
				return rezip(t, data, "ppt/_rels/presentation.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+relNS+`/slide" Target="slides/slide1.xml"/></Relationships>`)
			}(),
			text:  "One",
			notes: "slide 2 has no slide part in the presentation's relationships: left out",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, ok := Detect(tt.data); !ok || k != PPTX {
				t.Fatalf("Detect = %v, %v", k, ok)
			}
			d, err := Read(t.Context(), PPTX, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != tt.text {
				t.Errorf("text = %q, want %q", d.Text, tt.text)
			}
			if got := headings(d); tt.heads != "" && got != tt.heads {
				t.Errorf("headings = %q, want %q", got, tt.heads)
			}
			if got := fmt.Sprint(d.Pages); tt.pages != "" && got != tt.pages {
				t.Errorf("pages = %s, want %s", got, tt.pages)
			}
			if got := strings.Join(d.Notes, "; "); got != tt.notes {
				t.Errorf("notes = %q, want %q", got, tt.notes)
			}
			if tt.title != "" && d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
		})
	}
}

// rezip returns the zip data with the entry name's body replaced.
func rezip(t testing.TB, data []byte, name, body string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, f := range zr.File {
		b := body
		if f.Name != name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			all, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			b = string(all)
		}
		entries = append(entries, f.Name, b)
	}
	return zipOf(t, entries...)
}
