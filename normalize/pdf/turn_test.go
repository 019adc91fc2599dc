package pdf

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/responses"
)

// A scanned page fed upside down or sideways is read upright
// (scanned-turned.pdf: report.pdf's pages scanned at 150 DPI and printed
// turned, the first upside down, the second a quarter turn clockwise, the
// third anticlockwise, on landscape pages), and so is one whose /Rotate
// turns it back upright as it is shown, as a viewer's "rotate page" saves
// it: a page is rendered for OCR as it is shown, so that a /Rotate turning
// an upright page is read as the pictures turned are.
func TestReadScannedTurned(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tesseract on six pages")
	}
	need(t, "tesseract", "tesseract-ocr tesseract-ocr-eng")
	for _, c := range []struct {
		name   string
		file   string
		rotate []string // qpdf's --rotate arguments
	}{
		{"pictures turned", "scanned-turned.pdf", nil},
		{"/Rotate turning back", "scanned-turned.pdf", []string{"--rotate=+180:1", "--rotate=+270:2", "--rotate=+90:3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if c.rotate != nil {
				qpdf := need(t, "qpdf", "qpdf")
				out := filepath.Join(t.TempDir(), "rotated.pdf")
				cmd := exec.Command(qpdf, append(append([]string{filepath.Join("testdata", c.file)}, c.rotate...), out)...)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("qpdf: %v\n%s", err, b)
				}
				if data, err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			d, rep, err := (&Reader{}).Read(t.Context(), data)
			if err != nil {
				t.Fatal(err)
			}
			wantScannedReport(t, d, rep)
		})
	}
}

// fakeOSD writes a tesseract that prints the hOCR of a page of one line,
// "Lighthouses guide sailors", its words read with confidence conf, or
// with psm1 when asked to find which way up the page is (--psm 1): "fail"
// fails instead; each run adds a line to the file calls. It returns the
// tesseract's path and calls' path.
func fakeOSD(t *testing.T, conf, psm1 string) (bin, calls string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for tesseract")
	}
	dir := t.TempDir()
	bin, calls = filepath.Join(dir, "tesseract"), filepath.Join(dir, "calls")
	script := fmt.Sprintf(`#!/bin/sh
cat >/dev/null
echo "$*" >>%q
c=%q
case "$*" in *"--psm 1"*) c=%q;; esac
[ "$c" = fail ] && { echo "osd failed" >&2; exit 1; }
w() { printf "<span class='ocrx_word' title='bbox %%s 100 %%s 150; x_wconf %%s'>%%s</span>" $1 $2 "$c" $3; }
printf "<div class='ocr_page' title='bbox 0 0 2550 3300'><span class='ocr_line' title='bbox 100 100 1000 150; x_size 40'>"
[ "$c" = none ] || { w 100 400 "Lighthouses$c"; w 420 600 guide; w 620 900 sailors; }
printf "</span></div>"
`, calls, conf, psm1)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, calls
}

// readUpright reads a page again finding which way up it is only when the
// first reading's confidence is low, and keeps the surer reading.
func TestReadUpright(t *testing.T) {
	for _, c := range []struct {
		name       string
		conf, psm1 string // what the fake tesseract reads with (fakeOSD)
		runs       int
		want       string // the word that starts the reading kept
		err        bool
	}{
		{"upright", "96", "96", 1, "Lighthouses96", false},
		{"at the threshold", "60", "96", 1, "Lighthouses60", false},
		{"turned", "22", "93", 2, "Lighthouses93", false},
		{"turned, read no better", "22", "15", 2, "Lighthouses22", false},
		{"no text", "none", "96", 1, "", false},
		{"mode 1 fails", "22", "fail", 2, "Lighthouses22", false},
		{"first reading fails", "fail", "96", 1, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin, calls := fakeOSD(t, c.conf, c.psm1)
			out, err := readUpright(t.Context(), bin, []byte("picture"))
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			log, _ := os.ReadFile(calls)
			if n := strings.Count(string(log), "\n"); n != c.runs {
				t.Errorf("%d runs, want %d:\n%s", n, c.runs, log)
			}
			if err != nil {
				return
			}
			words, err := hocrWords([]byte(out), ocrDPI)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(words) > 0 {
				got = words[0].text
			}
			if got != c.want {
				t.Errorf("kept the reading starting %q, want %q", got, c.want)
			}
		})
	}
}

