package pdf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cite-rag/cite/normalize"
	"github.com/klippa-app/go-pdfium"
)

func read(t *testing.T, r *Reader, name string) (*normalize.Document, *Report, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r.Read(t.Context(), data)
}

// report.pdf is testdata/report.html printed by headless Chromium with its
// running header (date, title) and footer (address, "N/3"), and an outline:
// a two-column first page, a narrow paragraph with soft hyphens, a table.
func TestReadReport(t *testing.T) {
	d, rep, err := read(t, &Reader{}, "report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 3 || len(d.Pages) != 3 {
		t.Fatalf("pages: report %d, document %+v", rep.Pages, d.Pages)
	}
	wantInText(t, d.Text, []textCase{
		{"lines joined into a paragraph", "Lighthouses were built along dangerous coastlines to guide sailors. The well-known Pharos"},
		{"soft hyphen at a line end joined", "led extraordinarily solitary lives"},
		{"soft hyphens folded", "record incomprehensible storms"},
		{"hyphen inside a line kept", "well-known visitors"},
		{"ligature folded", "the efficient routines"},
		{"table as rows", "Name | Built | Height\nBell Rock | 1810 | 35 m\nEddystone | 1882 | 49 m"},
	})
	// Two columns are read column by column: all of the left column, then
	// the right one.
	left := strings.Index(d.Text, "unfamiliar with the local waters.")
	right := strings.Index(d.Text, "The nineteenth century brought the Fresnel lens")
	if left < 0 || right < 0 || left > right {
		t.Errorf("columns out of order: left column ends at %d, right column starts at %d", left, right)
	}
	if i := strings.Index(d.Text, "Keepers and Their Lives"); d.PageAt(i) != 2 {
		t.Errorf("page 2 heading on page %d", d.PageAt(i))
	}
	if i := strings.Index(d.Text, "Families sometimes"); d.PageAt(i) != 3 {
		t.Errorf("page 3 text on page %d", d.PageAt(i))
	}
	// Running headers, footers and page numbers are out of the text and in
	// the report, per page.
	for _, s := range []string{"file://", "PM", "1/3", "\n\nLighthouses\n"} {
		if strings.Contains(d.Text, s) {
			t.Errorf("running text %q left in the text", s)
		}
	}
	for p := 1; p <= 3; p++ {
		var got []string
		for _, x := range rep.dropped(p) {
			got = append(got, x.Why+": "+x.Text)
		}
		s := strings.Join(got, "; ")
		for _, want := range []string{"running header: Lighthouses", "running footer: file://", fmt.Sprintf("page number: %d/3", p)} {
			if !strings.Contains(s, want) {
				t.Errorf("page %d: dropped %q, want %q", p, s, want)
			}
		}
	}
	// Headings come from the outline Chromium wrote.
	var hs []string
	for _, h := range d.Headings {
		hs = append(hs, fmt.Sprintf("%d %s", h.Level, h.Text))
	}
	want := "1 Report on Lighthouses|2 Origins|2 Engineering|1 Keepers and Their Lives|2 Daily routine"
	if got := strings.Join(hs, "|"); got != want {
		t.Errorf("headings\n got %s\nwant %s", got, want)
	}
}

// Both modes, interruptible and not, fail the same way.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		file string
		r    Reader
		want error
		msg  string
	}{
		{"encrypted.pdf", Reader{}, ErrEncrypted, "encrypted: a password is required"},
		{"damaged.pdf", Reader{}, ErrDamaged, "damaged PDF: incorrect format"},
		{"report.pdf", Reader{MaxPages: 2}, ErrTooLarge, "too many pages: 3, the limit is 2"},
		{"report.pdf", Reader{MaxPages: 2}, normalize.ErrOverLimit, "too many pages: 3, the limit is 2"},
		{"report.pdf", Reader{Timeout: time.Nanosecond}, ErrTimeout, "over the time limit of one PDF (1ns)"},
	} {
		for _, unint := range []bool{false, true} {
			c.r.Uninterruptible = unint
			_, _, err := read(t, &c.r, c.file)
			if err == nil || !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s (uninterruptible %v): %v, want %v (%q)", c.file, unint, err, c.want, c.msg)
			}
		}
	}
}

