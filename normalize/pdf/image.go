package pdf

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	_ "image/jpeg" // image.DecodeConfig of JPEG
	"image/png"
	"os/exec"
	"slices"

	_ "golang.org/x/image/bmp"  // image.DecodeConfig of BMP
	_ "golang.org/x/image/webp" // and WebP

	"github.com/cite-rag/cite/normalize"
)

// Pictures of pages (a scan saved as TIFF or JPEG, a photo of a letter,
// a screenshot) are read by tesseract as the pages of a PDF without a
// text layer are: their hOCR becomes rows ([hocrPages]), so that a
// picture gets headings by size, columns, tables and paragraphs, and a
// multi-page TIFF its page numbers and running headers left out.

// MaxImagePixels bounds the pixels of one page of a picture: tesseract
// holds a page whole in memory, several copies of it (a 64-megapixel
// page is 64 MB in grey, 256 MB in colour). A photo from a phone is 12
// to 48 megapixels, an A4 page scanned at 600 DPI 35; a file of a few KB
// can declare a billion.
const MaxImagePixels = 64 << 20

// A PixelsError is the error of a picture one of whose pages has more
// pixels than [MaxImagePixels], read from its header before any of its
// pixels are. It is [ErrTooLarge] and, since the picture is not damaged
// but too large to read by OCR here, [normalize.ErrOverLimit]: ingest
// skips such a file instead of failing it.
type PixelsError struct {
	Page  int         // the page over the limit, from 1
	Pages int         // the picture's pages (a TIFF may hold several)
	Size  image.Point // its width and height in pixels
}

func (e *PixelsError) Error() string {
	page := ""
	if e.Pages > 1 {
		page = fmt.Sprintf("page %d is ", e.Page)
	}
	// 8192 × 8192 is MaxImagePixels.
	return fmt.Sprintf("too large to read by OCR: %s%d × %d pixels, over the limit of %d megapixels (8192 × 8192); scale it down to read it",
		page, e.Size.X, e.Size.Y, MaxImagePixels>>20)
}

// Is reports whether target is [ErrTooLarge] or [normalize.ErrOverLimit].
func (e *PixelsError) Is(target error) bool {
	return target == ErrTooLarge || target == normalize.ErrOverLimit
}

// ImageFormat names the picture format of data from its first bytes
// ("png", "jpeg", "tiff", "gif", "bmp", "webp"), or "" for anything else.
func ImageFormat(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "tiff"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return "webp"
	case len(data) >= 26 && bytes.HasPrefix(data, []byte("BM")) && slices.Contains([]uint32{12, 40, 52, 56, 64, 108, 124}, binary.LittleEndian.Uint32(data[14:18])):
		// "BM" alone begins text too: the size of the header after it
		// is one of the few BMP has.
		return "bmp"
	}
	return ""
}

// Errors of [Reader.ReadImage].
var (
	// ErrNoOCR: OCR is off or tesseract is not installed, and a picture
	// has no text otherwise. It wraps [normalize.ErrUnsupported], so that
	// the file is skipped with its message.
	ErrNoOCR = fmt.Errorf("%w: a picture, read only by OCR", normalize.ErrUnsupported)
	// ErrDamagedImage: the picture's pages or their size cannot be read.
	ErrDamagedImage = errors.New("damaged picture")
)

// ReadImage reads the picture in data (a format [ImageFormat] names) by
// OCR, each of its pages (a TIFF may hold several) as a page of a PDF
// without a text layer. A picture of one page has no page numbers; the
// [Report] names the pages with no text. It returns an error wrapping
// [ErrNoOCR] when [Reader.OCR] is [OCRNever] or tesseract is not
// installed, a [*PagesError] for a picture of more pages than
// [Reader.MaxPages], a [*PixelsError] for a page over [MaxImagePixels], and
// [ErrDamagedImage] for one whose pages or size cannot be read.
func (r *Reader) ReadImage(ctx context.Context, data []byte) (*normalize.Document, *Report, error) {
	ctx, cancel, maxPages := r.limits(ctx)
	defer cancel()
	format := ImageFormat(data)
	sizes, dirs, err := imageSizes(format, data, maxPages)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Pages: len(sizes)}
	for i, s := range sizes {
		// Divided, not multiplied: a TIFF's two 32-bit sizes multiply
		// past an int.
		if s.X > MaxImagePixels/s.Y {
			return nil, rep, &PixelsError{Page: i + 1, Pages: len(sizes), Size: s}
		}
	}
	if format == "webp" && animatedWebP(data) {
		// Go's decoder does not read its frames, to give tesseract one.
		return nil, rep, fmt.Errorf("%w: an animated WebP picture; save the frame to read as PNG", normalize.ErrUnsupported)
	}
	if r.OCR == OCRNever {
		return nil, rep, fmt.Errorf("%w, and OCR is off", ErrNoOCR)
	}
	path, err := exec.LookPath(cmp.Or(r.Tesseract, "tesseract"))
	if err != nil {
		return nil, rep, fmt.Errorf("%w; install tesseract (Debian: apt-get install tesseract-ocr tesseract-ocr-eng) to read it", ErrNoOCR)
	}
	var notes []string
	if n := gifFrames(data); format == "gif" && n > 1 {
		// An animated GIF's frames are not pages (an animation, a
		// slideshow of one picture changing): its first frame, the one
		// a viewer shows first and a thumbnail is made of, is read,
		// given to tesseract as a picture of its own, so that a frame
		// read turned is read again as any picture is.
		if data, err = firstFrame(data); err != nil {
			return nil, rep, err
		}
		notes = append(notes, fmt.Sprintf("an animated GIF of %d frames: read its first frame", n))
	}
	select {
	case ocrSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, rep, context.Cause(ctx)
	}
	read, err := readPicture(ctx, path, data, dirs)
	<-ocrSlots
	if err != nil {
		if ctx.Err() != nil {
			return nil, rep, context.Cause(ctx)
		}
		return nil, rep, err
	}
	pages := make([]*page, len(sizes))
	for i := range pages {
		pages[i] = &page{number: i + 1}
		if i < len(read) {
			pages[i].rows = makeRows(read[i])
		}
		if len(pages[i].rows) == 0 {
			rep.NoText = append(rep.NoText, NoText{Page: i + 1, Reason: "OCR found no text"})
		} else {
			rep.OCR = append(rep.OCR, i+1)
		}
	}
	d := build(pages, nil, rep).Document("")
	d.Notes = append(d.Notes, notes...)
	if len(sizes) == 1 {
		d.Pages = nil // a picture is its page
		rep.Dropped = nil
	}
	return d, rep, nil
}

