package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskSection: an offline answer's reference to a spreadsheet's row or
// a Word paragraph names the section its quote is in ("§ Costs", "§ Lamp"),
// where the passage starts with that section's heading (the sheet's name)
// or with the end of the section before (the text it shares with the
// passage before it), and never the passage's section for a quote of the
// section before; a sheet that starts inside the passage names its own.
func TestAskSection(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(officeFixtures, "budget.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "budget.xlsx"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manual.docx"), manualDOCX(t), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, dir); code != 0 {
		t.Fatalf("index: %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		name, question, text, ref, notRef string
	}{
		{"a sheet's row", "what did the brass polish cost", "Item: Brass polish; Cost: 14.00", "[Lighthouse Budget § Costs](file://", ""},
		// The workbook is one passage: Keepers starts inside it.
		{"a later sheet's row", "what is Tom Reed's watch", "Name: Tom Reed; Watch: day", "[Lighthouse Budget § Keepers](file://", ""},
		{"a Word paragraph", "what oil does the lamp burn", "The lamp burns paraffin oil supplied by the harbour board.",
			"[Lighthouse Manual § Lamp](file://", ""},
		{"the section before", "what ends the keepers section", "The keepers section ends with this sentence about the night watch.",
			"[Lighthouse Manual", "§ Lamp"},
	} {
		_, out, _ := cite(t, "ask", "--index", idx, tc.question)
		if !strings.Contains(out, tc.text) || !strings.Contains(out, tc.ref) || (tc.notRef != "" && strings.Contains(out, tc.notRef)) {
			t.Errorf("%s: ask %q does not cite %q as %q (nor as %q):\n%s", tc.name, tc.question, tc.text, tc.ref, tc.notRef, out)
		}
	}
}

// manualDOCX returns a Word file titled "Lighthouse Manual" with three
// sections, Keepers, Lamp and Storms, each long enough that a passage ends
// before the next one's heading and the passage after starts with the end
// of the section before.
func manualDOCX(t *testing.T) []byte {
	t.Helper()
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	para := func(style, text string) string {
		if style != "" {
			style = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return `<w:p>` + style + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
	}
	words := strings.Fields("tower storm reef harbour wick lens ship fog light night watch brass cottage stair gallery glass bell rope cliff gull")
	var body strings.Builder
	body.WriteString(para("Heading1", "Lighthouse Manual"))
	n := 0
	for _, sec := range []struct{ name, first, last string }{
		{"Keepers", "The keeper lives in the cottage beside the tower.", "The keepers section ends with this sentence about the night watch."},
		{"Lamp", "The lamp burns paraffin oil supplied by the harbour board.", "The lamp section ends here."},
		{"Storms", "During storms the foghorn sounds every thirty seconds.", "The storms section ends here."},
	} {
		body.WriteString(para("Heading2", sec.name))
		body.WriteString(para("", sec.first))
		for range 6 {
			var p []string
			for range 60 {
				n = (n*7 + 3) % 101
				p = append(p, words[n%len(words)])
			}
			body.WriteString(para("", fmt.Sprintf("Filler %s.", strings.Join(p, " "))))
		}
		body.WriteString(para("", sec.last))
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/_rels/document.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0"?><w:document ` + ns + `><w:body>` + body.String() + `</w:body></w:document>`},
		{"word/styles.xml", `<?xml version="1.0"?><w:styles ` + ns + `><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`},
	} {
		f, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAskFootnoteSection: in notes.pdf (printed by Chromium), a sentence
// after the heading "Harbour lights¹" and ending in a raised "²" is the
// answer, under its heading; it was taken for a heading (its line ended
// in a number), so that the answer quoted the next section's sentence,
// and a quote after a heading ending in a marker named no section (the
// heading's line is "Harbour lights1", its path "Harbour lights").
func TestAskFootnoteSection(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, filepath.Join(pdfFixtures, "notes.pdf")); code != 0 {
		t.Fatalf("index: %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct{ question, quote, heading string }{
		{"what lights does the harbour have on its breakwater", "The harbour has two lights on its breakwater, a red one and a green one.2", "Harbour lights"},
		{"when does the keeper trim the wick", "The keeper trims the wick every evening and winds the clockwork at midnight.", "Harbour lights > Keepers’ duties"},
	} {
		code, out, errOut := cite(t, "ask", "--index", idx, "--json", tc.question)
		if code != 0 {
			t.Fatalf("ask: %d\n%s%s", code, out, errOut)
		}
		var res struct {
			References []struct{ Quote, Heading string } `json:"references"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("ask --json: %v\n%s", err, out)
		}
		if len(res.References) != 1 || res.References[0].Quote != tc.quote || res.References[0].Heading != tc.heading {
			t.Errorf("ask %q: references %+v, want one quoting %q under %q", tc.question, res.References, tc.quote, tc.heading)
		}
	}
}