// A page with a text layer whose /Rotate turns it as it is shown reads as
// the page upright: before, pdfium's order of its characters and its
// spaces followed the page as shown, and report.pdf upside down read
// "R e p o r t o n L gi h ht o u s e s".
func TestReadRotatedText(t *testing.T) {
	qpdf := need(t, "qpdf", "qpdf")
	want, _, err := read(t, &Reader{}, "report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, rotate := range [][]string{
		{"--rotate=+90"},
		{"--rotate=+180"},
		{"--rotate=+270"},
		{"--rotate=+90:1", "--rotate=+180:2", "--rotate=-90:3"},
	} {
		t.Run(strings.Join(rotate, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rotated.pdf")
			cmd := exec.Command(qpdf, append(append([]string{filepath.Join("testdata", "report.pdf")}, rotate...), out)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("qpdf: %v\n%s", err, b)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, rep, err := (&Reader{}).Read(t.Context(), data)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.OCR) != 0 || got.Text != want.Text {
				t.Errorf("OCR pages %v, text\n%s\nwant\n%s", rep.OCR, got.Text, want.Text)
			}
		})
	}
}

// sideways.pdf's pages have their text set turned (a quarter turn
// clockwise, a half turn, a quarter turn anticlockwise) and upright: read
// as the golden file has it (before, the three turned pages read a letter
// at a time, "S p r ni g a n d n e a p dit e s"), and so with a /Rotate
// showing each upright, as a viewer's "rotate page" saves it.
func TestReadSideways(t *testing.T) {
	qpdf := need(t, "qpdf", "qpdf")
	want, err := os.ReadFile(filepath.Join("testdata", "sideways.golden"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rotated.pdf")
	cmd := exec.Command(qpdf, filepath.Join("testdata", "sideways.pdf"), "--rotate=+270:1", "--rotate=+180:2", "--rotate=+90:3", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	d, rep, err := (&Reader{}).Read(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.OCR) != 0 || d.Text+"\n" != string(want) {
		t.Errorf("OCR pages %v, text\n%s\nwant\n%s", rep.OCR, d.Text, want)
	}
	var headings []string
	for _, h := range d.Headings {
		headings = append(headings, fmt.Sprintf("%s p%d", h.Text, d.PageAt(h.Offset)))
	}
	if got, want := strings.Join(headings, "|"), "Tides of the North Sea p1|Spring and neap tides p2|Tide tables p3|Tidal power p4"; got != want {
		t.Errorf("headings %q, want %q", got, want)
	}
}

func TestTextTurn(t *testing.T) {
	chars := func(angles ...float64) []*responses.GetPageTextStructuredChar {
		var cs []*responses.GetPageTextStructuredChar
		for _, a := range angles {
			cs = append(cs, &responses.GetPageTextStructuredChar{Text: "a", Angle: a})
		}
		return cs
	}
	q := math.Pi / 2
	space := &responses.GetPageTextStructuredChar{Text: " "}
	for _, c := range []struct {
		name  string
		chars []*responses.GetPageTextStructuredChar
		want  quarters
	}{
		{"upright", chars(0, 0, 0), 0},
		{"clockwise", chars(q, q, 0), 1},
		{"upside down", chars(2*q, 2*q, 2*q), 2},
		{"anticlockwise, a little off", chars(3*q+0.05, 3*q-0.05), 3},
		{"half and half", chars(q, q, 0, 0), 0},
		{"diagonal", chars(q/2, q/2, q, q), 0},
		{"spaces do not count", append(chars(q), space, space, space), 1},
		{"no text", nil, 0},
	} {
		if got := textTurn(c.chars); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestQuartersRect(t *testing.T) {
	// A box near the bottom left of a line of text, upright (left, top,
	// right, bottom; y growing upwards), and where it lies on a page of
	// 612 × 792 points whose text is turned clockwise by a quarter turn,
	// n times.
	want := [4]float64{10, 40, 30, 20}
	for _, c := range []struct {
		t quarters
		b [4]float64
	}{
		{0, want},
		{1, [4]float64{20, 782, 40, 762}},
		{2, [4]float64{582, 772, 602, 752}},
		{3, [4]float64{572, 30, 592, 10}},
	} {
		l, top, r, b := c.t.rect(c.b[0], c.b[1], c.b[2], c.b[3], 612, 792)
		if got := [4]float64{l, top, r, b}; got != want {
			t.Errorf("%d: %v, want %v", c.t, got, want)
		}
	}
	// turnChars turns the angle too: the text it turns is upright.
	cs := []*responses.GetPageTextStructuredChar{{Text: "a", Angle: math.Pi / 2, PointPosition: responses.CharPosition{Left: 20, Top: 782, Right: 40, Bottom: 762}}}
	turnChars(cs, 1, 612, 792)
	if p := cs[0].PointPosition; cs[0].Angle != 0 || [4]float64{p.Left, p.Top, p.Right, p.Bottom} != want {
		t.Errorf("turned: angle %v, box %+v", cs[0].Angle, p)
	}
}
