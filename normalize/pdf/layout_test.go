package pdf

import (
	"slices"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/responses"
)

// TestMissingSpaces: a word starts where the advance gap between two
// characters is a space's and wider than the gaps beside it, not in kerned,
// justified or letter-spaced words. Each case is a run of characters at
// 12pt: their ink boxes, and their advances (loose boxes) as x0 and width.
func TestMissingSpaces(t *testing.T) {
	type ch struct {
		text       string
		ink0, ink1 float64 // ink box
		adv0, adv1 float64 // loose box
	}
	for _, c := range []struct {
		name  string
		chars []ch
		want  string
	}{
		// "SA|Ad" of "NASA Administrator" as Chromium drew it at 12pt: the
		// space kerned after the A, 1.7pt of advance left (0.142 em).
		{"kerned space", []ch{{"S", 253.86, 258.98, 253.6, 259.4}, {"A", 259.85, 268.31, 259.4, 268.1}, {"A", 270.21, 278.67, 269.8, 278.6}, {"d", 279.19, 284.61, 278.6, 284.6}}, "SA Ad"},
		// Side bearings: wide ink gaps, advances that meet.
		{"ink gaps inside a word", []ch{{"W", 100, 110, 99.5, 110.5}, {"i", 112, 114, 110.5, 114.6}, {"l", 115.6, 117.6, 114.6, 118.6}, {"d", 120, 125, 118.6, 125.5}}, "Wild"},
		// Kerning pulls glyphs together: negative gaps.
		{"kerned pairs", []ch{{"A", 100, 108, 100, 108.7}, {"V", 107.5, 115, 107.4, 116}, {"A", 114.5, 122, 115, 123.7}}, "AVA"},
		// Letter spacing (0.15 em) widens every gap alike.
		{"letter-spaced word", []ch{{"w", 100, 108, 99.5, 108.5}, {"o", 110.8, 116, 110.3, 116.3}, {"r", 118.6, 122, 118.1, 122.4}, {"d", 124.4, 130, 124.2, 130.3}}, "word"},
		// ... but a space in it is still wider than its neighbours.
		{"letter-spaced words", []ch{{"a", 100, 105, 99.5, 105.5}, {"n", 107.3, 113, 107.3, 113.3}, {"d", 119, 124, 118.3, 124.3}, {"o", 126.5, 131, 126.1, 131.3}}, "an do"},
	} {
		t.Run(c.name, func(t *testing.T) {
			chars := make([]*responses.GetPageTextStructuredChar, len(c.chars))
			for i, x := range c.chars {
				chars[i] = &responses.GetPageTextStructuredChar{Text: x.text, PointPosition: responses.CharPosition{Left: x.ink0, Right: x.ink1, Bottom: 100, Top: 108},
					FontInformation: &responses.FontInformation{Size: 16, RenderedSize: 12}}
			}
			spaces := missingSpaces(chars, spaceCandidates(chars), func(i int) (float64, float64, bool) {
				return c.chars[i].adv0, c.chars[i].adv1, true
			}, nil)
			got := ""
			for _, w := range layoutPage(1, chars, spacing{missing: spaces}).rows[0].segs {
				got += w.text
			}
			if got != c.want {
				t.Errorf("read %q, want %q (spaces before %v)", got, c.want, spaces)
			}
		})
	}
}

