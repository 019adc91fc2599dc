package pdf

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"

	"github.com/cite-rag/cite/normalize"
)

// Errors a caller can branch on with [errors.Is]. Their messages name the
// problem; the caller adds the file name.
var (
	// ErrEncrypted: the PDF needs a password to be opened.
	ErrEncrypted = errors.New("encrypted: a password is required")
	// ErrDamaged: pdfium cannot read the file as a PDF; the error wrapping
	// it says why.
	ErrDamaged = errors.New("damaged PDF")
	// ErrTooLarge: the PDF (or a TIFF) has more pages than
	// [Reader.MaxPages] (a [*PagesError]), or a picture's page more pixels
	// than [MaxImagePixels] (a [*PixelsError]).
	ErrTooLarge = errors.New("too large")
	// ErrTimeout: reading the PDF took longer than [Reader.Timeout].
	ErrTimeout = errors.New("over the time limit of one PDF")
)

// A PagesError is the error of a document (a PDF, a TIFF) of more pages
// than [Reader.MaxPages]. It is [ErrTooLarge] and, since nothing is wrong
// with the file but a limit the user sets, [normalize.ErrOverLimit]:
// ingest skips such a file instead of failing it.
type PagesError struct {
	Pages int // the document's pages
	Limit int // [Reader.MaxPages], or its default
}

func (e *PagesError) Error() string {
	return fmt.Sprintf("too many pages: %d, the limit is %d", e.Pages, e.Limit)
}

// Is reports whether target is [ErrTooLarge] or [normalize.ErrOverLimit].
func (e *PagesError) Is(target error) bool {
	return target == ErrTooLarge || target == normalize.ErrOverLimit
}

// Defaults of a zero [Reader].
const (
	DefaultMaxPages = 5000
	DefaultTimeout  = 5 * time.Minute
)

// OCR says when pages are read by tesseract.
type OCR int

const (
	// OCRAuto reads by OCR the pages that have no text layer.
	OCRAuto OCR = iota
	// OCRAlways reads every page by OCR, ignoring its text layer.
	OCRAlways
	// OCRNever never runs OCR: pages without text are reported.
	OCRNever
)

// ParseOCR parses "auto", "always" or "never".
func ParseOCR(s string) (OCR, error) {
	switch s {
	case "auto", "":
		return OCRAuto, nil
	case "always":
		return OCRAlways, nil
	case "never":
		return OCRNever, nil
	}
	return OCRAuto, fmt.Errorf("ocr %q: want auto, always or never", s)
}

// Reader reads PDFs. The zero value is ready to use; a Reader is safe for
// concurrent use (the pdfium runtime behind it is shared by the process).
type Reader struct {
	// MaxPages refuses a PDF (or a TIFF) with more pages with a
	// [*PagesError] (0 means [DefaultMaxPages]).
	MaxPages int
	// Timeout bounds the time spent on one document (0 means
	// [DefaultTimeout]); it is checked between pages, as is ctx.
	Timeout time.Duration
	// OCR says when pages are read by tesseract.
	OCR OCR
	// Tesseract is the tesseract command; "" looks it up on PATH.
	Tesseract string
	// Uninterruptible reads with pdfium code that cannot be stopped
	// mid-call, which reads a text-heavy page typically three to four
	// times faster (interruptible code starts a goroutine on every call
	// into pdfium, several a character, to watch the deadline). A
	// document over its Timeout is then abandoned rather than stopped:
	// Read returns at once, and the call into pdfium in progress runs on
	// in the background until pdfium returns from it. For a process that
	// ends when its files are read (cite index); a server, which must
	// never keep a core busy for a hostile upload, leaves it unset.
	Uninterruptible bool
}

// Report says what was read from a PDF besides its text: what was left out
// of the text and why, and which pages were read by OCR or could not be
// read. `cite show` prints it.
type Report struct {
	Pages   int       // pages in the file
	Dropped []Dropped // running headers, footers and page numbers left out
	OCR     []int     // pages whose text came from OCR
	NoText  []NoText  // pages with no text in the index, and why
}

// Dropped is a line left out of a page's text.
type Dropped struct {
	Page int
	Text string
	Why  string // "running header", "running footer", "page number"
}

// NoText is a page that gave no text.
type NoText struct {
	Page   int
	Reason string
}

