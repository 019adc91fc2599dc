package pdf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"
	"golang.org/x/image/tiff"

	"github.com/cite-rag/cite/normalize"
)

func TestImageFormat(t *testing.T) {
	bmp := append([]byte("BM"), make([]byte, 24)...)
	binary.LittleEndian.PutUint32(bmp[14:], 40)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"png", []byte("\x89PNG\r\n\x1a\nrest"), "png"},
		{"jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0}, "jpeg"},
		{"tiff little-endian", []byte("II*\x00\x08\x00\x00\x00"), "tiff"},
		{"tiff big-endian", []byte("MM\x00*\x00\x00\x00\x08"), "tiff"},
		{"gif", []byte("GIF89a..."), "gif"},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "webp"},
		{"riff, not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"bmp", bmp, "bmp"},
		{"text starting BM", []byte("BMW owners' manual, chapter one: the engine"), ""},
		{"pdf", []byte("%PDF-1.7"), ""},
		{"empty", nil, ""},
	} {
		if got := ImageFormat(c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// tiffOf writes pages as one uncompressed TIFF of 8-bit grey pages, at dpi
// unless it is 0, a directory after each page's pixels.
func tiffOf(pages []*image.Gray, dpi uint32) []byte {
	le := binary.LittleEndian
	b := []byte("II*\x00\x00\x00\x00\x00")
	next := 4 // where the offset of the next directory goes
	for _, p := range pages {
		w, h := p.Rect.Dx(), p.Rect.Dy()
		pix := len(b)
		for y := range h {
			b = append(b, p.Pix[y*p.Stride:y*p.Stride+w]...)
		}
		type entry struct {
			tag, typ uint16
			v        uint32
		}
		entries := []entry{{256, 4, uint32(w)}, {257, 4, uint32(h)}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
			{273, 4, uint32(pix)}, {277, 3, 1}, {278, 4, uint32(h)}, {279, 4, uint32(w * h)}}
		var rational int // where the resolution's two numbers go
		if dpi > 0 {
			entries = append(entries, entry{282, 5, 0}, entry{283, 5, 0}, entry{296, 3, 2})
		}
		if len(b)%2 == 1 {
			b = append(b, 0)
		}
		le.PutUint32(b[next:], uint32(len(b)))
		dir := len(b)
		b = le.AppendUint16(b, uint16(len(entries)))
		for _, e := range entries {
			b = le.AppendUint16(b, e.tag)
			b = le.AppendUint16(b, e.typ)
			b = le.AppendUint32(b, 1)
			b = le.AppendUint32(b, e.v)
		}
		next = len(b)
		b = le.AppendUint32(b, 0)
		if dpi > 0 {
			rational = len(b)
			b = le.AppendUint32(b, dpi)
			b = le.AppendUint32(b, 1)
			for i, e := range entries {
				if e.typ == 5 {
					le.PutUint32(b[dir+2+12*i+8:], uint32(rational))
				}
			}
		}
	}
	return b
}

func TestTIFFSizes(t *testing.T) {
	g := func(w, h int) *image.Gray { return image.NewGray(image.Rect(0, 0, w, h)) }
	two := tiffOf([]*image.Gray{g(30, 20), g(10, 40)}, 300)
	sizes, _, err := tiffSizes(two, 10)
	if err != nil || !slices.Equal(sizes, []image.Point{{30, 20}, {10, 40}}) {
		t.Fatalf("sizes %v, %v", sizes, err)
	}
	// Over the limit, every page is counted, for the message.
	five := tiffOf([]*image.Gray{g(3, 2), g(3, 2), g(3, 2), g(3, 2), g(3, 2)}, 0)
	for _, c := range []struct {
		data  []byte
		limit int
		want  string
	}{
		{two, 1, "too many pages: 2, the limit is 1"},
		{five, 2, "too many pages: 5, the limit is 2"},
		{five, 4, "too many pages: 5, the limit is 4"},
	} {
		_, _, err := tiffSizes(c.data, c.limit)
		var pe *PagesError
		if !errors.Is(err, ErrTooLarge) || !errors.Is(err, normalize.ErrOverLimit) || !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("limit %d: %v, want %q", c.limit, err, c.want)
		}
	}
	// The second directory's next offset pointing back at the first.
	loop := slices.Clone(two)
	first := binary.LittleEndian.Uint32(loop[4:])
	second := binary.LittleEndian.Uint32(loop[first+2+12*12:])
	n := binary.LittleEndian.Uint16(loop[second:])
	binary.LittleEndian.PutUint32(loop[second+2+12*uint32(n):], first)
	// The same loop past a limit of one page: damaged, not counted forever.
	if _, _, err := tiffSizes(loop, 1); !errors.Is(err, ErrDamagedImage) {
		t.Errorf("loop past the limit: %v, want ErrDamagedImage", err)
	}
	for name, data := range map[string][]byte{
		"loop":       loop,
		"cut short":  two[:len(two)-30],
		"no page":    []byte("II*\x00\x00\x00\x00\x00"),
		"header cut": []byte("II*\x00"),
	} {
		if _, _, err := tiffSizes(data, 10); !errors.Is(err, ErrDamagedImage) {
			t.Errorf("%s: %v, want ErrDamagedImage", name, err)
		}
	}
}

// scannedPages renders scanned-report.pdf's pages (report.pdf's three
// pages as pictures) in grey at dpi, as a scanner would give them.
func scannedPages(t *testing.T, dpi int) []*image.Gray {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "scanned-report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := instance(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	doc, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		t.Fatal(err)
	}
	defer in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	var pages []*image.Gray
	for i := range 3 {
		pg := requests.Page{ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i}}
		img, err := in.RenderPageInDPI(&requests.RenderPageInDPI{Page: pg, DPI: dpi, ImageFormat: requests.RenderImageFormatGrayscale})
		if err != nil {
			t.Fatal(err)
		}
		src := img.Result.RenderedImage
		gray := image.NewGray(src.Bounds())
		for y := src.Bounds().Min.Y; y < src.Bounds().Max.Y; y++ {
			for x := src.Bounds().Min.X; x < src.Bounds().Max.X; x++ {
				gray.Set(x, y, src.At(x, y))
			}
		}
		img.Cleanup()
		pages = append(pages, gray)
	}
	return pages
}

