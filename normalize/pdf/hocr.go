package pdf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// OCR'd pages are read as tesseract's hOCR: words with their boxes, in
// lines with their text size. They become a page's rows as a text layer's
// characters do ([layoutPage]), so that what a text page gets, an OCR'd
// page gets too: running headers, footers and page numbers left out,
// headings found by size, columns read in order, paragraphs going on across
// pages, and words hyphenated at a line end joined.

// ocrEm is a font's size as pdfium gives it for a text layer, in units of
// tesseract's x_size in points: report.pdf and flow.pdf, read both ways,
// have body text and headings of 14.7, 20, 22, 29.3 and 40 against x_size
// 10.1, 13.8, 15, 20.2 and 27.1 points (1.45-1.47), so that the pages of a
// document read by OCR and those with text are measured alike (a page of
// body text is not taken for headings beside smaller OCR'd text).
const ocrEm = 1.45

// hocrWords returns the words of the hOCR of one page in data, in PDF
// space (points, y growing upwards) for a page scanned at dpi: each takes
// its line's height and text size (x_size), so that the words of a line
// are one row.
func hocrWords(data []byte, dpi float64) ([]word, error) {
	pages, err := hocrPages(data, dpi)
	return slices.Concat(pages...), err
}

// pictureXSize is the x_size, in points, a picture's lines are measured
// against when its resolution is not known: the median line of each page
// is given the x_size of report.pdf's body text scanned at 300 DPI (10.1
// points), so that a photo of a page measures as a scan of it would.
const pictureXSize = 10.1

// hocrPages returns the words of each page (ocr_page) of the hOCR in
// data, as [hocrWords] does; a dpi of 0 scales each page by its text
// instead ([pictureXSize]).
func hocrPages(data []byte, dpi float64) ([][]word, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	scale := 1.0
	if dpi > 0 {
		scale = 72 / dpi
	}
	var (
		pages  [][]word
		width  float64 // of the page as tesseract saw it, in pixels
		height float64 // of the page upright
		angle  int     // the line's: how its text is turned (textangle)
		line   [4]float64
		size   float64
		cur    *word
		conf   float64 // the word's confidence, 0-100
		depth  int     // of the elements open in the word
		text   strings.Builder
	)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if cur != nil {
				depth++
				continue
			}
			class, title := classTitle(t)
			switch class {
			case "ocr_page":
				width, height = 0, 0
				if b, ok := bbox(title); ok {
					width, height = b[2], b[3]
				}
				pages = append(pages, nil)
			case "ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat":
				b, ok := bbox(title)
				if !ok {
					continue
				}
				angle = int(property(title, "textangle"))
				line = upright(b, angle, width, height)
				size = property(title, "x_size")
				if !(size > 0 && size < 2*(b[3]-b[1])) { // none, or not a number of this line
					size = b[3] - b[1]
				}
			case "ocrx_word":
				b, ok := bbox(title)
				if !ok || height == 0 || len(pages) == 0 {
					continue
				}
				b = upright(b, angle, width, height)
				h := height
				if angle == 90 || angle == 270 {
					h = width
				}
				conf = property(title, "x_wconf")
				if !strings.Contains(title, "x_wconf") {
					conf = 100
				}
				cur = &word{
					box:  box{x0: b[0] * scale, x1: b[2] * scale, y0: (h - line[3]) * scale, y1: (h - line[1]) * scale},
					size: size * scale * ocrEm,
				}
				depth = 0
				text.Reset()
			}
		case xml.CharData:
			if cur != nil {
				text.Write(t)
			}
		case xml.EndElement:
			if cur == nil {
				continue
			}
			if depth > 0 {
				depth--
				continue
			}
			if w := strings.TrimSpace(text.String()); w != "" && cur.x1 > cur.x0 && cur.y1 > cur.y0 && !(conf < minSignConf && !strings.ContainsFunc(w, isAlnum)) {
				cur.text = fold.Replace(w)
				pages[len(pages)-1] = append(pages[len(pages)-1], *cur)
			}
			cur = nil
		}
	}
	if dpi <= 0 {
		for _, ws := range pages {
			scaleToText(ws)
		}
	}
	return pages, nil
}

// upright returns the box b (x0 y0 x1 y1, pixels, y growing downwards) of
// a page of w × h pixels whose text is turned by angle (hOCR's textangle:
// 90, 180 or 270 degrees, anticlockwise) in the page turned upright, as
// the text reads: a picture taken or scanned upside down or sideways,
// whose text tesseract reads in its direction but whose boxes it gives as
// the picture lies.
func upright(b [4]float64, angle int, w, h float64) [4]float64 {
	switch angle {
	case 180:
		return [4]float64{w - b[2], h - b[3], w - b[0], h - b[1]}
	case 90:
		return [4]float64{h - b[3], b[0], h - b[1], b[2]}
	case 270:
		return [4]float64{b[1], w - b[2], b[3], w - b[0]}
	}
	return b
}

