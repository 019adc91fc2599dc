package office

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

type odt struct {
	parents map[string]string       // paragraph style to parent style
	ordered map[string]map[int]bool // list style to level (1-based) to numbered
	notes   notes
	inNote  bool
	title   string
}

func readODT(z *zipDoc) (*normalize.Document, error) {
	if err := odtEncrypted(z); err != nil {
		return nil, err
	}
	root, err := z.parse("content.xml")
	if err != nil {
		return nil, err
	}
	o := &odt{parents: map[string]string{}, ordered: map[string]map[int]bool{}}
	o.readStyles(root)
	if z.has("styles.xml") {
		styles, err := z.parse("styles.xml")
		if err != nil {
			return nil, err
		}
		o.readStyles(styles)
	}
	text := root.path("document-content", "body", "text")
	if text == nil {
		return nil, ErrDamaged
	}
	blocks := o.blocks(text, "", 0)
	blocks = append(blocks, o.notes.section()...)
	var x normalize.Extracted
	emit(&x, blocks)
	return x.Document(withoutNotes(o.title)), nil
}

func (o *odt) readStyles(root *node) {
	for _, s := range root.all("style") {
		if s.attr("family") == "paragraph" {
			if _, ok := o.parents[s.attr("name")]; !ok {
				o.parents[s.attr("name")] = s.attr("parent-style-name")
			}
		}
	}
	for _, l := range root.all("list-style") {
		levels := map[int]bool{}
		for _, k := range l.kids {
			n, err := strconv.Atoi(k.attr("level"))
			if err != nil {
				continue
			}
			levels[n] = k.is("list-level-style-number")
		}
		if _, ok := o.ordered[l.attr("name")]; !ok {
			o.ordered[l.attr("name")] = levels
		}
	}
}

// derives reports whether paragraph style name is, or derives from, the
// style base ("Title", "Preformatted_20_Text").
func (o *odt) derives(name, base string) bool {
	for i := 0; name != "" && i < 32; i++ {
		if name == base {
			return true
		}
		name = o.parents[name]
	}
	return false
}

// blocks reads the block content of n; list is the style of the enclosing
// list and depth its nesting.
func (o *odt) blocks(n *node, list string, depth int) []block {
	var out []block
	// pre holds the lines of a code block: paragraphs of the Preformatted
	// Text style in a row, one a line (as pandoc writes a code block), an
	// empty one a blank line.
	var pre []string
	for _, k := range n.kids {
		if k.is("p") && o.derives(k.attr("style-name"), "Preformatted_20_Text") {
			text, boxes := o.paragraph(k)
			pre = append(pre, text)
			if len(boxes) > 0 {
				out = append(out, block{kind: bLines, text: strings.Join(pre, "\n")})
				out = append(out, boxes...)
				pre = pre[:0]
			}
			continue
		}
		if k.name.Local != "" && len(pre) > 0 {
			out = append(out, block{kind: bLines, text: strings.Join(pre, "\n")})
			pre = pre[:0]
		}
		switch k.name.Local {
		case "h":
			text, boxes := o.paragraph(k)
			if text != "" {
				level, err := strconv.Atoi(k.attr("outline-level"))
				if err != nil || level < 1 {
					level = 1
				}
				kind := bHeading
				if o.inNote {
					kind = bPara
				}
				out = append(out, block{kind: kind, level: level, text: text})
			}
			out = append(out, boxes...)
		case "p":
			text, boxes := o.paragraph(k)
			if text != "" {
				b := lineBreaks(block{kind: bPara, text: text})
				if !o.inNote && o.derives(k.attr("style-name"), "Title") {
					b = block{kind: bHeading, level: 1, text: text}
					if o.title == "" {
						o.title = text
					}
				}
				out = append(out, b)
			}
			out = append(out, boxes...)
		case "list":
			style := list
			if s := k.attr("style-name"); s != "" {
				style = s
			}
			out = append(out, o.list(k, style, depth+1)...)
		case "table":
			out = append(out, o.table(k)...)
		case "section", "text-content", "body", "change-region", "inserted":
			out = append(out, o.blocks(k, list, depth)...)
		}
		// Not text: text:tracked-changes (deleted text lives there),
		// office:annotation (comments), text:table-of-content and the
		// other indexes (they repeat the headings), declarations.
	}
	if len(pre) > 0 {
		out = append(out, block{kind: bLines, text: strings.Join(pre, "\n")})
	}
	return out
}