// Pictures of report.pdf's pages are read as scanned-report.pdf's are: a
// multi-page TIFF with its pages, its running header and footer and page
// numbers left out, its headings; a PNG or a JPEG of one page without
// page numbers, measured by its text whatever its resolution.
func TestReadImage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tesseract on five pictures")
	}
	real := need(t, "tesseract", "tesseract-ocr tesseract-ocr-eng")
	if runtime.GOOS == "windows" {
		t.Skip("a shell script runs tesseract")
	}
	pages := scannedPages(t, 300)
	// runs returns a Reader whose tesseract notes each run's arguments,
	// and a func that returns them: a picture upright is read once, one
	// with a page turned read again finding which way up it is.
	runs := func(t *testing.T) (*Reader, func() []string) {
		dir := t.TempDir()
		bin, calls := filepath.Join(dir, "tesseract"), filepath.Join(dir, "calls")
		script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >>%q\nexec %q \"$@\"\n", calls, real)
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return &Reader{Tesseract: bin}, func() []string {
			log, _ := os.ReadFile(calls)
			return strings.Split(strings.TrimSpace(string(log)), "\n")
		}
	}
	wantRuns := func(t *testing.T, got []string, turned bool) {
		t.Helper()
		if len(got) != 1+boolInt(turned) || strings.Contains(got[0], "--psm") || turned && !strings.Contains(got[1], "--psm 1") {
			t.Errorf("tesseract ran with %q, want the default mode, then --psm 1 if turned (%v)", got, turned)
		}
	}

	t.Run("tiff", func(t *testing.T) {
		r, ran := runs(t)
		d, rep, err := r.ReadImage(t.Context(), tiffOf(pages, 300))
		if err != nil {
			t.Fatal(err)
		}
		wantRuns(t, ran(), false)
		if rep.Pages != 3 || !slices.Equal(rep.OCR, []int{1, 2, 3}) || len(rep.NoText) != 0 {
			t.Fatalf("report %+v", rep)
		}
		if d.Title != "Report on Lighthouses" {
			t.Errorf("title %q", d.Title)
		}
		wantReportHeadings(t, d)
		for _, left := range []string{"11:38", "file:", "1/3", "3/3"} {
			if strings.Contains(d.Text, left) {
				t.Errorf("%q was not left out: %q", left, d.Text)
			}
		}
		for _, c := range []struct {
			text string
			page int
		}{{"Pharos of Alexandria", 1}, {"Keepers and Their Lives", 2}, {"Bell Rock", 3}} {
			i := strings.Index(d.Text, c.text)
			if i < 0 || d.PageAt(i) != c.page {
				t.Errorf("%q at %d, page %d, want page %d", c.text, i, d.PageAt(max(i, 0)), c.page)
			}
		}
	})

	t.Run("tiff, page 2 upside down", func(t *testing.T) {
		// Only page 2 is read again, the TIFF cut down to it.
		r, ran := runs(t)
		d, rep, err := r.ReadImage(t.Context(), tiffOf([]*image.Gray{pages[0], turn(pages[1], 2), pages[2]}, 300))
		if err != nil {
			t.Fatal(err)
		}
		wantRuns(t, ran(), true)
		if rep.Pages != 3 || !slices.Equal(rep.OCR, []int{1, 2, 3}) || len(rep.NoText) != 0 {
			t.Fatalf("report %+v", rep)
		}
		wantReportHeadings(t, d)
		i := strings.Index(d.Text, "Keepers and Their Lives")
		if i < 0 || d.PageAt(i) != 2 {
			t.Errorf("page 2's heading at %d: %q", i, d.Text)
		}
	})

	one := func(t *testing.T, data []byte, turned bool) *normalize.Document {
		t.Helper()
		r, ran := runs(t)
		d, rep, err := r.ReadImage(t.Context(), data)
		if err != nil {
			t.Fatal(err)
		}
		wantRuns(t, ran(), turned)
		if rep.Pages != 1 || !slices.Equal(rep.OCR, []int{1}) || len(d.Pages) != 0 {
			t.Fatalf("report %+v, pages %+v", rep, d.Pages)
		}
		return d
	}
	t.Run("png", func(t *testing.T) {
		var buf bytes.Buffer
		if err := png.Encode(&buf, pages[0]); err != nil {
			t.Fatal(err)
		}
		d := one(t, buf.Bytes(), false)
		if d.Title != "Report on Lighthouses" {
			t.Errorf("title %q", d.Title)
		}
		for _, want := range []string{"Pharos of Alexandria", "Fresnel lens"} {
			if !strings.Contains(d.Text, want) {
				t.Errorf("no %q in %q", want, d.Text)
			}
		}
	})
	for _, turns := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("png turned %d°", 90*turns), func(t *testing.T) {
			// A page photographed or scanned sideways or upside down:
			// read as the page upright.
			var buf bytes.Buffer
			if err := png.Encode(&buf, turn(pages[0], turns)); err != nil {
				t.Fatal(err)
			}
			d := one(t, buf.Bytes(), true)
			if d.Title != "Report on Lighthouses" {
				t.Errorf("title %q", d.Title)
			}
			a, b := strings.Index(d.Text, "Pharos of Alexandria"), strings.Index(d.Text, "Fresnel lens")
			if a < 0 || b < a {
				t.Errorf("text out of order (%d, %d): %q", a, b, d.Text)
			}
		})
	}
	t.Run("gif animated, first frame upside down", func(t *testing.T) {
		// An animated GIF's frames are not pages: its first frame is
		// read, upright though it lies upside down, and the note says
		// the others were left.
		gray := make(color.Palette, 256)
		for i := range gray {
			gray[i] = color.Gray{uint8(i)}
		}
		frame := func(g *image.Gray) *image.Paletted {
			p := image.NewPaletted(g.Bounds(), gray)
			copy(p.Pix, g.Pix)
			return p
		}
		var buf bytes.Buffer
		anim := &gif.GIF{Image: []*image.Paletted{frame(turn(pages[0], 2)), frame(pages[1])}, Delay: []int{100, 100}}
		if err := gif.EncodeAll(&buf, anim); err != nil {
			t.Fatal(err)
		}
		d := one(t, buf.Bytes(), true)
		if d.Title != "Report on Lighthouses" || !strings.Contains(d.Text, "Pharos of Alexandria") {
			t.Errorf("title %q, text %q", d.Title, d.Text)
		}
		if strings.Contains(d.Text, "Keepers and Their Lives") {
			t.Errorf("the second frame was read: %q", d.Text)
		}
		if !slices.Contains(d.Notes, "an animated GIF of 2 frames: read its first frame") {
			t.Errorf("notes %q", d.Notes)
		}
	})
	t.Run("jpeg, no resolution, smaller", func(t *testing.T) {
		// A JPEG without a density says nothing of its resolution; the
		// page at 200 DPI is measured by its text all the same.
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, scannedPages(t, 200)[1], &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		d := one(t, buf.Bytes(), false)
		var headings []string
		for _, h := range d.Headings {
			headings = append(headings, h.Text)
		}
		if !slices.Contains(headings, "Keepers and Their Lives") {
			t.Errorf("headings %q", headings)
		}
	})
}