func (r *Report) dropped(page int) []Dropped {
	var out []Dropped
	for _, d := range r.Dropped {
		if d.Page == page {
			out = append(out, d)
		}
	}
	return out
}

// Read extracts the text of the PDF in data: a [normalize.Document] whose
// Pages say where each page starts, and a [Report].
func (r *Reader) Read(ctx context.Context, data []byte) (*normalize.Document, *Report, error) {
	ctx, cancel, maxPages := r.limits(ctx)
	defer cancel()

	in, err := instance(ctx, !r.Uninterruptible)
	if err != nil {
		if ctx.Err() != nil {
			// The document's time was up before an instance was free
			// (all of them busy with other documents, or with abandoned
			// readings still under way): its time limit, as if reading.
			return nil, nil, fmt.Errorf("waiting for pdfium: %w", context.Cause(ctx))
		}
		return nil, nil, err
	}
	if r.Uninterruptible {
		return r.readAbandoning(ctx, in, data, maxPages)
	}
	// pdfium checks no deadline: when the document's time is up, the
	// instance is killed, which stops the WebAssembly code where it is (a
	// page that loops forever included) and gives the pool a new one.
	// go-pdfium's Kill and Close write the same fields unlocked, so the
	// two are serialized here and only the first one runs.
	var (
		mu   sync.Mutex
		done bool
	)
	end := func(f func() error) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			done = true
			f()
		}
	}
	context.AfterFunc(ctx, func() { end(in.Kill) })
	defer end(in.Close)
	return r.read(ctx, in, data, maxPages, nil)
}

// limits returns ctx bounded by the reader's time limit for one document,
// and its limit of pages.
func (r *Reader) limits(ctx context.Context) (context.Context, context.CancelFunc, int) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w (%v)", ErrTimeout, timeout))
	maxPages := r.MaxPages
	if maxPages <= 0 {
		maxPages = DefaultMaxPages
	}
	return ctx, cancel, maxPages
}

// readAbandoning reads on a goroutine of its own with an uninterruptible
// instance, and returns when the reading ends or ctx is done, whichever
// comes first: an abandoned reading goes on until pdfium returns, then
// stops at its next check of ctx and discards its instance.
func (r *Reader) readAbandoning(ctx context.Context, in pdfium.Pdfium, data []byte, maxPages int) (*normalize.Document, *Report, error) {
	type result struct {
		d   *normalize.Document
		rep *Report
		err error
	}
	var at progress
	res := make(chan result, 1)
	go func() {
		d, rep, err := r.read(ctx, in, data, maxPages, &at)
		if ctx.Err() != nil {
			in.Kill() // it may have stopped anywhere in the document
		} else {
			in.Close()
		}
		res <- result{d, rep, err}
	}()
	select {
	case x := <-res:
		return x.d, x.rep, x.err
	case <-ctx.Done():
		select {
		case x := <-res:
			return x.d, x.rep, x.err
		default:
		}
		if n, pages := at.page.Load(), at.pages.Load(); n > 0 {
			return nil, nil, fmt.Errorf("page %d of %d: %w", n, pages, context.Cause(ctx))
		}
		return nil, nil, context.Cause(ctx)
	}
}

// progress is where an abandoned reading was: the page being read
// (1-based, 0 before the first) and the document's pages.
type progress struct{ page, pages atomic.Int64 }

// read reads the document in data with in, page by page, checking ctx
// between pages; at, when set, is kept at the page being read.
func (r *Reader) read(ctx context.Context, in pdfium.Pdfium, data []byte, maxPages int, at *progress) (*normalize.Document, *Report, error) {
	doc, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		return nil, nil, openError(err)
	}
	defer in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})

	pc, err := in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	rep := &Report{Pages: pc.PageCount}
	if pc.PageCount > maxPages {
		return nil, rep, &PagesError{Pages: pc.PageCount, Limit: maxPages}
	}
	if at != nil {
		at.pages.Store(int64(pc.PageCount))
	}

	var title string
	if t, err := in.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		title = metaTitle(t.Value)
	}

	// Pages without text are read by tesseract beside the next pages
	// ([Reader.startOCR]), and stopped if the reading ends first.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ocrs []*ocrPage
	pages := make([]*page, 0, pc.PageCount)
	for i := 0; i < pc.PageCount; i++ {
		if err := ctx.Err(); err != nil {
			return nil, rep, fmt.Errorf("page %d of %d: %w", i+1, pc.PageCount, context.Cause(ctx))
		}
		if at != nil {
			at.page.Store(int64(i + 1))
		}
		p, o, err := r.readPage(ctx, in, doc.Document, i, rep)
		if err != nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			return nil, rep, fmt.Errorf("page %d: %w", i+1, err)
		}
		pages = append(pages, p)
		if o != nil {
			ocrs = append(ocrs, o)
		}
	}
	for _, o := range ocrs {
		if at != nil {
			at.page.Store(int64(o.page.number))
		}
		if err := finishOCR(ctx, o, rep); err != nil {
			return nil, rep, fmt.Errorf("page %d of %d: %w", o.page.number, pc.PageCount, err)
		}
	}
	outline := readOutline(in, doc.Document)
	return build(pages, outline, rep).Document(title), rep, nil
}