// An uninterruptible reader reads every PDF as the interruptible one does.
func TestUninterruptibleSameText(t *testing.T) {
	for _, name := range []string{"report.pdf", "flow.pdf", "scanned.pdf"} {
		want, wantRep, err := read(t, &Reader{OCR: OCRNever}, name)
		if err != nil {
			t.Fatal(err)
		}
		got, gotRep, err := read(t, &Reader{OCR: OCRNever, Uninterruptible: true}, name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || !reflect.DeepEqual(got.Pages, want.Pages) || !reflect.DeepEqual(gotRep, wantRep) {
			t.Errorf("%s: uninterruptible read differs:\n%q %+v\n%q %+v", name, got.Text, gotRep, want.Text, wantRep)
		}
	}
}

// A document over its time budget is abandoned at once, wherever its
// reading is; the abandoned readings free their instances when they end,
// so that reads go on working after many of them.
func TestUninterruptibleAbandoned(t *testing.T) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		budget := time.Duration(i) * 2 * time.Millisecond
		r := &Reader{Timeout: max(budget, time.Nanosecond), Uninterruptible: true}
		if _, _, err := r.Read(t.Context(), data); err != nil && !errors.Is(err, ErrTimeout) {
			t.Errorf("budget %v: %v", budget, err)
		}
	}
	d, _, err := (&Reader{Uninterruptible: true}).Read(t.Context(), data)
	if err != nil || !strings.Contains(d.Text, "Lighthouse") {
		t.Fatalf("a read after abandoned ones: %v", err)
	}
}

// A document whose time is up before a pdfium instance is free (every one
// busy, as with readings abandoned under load) is over its time limit, as
// one whose reading takes too long is, not failed by the pool's own error
// ("pdfium instance: Timeout waiting for idle object").
func TestTimeoutWaitingForInstance(t *testing.T) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, interruptible := range []bool{false, true} {
		var held []pdfium.Pdfium
		for {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			in, err := instance(ctx, interruptible)
			cancel()
			if err != nil {
				break // every instance is borrowed
			}
			held = append(held, in)
		}
		r := &Reader{Timeout: 50 * time.Millisecond, Uninterruptible: !interruptible}
		_, _, err := r.Read(t.Context(), data)
		for _, in := range held {
			in.Close()
		}
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("interruptible %v, %d instances held: %v, want %v", interruptible, len(held), err, ErrTimeout)
		}
	}
}

// scanned.pdf is a page holding only a picture of text.
func TestReadScanned(t *testing.T) {
	d, rep, err := read(t, &Reader{Tesseract: "no-such-tesseract"}, "scanned.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "" || len(rep.NoText) != 1 || rep.NoText[0].Page != 1 || !strings.Contains(rep.NoText[0].Reason, "install tesseract") {
		t.Errorf("without tesseract: text %q, report %+v", d.Text, rep.NoText)
	}
	_, rep, _ = read(t, &Reader{OCR: OCRNever}, "scanned.pdf")
	if len(rep.NoText) != 1 || len(rep.OCR) != 0 {
		t.Errorf("OCR never: %+v", rep)
	}
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tesseract is not installed (Debian: tesseract-ocr tesseract-ocr-eng)")
		}
		t.Skip("tesseract is not installed")
	}
	d, rep, err = read(t, &Reader{}, "scanned.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "Grace Darling") || len(rep.OCR) != 1 || d.PageAt(strings.Index(d.Text, "Grace")) != 1 {
		t.Errorf("OCR: text %q, report %+v", d.Text, rep)
	}
}

// The pool is shared by goroutines reading at the same time.
func TestReadConcurrent(t *testing.T) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := (&Reader{}).Read(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			d, _, err := (&Reader{}).Read(t.Context(), data)
			if err != nil || d.Text != want.Text {
				t.Errorf("concurrent read differs: %v", err)
			}
		})
	}
	wg.Wait()
}