// turn turns g clockwise by a quarter turn, n times.
func turn(g *image.Gray, n int) *image.Gray {
	for range n {
		b := g.Bounds()
		w, h := b.Dx(), b.Dy()
		out := image.NewGray(image.Rect(0, 0, h, w))
		for y := range h {
			for x := range w {
				out.Pix[x*out.Stride+h-1-y] = g.Pix[y*g.Stride+x]
			}
		}
		g = out
	}
	return g
}

func TestUpright(t *testing.T) {
	// A box near the top left of an upright page of 100 × 200 pixels, and
	// the same box in that page turned by a quarter turn, clockwise, n
	// times: tesseract's textangle is 270, 180 and 90.
	want := [4]float64{10, 20, 30, 25}
	for _, c := range []struct {
		angle int
		w, h  float64
		b     [4]float64
	}{
		{0, 100, 200, want},
		{270, 200, 100, [4]float64{175, 10, 180, 30}},
		{180, 100, 200, [4]float64{70, 175, 90, 180}},
		{90, 200, 100, [4]float64{20, 70, 25, 90}},
	} {
		if got := upright(c.b, c.angle, c.w, c.h); got != want {
			t.Errorf("textangle %d: %v, want %v", c.angle, got, want)
		}
	}
}

func TestReadImageRefused(t *testing.T) {
	var huge bytes.Buffer
	// A PNG header declaring 20,000 × 20,000 pixels: 400 megapixels.
	if err := png.Encode(&huge, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	big := huge.Bytes()
	binary.BigEndian.PutUint32(big[16:], 20000)
	binary.BigEndian.PutUint32(big[20:], 20000)
	binary.BigEndian.PutUint32(big[29:], crc32.ChecksumIEEE(big[12:29])) // IHDR's
	small := tiffOf([]*image.Gray{image.NewGray(image.Rect(0, 0, 40, 30))}, 0)
	missing := filepath.Join(t.TempDir(), "no-tesseract")
	for _, c := range []struct {
		name string
		r    Reader
		data []byte
		want error
		msg  string
	}{
		// Too large, not "too many pages": it has one.
		{"over the pixels", Reader{}, big, ErrTooLarge, "too large to read by OCR: 20000 × 20000 pixels, over the limit of 64 megapixels (8192 × 8192); scale it down to read it"},
		{"ocr off", Reader{OCR: OCRNever}, small, ErrNoOCR, "OCR is off"},
		{"no tesseract", Reader{Tesseract: missing}, small, ErrNoOCR, "install tesseract"},
		{"not a picture", Reader{}, []byte("\x89PNG\r\n\x1a\n"), ErrDamagedImage, "damaged picture: its size cannot be read"},
	} {
		_, _, err := c.r.ReadImage(t.Context(), c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v (%q)", c.name, err, c.want, c.msg)
		}
	}
	if !errors.Is(ErrNoOCR, normalize.ErrUnsupported) {
		t.Error("ErrNoOCR does not wrap normalize.ErrUnsupported: the file would fail, not be skipped")
	}
}

// TestReadImageTooLarge: a picture of a page over MaxImagePixels, in each
// format, is refused from its header, before any pixel is decoded or
// tesseract runs, with a [*PixelsError] that ingest skips
// ([normalize.ErrOverLimit]), naming the size, the limit and what to do;
// of a TIFF, the page. large.webp is cwebp's (-lossless) of a white
// 9000 × 8000 page; the others are headers made to declare a size.
func TestReadImageTooLarge(t *testing.T) {
	webp, err := os.ReadFile("testdata/large.webp")
	if err != nil {
		t.Fatal(err)
	}
	small := image.NewGray(image.Rect(0, 0, 8, 8))
	var pngb, jpegb, gifb bytes.Buffer
	if err := png.Encode(&pngb, small); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegb, small, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gifb, small, nil); err != nil {
		t.Fatal(err)
	}
	be, le := binary.BigEndian, binary.LittleEndian
	pngData := pngb.Bytes() // IHDR: width and height, then its CRC
	be.PutUint32(pngData[16:], 9000)
	be.PutUint32(pngData[20:], 8000)
	be.PutUint32(pngData[29:], crc32.ChecksumIEEE(pngData[12:29]))
	jpg := jpegb.Bytes() // SOF0: length, precision, height, width
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	be.PutUint16(jpg[sof+5:], 8000)
	be.PutUint16(jpg[sof+7:], 9000)
	gf := gifb.Bytes() // the logical screen's width and height
	le.PutUint16(gf[6:], 9000)
	le.PutUint16(gf[8:], 8000)
	// tiffOf's directories start with the page's width and height.
	tiffSized := func(sizes ...[2]uint32) []byte {
		pages := make([]*image.Gray, len(sizes))
		for i := range pages {
			pages[i] = small
		}
		b := tiffOf(pages, 0)
		for off, i := le.Uint32(b[4:]), 0; off != 0; off, i = le.Uint32(b[off+2+12*uint32(le.Uint16(b[off:])):]), i+1 {
			le.PutUint32(b[off+2+8:], sizes[i][0])
			le.PutUint32(b[off+2+12+8:], sizes[i][1])
		}
		return b
	}
	const msg = " pixels, over the limit of 64 megapixels (8192 × 8192); scale it down to read it"
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"png", pngData, "9000 × 8000" + msg},
		{"jpeg", jpg, "9000 × 8000" + msg},
		{"gif", gf, "9000 × 8000" + msg},
		{"webp", webp, "9000 × 8000" + msg},
		{"tiff", tiffSized([2]uint32{9000, 8000}), "9000 × 8000" + msg},
		{"tiff-page-2", tiffSized([2]uint32{800, 600}, [2]uint32{9000, 8000}), "page 2 is 9000 × 8000" + msg},
		// Its width times its height is past an int: it was let through.
		{"tiff-overflow", tiffSized([2]uint32{1<<32 - 1, 1<<32 - 1}), "4294967295 × 4294967295" + msg},
		{"tiff-tall", tiffSized([2]uint32{1, 1<<26 + 1}), "1 × 67108865" + msg},
	} {
		if f, _, _ := strings.Cut(c.name, "-"); ImageFormat(c.data) != f {
			t.Errorf("%s: read as %q", c.name, ImageFormat(c.data))
		}
		// tesseract is not looked for: the size is refused first.
		_, _, err := (&Reader{Tesseract: filepath.Join(t.TempDir(), "no-tesseract")}).ReadImage(t.Context(), c.data)
		var pe *PixelsError
		if !errors.As(err, &pe) || !errors.Is(err, ErrTooLarge) || !errors.Is(err, normalize.ErrOverLimit) {
			t.Errorf("%s: %v, want a *PixelsError, ErrTooLarge and normalize.ErrOverLimit", c.name, err)
			continue
		}
		if got := err.Error(); got != "too large to read by OCR: "+c.want {
			t.Errorf("%s: %q, want %q", c.name, got, "too large to read by OCR: "+c.want)
		}
	}
	// At the limit, a page is read (here: tesseract is missing).
	_, _, err = (&Reader{Tesseract: filepath.Join(t.TempDir(), "no-tesseract")}).ReadImage(t.Context(), tiffSized([2]uint32{8192, 8192}))
	if !errors.Is(err, ErrNoOCR) {
		t.Errorf("8192 × 8192: %v, want ErrNoOCR", err)
	}
}