// openError maps pdfium's reasons for not opening a document.
func openError(err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return ErrEncrypted
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("%w: unsupported encryption", ErrDamaged)
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile), errors.Is(err, pdfiumerrors.ErrUnknown):
		return fmt.Errorf("%w: %s", ErrDamaged, strings.TrimLeft(err.Error(), "0123456789: "))
	}
	return fmt.Errorf("%w: %v", ErrDamaged, err)
}

// readPage reads page i (0-based) into lines, keeping no characters. A
// page without text that OCR is to read comes with its reading started
// ([Reader.startOCR]).
func (r *Reader) readPage(ctx context.Context, in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int, rep *Report) (*page, *ocrPage, error) {
	n := i + 1
	pg := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
	var p *page
	if r.OCR != OCRAlways {
		var err error
		if p, err = textPage(in, pg, n); err != nil {
			return nil, nil, err
		}
	} else {
		p = &page{number: n}
	}
	if len(p.rows) > 0 {
		return p, nil, nil
	}
	if r.OCR == OCRNever {
		rep.NoText = append(rep.NoText, NoText{Page: n, Reason: "no text layer (OCR is off)"})
		return p, nil, nil
	}
	return p, r.startOCR(ctx, in, pg, p), nil
}

// textPage reads the text layer of page pg, numbered n, into lines, with
// its text upright whatever its /Rotate (how a viewer turns the page to
// show it) and however its content draws it ([textTurn]). pdfium orders
// the characters of a page and puts the spaces between its words by where
// they are as the page is shown, and gives their boxes as the content
// lies: report.pdf shown upside down read "R e p o r t o n L gi h ht o u s
// e s", and shown a quarter turn clockwise "L ighthouses"; text set
// sideways read a letter at a time. So the page is read with no /Rotate,
// and a page whose text is turned is read again shown with its text
// upright, its boxes turned to match ([turnChars]); its /Rotate is set
// back after, for the page to be rendered as shown ([renderPNG]).
func textPage(in pdfium.Pdfium, pg requests.Page, n int) (*page, error) {
	// Only the document's copy in memory is changed, and set back after;
	// a failure leaves the page read as shown.
	rot := enums.FPDF_PAGE_ROTATION_NONE
	if r, err := in.FPDFPage_GetRotation(&requests.FPDFPage_GetRotation{Page: pg}); err == nil {
		rot = r.PageRotation
	}
	shown := rot
	show := func(r enums.FPDF_PAGE_ROTATION) bool {
		if r == shown {
			return true
		}
		if _, err := in.FPDFPage_SetRotation(&requests.FPDFPage_SetRotation{Page: pg, Rotate: r}); err != nil {
			return false
		}
		shown = r
		return true
	}
	defer show(rot)
	show(enums.FPDF_PAGE_ROTATION_NONE)
	read := func() ([]*responses.GetPageTextStructuredChar, error) {
		st, err := in.GetPageTextStructured(&requests.GetPageTextStructured{
			Page:                   pg,
			Mode:                   requests.GetPageTextStructuredModeChars,
			CollectFontInformation: true,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		return st.Chars, nil
	}
	chars, err := read()
	if err != nil {
		return nil, err
	}
	var w, h float64
	t := textTurn(chars)
	if t != 0 {
		// Read again with the page shown with its text upright, for
		// pdfium to order the characters and space the words.
		size, err := in.GetPageSize(&requests.GetPageSize{Page: pg})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		w, h = size.Width, size.Height
		if show(enums.FPDF_PAGE_ROTATION((4 - t) % 4)) {
			if chars, err = read(); err != nil {
				return nil, err
			}
		}
		turnChars(chars, t, w, h)
	}
	return layoutPage(n, chars, looseSpaces(in, pg, chars, func(l, top, r, b float64) (float64, float64) {
		l, _, r, _ = t.rect(l, top, r, b, w, h)
		return l, r
	})), nil
}

// finishOCR waits for tesseract's reading of a page and gives the page
// its text, or reports why it has none.
func finishOCR(ctx context.Context, o *ocrPage, rep *Report) error {
	<-o.done
	n := o.page.number
	switch {
	case errors.Is(o.err, errNoTesseract):
		rep.NoText = append(rep.NoText, NoText{Page: n, Reason: "no text layer; install tesseract (Debian: apt-get install tesseract-ocr tesseract-ocr-eng) to read it by OCR"})
	case o.err != nil:
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		rep.NoText = append(rep.NoText, NoText{Page: n, Reason: "OCR failed: " + o.err.Error()})
	default:
		words, err := hocrWords([]byte(o.text), ocrDPI)
		if err != nil {
			rep.NoText = append(rep.NoText, NoText{Page: n, Reason: "OCR failed: tesseract's hOCR: " + err.Error()})
			return nil
		}
		if o.page.rows = makeRows(words); len(o.page.rows) == 0 {
			rep.NoText = append(rep.NoText, NoText{Page: n, Reason: "no text layer, and OCR found no text"})
			return nil
		}
		rep.OCR = append(rep.OCR, n)
	}
	return nil
}

// looseSpaces returns the corrections of pdfium's spaces on a page: the
// characters before which a word starts though pdfium put no space there
// ([missingSpaces]), the spaces it generated inside letter-spaced words
// ([spuriousSpaces]) and those that are one character of a monospaced font
// ([cellSpaces]), reading the loose boxes of the few characters whose
// ink gaps could hide either. A page whose loose boxes cannot be read gets
// none.
func looseSpaces(in pdfium.Pdfium, pg requests.Page, chars []*responses.GetPageTextStructuredChar, across func(l, t, r, b float64) (x0, x1 float64)) spacing {
	cands, gens, cells := spaceCandidates(chars), generatedCandidates(chars), cellCandidates(chars)
	if len(cands) == 0 && len(gens) == 0 && len(cells) == 0 {
		return spacing{}
	}
	tp, err := in.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: pg})
	if err != nil {
		return spacing{}
	}
	defer in.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	type edges struct {
		x0, x1 float64
		ok     bool
	}
	seen := map[int]edges{}
	loose := func(i int) (float64, float64, bool) {
		if e, done := seen[i]; done {
			return e.x0, e.x1, e.ok
		}
		var e edges
		if b, err := in.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp.TextPage, Index: i}); err == nil {
			x0, x1 := across(float64(b.Rect.Left), float64(b.Rect.Top), float64(b.Rect.Right), float64(b.Rect.Bottom))
			e = edges{x0, x1, true}
		}
		seen[i] = e
		return e.x0, e.x1, e.ok
	}
	spurious := spuriousSpaces(chars, gens, loose)
	return spacing{missing: missingSpaces(chars, cands, loose, spurious), spurious: spurious, cells: cellSpaces(chars, cells, loose)}
}

// metaTitle is a PDF's Title metadata as a document title, or "" when it
// is a file's name, which producers write when the source had no title
// (Chromium printing a page without <title>: "notes.html"; Word:
// "Microsoft Word - report.docx"): the first heading, or the PDF's own
// name, says more.
func metaTitle(t string) string {
	t = strings.TrimSpace(t)
	name := strings.TrimPrefix(t, "Microsoft Word - ")
	if fileExts[strings.ToLower(path.Ext(name))] {
		return ""
	}
	return t
}

// fileExts are the extensions of the files whose names producers write
// as a PDF's title.
var fileExts = map[string]bool{
	".html": true, ".htm": true, ".xhtml": true, ".md": true, ".txt": true, ".doc": true, ".docx": true,
	".odt": true, ".rtf": true, ".pdf": true, ".ppt": true, ".pptx": true, ".xls": true, ".xlsx": true, ".tex": true,
}