// flow.pdf is testdata/flow.html printed by headless Chromium: a
// paragraph that a page break cuts, a paragraph a forced page break
// starts, the kerned space of "NASA Administrator" (at 11pt Chromium draws
// no space glyph and pdfium puts none), a justified paragraph and kerned
// capitals.
func TestReadFlow(t *testing.T) {
	d, _, err := read(t, &Reader{}, "flow.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != 3 {
		t.Fatalf("pages %+v", d.Pages)
	}
	wantInText(t, d.Text, []textCase{
		{"a paragraph cut by a page break is one", "the keepers fished from the landing on quiet evenings"},
		{"a kerned space", "insistence of the NASA Administrator, the report"},
		{"a kerned space, again", "the NASA Administrator in October"},
		{"justified text", "A justified paragraph stretches the spaces between its words so that every line but the last reaches the right margin, and a reader must not break its words apart where the gaps are wide nor join them where they are narrow."},
		{"kerned capitals", "\n\nAVATAR WAVE Toyota LAVA YAWN\n\n"},
		{"a paragraph a page break starts is another", "for an hour or more.\n\nModern predictions"},
		{"a paragraph a forced page break starts is another", "along the shore.\n\nTide gauges now report"},
	})
	// The page map stays exact: the paragraph's words are on the pages
	// they are printed on, and a passage across the break names both.
	from := strings.Index(d.Text, "keepers fished from")
	to := strings.Index(d.Text, "the landing on quiet")
	if d.PageAt(from) != 1 || d.PageAt(to) != 2 || d.Pages[1].Offset != to {
		t.Errorf("the break: %q on page %d, %q on page %d, page 2 at %d (want %d)", "keepers fished from", d.PageAt(from), "the landing on quiet", d.PageAt(to), d.Pages[1].Offset, to)
	}
	if p, pe := d.PageRange(from, to+len("the landing")); p != 1 || pe != 2 {
		t.Errorf("a passage across the break: pages %d-%d, want 1-2", p, pe)
	}
}

// code.pdf is testdata/code.html printed by headless Chromium: inline
// code in a serif paragraph, set in a monospaced font, whose spaces are
// wider than the page's usual word space and where a hyphen or a period is
// a small ink box in a character's wide advance; and a table.
func TestReadCode(t *testing.T) {
	d, _, err := read(t, &Reader{}, "code.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantInText(t, d.Text, []textCase{
		{"inline code is text", "Then go run ./cmd/cite docs lists what was indexed, go run ./cmd/cite search \"how do bees find flowers\" searches it, and go run ./cmd/cite show notes.md --chunks shows how"},
		{"inline code without space glyphs is text", "Set as pandoc sets it, a line each: go test -run TestReadCode ./normalize/pdf runs this test, go vet ./normalize/pdf checks it."},
		{"a table is still rows", "Name | Built\nBell Rock | 1810"},
		{"two hyphens", " --chunks shows how"},
		{"two periods", "corpora in ../shared/data run"},
		{"three hyphens, a code block's lines kept", "clone.\n\n---\nSources cited in this answer:\n\n"},
	})
}

// lists.pdf is testdata/lists.html printed by headless Chromium: a
// numbered list, whose items are set as close as a paragraph's lines, an
// item that wraps, items a paragraph writes one a line with bullets, and a
// paragraph with a line that starts with a number.
func TestReadLists(t *testing.T) {
	d, _, err := read(t, &Reader{}, "lists.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantInText(t, d.Text, []textCase{
		{"numbered items", "\n\n1. Request clearance on VHF channel 12.\n\n2. Single up lines.\n\n"},
		{"an item that wraps", "\n\n3. Cast off when the pilot confirms, which may take a long while when the harbour is busy and the line of waiting ships reaches out past the breakwater.\n\n"},
		{"bulleted lines", "\n\n• Berth A: containers\n\n• Berth B: ferries\n\n• Berth C: fishing fleet\n\n"},
		{"a paragraph's line that starts with a number", "as in the Treaty of 1815, section 2. and what follows it."},
	})
}

