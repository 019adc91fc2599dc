package pdf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/testenv"
)

// FuzzRead reads arbitrary bytes as a PDF with small limits: it must return
// a document or an error, never panic, and a document's pages must point
// into its text in order.
//
// The seeds are small PDFs (testdata/fuzz/FuzzRead, written by
// TestFuzzSeeds) and damaged.pdf: the Go fuzzer minimizes every
// input that finds new code for up to a minute, trying it again byte range
// by byte range, so a 50 KB seed such as report.pdf kept it minimizing
// instead of fuzzing; [testenv.BoundMinimize] bounds that to seconds. Each
// input is bounded by the reader's own limits.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"damaged.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	testenv.BoundMinimize(f)
	r := &Reader{MaxPages: 4, Timeout: 10 * time.Second, OCR: OCRNever}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _, err := r.Read(t.Context(), data)
		if err != nil {
			return
		}
		if !utf8.ValidString(d.Text) {
			t.Fatal("text is not UTF-8")
		}
		last := -1
		for _, p := range d.Pages {
			if p.Offset < last || p.Offset > len(d.Text) {
				t.Fatalf("pages out of order: %+v", d.Pages)
			}
			last = p.Offset
		}
	})
}

// textPDF writes a PDF of pages of lines of text in Helvetica or Courier
// (standard fonts, so nothing is embedded): each line is an x, y position and its text.
// It is a few hundred bytes, small enough for the fuzzer to mutate and
// minimize quickly, and has what the reader's layout works on.
func textPDF(pages [][]textLine) []byte { return rotatedPDF(pages, nil) }

