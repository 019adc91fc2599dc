package pdf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"

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
	sizes, err := tiffSizes(two, 10)
	if err != nil || !slices.Equal(sizes, []image.Point{{30, 20}, {10, 40}}) {
		t.Fatalf("sizes %v, %v", sizes, err)
	}
	if _, err := tiffSizes(two, 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("two pages, a limit of one: %v", err)
	}
	// The second directory's next offset pointing back at the first.
	loop := slices.Clone(two)
	first := binary.LittleEndian.Uint32(loop[4:])
	second := binary.LittleEndian.Uint32(loop[first+2+12*12:])
	n := binary.LittleEndian.Uint16(loop[second:])
	binary.LittleEndian.PutUint32(loop[second+2+12*uint32(n):], first)
	for name, data := range map[string][]byte{
		"loop":       loop,
		"cut short":  two[:len(two)-30],
		"no page":    []byte("II*\x00\x00\x00\x00\x00"),
		"header cut": []byte("II*\x00"),
	} {
		if _, err := tiffSizes(data, 10); !errors.Is(err, ErrDamagedImage) {
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
	need(t, "tesseract", "tesseract-ocr tesseract-ocr-eng")
	pages := scannedPages(t, 300)

	t.Run("tiff", func(t *testing.T) {
		d, rep, err := (&Reader{}).ReadImage(t.Context(), tiffOf(pages, 300))
		if err != nil {
			t.Fatal(err)
		}
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

	one := func(t *testing.T, data []byte) *normalize.Document {
		t.Helper()
		d, rep, err := (&Reader{}).ReadImage(t.Context(), data)
		if err != nil {
			t.Fatal(err)
		}
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
		d := one(t, buf.Bytes())
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
			d := one(t, buf.Bytes())
			if d.Title != "Report on Lighthouses" {
				t.Errorf("title %q", d.Title)
			}
			a, b := strings.Index(d.Text, "Pharos of Alexandria"), strings.Index(d.Text, "Fresnel lens")
			if a < 0 || b < a {
				t.Errorf("text out of order (%d, %d): %q", a, b, d.Text)
			}
		})
	}
	t.Run("jpeg, no resolution, smaller", func(t *testing.T) {
		// A JPEG without a density says nothing of its resolution; the
		// page at 200 DPI is measured by its text all the same.
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, scannedPages(t, 200)[1], &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		d := one(t, buf.Bytes())
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
		{"over the pixels", Reader{}, big, ErrTooLarge, "too large: page 1 is 20000 × 20000 pixels, the limit is 64 megapixels"},
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

// FuzzImageSizes reads arbitrary bytes as a picture's pages: an error or
// pages of a positive size, never a panic or a loop (a TIFF's directories
// may point anywhere, back at themselves too).
func FuzzImageSizes(f *testing.F) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	f.Add(tiffOf([]*image.Gray{g, g}, 300))
	var buf bytes.Buffer
	png.Encode(&buf, g)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"tiff", ImageFormat(data)} {
			sizes, err := imageSizes(format, data, 8)
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