// paragraphs.pdf is testdata/paragraphs.html printed by headless
// Chromium: a page of wrapped paragraphs, then a page of one-line
// paragraphs, whose only line pitch is the paragraphs' (they were read as
// one paragraph), then verse in two stanzas.
func TestReadParagraphs(t *testing.T) {
	d, _, err := read(t, &Reader{}, "paragraphs.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantInText(t, d.Text, []textCase{
		{"wrapped lines joined", "on a board by the slipway, and every skipper who moors in the harbour"},
		{"one-line paragraphs apart", "\n\nKeep to the right of the channel.\n\nSound one long blast when leaving.\n\nMoor only at the marked berths.\n\nReport any oil in the water.\n\nDo not run engines after ten at night.\n\nPay harbour dues at the office.\n\n"},
		{"a stanza is a block", "\n\nThe lamp is lit at fall of night,\nThe keeper climbs the stair,\nAnd all along the rocky bight\nThe ships know he is there.\n\nWhen winter gales"},
	})
}

// breaks.pdf is testdata/breaks.html printed by headless Chromium: an
// address (short lines set apart by <br>), a code block (<pre>, a blank
// line in it), verse, and a narrow paragraph whose lines wrap.
func TestReadLineBreaks(t *testing.T) {
	d, _, err := read(t, &Reader{}, "breaks.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantInText(t, d.Text, []textCase{
		{"an address's lines kept", "\n\nHarbour Office\n12 Quay Street\nPortree IV51 9DE\nScotland\n\n"},
		{"a code block's lines kept", "\n\n// tide returns the height of the tide at hour t.\nfunc tide(t float64) float64 {\nreturn 2.5 * math.Sin(t/12.42*2*math.Pi)\n}\n\nfunc main() { fmt.Println(tide(3)) }\n\n"},
		{"verse's lines kept", "\n\nThe lamp is lit at fall of night,\nThe keeper climbs the stair,\n"},
		{"a narrow paragraph joined", "\n\nA narrow paragraph wraps its lines well before the margin of the page, and each of them goes on where the one before it stopped."},
		{"a wide paragraph joined", "winter storage of boats, and it keeps"},
	})
}

// nested.pdf is testdata/nested.html printed by headless Chromium: nested
// lists whose bullets are drawn (no text: only the items' indents tell
// them apart), a parent item that wraps, numbered lists, and bullets that
// are text ("• ", "– ").
func TestReadNestedLists(t *testing.T) {
	d, _, err := read(t, &Reader{}, "nested.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantInText(t, d.Text, []textCase{
		{"a parent and its items apart", "\n\nCheck the weather\n\nthe shipping forecast\nthe inshore waters forecast\n\nCheck the boat, "},
		{"a parent item that wraps is one", "\n\nCheck the boat, from the bilge pump in the hold to the navigation lights on the mast, and note what needs mending\n\nbilge pump\nnavigation lights\n\n"},
		{"numbered items apart", "\n\n1. Fuel\n\n1. Main tank\n\n2. Reserve tank\n\n2. Water\n\n"},
		{"text bullets apart", "\n\n• Charts\n\n– harbour plan\n\n– coastal chart\n\n• Radio"},
	})
}

// spaced.pdf is testdata/spaced.html printed by headless Chromium: text
// set with letter spacing from 1px to 0.5 em (CSS letter-spacing), where
// pdfium generates a space at many of the letters ("Q u a r t e r l y"),
// beside the same kinds of text set without it. Every word reads whole,
// word spaces are kept, and digits and signs set apart stay apart.
func TestReadLetterSpacing(t *testing.T) {
	d, _, err := read(t, &Reader{}, "spaced.pdf")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(d.Text), " ")
	want := "Quarterly Report " +
		"The committee reviewed the annual budget and approved a proposal. " + // 0.15 em
		"Revenue grew by twelve percent over the previous year. " + // 2px
		"It is a small, quiet harbour on the west coast. " + // 1px
		"ANNUAL SUMMARY " + // 0.5 em, capitals
		"Keepers of the light wrote in the log at dusk. " + // 0.05 em
		"Set without spacing: x = a + b, steps 1 2 3, I am a cat, from A to Z. " +
		"Spaced: x = a + b, steps 1 2 3, I am a cat." // 0.2 em
	if got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}

