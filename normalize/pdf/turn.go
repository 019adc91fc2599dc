package pdf

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium/responses"
)

// A page's text may be drawn turned: a landscape table set sideways on a
// portrait page (LaTeX's pdflscape, a word processor's rotated text box),
// or a page turned in a viewer, whose /Rotate shows upright what its
// content draws sideways. A page whose text is mostly turned a quarter or
// a half turn is read as the page turned upright, as its text reads
// ([textPage]).

// quarters is a quarter turn clockwise, 0-3 times: how a page's text is
// turned from upright.
type quarters int

// textTurn returns how most of the characters drawn in chars are turned
// (pdfium's angle, clockwise, within a few degrees of a quarter turn): 0
// for a page whose text is upright, or that has as much text one way as
// others. Characters at other angles (a diagonal stamp) count for none.
func textTurn(chars []*responses.GetPageTextStructuredChar) quarters {
	var count [4]int
	all := 0
	for _, c := range chars {
		r, _ := utf8.DecodeRuneInString(c.Text)
		if c.Text == "" || unicode.IsSpace(r) || unicode.IsControl(r) {
			continue
		}
		all++
		q := c.Angle / (math.Pi / 2)
		if n := math.Round(q); math.Abs(q-n) < 0.05 { // 4.5°
			count[int(n)&3]++
		}
	}
	for t := quarters(1); t < 4; t++ {
		if 2*count[t] > all {
			return t
		}
	}
	return 0
}

// turnChars turns the boxes of chars, on a page of w × h points as its
// content lies, by t, so that text turned by t lies upright, and takes t
// from their angles.
func turnChars(chars []*responses.GetPageTextStructuredChar, t quarters, w, h float64) {
	if t == 0 {
		return
	}
	for _, c := range chars {
		p := &c.PointPosition
		p.Left, p.Top, p.Right, p.Bottom = t.rect(p.Left, p.Top, p.Right, p.Bottom, w, h)
		if c.Angle != 0 {
			a := math.Mod(c.Angle-float64(t)*math.Pi/2+4*math.Pi, 2*math.Pi)
			if math.Abs(a) < 1e-3 || math.Abs(a-2*math.Pi) < 1e-3 {
				a = 0
			}
			c.Angle = a
		}
	}
}

// rect returns the box left, top, right, bottom (points, y growing
// upwards) of a page of w × h points turned by t: text drawn turned by t
// in it lies upright in the box returned.
func (t quarters) rect(l, top, r, b, w, h float64) (float64, float64, float64, float64) {
	switch t {
	case 1: // text running down the page: its tops face right
		return h - top, r, h - b, l
	case 2:
		return w - r, h - b, w - l, h - top
	case 3: // running up: its tops face left
		return b, w - l, top, w - r
	}
	return l, top, r, b
}
