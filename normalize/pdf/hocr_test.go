package pdf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const hocrPage = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head><title></title><meta http-equiv="Content-Type" content="text/html;charset=utf-8"/></head>
 <body>
  <div class='ocr_page' id='page_1' title='image "stdin"; bbox 0 0 2550 3300; ppageno 0; scan_res 300 300'>
   <div class='ocr_carea' id='block_1_1' title="bbox 142 195 1029 279">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 142 195 1029 279">
     <span class='ocr_line' id='line_1_1' title="bbox 142 195 1029 279; baseline 0.001 -20; x_size 85; x_descenders 20; x_ascenders 21">
      <span class='ocrx_word' id='word_1_1' title='bbox 142 199 414 279; x_wconf 96'>Report</span>
      <span class='ocrx_word' id='word_1_2' title='bbox 441 216 534 260; x_wconf 96'><strong>on</strong></span>
      <span class='ocrx_word' id='word_1_3' title='bbox 560 195 1029 279; x_wconf 96'>Ships&amp;Lights</span>
     </span>
    </p>
   </div>
  </div>
 </body>
</html>`

// hocrWords reads tesseract's hOCR: each word takes its line's height and
// text size, in points, y growing upwards.
func TestHOCRWords(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want string // words as "text x0 y0 x1 y1 size", points rounded
		err  bool
	}{
		{"page", hocrPage, "Report 34 725 99 745 30|on 106 725 128 745 30|Ships&Lights 134 725 247 745 30", false},
		{"no page box", `<div class='ocr_page'><span class='ocr_line' title="bbox 1 1 9 9"><span class='ocrx_word' title='bbox 1 1 9 9'>x</span></span></div>`, "", false},
		{"line without x_size", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_header' title="bbox 0 0 300 100"><span class='ocrx_word' title='bbox 0 0 300 100'>Big</span></span></div>`, "Big 0 48 72 72 35", false},
		{"word without box", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100"><span class='ocrx_word'>x</span></span></div>`, "", false},
		{"empty word", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100"><span class='ocrx_word' title='bbox 0 0 300 100'> </span></span></div>`, "", false},
		{"ligature", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100; x_size 50"><span class='ocrx_word' title='bbox 0 0 300 100'>eﬃcient</span></span></div>`, "efficient 0 48 72 72 17", false},
		{"odd numbers", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100; x_size NaN"><span class='ocrx_word' title='bbox 0 0 300 100'>a</span><span class='ocrx_word' title='bbox 0 0 Inf 100'>b</span></span></div>`, "a 0 48 72 72 35", false},
		{"specks", `<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100; x_size 50"><span class='ocrx_word' title='bbox 0 0 50 100; x_wconf 21'>in</span><span class='ocrx_word' title='bbox 60 0 70 100; x_wconf 21'>_</span><span class='ocrx_word' title='bbox 80 0 90 100; x_wconf 90'>—</span><span class='ocrx_word' title='bbox 100 0 110 100'>&amp;</span></span></div>`, "in 0 48 12 72 17|— 19 48 22 72 17|& 24 48 26 72 17", false},
		{"not hOCR", "plain text from an old tesseract", "", false},
		{"broken", "<div class='ocr_page' title='bbox 0 0 1 1'><span", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, err := hocrWords([]byte(c.in), 300)
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			var got []string
			for _, w := range ws {
				got = append(got, strings.Join([]string{w.text, f0(w.x0), f0(w.y0), f0(w.x1), f0(w.y1), f0(w.size)}, " "))
			}
			if g := strings.Join(got, "|"); g != c.want {
				t.Errorf("words %q\nwant  %q", g, c.want)
			}
		})
	}
}

func f0(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

func FuzzHOCRWords(f *testing.F) {
	f.Add([]byte(hocrPage))
	f.Add([]byte(`<div class='ocr_page' title='bbox 0 0 300 300'><span class='ocr_line' title="bbox 0 0 300 100; x_size NaN"><span class='ocrx_word' title='bbox 0 0 1e308 100'>x</span></span></div>`))
	f.Add([]byte(`<span class='ocrx_word' title='bbox 0 0 3 3'><span class='ocrx_word' title='bbox 0 0 3 3'>nested</span></span>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := hocrWords(data, 300)
		if err != nil {
			return
		}
		for _, w := range ws {
			if w.text == "" || !(w.x1 > w.x0) || !(w.y1 > w.y0) {
				t.Fatalf("word %+v", w)
			}
		}
		makeRows(ws)
	})
}

// hocrConf is the mean confidence of the letters and digits read.
func TestHOCRConf(t *testing.T) {
	word := func(conf, text string) string {
		return `<span class='ocrx_word' title='bbox 0 0 9 9; x_wconf ` + conf + `'>` + text + `</span>`
	}
	for _, c := range []struct {
		name  string
		in    string
		conf  float64
		chars int
	}{
		{"page", hocrPage, 96, 19},
		{"by letters", word("90", "Lighthouses") + word("10", "a"), 83.33, 12},
		{"signs left out", word("90", "ab") + word("0", "—") + word("0", "_"), 90, 2},
		{"nested and entities", `<span class='ocrx_word' title='x_wconf 50'><em>a</em>&amp;<b>b</b></span>`, 50, 2},
		{"no confidence", `<span class='ocrx_word' title='bbox 0 0 9 9'>abc</span>`, 100, 3},
		{"odd confidences", word("NaN", "ab") + word("-5", "cd") + word("250", "ef"), 33.33, 6},
		{"upside down", word("31", "€/T") + word("0", "‘SyIEWIPUP]") + word("7", "Paystiayo"), 4.95, 19},
		{"standing lines", `<span class='ocr_line' title='bbox 0 0 9 90'>` + word("90", "abc") + `</span><span class='ocr_line' title='bbox 0 0 9 90; textangle 270'>` + word("90", "abc") + `</span><span class='ocr_line' title='bbox 0 0 90 9'>` + word("90", "ab") + `</span>`, 56.25, 8},
		{"no words", "<div class='ocr_page' title='bbox 0 0 1 1'></div>", 0, 0},
		{"not hOCR", "plain text", 0, 0},
		{"broken", word("80", "ab") + "<span class='ocrx_word' title='x_wconf 0'>cd<", 80, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			conf, chars := hocrConf([]byte(c.in))
			if chars != c.chars || math.Abs(conf-c.conf) > 0.01 {
				t.Errorf("conf %.2f of %d, want %.2f of %d", conf, chars, c.conf, c.chars)
			}
		})
	}
}

// hocrPageConfs is hocrConf page by page: words outside a page count for
// none.
func TestHOCRPageConfs(t *testing.T) {
	word := func(conf, text string) string {
		return `<span class='ocrx_word' title='bbox 0 0 9 9; x_wconf ` + conf + `'>` + text + `</span>`
	}
	page := `<div class='ocr_page' title='bbox 0 0 100 100'>`
	in := word("50", "before") + page + word("90", "ab") + word("30", "cd") + `</div>` + page + `</div>` + page + word("10", "upside") + `</div>`
	var got []string
	for _, p := range hocrPageConfs([]byte(in)) {
		c, n := p.mean()
		got = append(got, fmt.Sprintf("%.0f/%d", c, n))
	}
	if want := []string{"60/4", "0/0", "10/6"}; !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q", got, want)
	}
}

func FuzzHOCRConf(f *testing.F) {
	f.Add([]byte(hocrPage))
	f.Add([]byte(`<span class='ocrx_word' title='x_wconf NaN'>a</span><span class='ocrx_word' title='x_wconf 1e400'>b</span>`))
	f.Add([]byte(`<span class='ocrx_word' title='x_wconf 5'><span class='ocrx_word' title='x_wconf 90'>nested</span></span>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		conf, chars := hocrConf(data)
		if chars < 0 || !(conf >= 0 && conf <= 100) || (chars == 0 && conf != 0) {
			t.Fatalf("conf %v of %d", conf, chars)
		}
		// The pages' letters are among all of them.
		sum := 0
		for _, p := range hocrPageConfs(data) {
			c, n := p.mean()
			if n < 0 || !(c >= 0 && c <= 100) {
				t.Fatalf("a page's conf %v of %d", c, n)
			}
			sum += n
		}
		if sum > chars {
			t.Fatalf("pages of %d letters, of %d in all", sum, chars)
		}
	})
}