// readPicture reads the pages of the picture in data with the tesseract
// at path, as hOCR, and returns the words of each, upright, as
// [readUpright] reads a PDF's page: all its pages read in one run of
// tesseract as they lie, and those whose reading looks turned
// ([looksTurned]) read again in a second run finding which way up they
// are (page segmentation mode 1), each page keeping its surer reading. A
// picture's own resolution, if it has one, is not asked for: sizes are
// measured against its text ([hocrPages]). dirs are the directories of a
// TIFF's pages, nil for a picture of one page: of a TIFF whose pages do
// not all look turned, only those that do are read again, in a copy that
// holds only them ([tiffOnly]).
func readPicture(ctx context.Context, path string, data []byte, dirs []uint32) ([][]word, error) {
	out, err := tesseract(ctx, path, data, 0, false)
	if err != nil {
		return nil, fmt.Errorf("OCR: %w", err)
	}
	read, err := hocrPages([]byte(out), 0)
	if err != nil {
		return nil, fmt.Errorf("OCR: tesseract's hOCR: %w", err)
	}
	confs := hocrPageConfs([]byte(out))
	if len(confs) != len(read) {
		return read, nil // hOCR not as tesseract writes it: read as it lies
	}
	var turned []int
	for i, c := range confs {
		if looksTurned(c) {
			turned = append(turned, i)
		}
	}
	if len(turned) == 0 {
		return read, nil
	}
	img := data
	if len(turned) < len(read) {
		if len(dirs) != len(read) {
			return read, nil // tesseract's pages are not the TIFF's
		}
		img = tiffOnly(data, dirs, turned)
	}
	again, err := tesseract(ctx, path, img, 0, true)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return read, nil // the first reading stands
	}
	reread, err := hocrPages([]byte(again), 0)
	confsAgain := hocrPageConfs([]byte(again))
	if err != nil || len(reread) != len(turned) || len(confsAgain) != len(turned) {
		return read, nil
	}
	for j, i := range turned {
		if surer(confsAgain[j], confs[i]) {
			read[i] = reread[j]
		}
	}
	return read, nil
}

// gifFrames counts the frames (image descriptors) of the GIF in data,
// walking its blocks without decoding them; a count cut short where the
// blocks do not go on as GIF's do.
func gifFrames(data []byte) int {
	if len(data) < 13 || ImageFormat(data) != "gif" {
		return 0
	}
	table := func(packed byte) int {
		if packed&0x80 == 0 {
			return 0
		}
		return 3 << ((packed & 7) + 1)
	}
	i := 13 + table(data[10])
	// subBlocks skips the sub-blocks from i to the one of length 0.
	subBlocks := func(i int) int {
		for i < len(data) && data[i] != 0 {
			i += 1 + int(data[i])
		}
		return i + 1
	}
	n := 0
	for i < len(data) {
		switch data[i] {
		case 0x21: // an extension: its label, then sub-blocks
			i = subBlocks(i + 2)
		case 0x2C: // an image: its descriptor, colour table, LZW code size, sub-blocks
			if i+10 > len(data) {
				return n
			}
			i = subBlocks(i + 10 + table(data[i+9]) + 1)
			n++
		default: // the trailer (0x3B), or not GIF
			return n
		}
	}
	return n
}

// firstFrame returns the first frame of the GIF in data as a PNG.
func firstFrame(data []byte) ([]byte, error) {
	img, err := gif.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: its first frame cannot be read (%v)", ErrDamagedImage, err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamagedImage, err)
	}
	return buf.Bytes(), nil
}