// rotatedPDF writes a PDF as textPDF does, each page i with a /Rotate of
// rotate[i] degrees when it is not 0.
func rotatedPDF(pages [][]textLine, rotate []int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	obj("<</Type/Catalog/Pages 2 0 R>>")
	obj(fmt.Sprintf("<</Type/Pages/Kids[%s]/Count %d>>", strings.Join(kids, " "), len(pages)))
	obj("<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>")
	obj("<</Type/Font/Subtype/Type1/BaseFont/Courier>>")
	for i, lines := range pages {
		var c strings.Builder
		for _, l := range lines {
			size := l.size
			if size == 0 {
				size = 11
			}
			font := "F1"
			if l.mono {
				font = "F2"
			}
			if l.turn == 0 {
				fmt.Fprintf(&c, "BT /%s %d Tf %d %d Td (%s) Tj ET\n", font, size, l.x, l.y, l.text)
				continue
			}
			// The text's matrix, turned clockwise by l.turn quarter turns.
			m := [][4]int{{1, 0, 0, 1}, {0, -1, 1, 0}, {-1, 0, 0, -1}, {0, 1, -1, 0}}[l.turn&3]
			fmt.Fprintf(&c, "BT /%s %d Tf %d %d %d %d %d %d Tm (%s) Tj ET\n", font, size, m[0], m[1], m[2], m[3], l.x, l.y, l.text)
		}
		rot := ""
		if i < len(rotate) && rotate[i] != 0 {
			rot = fmt.Sprintf("/Rotate %d", rotate[i])
		}
		obj(fmt.Sprintf("<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]%s/Resources<</Font<</F1 3 0 R/F2 4 0 R>>>>/Contents %d 0 R>>", rot, 6+2*i))
		obj(fmt.Sprintf("<</Length %d>>\nstream\n%sendstream", c.Len(), c.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

type textLine struct {
	x, y, size int
	text       string
	mono       bool // in Courier
	turn       int  // quarter turns clockwise
}

// TestTextPDF checks that textPDF's seed is a PDF the reader reads.
func TestTextPDF(t *testing.T) {
	d, rep, err := (&Reader{OCR: OCRNever}).Read(t.Context(), seedText())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 2 || !strings.Contains(d.Text, "Lights") || !strings.Contains(d.Text, "A lens.") {
		t.Fatalf("%d pages, text %q", rep.Pages, d.Text)
	}
}

// seedText is a two-page seed: a title, two columns, a word hyphenated at
// a line end and a page number, then a page without text. It is kept
// short: pdfium is called for every character, and the fuzzer runs an
// input again for every byte range it tries to cut.
func seedText() []byte {
	return textPDF([][]textLine{{
		{x: 72, y: 700, size: 18, text: "Lights"},
		{x: 72, y: 660, text: "Ships in dan-"},
		{x: 72, y: 646, text: "ger."},
		{x: 320, y: 660, text: "A lens."},
		{x: 300, y: 40, size: 9, text: "1"},
	}, nil})
}

// TestReadBlocksSeed reads seedBlocks: its blocks come apart as they
// are set.
func TestReadBlocksSeed(t *testing.T) {
	d, _, err := (&Reader{OCR: OCRNever}).Read(t.Context(), seedBlocks())
	if err != nil {
		t.Fatal(err)
	}
	want := "Keep right.\n\nSound a blast.\n\nMoor at berths.\n\n" +
		"Harbour Office\n12 Quay Street\n\n" +
		"x := 1\nif x > 0 {\nx--\n}\n\n" +
		"Weather\n\nforecast\ninshore\n\nBoat"
	if !strings.Contains(d.Text, want) {
		t.Errorf("read\n%s\nwant in it\n%s", d.Text, want)
	}
}

// seedBlocks is a seed of blocks set apart by more than their lines: a
// paragraph's wrapped lines (the document's line pitch), one-line
// paragraphs, an address, code in Courier and a nested list without
// markers.
func seedBlocks() []byte {
	return textPDF([][]textLine{{
		{x: 72, y: 700, text: "Ships in the harbour keep to the rules of the harbour master, who"},
		{x: 72, y: 687, text: "writes them on a board."},
		{x: 72, y: 661, text: "Keep right."},
		{x: 72, y: 635, text: "Sound a blast."},
		{x: 72, y: 609, text: "Moor at berths."},
		{x: 72, y: 583, text: "Harbour Office"},
		{x: 72, y: 570, text: "12 Quay Street"},
		{x: 72, y: 544, mono: true, text: "x := 1"},
		{x: 72, y: 531, mono: true, text: "if x > 0 {"},
		{x: 92, y: 518, mono: true, text: "x--"},
		{x: 72, y: 505, mono: true, text: "}"},
		{x: 90, y: 479, text: "Weather"},
		{x: 110, y: 466, text: "forecast"},
		{x: 110, y: 453, text: "inshore"},
		{x: 90, y: 440, text: "Boat"},
	}})
}

// TestReadTurnedSeed reads seedTurned: each page upright.
func TestReadTurnedSeed(t *testing.T) {
	d, _, err := (&Reader{OCR: OCRNever}).Read(t.Context(), seedTurned())
	if err != nil {
		t.Fatal(err)
	}
	want := "Tides\n\nThe tide comes in twice a day, and goes out again.\n\nNeaps\n\nThe range is least at the neaps, a week after springs.\n\nSprings\n\nThe range is greatest at the springs."
	if d.Text != want {
		t.Errorf("read\n%s\nwant\n%s", d.Text, want)
	}
}

// seedTurned is a seed of three pages whose text is turned: set a
// quarter turn clockwise; set upside down, its /Rotate showing it
// upright; set upright, its /Rotate turning it.
func seedTurned() []byte {
	return rotatedPDF([][]textLine{{
		{x: 500, y: 720, size: 18, turn: 1, text: "Tides"},
		{x: 470, y: 720, turn: 1, text: "The tide comes in twice a day,"},
		{x: 456, y: 720, turn: 1, text: "and goes out again."},
	}, {
		{x: 540, y: 100, size: 18, turn: 2, text: "Neaps"},
		{x: 540, y: 130, turn: 2, text: "The range is least at the neaps,"},
		{x: 540, y: 144, turn: 2, text: "a week after springs."},
	}, {
		{x: 72, y: 700, size: 18, text: "Springs"},
		{x: 72, y: 670, text: "The range is greatest at the springs."},
	}}, []int{0, 180, 90})
}

// TestFuzzSeeds writes the interesting inputs of FuzzRead's corpus with
// -update: a header alone, a truncated cross-reference table, a page tree
// that points at itself, a huge page count, and small PDFs with text (as
// is, and encrypted by qpdf: 128-bit AES, whose key takes pdfium far less
// time to derive than 256-bit's, so that the fuzzer's inputs stay fast).
func TestFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("writes testdata/fuzz with -update")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{
		"header":    "%PDF-1.7\n",
		"xref":      "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\nxref\n0 3\n0000000000 65535 f \n00000",
		"selfpages": "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
		"count":     "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 2000000000>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
		"text":      string(seedText()),
		"blocks":    string(seedBlocks()),
		"turned":    string(seedTurned()),
	}
	qpdf := need(t, "qpdf", "qpdf")
	plain := filepath.Join(t.TempDir(), "text.pdf")
	enc := filepath.Join(t.TempDir(), "encrypted.pdf")
	if err := os.WriteFile(plain, seedText(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(qpdf, "--allow-weak-crypto", "--encrypt", "secret", "owner", "128", "--use-aes=y", "--", plain, enc).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, out)
	}
	data, err := os.ReadFile(enc)
	if err != nil {
		t.Fatal(err)
	}
	seeds["encrypted"] = string(data)
	for name, s := range seeds {
		body := "go test fuzz v1\n[]byte(" + quote(s) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func quote(s string) string { return strconv.Quote(s) }