// Start may be called at any time, any number of times, beside reads: the
// reads wait for the one start and get the same text.
func TestStart(t *testing.T) {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{}
	r.Start()
	var wg sync.WaitGroup
	texts := make([]string, 4)
	for i := range texts {
		wg.Go(r.Start)
		wg.Go(func() {
			d, _, err := (&Reader{}).Read(t.Context(), data)
			if err != nil {
				t.Error(err)
				return
			}
			texts[i] = d.Text
		})
	}
	wg.Wait()
	for _, s := range texts[1:] {
		if s != texts[0] || s == "" {
			t.Fatalf("reads beside Start differ: %q, %q", texts[0], s)
		}
	}
}

// textCase is a piece of text a document's text must hold, named.
type textCase struct{ name, want string }

// wantInText reports each case whose text is not in text.
func wantInText(t *testing.T, text string, cases []textCase) {
	t.Helper()
	for _, c := range cases {
		if !strings.Contains(text, c.want) {
			t.Errorf("%s: %q not in\n%s", c.name, c.want, text)
		}
	}
}

// scanned-report.pdf is report.pdf's three pages as pictures: tesseract
// reads each, side by side, and their texts keep their pages.
func TestReadScannedPages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tesseract on three pages")
	}
	need(t, "tesseract", "tesseract-ocr tesseract-ocr-eng")
	d, rep, err := read(t, &Reader{}, "scanned-report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	wantScannedReport(t, d, rep)
}

// wantScannedReport checks that d and rep are report.pdf's three pages
// read by OCR.
func wantScannedReport(t *testing.T, d *normalize.Document, rep *Report) {
	t.Helper()
	if !slices.Equal(rep.OCR, []int{1, 2, 3}) || len(rep.NoText) != 0 {
		t.Fatalf("report %+v", rep)
	}
	// Read as report.pdf's text is: the running header and footer and the
	// page numbers left out, the title and headings found by size.
	if d.Title != "Report on Lighthouses" {
		t.Errorf("title %q", d.Title)
	}
	wantReportHeadings(t, d)
	for _, left := range []string{"11:38", "file:", "1/3", "3/3"} {
		if strings.Contains(d.Text, left) {
			t.Errorf("%q was not left out: %q", left, d.Text)
		}
	}
	dropped := map[string]int{}
	for _, x := range rep.Dropped {
		dropped[x.Why]++
	}
	if dropped["running header"] != 6 || dropped["running footer"] != 3 || dropped["page number"] != 3 {
		t.Errorf("dropped %v: %+v", dropped, rep.Dropped)
	}
	for _, c := range []struct {
		text string
		page int
	}{{"Pharos of Alexandria", 1}, {"Fresnel lens", 1}, {"Keepers and Their Lives", 2}, {"Daily routine", 2}, {"Bell Rock", 3}} {
		i := strings.Index(d.Text, c.text)
		if i < 0 || d.PageAt(i) != c.page {
			t.Errorf("%q at %d, page %d, want page %d", c.text, i, d.PageAt(max(i, 0)), c.page)
		}
	}
}

// fakeTesseract writes a tesseract that reads its picture, runs script
// and prints the hOCR of a page of three lines, "head", $word and "foot",
// and returns its path.
func fakeTesseract(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for tesseract")
	}
	p := filepath.Join(t.TempDir(), "tesseract")
	hocr := `printf '<html><body><div class="ocr_page" title="bbox 0 0 2550 3300">` +
		`<span class="ocr_line" title="bbox 100 100 1000 150; x_size 40"><span class="ocrx_word" title="bbox 100 100 900 150">head</span></span>` +
		`<span class="ocr_line" title="bbox 100 1000 1000 1050; x_size 40"><span class="ocrx_word" title="bbox 100 1000 900 1050">%s</span></span>` +
		`<span class="ocr_line" title="bbox 100 3000 1000 3050; x_size 40"><span class="ocrx_word" title="bbox 100 3000 900 3050">foot</span></span>` +
		`</div></body></html>' "$word"`
	if err := os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\n"+script+"\n"+hocr+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Tesseract runs on one OpenMP thread unless the user says otherwise: its