func (o *odt) list(l *node, style string, depth int) []block {
	var out []block
	ordered := o.ordered[style][min(depth, 10)]
	for _, item := range l.kids {
		if !item.is("list-item") && !item.is("list-header") {
			continue
		}
		var texts []string
		var rest []block
		for _, k := range item.kids {
			switch k.name.Local {
			case "p", "h":
				t, boxes := o.paragraph(k)
				texts = append(texts, t)
				rest = append(rest, boxes...)
			case "list":
				s := style
				if n := k.attr("style-name"); n != "" {
					s = n
				}
				rest = append(rest, o.list(k, s, depth+1)...)
			}
		}
		if t := strings.Join(nonEmpty(texts), " "); t != "" {
			out = append(out, block{kind: bItem, level: depth, ordered: ordered, text: t})
		}
		out = append(out, rest...)
	}
	return out
}

// paragraph returns the text of a text:p or text:h and the blocks of the
// text boxes anchored in it.
func (o *odt) paragraph(p *node) (string, []block) {
	var sb strings.Builder
	var boxes []block
	o.inline(p, &sb, &boxes)
	return strings.TrimSpace(sb.String()), boxes
}

func (o *odt) inline(n *node, sb *strings.Builder, boxes *[]block) {
	for _, k := range n.kids {
		switch k.name.Local {
		case "":
			sb.WriteString(k.text)
		case "s":
			c, err := strconv.Atoi(k.attr("c"))
			if err != nil || c < 1 {
				c = 1
			}
			sb.WriteString(strings.Repeat(" ", min(c, 64)))
		case "tab":
			sb.WriteByte('\t')
		case "line-break":
			sb.WriteByte('\n')
		case "note":
			if o.inNote {
				continue
			}
			body := k.child("note-body")
			sb.WriteString(o.notes.ref(k.attr("id")+"\x00"+strconv.Itoa(len(o.notes.texts)), func() []block {
				o.inNote = true
				defer func() { o.inNote = false }()
				return o.blocks(body, "", 0)
			}))
		case "text-box":
			*boxes = append(*boxes, o.blocks(k, "", 0)...)
		case "annotation", "annotation-end", "change", "change-start", "change-end", "deletion",
			"note-citation", "tracked-changes", "title", "desc":
			// Comments, tracked-change marks, and frames' descriptions.
		default:
			o.inline(k, sb, boxes)
		}
	}
}

func (o *odt) table(t *node) []block {
	var out []block
	var walk func(*node)
	walk = func(n *node) {
		for _, k := range n.kids {
			switch k.name.Local {
			case "table-header-rows", "table-rows", "table-row-group":
				walk(k)
			case "table-row":
				var cells []string
				for _, c := range k.kids {
					if !c.is("table-cell") && !c.is("covered-table-cell") {
						continue
					}
					text := blockText(o.blocks(c, "", 0))
					rep, err := strconv.Atoi(c.attr("number-columns-repeated"))
					if err != nil || rep < 1 {
						rep = 1
					}
					for range min(rep, 64) {
						cells = append(cells, text)
					}
				}
				for len(cells) > 0 && cells[len(cells)-1] == "" {
					cells = cells[:len(cells)-1]
				}
				if len(cells) > 0 {
					out = append(out, block{kind: bRow, cells: cells})
				}
			}
		}
	}
	walk(t)
	return append(out, block{kind: bEndTable})
}

// odtEncrypted returns an error wrapping [normalize.ErrEncrypted] when the
// manifest says content.xml is encrypted (a password-protected document:
// its file entry has manifest:encryption-data), and nil otherwise, a
// missing or unreadable manifest included (content.xml then says the rest).
func odtEncrypted(z *zipDoc) error {
	const manifest = "META-INF/manifest.xml"
	if !z.has(manifest) {
		return nil
	}
	root, err := z.parse(manifest)
	if err != nil {
		return nil
	}
	for _, e := range root.all("file-entry") {
		if e.attr("full-path") == "content.xml" && e.child("encryption-data") != nil {
			return fmt.Errorf("%w (a password-protected OpenDocument file)", normalize.ErrEncrypted)
		}
	}
	return nil
}
