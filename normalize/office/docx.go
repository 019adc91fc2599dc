package office

import (
	"strconv"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// Relationship types (the suffix after .../relationships/).
const (
	relStyles    = "/styles"
	relNumbering = "/numbering"
	relFootnotes = "/footnotes"
	relEndnotes  = "/endnotes"
)

type wstyle struct {
	name    string
	basedOn string
	outline int // w:outlineLvl + 1; 0 when unset
	numID   string
	ilvl    int
}

type docx struct {
	styles    map[string]*wstyle
	ordered   map[string]map[int]bool // numId to level to ordered
	footnotes map[string]*node
	endnotes  map[string]*node
	notes     notes
	inNote    bool
	title     string
}

func readDOCX(z *zipDoc) (*normalize.Document, error) {
	root, rels, err := z.openMain(DOCX, "word/document.xml")
	if err != nil {
		return nil, err
	}
	d := &docx{styles: map[string]*wstyle{}, ordered: map[string]map[int]bool{}}
	for _, r := range rels {
		if !z.has(r.target) {
			continue
		}
		switch {
		case strings.HasSuffix(r.typ, relStyles):
			n, err := z.parse(r.target)
			if err != nil {
				return nil, err
			}
			d.readStyles(n)
		case strings.HasSuffix(r.typ, relNumbering):
			n, err := z.parse(r.target)
			if err != nil {
				return nil, err
			}
			d.readNumbering(n)
		case strings.HasSuffix(r.typ, relFootnotes), strings.HasSuffix(r.typ, relEndnotes):
			n, err := z.parse(r.target)
			if err != nil {
				return nil, err
			}
			m := map[string]*node{}
			for _, note := range n.all("footnote") {
				m[note.attr("id")] = note
			}
			for _, note := range n.all("endnote") {
				m[note.attr("id")] = note
			}
			if strings.HasSuffix(r.typ, relFootnotes) {
				d.footnotes = m
			} else {
				d.endnotes = m
			}
		}
	}
	body := root.path("document", "body")
	if body == nil {
		return nil, ErrDamaged
	}
	blocks := d.blocks(body)
	blocks = append(blocks, d.notes.section()...)
	var x normalize.Extracted
	emit(&x, blocks)
	return x.Document(withoutNotes(d.title)), nil
}

func (d *docx) readStyles(root *node) {
	for _, s := range root.all("style") {
		st := &wstyle{
			name:    s.path("name").attr("val"),
			basedOn: s.path("basedOn").attr("val"),
		}
		if o := s.path("pPr", "outlineLvl"); o != nil {
			if v, err := strconv.Atoi(o.attr("val")); err == nil && v >= 0 && v < 9 {
				st.outline = v + 1
			}
		}
		if np := s.path("pPr", "numPr"); np != nil {
			st.numID = np.path("numId").attr("val")
			st.ilvl, _ = strconv.Atoi(np.path("ilvl").attr("val"))
		}
		d.styles[s.attr("styleId")] = st
	}
}

func (d *docx) readNumbering(root *node) {
	abstract := map[string]map[int]bool{}
	for _, a := range root.all("abstractNum") {
		abstract[a.attr("abstractNumId")] = levelFormats(a)
	}
	for _, n := range root.all("num") {
		levels := map[int]bool{}
		for l, o := range abstract[n.path("abstractNumId").attr("val")] {
			levels[l] = o
		}
		for _, o := range n.all("lvlOverride") {
			for l, ord := range levelFormats(o) {
				levels[l] = ord
			}
		}
		d.ordered[n.attr("numId")] = levels
	}
}

// levelFormats reads the w:lvl children of an abstract numbering or an
// override: level to whether it is numbered (not a bullet).
func levelFormats(n *node) map[int]bool {
	out := map[int]bool{}
	for _, l := range n.all("lvl") {
		i, err := strconv.Atoi(l.attr("ilvl"))
		if err != nil {
			continue
		}
		f := l.path("numFmt").attr("val")
		out[i] = f != "" && f != "bullet" && f != "none"
	}
	return out
}

// styleInfo follows style id's basedOn chain: the heading level (0 for
// none), whether it is the Title style, and its list numbering.
func (d *docx) styleInfo(id string) (level int, title bool, numID string, ilvl int) {
	seen := 0
	for id != "" && seen < 32 {
		seen++
		s := d.styles[id]
		if s == nil {
			break
		}
		name := strings.ToLower(strings.TrimSpace(s.name))
		if level == 0 && !title {
			switch {
			case name == "title":
				title = true
			case strings.HasPrefix(name, "heading "):
				if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && n >= 1 && n <= 9 {
					level = n
				}
			}
			if level == 0 && !title && s.outline > 0 {
				level = s.outline
			}
		}
		if numID == "" && s.numID != "" {
			numID, ilvl = s.numID, s.ilvl
		}
		id = s.basedOn
	}
	return level, title, numID, ilvl
}

// blocks reads the block-level content of a body, cell, text box or note.
func (d *docx) blocks(n *node) []block {
	var out []block
	for _, k := range n.kids {
		switch k.name.Local {
		case "p":
			out = append(out, d.paragraph(k)...)
		case "tbl":
			out = append(out, d.table(k)...)
		case "sdt":
			if isTOC(k) {
				continue
			}
			out = append(out, d.blocks(k)...)
		case "sdtContent", "customXml", "ins", "moveTo", "smartTag", "AlternateContent", "Choice":
			out = append(out, d.blocks(k)...)
		}
	}
	return out
}

// isTOC reports whether a content control holds a table of contents (its
// text repeats the headings).
func isTOC(sdt *node) bool {
	g := sdt.path("sdtPr", "docPartObj", "docPartGallery")
	return g != nil && strings.EqualFold(g.attr("val"), "Table of Contents")
}

func (d *docx) paragraph(p *node) []block {
	var sb strings.Builder
	var boxes []block
	d.inline(p, &sb, &boxes)
	text := strings.TrimSpace(sb.String())
	var out []block
	if text != "" {
		out = append(out, lineBreaks(d.classify(p.child("pPr"), text)))
	}
	return append(out, boxes...)
}

func (d *docx) classify(pPr *node, text string) block {
	level, title, numID, ilvl := d.styleInfo(pPr.path("pStyle").attr("val"))
	if o := pPr.path("outlineLvl"); o != nil {
		if v, err := strconv.Atoi(o.attr("val")); err == nil && v >= 0 && v < 9 {
			level, title = v+1, false
		}
	}
	if np := pPr.path("numPr"); np != nil {
		numID = np.path("numId").attr("val")
		ilvl, _ = strconv.Atoi(np.path("ilvl").attr("val"))
	}
	switch {
	case title && !d.inNote:
		if d.title == "" {
			d.title = text
		}
		return block{kind: bHeading, level: 1, text: text}
	case level > 0 && !d.inNote:
		return block{kind: bHeading, level: level, text: text}
	case numID != "" && numID != "0":
		ilvl = min(max(ilvl, 0), 8)
		return block{kind: bItem, level: ilvl + 1, ordered: d.ordered[numID][ilvl], text: text}
	}
	return block{kind: bPara, text: text}
}

// inline writes the text of a paragraph's runs to sb; text boxes anchored in
// it go to boxes, to follow the paragraph.
func (d *docx) inline(n *node, sb *strings.Builder, boxes *[]block) {
	for _, k := range n.kids {
		switch k.name.Local {
		case "":
		case "t":
			sb.WriteString(k.textContent())
		case "tab", "ptab":
			sb.WriteByte('\t')
		case "br", "cr":
			sb.WriteByte('\n')
		case "noBreakHyphen":
			sb.WriteByte('-')
		case "del", "moveFrom", "delText", "delInstrText", "instrText", "pPr", "rPr", "fldData",
			"commentReference", "annotationRef", "Fallback", "sectPr":
			// Deleted text, field codes, properties and comments are not
			// text of the document; a Fallback repeats its Choice.
		case "footnoteReference", "endnoteReference":
			sb.WriteString(d.noteRef(k))
		case "txbxContent":
			*boxes = append(*boxes, d.blocks(k)...)
		default:
			d.inline(k, sb, boxes)
		}
	}
}

func (d *docx) noteRef(ref *node) string {
	if d.inNote {
		return ""
	}
	id := ref.attr("id")
	src, key := d.footnotes, "f"+id
	if ref.is("endnoteReference") {
		src, key = d.endnotes, "e"+id
	}
	note := src[id]
	if note == nil {
		return ""
	}
	return d.notes.ref(key, func() []block {
		d.inNote = true
		defer func() { d.inNote = false }()
		return d.blocks(note)
	})
}

func (d *docx) table(t *node) []block {
	var out []block
	for _, tr := range rows(t) {
		var cells []string
		for _, tc := range tr.kids {
			if !tc.is("tc") {
				continue
			}
			cells = append(cells, blockText(d.blocks(tc)))
		}
		out = append(out, block{kind: bRow, cells: cells})
	}
	return append(out, block{kind: bEndTable})
}

// rows returns a table's rows, including those inside content controls and
// tracked insertions, but not rows of nested tables.
func rows(t *node) []*node {
	var out []*node
	for _, k := range t.kids {
		switch k.name.Local {
		case "tr":
			out = append(out, k)
		case "sdt", "sdtContent", "customXml", "ins":
			out = append(out, rows(k)...)
		}
	}
	return out
}
