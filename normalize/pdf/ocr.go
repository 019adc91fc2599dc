package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
)

var errNoTesseract = errors.New("tesseract is not installed")

// ocrDPI is the resolution pages are rendered at for tesseract.
const ocrDPI = 300

// ocrSlots bounds the tesseract processes running at once, across the
// documents read at the same time: one per core. Each runs on one thread
// (OMP_THREAD_LIMIT=1, [ocrEnv]) and the pages of a document are read side
// by side instead.
var ocrSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// ocrEnv is tesseract's environment: cite's, with OpenMP held to one
// thread unless the user set OMP_THREAD_LIMIT. Tesseract's OpenMP threads
// spin while they wait: one page of report.pdf at 300 DPI took 13.4 s
// (7.9 CPU-seconds) beside other work on 2 cores, and 5.4 s (2.1) on one
// thread; users of other tools report 3 pages in 153 s against 5 s.
var ocrEnv = sync.OnceValue(ocrEnvironment)

func ocrEnvironment() []string {
	env := os.Environ()
	if _, ok := os.LookupEnv("OMP_THREAD_LIMIT"); !ok {
		env = append(env, "OMP_THREAD_LIMIT=1")
	}
	return env
}

// ocrPage is a page being read by tesseract: done is closed when text
// and err are set.
type ocrPage struct {
	page *page
	done chan struct{}
	text string
	err  error
}

// startOCR renders the page at 300 DPI and starts tesseract on it, once
// a slot is free ([ocrSlots]): the reading goes on with the next pages
// meanwhile. Its result is read after done is closed.
func (r *Reader) startOCR(ctx context.Context, in pdfium.Pdfium, pg requests.Page, p *page) *ocrPage {
	o := &ocrPage{page: p, done: make(chan struct{})}
	bin := r.Tesseract
	if bin == "" {
		bin = "tesseract"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		o.err = errNoTesseract
		close(o.done)
		return o
	}
	select {
	case ocrSlots <- struct{}{}:
	case <-ctx.Done():
		o.err = context.Cause(ctx)
		close(o.done)
		return o
	}
	png, err := renderPNG(in, pg)
	if err != nil {
		<-ocrSlots
		o.err = err
		close(o.done)
		return o
	}
	go func() {
		defer close(o.done)
		defer func() { <-ocrSlots }()
		o.text, o.err = readUpright(ctx, path, png)
	}()
	return o
}

// minUprightConf is how sure tesseract must be that it read a page
// upright ([hocrConf], 0-100) for it not to be read again finding which
// way up it is: report.pdf's three pages scanned upright, rendered as
// cite renders them, read at 94, 93 and 91; the first upside down at 24
// (tesseract's letters for "Lighthouses": "‘SyIEWIPUP]"); the others a
// quarter turn either way at 0, as tesseract's layout finds their lines
// vertical and reads them standing (turned clockwise, its words right;
// anticlockwise, gibberish).
const minUprightConf = 60

// readUpright reads the page picture img (rendered at [ocrDPI]) with the
// tesseract at path, as hOCR, upright: read as it lies, and when the words
// read look like those of a page turned (read with low confidence, or in
// standing lines: [hocrConf] below [minUprightConf]) read again finding
// which way up the page is (page segmentation mode 1, about a third more
// time), keeping the surer reading. An upright page costs one reading, as
// before; a page upside down or sideways a little over twice that
// (scanned-turned.pdf's pages: 8.2-9.2 CPU-seconds of tesseract against
// 3.7-4.1 read once).
func readUpright(ctx context.Context, path string, img []byte) (string, error) {
	out, err := tesseract(ctx, path, img, ocrDPI, false)
	if err != nil {
		return "", err
	}
	first, _ := hocrConfs([]byte(out))
	if !looksTurned(first) {
		return out, nil
	}
	again, err := tesseract(ctx, path, img, ocrDPI, true)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return out, nil // the first reading stands
	}
	if second, _ := hocrConfs([]byte(again)); surer(second, first) {
		return again, nil
	}
	return out, nil
}

// looksTurned reports whether a reading of a page whose confidences are c
// ([hocrConf]) looks like that of a page turned: some letters or digits,
// read with a confidence under [minUprightConf].
func looksTurned(c confSum) bool {
	conf, chars := c.mean()
	return chars > 0 && conf < minUprightConf
}

// surer reports whether a second reading of a page, whose confidences are
// second, is surer than the first one's: it read letters or digits, with
// a higher confidence.
func surer(second, first confSum) bool {
	c, n := second.mean()
	c0, _ := first.mean()
	return n > 0 && c > c0
}

// renderPNG renders the page at ocrDPI, in shades of grey, as a PNG.
func renderPNG(in pdfium.Pdfium, pg requests.Page) ([]byte, error) {
	img, err := in.RenderPageInDPI(&requests.RenderPageInDPI{Page: pg, DPI: ocrDPI, ImageFormat: requests.RenderImageFormatGrayscale})
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	var buf bytes.Buffer
	err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img.Result.RenderedImage)
	img.Cleanup()
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return buf.Bytes(), nil
}

// tesseract reads the words of the picture img with the tesseract at
// path, as hOCR ([hocrPages]), telling it the picture's resolution unless
// dpi is 0, and finding which way up its pages are when turned is set
// (page segmentation mode 1: orientation and script detection first;
// about a third more time).
func tesseract(ctx context.Context, path string, img []byte, dpi int, turned bool) (string, error) {
	args := []string{"stdin", "stdout"}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(dpi))
	}
	if turned {
		args = append(args, "--psm", "1")
	}
	cmd := exec.CommandContext(ctx, path, append(args, "-l", "eng", "hocr")...)
	cmd.Env = ocrEnv()
	cmd.Stdin = bytes.NewReader(img)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		// Its first line says why (a JPEG cut short: "Premature end of
		// JPEG file"); the rest is Leptonica's trail of the same, which
		// would spread one file's failure over several lines.
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		msg = strings.TrimSpace(msg)
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return "", fmt.Errorf("tesseract: %v: %s", err, msg)
	}
	return strings.ToValidUTF8(out.String(), ""), nil
}
