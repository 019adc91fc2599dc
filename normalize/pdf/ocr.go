package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os/exec"
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
)

var errNoTesseract = errors.New("tesseract is not installed")

// ocrDPI is the resolution pages are rendered at for tesseract.
const ocrDPI = 300

// ocr renders the page at 300 DPI and reads it with tesseract.
func (r *Reader) ocr(ctx context.Context, in pdfium.Pdfium, pg requests.Page) (string, error) {
	bin := r.Tesseract
	if bin == "" {
		bin = "tesseract"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", errNoTesseract
	}
	img, err := in.RenderPageInDPI(&requests.RenderPageInDPI{Page: pg, DPI: ocrDPI, ImageFormat: requests.RenderImageFormatGrayscale})
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	var buf bytes.Buffer
	err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img.Result.RenderedImage)
	img.Cleanup()
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	cmd := exec.CommandContext(ctx, path, "stdin", "stdout", "--dpi", "300", "-l", "eng")
	cmd.Stdin = &buf
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return "", fmt.Errorf("tesseract: %v: %s", err, msg)
	}
	return strings.ToValidUTF8(out.String(), ""), nil
}