// animatedWebP reports whether the WebP in data says it is animated (its
// VP8X chunk's animation flag).
func animatedWebP(data []byte) bool {
	return len(data) >= 21 && string(data[12:16]) == "VP8X" && data[20]&0x02 != 0
}

// imageSizes returns the size in pixels of each page of the picture in
// data: a TIFF's every page, read from its directories, whose offsets it
// returns too; another format's one page, from its header, and no
// directories.
func imageSizes(format string, data []byte, maxPages int) ([]image.Point, []uint32, error) {
	if format == "tiff" {
		return tiffSizes(data, maxPages)
	}
	c, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: its size cannot be read (%v)", ErrDamagedImage, err)
	}
	if c.Width <= 0 || c.Height <= 0 {
		return nil, nil, fmt.Errorf("%w: %d × %d pixels", ErrDamagedImage, c.Width, c.Height)
	}
	return []image.Point{{c.Width, c.Height}}, nil, nil
}

// tiffCount counts the directories of the TIFF in data from the one at
// off on, without a map of those seen: a chain longer than the file has
// bytes loops.
func tiffCount(data []byte, bo binary.ByteOrder, off uint32) (int, error) {
	n := 0
	for ; off != 0; n++ {
		if n > len(data) || int64(off)+2 > int64(len(data)) {
			return 0, fmt.Errorf("%w: TIFF directory out of the file or looping", ErrDamagedImage)
		}
		end := int64(off) + 2 + 12*int64(bo.Uint16(data[off:]))
		if end+4 > int64(len(data)) {
			return 0, fmt.Errorf("%w: TIFF directory out of the file or looping", ErrDamagedImage)
		}
		off = bo.Uint32(data[end:])
	}
	return n, nil
}

// tiffOnly returns a copy of the TIFF in data that holds only the pages
// pick, in that order (indices into dirs, the offsets of its pages'
// directories, as [tiffSizes] returns them): its header points at the
// first one's directory, each directory at the next one's and the last at
// none. Their pixels stay where they are (a directory's offsets are from
// the file's start), the other pages' unread.
func tiffOnly(data []byte, dirs []uint32, pick []int) []byte {
	var bo binary.ByteOrder = binary.LittleEndian
	if data[0] == 'M' {
		bo = binary.BigEndian
	}
	out := slices.Clone(data)
	next := uint32(4) // where the offset of the next directory goes
	for _, i := range pick {
		bo.PutUint32(out[next:], dirs[i])
		// The entries counted in data: a directory may overlap another
		// one's next offset, written over in out.
		next = dirs[i] + 2 + 12*uint32(bo.Uint16(data[dirs[i]:]))
	}
	bo.PutUint32(out[next:], 0)
	return out
}

// tiffSizes walks the directories (pages) of the TIFF in data and returns
// each one's ImageWidth and ImageLength, and its offset, refusing more
// than maxPages (a [*PagesError] counting them all) and a chain of
// directories that loops.
func tiffSizes(data []byte, maxPages int) ([]image.Point, []uint32, error) {
	if len(data) < 8 {
		return nil, nil, fmt.Errorf("%w: TIFF header cut short", ErrDamagedImage)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if data[0] == 'M' {
		bo = binary.BigEndian
	}
	var (
		sizes []image.Point
		dirs  []uint32
	)
	seen := map[uint32]bool{}
	for off := bo.Uint32(data[4:8]); off != 0; {
		if seen[off] || int64(off)+2 > int64(len(data)) {
			return nil, nil, fmt.Errorf("%w: TIFF directory of page %d out of the file or looping", ErrDamagedImage, len(sizes)+1)
		}
		seen[off] = true
		n := int64(bo.Uint16(data[off:]))
		end := int64(off) + 2 + 12*n
		if end+4 > int64(len(data)) {
			return nil, nil, fmt.Errorf("%w: TIFF directory of page %d out of the file or looping", ErrDamagedImage, len(sizes)+1)
		}
		var w, h uint32
		for e := int64(off) + 2; e < end; e += 12 {
			tag, typ := bo.Uint16(data[e:]), bo.Uint16(data[e+2:])
			var v uint32
			switch typ {
			case 3: // SHORT
				v = uint32(bo.Uint16(data[e+8:]))
			case 4: // LONG
				v = bo.Uint32(data[e+8:])
			default:
				continue
			}
			switch tag {
			case 256:
				w = v
			case 257:
				h = v
			}
		}
		if w == 0 || h == 0 {
			return nil, nil, fmt.Errorf("%w: TIFF page %d has no size", ErrDamagedImage, len(sizes)+1)
		}
		sizes = append(sizes, image.Point{int(w), int(h)})
		dirs = append(dirs, off)
		off = bo.Uint32(data[end:])
		if len(sizes) > maxPages {
			n, err := tiffCount(data, bo, off)
			if err != nil {
				return nil, nil, err
			}
			return nil, nil, &PagesError{Pages: len(sizes) + n, Limit: maxPages}
		}
	}
	if len(sizes) == 0 {
		return nil, nil, fmt.Errorf("%w: TIFF of no page", ErrDamagedImage)
	}
	return sizes, dirs, nil
}
