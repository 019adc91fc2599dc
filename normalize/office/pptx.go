package office

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

const (
	relSlide      = "/slide"
	relNotesSlide = "/notesSlide"
)

func readPPTX(z *zipDoc) (*normalize.Document, error) {
	root, rels, err := z.openMain(PPTX, "ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	var blocks []block
	var missing []string // slides the presentation lists that the file lacks
	title := ""
	for i, id := range root.path("presentation", "sldIdLst").all("sldId") {
		r, ok := rels[relID(id)]
		switch {
		case !ok || !strings.HasSuffix(r.typ, relSlide):
			missing = append(missing, fmt.Sprintf("slide %d has no slide part in the presentation's relationships: left out", i+1))
			continue
		case !z.has(r.target):
			missing = append(missing, fmt.Sprintf("slide %d (%q) is missing from the file: left out", i+1, r.target))
			continue
		}
		sb, t, err := readSlide(z, r.target, i+1)
		if err != nil {
			return nil, err
		}
		if title == "" {
			title = t
		}
		blocks = append(blocks, sb...)
	}
	var x normalize.Extracted
	emit(&x, blocks)
	for i, m := range missing {
		if i == maxMissingNoted && len(missing) > i+1 {
			x.Note(fmt.Sprintf("%d more slides of the presentation are missing: left out", len(missing)-i))
			break
		}
		x.Note(m)
	}
	return x.Document(title), nil
}

// relID returns the r:id attribute of a presentation's sldId (whose own
// id attribute has the same local name).
func relID(n *node) string {
	for _, a := range n.attrs {
		if a.Name.Local == "id" && strings.HasSuffix(a.Name.Space, "/relationships") {
			return a.Value
		}
	}
	return ""
}

// readSlide reads slide n: a page, its title as a level-1 heading, the
// other shapes' text, then its speaker notes. ctrTitle is the text of a
// title slide's centered title.
func readSlide(z *zipDoc, name string, n int) (blocks []block, ctrTitle string, err error) {
	root, err := z.parse(name)
	if err != nil {
		return nil, "", err
	}
	blocks = []block{{kind: bPage, level: n}}
	var titles []string
	var body []block
	for _, sh := range shapes(root.path("sld", "cSld", "spTree")) {
		switch ph := placeholder(sh); ph {
		case "title", "ctrTitle":
			t := strings.Join(nonEmpty(paraTexts(sh)), " ")
			if t != "" {
				titles = append(titles, t)
				if ph == "ctrTitle" && ctrTitle == "" {
					ctrTitle = t
				}
			}
		case "sldNum", "dt", "ftr", "hdr", "sldImg":
			// Slide numbers, dates and footers repeat on every slide.
		default:
			body = append(body, shapeBlocks(sh, ph)...)
		}
	}
	if len(titles) > 0 {
		blocks = append(blocks, block{kind: bHeading, level: 1, text: strings.Join(titles, " ")})
	}
	blocks = append(blocks, body...)
	rels, err := z.rels(name)
	if err != nil {
		return nil, "", err
	}
	for _, r := range rels {
		if !strings.HasSuffix(r.typ, relNotesSlide) || !z.has(r.target) {
			continue
		}
		notes, err := z.parse(r.target)
		if err != nil {
			return nil, "", err
		}
		var nb []block
		for _, sh := range shapes(notes.path("notes", "cSld", "spTree")) {
			if ph := placeholder(sh); ph == "body" {
				nb = append(nb, shapeBlocks(sh, "")...)
			}
		}
		if len(nb) > 0 {
			blocks = append(blocks, block{kind: bPara, text: "Speaker notes:"})
			blocks = append(blocks, nb...)
		}
		break
	}
	return blocks, ctrTitle, nil
}

// shape is a shape holding text (p:sp) or a table (p:graphicFrame) and its
// position, if it has one.
type shape struct {
	n      *node
	x, y   int64
	placed bool
}

// shapes returns the text shapes of a shape tree, groups flattened, in
// reading order: top to bottom, then left to right, when every shape has a
// position of its own; else in the tree's order (the order they were
// drawn), which is what placeholders inheriting their layout's position
// leave.
func shapes(tree *node) []*node {
	var out []shape
	var walk func(*node)
	walk = func(t *node) {
		if t == nil {
			return
		}
		for _, k := range t.kids {
			switch k.name.Local {
			case "sp", "graphicFrame":
				s := shape{n: k}
				if off := k.path("spPr", "xfrm", "off"); off != nil {
					s.placed = true
					s.x, _ = strconv.ParseInt(off.attr("x"), 10, 64)
					s.y, _ = strconv.ParseInt(off.attr("y"), 10, 64)
				} else if off := k.path("xfrm", "off"); off != nil {
					s.placed = true
					s.x, _ = strconv.ParseInt(off.attr("x"), 10, 64)
					s.y, _ = strconv.ParseInt(off.attr("y"), 10, 64)
				}
				out = append(out, s)
			case "grpSp":
				walk(k)
			case "AlternateContent":
				walk(k.child("Choice"))
			}
		}
	}
	walk(tree)
	all := true
	for _, s := range out {
		all = all && s.placed
	}
	if all {
		slices.SortStableFunc(out, func(a, b shape) int {
			if a.y != b.y {
				return cmpInt(a.y, b.y)
			}
			return cmpInt(a.x, b.x)
		})
	}
	nodes := make([]*node, len(out))
	for i, s := range out {
		nodes[i] = s.n
	}
	return nodes
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// placeholder returns a shape's placeholder type: "" for a shape that is
// not a placeholder, "body" for a content placeholder without a type.
func placeholder(sh *node) string {
	ph := sh.path("nvSpPr", "nvPr", "ph")
	if ph == nil {
		return ""
	}
	if t := ph.attr("type"); t != "" {
		return t
	}
	return "body"
}

// paraTexts returns the text of each DrawingML paragraph (a:p) of a shape.
func paraTexts(sh *node) []string {
	var out []string
	for _, p := range sh.path("txBody").all("p") {
		out = append(out, drawingText(p))
	}
	return out
}

func drawingText(p *node) string {
	var sb strings.Builder
	var walk func(*node)
	walk = func(n *node) {
		for _, k := range n.kids {
			switch k.name.Local {
			case "t":
				sb.WriteString(k.textContent())
			case "br":
				sb.WriteByte('\n')
			case "tab":
				sb.WriteByte('\t')
			case "pPr", "rPr", "endParaRPr":
			default:
				walk(k)
			}
		}
	}
	walk(p)
	return strings.TrimSpace(sb.String())
}

// shapeBlocks reads a shape's paragraphs or a table. In a body placeholder
// a paragraph is a bullet unless it says a:buNone (the layout gives the
// bullets); elsewhere only when it has a:buChar or a:buAutoNum.
func shapeBlocks(sh *node, ph string) []block {
	if tbl := sh.path("graphic", "graphicData", "tbl"); tbl != nil {
		var out []block
		for _, tr := range tbl.kids {
			if !tr.is("tr") {
				continue
			}
			var cells []string
			for _, tc := range tr.kids {
				if tc.is("tc") {
					cells = append(cells, strings.Join(nonEmpty(paraTexts(tc)), " "))
				}
			}
			out = append(out, block{kind: bRow, cells: cells})
		}
		return append(out, block{kind: bEndTable})
	}
	var out []block
	for _, p := range sh.path("txBody").all("p") {
		text := drawingText(p)
		if text == "" {
			continue
		}
		pPr := p.child("pPr")
		lvl, _ := strconv.Atoi(pPr.attr("lvl"))
		switch {
		case pPr.child("buAutoNum") != nil:
			out = append(out, block{kind: bItem, level: lvl + 1, ordered: true, text: text})
		case pPr.child("buChar") != nil || (ph == "body" || ph == "obj") && pPr.child("buNone") == nil:
			out = append(out, block{kind: bItem, level: lvl + 1, text: text})
		default:
			out = append(out, lineBreaks(block{kind: bPara, text: text}))
		}
	}
	return out
}
