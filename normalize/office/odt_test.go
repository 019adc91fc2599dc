package office

import "testing"

const oNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"`

// odtOf builds a minimal ODT (hand-written XML, for what pandoc does not
// make): auto is content.xml's automatic styles, body office:text's content.
func odtOf(t testing.TB, auto, body string) []byte {
	t.Helper()
	return zipOf(t,
		"mimetype", "application/vnd.oasis.opendocument.text",
		"content.xml", `<?xml version="1.0"?><office:document-content `+oNS+`><office:automatic-styles>`+auto+`</office:automatic-styles><office:body><office:text>`+body+`</office:text></office:body></office:document-content>`,
		"styles.xml", `<?xml version="1.0"?><office:document-styles `+oNS+`><office:styles><style:style style:name="Title" style:family="paragraph"/><text:list-style style:name="Numbers"><text:list-level-style-number text:level="1"/><text:list-level-style-bullet text:level="2"/></text:list-style></office:styles></office:document-styles>`,
	)
}

func TestODT(t *testing.T) {
	tests := []struct {
		name, auto, body, text, heads, title string
	}{
		{
			name: "tracked changes and comments",
			body: `<text:tracked-changes><text:changed-region text:id="c1"><text:deletion><office:change-info/><text:p>DELETED</text:p></text:deletion></text:changed-region><text:changed-region text:id="c2"><text:insertion><office:change-info/></text:insertion></text:changed-region></text:tracked-changes>` +
				`<text:p>kept <text:change text:change-id="c1"/><text:change-start text:change-id="c2"/>inserted<text:change-end text:change-id="c2"/> <office:annotation><dc:creator>a</dc:creator><text:p>A COMMENT</text:p></office:annotation>end<office:annotation-end/></text:p>`,
			text: "kept inserted end",
		},
		{
			name:  "title from a derived style, headings, spaces",
			auto:  `<style:style style:name="P9" style:family="paragraph" style:parent-style-name="Title"/>`,
			body:  `<text:p text:style-name="P9">The Title</text:p><text:h text:outline-level="2">Two<text:s text:c="3"/>spaces</text:h><text:h>No level</text:h><text:p>a<text:tab/>b<text:line-break/>c</text:p>`,
			text:  "The Title\n\nTwo spaces\n\nNo level\n\na b\nc",
			heads: "1 The Title @0; 2 Two spaces @11; 1 No level @23",
			title: "The Title",
		},
		{
			name: "lists styled in styles.xml, inner lists inherit",
			body: `<text:list text:style-name="Numbers"><text:list-item><text:p>one</text:p><text:p>more</text:p><text:list><text:list-item><text:p>dot</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>two</text:p></text:list-item></text:list><text:list><text:list-item><text:p>unstyled</text:p></text:list-item></text:list>`,
			text: "1. one more\n• dot\n2. two\n\n• unstyled",
		},
		{
			name: "text box after its paragraph, table of contents left out",
			body: `<text:table-of-content><text:index-body><text:p>Intro .... 1</text:p></text:index-body></text:table-of-content>` +
				`<text:p>Anchor<draw:frame><draw:text-box><text:p>In the box</text:p></draw:text-box></draw:frame> continues</text:p><text:p>Next</text:p>`,
			text: "Anchor continues\n\nIn the box\n\nNext",
		},
		{
			name: "tables: repeated and covered cells, empty rows",
			body: `<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>h</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1000"/></table:table-row></table:table-header-rows>` +
				`<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>wide</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>z</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="1000"><table:table-cell/></table:table-row></table:table><text:p>after</text:p>`,
			text: "h | x | x\nwide | | z\n\nafter",
		},
		{
			name: "notes in sections",
			body: `<text:section><text:p>a<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>First.</text:p></text:note-body></text:note> b<text:note text:id="n2" text:note-class="endnote"><text:note-citation>i</text:note-citation><text:note-body><text:h>Second.</text:h></text:note-body></text:note></text:p></text:section>`,
			text: "a[1] b[2]\n\nNotes\n\n[1] First.\n\n[2] Second.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := odtOf(t, tt.auto, tt.body)
			if k, ok := Detect(data); !ok || k != ODT {
				t.Fatalf("Detect = %v, %v", k, ok)
			}
			d, err := Read(t.Context(), ODT, data)
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != tt.text {
				t.Errorf("text = %q, want %q", d.Text, tt.text)
			}
			if got := headings(d); tt.heads != "" && got != tt.heads {
				t.Errorf("headings = %q, want %q", got, tt.heads)
			}
			if tt.title != "" && d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
		})
	}
}