// threads spin while they wait, and pages are read side by side instead.
func TestOCRThreads(t *testing.T) {
	for _, c := range []struct {
		env  string // OMP_THREAD_LIMIT of cite's environment; "-": unset
		want string
	}{{"-", "limit=1"}, {"3", "limit=3"}} {
		t.Run(c.env, func(t *testing.T) {
			if c.env == "-" {
				t.Setenv("OMP_THREAD_LIMIT", "")
				os.Unsetenv("OMP_THREAD_LIMIT")
			} else {
				t.Setenv("OMP_THREAD_LIMIT", c.env)
			}
			ocrEnv = sync.OnceValue(ocrEnvironment)
			t.Cleanup(func() { ocrEnv = sync.OnceValue(ocrEnvironment) })
			bin := fakeTesseract(t, `word="limit=$OMP_THREAD_LIMIT"`)
			d, _, err := read(t, &Reader{Tesseract: bin}, "scanned.pdf")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d.Text, c.want) {
				t.Errorf("tesseract saw %q, want %q", d.Text, c.want)
			}
		})
	}
}

// The pages of a scanned document are read by as many tesseracts at once
// as there are cores, and their texts come in page order.
func TestOCRSideBySide(t *testing.T) {
	dir := t.TempDir()
	// Each run marks itself started and running, waits (up to 20 s) until
	// it sees another run or every page's run has started, and prints how
	// many runs it saw at once.
	bin := fakeTesseract(t, `d="`+dir+`"; touch "$d/start.$$" "$d/run.$$"; i=0
while [ $(ls "$d" | grep -c '^run') -lt 2 ] && [ $(ls "$d" | grep -c '^start') -lt 3 ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i+1)); done
n=$(ls "$d" | grep -c '^run'); rm "$d/run.$$"; word="runs=$n,pid=$$"`)
	d, rep, err := read(t, &Reader{Tesseract: bin, OCR: OCRAlways}, "report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.OCR, []int{1, 2, 3}) {
		t.Fatalf("OCR pages %v", rep.OCR)
	}
	// A page's head and foot are running: what is left of it is its word
	// (the three make one paragraph, which goes on from page to page).
	most := 0
	words := regexp.MustCompile(`runs=([0-9]+),pid=[0-9]+`).FindAllStringSubmatchIndex(d.Text, -1)
	if len(words) != 3 {
		t.Fatalf("text %q", d.Text)
	}
	for i, m := range words {
		n, _ := strconv.Atoi(d.Text[m[2]:m[3]])
		most = max(most, n)
		if p := d.PageAt(m[0]); p != i+1 {
			t.Errorf("%q on page %d, want %d", d.Text[m[0]:m[1]], p, i+1)
		}
	}
	if cores := runtime.GOMAXPROCS(0); most > cores || (cores >= 2 && most < 2) {
		t.Errorf("at most %d tesseracts ran at once on %d cores: %q", most, cores, d.Text)
	}
}

// A document of scanned pages and pages with text (a scanned report whose
// last pages were added as text) measures its text alike on both: the
// body text of the pages with text is not taken for headings beside the
// scanned pages' body text.
func TestReadScannedAndText(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tesseract")
	}
	need(t, "tesseract", "tesseract-ocr tesseract-ocr-eng")
	qpdf := need(t, "qpdf", "qpdf")
	out := filepath.Join(t.TempDir(), "mixed.pdf")
	cmd := exec.Command(qpdf, "--empty", "--pages", filepath.Join("testdata", "scanned-report.pdf"), "1", filepath.Join("testdata", "report.pdf"), "2-3", "--", out)
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
	if !slices.Equal(rep.OCR, []int{1}) {
		t.Fatalf("OCR pages %v", rep.OCR)
	}
	wantReportHeadings(t, d)
}

// wantReportHeadings checks that d has report.pdf's headings.
func wantReportHeadings(t *testing.T, d *normalize.Document) {
	t.Helper()
	var headings []string
	for _, h := range d.Headings {
		headings = append(headings, h.Text)
	}
	if want := []string{"Report on Lighthouses", "Origins", "Engineering", "Keepers and Their Lives", "Daily routine"}; !slices.Equal(headings, want) {
		t.Errorf("headings %q, want %q", headings, want)
	}
}