// scaleToText scales the words of a page, measured in pixels, so that the
// median of their lines' text size is [pictureXSize] points.
func scaleToText(ws []word) {
	if len(ws) == 0 {
		return
	}
	sizes := make([]float64, len(ws))
	for i, w := range ws {
		sizes[i] = w.size
	}
	m := median(sizes)
	if !(m > 0) {
		return
	}
	f := pictureXSize * ocrEm / m
	for i := range ws {
		w := &ws[i]
		w.x0, w.x1, w.y0, w.y1, w.size = w.x0*f, w.x1*f, w.y0*f, w.y1*f, w.size*f
	}
}

// minSignConf is the confidence (0-100) below which a word of no letter
// or digit is taken for a speck: tesseract read "in _ optical _
// efficiency." in report.pdf scanned, its underscores at 21 and 27
// against 86 and 96 for the words.
const minSignConf = 50

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// bbox returns the box "bbox x0 y0 x1 y1" of an hOCR title (pixels, y
// growing downwards).
func bbox(title string) (b [4]float64, ok bool) {
	for _, p := range strings.Split(title, ";") {
		f := strings.Fields(p)
		if len(f) != 5 || f[0] != "bbox" {
			continue
		}
		for i := range 4 {
			v, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return b, false
			}
			b[i] = v
		}
		return b, b[2] > b[0] && b[3] > b[1]
	}
	return b, false
}

// property returns the number after name in an hOCR title, 0 if none.
func property(title, name string) float64 {
	for _, p := range strings.Split(title, ";") {
		f := strings.Fields(p)
		if len(f) == 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return v
			}
		}
	}
	return 0
}

// hocrConf returns how sure tesseract is that it read the hOCR in data
// upright, 0-100: the mean confidence (x_wconf) of the letters and digits
// of its words, each word's counting once for each of its letters and
// digits, and those of lines standing (taller than wide, with no
// textangle) counting 0; and how many letters and digits there are. A
// page read upside down is read with low confidence, and one sideways in
// standing lines (tesseract's layout finds the lines vertical and reads
// them, giving their boxes as they stand): low either way
// ([minUprightConf]). A word without x_wconf counts as sure; hOCR that
// cannot be read gives what was read before the fault.
func hocrConf(data []byte) (conf float64, chars int) {
	all, _ := hocrConfs(data)
	return all.mean()
}

// hocrPageConfs returns [hocrConf] of each page (ocr_page) of the hOCR in
// data, the pages [hocrPages] returns.
func hocrPageConfs(data []byte) []confSum {
	_, pages := hocrConfs(data)
	return pages
}

// confSum sums the confidences of letters and digits read ([hocrConf]).
type confSum struct {
	sum   float64
	chars int
}

// mean returns the mean confidence of c's letters and digits, 0 of none,
// and how many there are.
func (c confSum) mean() (float64, int) {
	if c.chars == 0 {
		return 0, 0
	}
	return c.sum / float64(c.chars), c.chars
}

// hocrConfs sums the confidences of [hocrConf] over all the hOCR in data,
// and over each of its pages.
func hocrConfs(data []byte) (all confSum, pages []confSum) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var (
		standing bool    // the line is
		in       bool    // in a word
		depth    int     // of the elements open in the word
		wconf    float64 // the word's
		n        int     // letters and digits of the word
	)
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if in {
				depth++
				continue
			}
			class, title := classTitle(t)
			switch class {
			case "ocr_page":
				pages = append(pages, confSum{})
			case "ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat":
				b, ok := bbox(title)
				standing = ok && b[3]-b[1] > b[2]-b[0] && property(title, "textangle") == 0
			case "ocrx_word":
				in, depth, n = true, 0, 0
				wconf = 100
				if strings.Contains(title, "x_wconf") {
					wconf = property(title, "x_wconf")
					if !(wconf >= 0) { // negative, or not a number
						wconf = 0
					}
					wconf = min(wconf, 100)
				}
				if standing {
					wconf = 0
				}
			}
		case xml.CharData:
			if in {
				for _, r := range string(t) {
					if isAlnum(r) {
						n++
					}
				}
			}
		case xml.EndElement:
			if !in {
				continue
			}
			if depth > 0 {
				depth--
				continue
			}
			all.sum += wconf * float64(n)
			all.chars += n
			if len(pages) > 0 {
				pages[len(pages)-1].sum += wconf * float64(n)
				pages[len(pages)-1].chars += n
			}
			in = false
		}
	}
	return all, pages
}

// classTitle returns the class and title attributes of an hOCR element.
func classTitle(t xml.StartElement) (class, title string) {
	for _, a := range t.Attr {
		switch a.Name.Local {
		case "class":
			class = a.Value
		case "title":
			title = a.Value
		}
	}
	return class, title
}