// FuzzImageSizes reads arbitrary bytes as a picture's pages: an error or
// pages of a positive size, never a panic or a loop (a TIFF's directories
// may point anywhere, back at themselves too).
func FuzzImageSizes(f *testing.F) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	f.Add(tiffOf([]*image.Gray{g, g}, 300))
	var buf bytes.Buffer
	png.Encode(&buf, g)
	f.Add(buf.Bytes())
	f.Add(gifOf(3))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Counted within the file: each frame takes 12 bytes at least.
		if n := gifFrames(data); n < 0 || n > len(data)/12 {
			t.Fatalf("%d GIF frames in %d bytes", n, len(data))
		}
		for _, format := range []string{"tiff", ImageFormat(data)} {
			sizes, dirs, err := imageSizes(format, data, 8)
			if err != nil {
				continue
			}
			if len(sizes) == 0 || len(sizes) > 8 {
				t.Fatalf("%s: %d pages", format, len(sizes))
			}
			for _, s := range sizes {
				if s.X <= 0 || s.Y <= 0 {
					t.Fatalf("%s: page of %v", format, s)
				}
			}
			if format != "tiff" {
				continue
			}
			// Each page alone, and the pages the other way round: the
			// pages asked for, as tesseract is given them to read again.
			pick := make([]int, len(dirs))
			for i := range pick {
				pick[i] = len(dirs) - 1 - i
				only, _, err := tiffSizes(tiffOnly(data, dirs, []int{i}), 8)
				if err != nil || len(only) != 1 || only[0] != sizes[i] {
					t.Fatalf("page %d alone: %v, %v; want %v", i+1, only, err, sizes[i])
				}
			}
			back, _, err := tiffSizes(tiffOnly(data, dirs, pick), 8)
			if err != nil || len(back) != len(sizes) || back[0] != sizes[len(sizes)-1] {
				t.Fatalf("pages the other way round: %v, %v; of %v", back, err, sizes)
			}
		}
	})
}