// TestListItem: the lines that start a list's item.
func TestListItem(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"1. Request clearance", true},
		{"12) Cast off", true},
		{"a. first", true},
		{"B) second", true},
		{"• Berth A", true},
		{"– an aside", true},
		{"C. Brown and others", false}, // an initial
		{"2019. The year", false},
		{"---", false},
		{"-- not an item", false},
		{"plain text", false},
	} {
		if got := listItem(c.text); got != c.want {
			t.Errorf("listItem(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestContinues: the first paragraph of a page goes on with the last one
// of the page before when it is set in the same font and starts with a
// small letter, or the other ends without ending a sentence; but not when
// both are items of a list.
func TestContinues(t *testing.T) {
	body := func(text string) line { return line{seg: seg{text: text, size: 11}} }
	for _, c := range []struct {
		name        string
		held, first line
		want        bool
	}{
		{"cut mid-sentence", body("the keepers fished from"), body("the landing on quiet evenings"), true},
		{"cut after a comma", body("and others a goat,"), body("Hens and a garden"), true},
		{"cut after a sentence, a small letter next", body("as the tables say (e.g."), body("the Admiralty's)"), true},
		{"a sentence ends the page", body("for an hour or more."), body("Modern predictions"), false},
		{"a question ends the page", body("who kept the light?”"), body("Nobody"), false},
		{"another font", body("the keepers fished from"), line{seg: seg{text: "the landing", size: 9}}, false},
		{"bold", body("the keepers fished from"), line{seg: seg{text: "the landing", size: 11, bold: true}}, false},
		{"the next item of a list", body("1. Request clearance on channel"), body("2. Single up lines"), false},
		{"an item that goes on", body("1. Request clearance on channel"), body("12 of the harbour"), true},
	} {
		l := &layout{}
		l.hold(1, []line{c.held})
		if got := l.continues([]line{c.first}); got != c.want {
			t.Errorf("%s: continues = %v, want %v", c.name, got, c.want)
		}
	}
}

// A running header or footer is left out where OCR misread a character
// of it; a short edge line must repeat as it is.
func TestDropRunningNear(t *testing.T) {
	pageOf := func(n int, top, bottom string) *page {
		r := func(text string, y float64) row {
			s := seg{box: box{0, 100, y, y + 10}, text: text, size: 10}
			return row{box: s.box, segs: []seg{s}}
		}
		return &page{number: n, rows: []row{r(top, 700), r("Body text of the page.", 400), r(bottom, 50)}}
	}
	for _, c := range []struct {
		name    string
		bottoms [3]string
		dropped int // footers left out
	}{
		{"same", [3]string{"file:///srv/docs/report.html", "file:///srv/docs/report.html", "file:///srv/docs/report.html"}, 3},
		{"one misread", [3]string{"file:///srv/docs/report.htm|", "file:///srv/docs/report.htm|", "file:///srv/docs/report.html"}, 3},
		{"another line", [3]string{"file:///srv/docs/report.html", "file:///srv/docs/report.html", "Figures and tables of the report"}, 2},
		{"short lines must be the same", [3]string{"Chapter Two", "Chapter Two", "Chapter Tw0"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages := []*page{pageOf(1, "Top", c.bottoms[0]), pageOf(2, "Top", c.bottoms[1]), pageOf(3, "Top", c.bottoms[2])}
			rep := &Report{}
			dropRunning(pages, rep)
			n := 0
			for _, d := range rep.Dropped {
				if d.Why == "running footer" {
					n++
				}
			}
			if n != c.dropped {
				t.Errorf("%d footers left out, want %d: %+v", n, c.dropped, rep.Dropped)
			}
		})
	}
}

// A block of a heading's size is a heading unless it is a sentence (eight
// words or more ending in a period); a line of its size that starts with a
// small letter goes on with it.
func TestHeadingBlocks(t *testing.T) {
	ln := func(y float64, size float64, text string) line {
		return line{seg: seg{box: box{50, 500, y, y + 0.7*size}, text: text, size: size}}
	}
	for _, c := range []struct {
		name  string
		lines []line
		want  string // blocks, "|" between, "#" before a heading
	}{
		{"heading then body", []line{ln(700, 20, "Origins"), ln(670, 14.7, "Lighthouses were built along dangerous coastlines."), ln(652, 14.7, "Keepers kept them.")},
			"#Origins|Lighthouses were built along dangerous coastlines. Keepers kept them."},
		{"a heading of two lines", []line{ln(700, 20, "Keepers and Their"), ln(680, 20, "lives at sea"), ln(650, 14.7, "Body.")},
			"#Keepers and Their lives at sea|Body."},
		{"a sentence in a larger print", []line{ln(700, 20, "The scanned page mentions a lighthouse keeper named Grace Darling who"), ln(680, 20, "rowed out in a storm.")},
			"The scanned page mentions a lighthouse keeper named Grace Darling who rowed out in a storm."},
		{"a question is a heading", []line{ln(700, 20, "Why do lighthouses use a Fresnel lens in the tower?"), ln(670, 14.7, "Because it bends light.")},
			"#Why do lighthouses use a Fresnel lens in the tower?|Because it bends light."},
		{"two headings", []line{ln(700, 20, "Origins"), ln(680, 20, "Engineering"), ln(650, 14.7, "Body.")},
			"#Origins|#Engineering|Body."},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &layout{body: 14.5}
			l.setHeadings([]float64{20})
			var got []string
			for _, it := range l.items(c.lines) {
				s := l.join(texts(it.block))
				if l.heading(it.block) > 0 {
					s = "#" + s
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "|"); g != c.want {
				t.Errorf("blocks %q\nwant   %q", g, c.want)
			}
		})
	}
}

// TestBlocks: where a page's lines are cut into blocks, and which blocks
// keep their line breaks. Lines are 12pt (em), in a column from x 34 whose
// widest line in the document is 420pt wide; a line's ink is 11pt high.
func TestBlocks(t *testing.T) {
	// ln is a line from x0 to x1 centred at y.
	ln := func(x0, x1, y float64, text string) line {
		return line{seg: seg{box: box{x0, x1, y - 5.5, y + 5.5}, text: text, size: 16, em: 12}, band: 1}
	}
	code := func(x0, x1, y float64, text string) line {
		l := ln(x0, x1, y, text)
		l.mono, l.size, l.em = true, 13.6, 10.2
		return l
	}
	for _, c := range []struct {
		name  string
		pitch float64 // the document's line pitch at 12pt; 0: unknown
		lines []line
		want  string // blocks, "|" between, "/" between the lines of a block that keeps them
	}{
		{"a page of one-line paragraphs", 13.5, []line{
			ln(34, 188, 745, "Keep to the right of the channel."), ln(34, 204, 719.5, "Sound one long blast when leaving."),
			ln(34, 187, 694, "Moor only at the marked berths."), ln(34, 164, 668.5, "Report any oil in the water.")},
			"Keep to the right of the channel.|Sound one long blast when leaving.|Moor only at the marked berths.|Report any oil in the water."},
		{"one-line paragraphs, the document's pitch unknown", 0, []line{
			ln(34, 188, 745, "Keep to the right of the channel."), ln(34, 204, 719.5, "Sound one long blast when leaving."),
			ln(34, 187, 694, "Moor only at the marked berths.")},
			"Keep to the right of the channel.|Sound one long blast when leaving.|Moor only at the marked berths."},
		{"a wrapped paragraph", 13.5, []line{
			ln(34, 451, 745, "The harbour master keeps the rules below on a board by the slipway, and every skipper"),
			ln(34, 444, 731.5, "who moors in the harbour is asked to read them before going ashore for the first time,"),
			ln(34, 324, 718, "since the channel is narrow and the berths are close together.")},
			"The harbour master keeps the rules below on a board by the slipway, and every skipper who moors in the harbour is asked to read them before going ashore for the first time, since the channel is narrow and the berths are close together."},
		{"a double-spaced paragraph", 27, []line{
			ln(34, 451, 745, "The harbour master keeps the rules below on a board by the slipway, and every skipper"),
			ln(34, 444, 718, "who moors in the harbour is asked to read them before going ashore for the first time,"),
			ln(34, 324, 691, "since the channel is narrow.")},
			"The harbour master keeps the rules below on a board by the slipway, and every skipper who moors in the harbour is asked to read them before going ashore for the first time, since the channel is narrow."},
		{"an address", 13.5, []line{
			ln(34, 241, 745, "Write to the office at:"),
			ln(34, 107, 719.5, "Harbour Office"), ln(34, 106, 706, "12 Quay Street"), ln(34, 121, 692.5, "Portree IV51 9DE"), ln(34, 80, 679, "Scotland")},
			"Write to the office at:|Harbour Office/12 Quay Street/Portree IV51 9DE/Scotland"},
		{"a narrow paragraph", 13.5, []line{
			ln(34, 196, 745, "A narrow paragraph wraps its lines"), ln(34, 187, 731.5, "well before the margin of the"),
			ln(34, 183, 718, "page, and each of them goes on"), ln(34, 196, 704.5, "where the one before it stopped.")},
			"A narrow paragraph wraps its lines well before the margin of the page, and each of them goes on where the one before it stopped."},
		{"a line broken at a hyphen", 13.5, []line{
			ln(34, 150, 745, "A Keeper of the Light-"), ln(34, 120, 731.5, "House Guild")},
			"A Keeper of the Light-House Guild"}, // a capital after a line-end hyphen: a compound
		{"code", 13.5, []line{
			ln(34, 241, 745, "The tide table is made by this program:"),
			code(34, 216, 719, "func tide(t float64) float64 {"), code(58, 300, 701, "return 2.5 * math.Sin(t/12.42*2*math.Pi)"), code(34, 40, 683, "}")},
			"The tide table is made by this program:|func tide(t float64) float64 {/return 2.5 * math.Sin(t/12.42*2*math.Pi)/}"},
		{"nested items without markers", 13.5, []line{
			ln(55, 143, 745, "Check the weather"), ln(75, 175, 726, "the shipping forecast"), ln(75, 203, 709, "the inshore waters forecast"),
			ln(55, 126, 691, "Check the boat")},
			"Check the weather|the shipping forecast/the inshore waters forecast|Check the boat"},
		{"an item that wraps under its first word", 13.5, []line{
			ln(34, 450, 745, "3. Cast off when the pilot confirms, which may take a long while when the harbour is"),
			ln(48, 420, 731.5, "busy and the line of waiting ships reaches out past the breakwater.")},
			"3. Cast off when the pilot confirms, which may take a long while when the harbour is busy and the line of waiting ships reaches out past the breakwater."},
		{"a centred caption", 13.5, []line{
			ln(80, 380, 745, "Table 2.1. Comparison of String Comparators Using Last"), ln(150, 310, 731.5, "names, first names and streets")},
			"Table 2.1. Comparison of String Comparators Using Last names, first names and streets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &layout{body: 16, measure: 420, pitch: map[float64]float64{}}
			if c.pitch > 0 {
				l.pitch[16] = c.pitch
			}
			var got []string
			for _, it := range l.items(c.lines) {
				if it.lines {
					got = append(got, strings.Join(texts(it.block), "/"))
				} else {
					got = append(got, l.join(texts(it.block)))
				}
			}
			if g := strings.Join(got, "|"); g != c.want {
				t.Errorf("blocks %q\nwant   %q", g, c.want)
			}
		})
	}
}

// TestBrowserHeaderOnePage: a page a browser printed alone has its header
// (date and time, title) and footer (address, "1/1") left out, though
// nothing repeats; a page without the footer's address and page count
// keeps a date line at its top.
func TestBrowserHeaderOnePage(t *testing.T) {
	r := func(y float64, texts ...string) row {
		var out row
		for i, text := range texts {
			s := seg{box: box{float64(25 + 300*i), float64(100 + 300*i), y, y + 8}, text: text, size: 10.7}
			out.segs = append(out.segs, s)
		}
		out.box = box{out.segs[0].x0, out.segs[len(out.segs)-1].x1, y, y + 8}
		return out
	}
	body := r(700, "Revenue grew 14% to 2.3 million euros.")
	for _, c := range []struct {
		name     string
		rows     []row
		want     []string // the rows' text left
		wantLeft int      // notes of text left out
	}{
		{"Chromium's header and footer", []row{r(768, "11/27/26, 4:21 PM", "Quarterly Report"), body, r(16, "file:///tmp/report.html", "1/1")},
			[]string{"Revenue grew 14% to 2.3 million euros."}, 4},
		{"a day-first date and an https address", []row{r(768, "27.11.26, 16:21", "Bericht"), body, r(16, "https://example.org/a?b=c", "1/1")},
			[]string{"Revenue grew 14% to 2.3 million euros."}, 4},
		{"no address at the bottom", []row{r(768, "11/27/26, 4:21 PM", "Minutes"), body, r(16, "Signed", "1/1")},
			[]string{"11/27/26, 4:21 PM | Minutes", "Revenue grew 14% to 2.3 million euros.", "Signed"}, 1},
		{"no date at the top", []row{r(768, "Quarterly Report"), body, r(16, "file:///tmp/report.html", "1/1")},
			[]string{"Quarterly Report", "Revenue grew 14% to 2.3 million euros.", "file:///tmp/report.html"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages := []*page{{number: 1, rows: slices.Clone(c.rows)}}
			rep := &Report{}
			dropRunning(pages, rep)
			var got []string
			for _, row := range pages[0].rows {
				var ts []string
				for _, s := range row.segs {
					ts = append(ts, s.text)
				}
				got = append(got, strings.Join(ts, " | "))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("rows %q, want %q", got, c.want)
			}
			if len(rep.Dropped) != c.wantLeft {
				t.Errorf("left out %+v, want %d", rep.Dropped, c.wantLeft)
			}
		})
	}
}

// TestMonospaced: fonts that are monospaced by their name, where their
// descriptor does not say so.
func TestMonospaced(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"DAAAAA+DejaVuSansMono", true},
		{"JNNPWA+NimbusMonL-Regu", true},
		{"AKEQKS+CMTT10", true},
		{"SMDJOQ+CMSLTT10", true},
		{"CourierNewPSMT", true},
		{"Consolas", true},
		{"SourceCodePro-Regular", true},
		{"BAAAAA+LiberationSerif", false},
		{"PWNLKT+CMR10", false},
		{"ECEDAZ+CMBX12", false},
		{"Helvetica", false},
	} {
		ch := &responses.GetPageTextStructuredChar{FontInformation: &responses.FontInformation{Name: c.name}}
		if got := monospaced(ch); got != c.want {
			t.Errorf("monospaced(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