// TestReadImageCutShort: a picture whose header is whole but whose pixels
// are cut short (a copy or a download stopped) fails with tesseract's
// reason on one line, not Leptonica's trail of it over five.
func TestReadImageCutShort(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed")
	}
	g := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, g, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	_, _, err := (&Reader{}).ReadImage(t.Context(), b.Bytes()[:b.Len()/2])
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "Premature end of JPEG file") {
		t.Errorf("a JPEG cut short: %q", err)
	}
}

// tiffOnly keeps the pages asked for, in that order, each with its own
// pixels.
func TestTIFFOnly(t *testing.T) {
	var pages []*image.Gray
	for i, s := range []image.Point{{30, 20}, {10, 40}, {20, 20}} {
		g := image.NewGray(image.Rect(0, 0, s.X, s.Y))
		for j := range g.Pix {
			g.Pix[j] = uint8(50 * (i + 1))
		}
		pages = append(pages, g)
	}
	data := tiffOf(pages, 300)
	_, dirs, err := tiffSizes(data, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, pick := range [][]int{{1}, {0, 2}, {2, 0}, {0, 1, 2}} {
		only := tiffOnly(data, dirs, pick)
		sizes, _, err := tiffSizes(only, 10)
		if err != nil {
			t.Fatalf("%v: %v", pick, err)
		}
		var want []image.Point
		for _, i := range pick {
			want = append(want, pages[i].Rect.Size())
		}
		if !slices.Equal(sizes, want) {
			t.Errorf("%v: pages of %v, want %v", pick, sizes, want)
		}
		img, err := tiff.Decode(bytes.NewReader(only))
		if err != nil {
			t.Fatalf("%v: %v", pick, err)
		}
		if g, ok := img.(*image.Gray); !ok || g.Pix[0] != pages[pick[0]].Pix[0] {
			t.Errorf("%v: the first page is not page %d's pixels", pick, pick[0]+1)
		}
	}
	if !bytes.Equal(data, tiffOf(pages, 300)) {
		t.Error("the TIFF given was changed")
	}
}

// fakePictureOCR writes a tesseract that keeps each picture it is given
// (in.1, in.2, … beside it) and prints the hOCR of pages of one word,
// "runRpageP", read with the confidences confs (one page each), or psm1
// when asked to find which way up the pages are (--psm 1): "fail" fails
// instead. It returns the tesseract's path and its folder, whose file
// calls has a line for each run.
func fakePictureOCR(t *testing.T, confs, psm1 string) (bin, dir string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for tesseract")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "tesseract")
	script := fmt.Sprintf(`#!/bin/sh
d=%q
i=$(cat "$d/n" 2>/dev/null || echo 0); i=$((i+1)); echo $i >"$d/n"
cat >"$d/in.$i"
echo "$*" >>"$d/calls"
c=%q
case "$*" in *"--psm 1"*) c=%q;; esac
[ "$c" = fail ] && { echo "osd failed" >&2; exit 1; }
p=0
for w in $c; do
p=$((p+1))
printf "<div class='ocr_page' title='bbox 0 0 2550 3300'><span class='ocr_line' title='bbox 100 100 1000 150; x_size 40'><span class='ocrx_word' title='bbox 100 100 400 150; x_wconf %%s'>run${i}page${p}</span></span></div>" $w
done
`, dir, confs, psm1)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// readPicture reads a picture's pages again, finding which way up they
// are, only when some look turned, only those (a TIFF of several pages
// cut down to them), and keeps each page's surer reading.
func TestReadPicture(t *testing.T) {
	g := func(w, h int) *image.Gray { return image.NewGray(image.Rect(0, 0, w, h)) }
	three := tiffOf([]*image.Gray{g(30, 20), g(10, 40), g(20, 20)}, 0)
	_, dirs, err := tiffSizes(three, 10)
	if err != nil {
		t.Fatal(err)
	}
	var png1 bytes.Buffer
	if err := png.Encode(&png1, g(30, 20)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		data        []byte
		dirs        []uint32
		confs, psm1 string
		reread      []image.Point // the pages read again, nil for no second run
		want        []string      // each page's word kept
	}{
		{"upright", three, dirs, "96 93 91", "90 90 90", nil, []string{"run1page1", "run1page2", "run1page3"}},
		{"one turned", three, dirs, "96 22 91", "90", []image.Point{{10, 40}}, []string{"run1page1", "run2page1", "run1page3"}},
		{"two turned", three, dirs, "0 93 24", "90 91", []image.Point{{30, 20}, {20, 20}}, []string{"run2page1", "run1page2", "run2page2"}},
		{"all turned, one read no better", three, dirs, "10 22 24", "90 5 91", []image.Point{{30, 20}, {10, 40}, {20, 20}}, []string{"run2page1", "run1page2", "run2page3"}},
		{"mode 1 fails", three, dirs, "96 22 91", "fail", []image.Point{{10, 40}}, []string{"run1page1", "run1page2", "run1page3"}},
		{"mode 1 reads other pages", three, dirs, "96 22 91", "90 90", []image.Point{{10, 40}}, []string{"run1page1", "run1page2", "run1page3"}},
		{"a png turned", png1.Bytes(), nil, "22", "90", []image.Point{{30, 20}}, []string{"run2page1"}},
		{"a png upright", png1.Bytes(), nil, "60", "90", nil, []string{"run1page1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin, dir := fakePictureOCR(t, c.confs, c.psm1)
			read, err := readPicture(t.Context(), bin, c.data, c.dirs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ws := range read {
				w := ""
				if len(ws) > 0 {
					w = ws[0].text
				}
				got = append(got, w)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("kept %q, want %q", got, c.want)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "calls"))
			calls := strings.Split(strings.TrimSpace(string(log)), "\n")
			if want := 1 + min(len(c.reread), 1); len(calls) != want {
				t.Fatalf("%d runs, want %d:\n%s", len(calls), want, log)
			}
			if strings.Contains(calls[0], "--psm") {
				t.Errorf("first run %q, want the default mode", calls[0])
			}
			if c.reread == nil {
				return
			}
			if !strings.Contains(calls[1], "--psm 1") {
				t.Errorf("second run %q, want --psm 1", calls[1])
			}
			in, err := os.ReadFile(filepath.Join(dir, "in.2"))
			if err != nil {
				t.Fatal(err)
			}
			sizes, _, err := imageSizes(ImageFormat(in), in, 10)
			if err != nil || !slices.Equal(sizes, c.reread) {
				t.Errorf("read again pages of %v (%v), want %v", sizes, err, c.reread)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gifOf returns an animated GIF of n frames of 4 × 3 pixels.
func gifOf(n int) []byte {
	g := &gif.GIF{}
	for i := range n {
		p := image.NewPaletted(image.Rect(0, 0, 4, 3), color.Palette{color.White, color.Black})
		p.Pix[i%12] = 1
		g.Image, g.Delay = append(g.Image, p), append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestGIFFrames counts an animated GIF's frames, with and without colour
// tables and extensions, and no more than are whole in a file cut short;
// an animated WebP is skipped, saying so.
func TestGIFFrames(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		if got := gifFrames(gifOf(n)); got != n {
			t.Errorf("%d frames counted %d", n, got)
		}
	}
	three := gifOf(3)
	if got := gifFrames(three[:len(three)-20]); got > 3 {
		t.Errorf("cut short: %d frames", got)
	}
	if got := gifFrames([]byte("GIF89a")); got != 0 {
		t.Errorf("a header alone: %d frames", got)
	}
	first, err := firstFrame(gifOf(2))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(first)); err != nil || img.Bounds().Dx() != 4 {
		t.Errorf("first frame: %v", err)
	}
	// A VP8X chunk with the animation flag, a canvas of 100 × 50.
	webp := []byte("RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x02\x00\x00\x00\x63\x00\x00\x31\x00\x00")
	if !animatedWebP(webp) {
		t.Fatal("not animated")
	}
	_, _, err = (&Reader{}).ReadImage(t.Context(), webp)
	if !errors.Is(err, normalize.ErrUnsupported) || !strings.Contains(err.Error(), "animated WebP") {
		t.Errorf("animated WebP: %v", err)
	}
}
