package main

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/normalize/mhtml"
	"github.com/cite-rag/cite/normalize/office"
	"github.com/cite-rag/cite/normalize/pdf"
)

// documentReaders are the readers of binary document formats every command
// that indexes files uses: what `cite index` reads besides Markdown, HTML
// and text. A nil p reads PDFs with pdf.Reader's defaults.
func documentReaders(p *pdf.Reader) []ingest.Reader {
	return documentReadersFor(p, "--max-pages")
}

// documentReadersFor is documentReaders naming pagesFlag, the flag that
// sets p.MaxPages, in the message of a document over it ("cite serve
// --max-pages" for uploads, whose readers do not run the flag's command).
func documentReadersFor(p *pdf.Reader, pagesFlag string) []ingest.Reader {
	if p == nil {
		p = &pdf.Reader{}
	}
	return []ingest.Reader{pdfReader{p, pagesFlag}, imageReader{p, pagesFlag}, officeReader{}, mhtmlReader{}}
}

// overPages names the flag that sets the page limit in the message of a
// document over it (a *pdf.PagesError, skipped by ingest): "too many
// pages: 5001, the limit is 5000 (--max-pages)".
func overPages(err error, flag string) error {
	var pe *pdf.PagesError
	if errors.As(err, &pe) && flag != "" {
		return fmt.Errorf("%w (%s)", err, flag)
	}
	return err
}

// mhtmlReader reads web pages saved as one file (.mhtml, .mht) through
// package mhtml: their content, or with whole the whole page
// (--keep-boilerplate).
type mhtmlReader struct{ whole bool }

func (mhtmlReader) Sniff(data []byte) (string, bool) { return "mhtml", mhtml.Sniff(data) }

func (m mhtmlReader) Read(_ context.Context, _ string, data []byte) (*normalize.Document, error) {
	return mhtml.ReadWith(data, normalize.Options{KeepBoilerplate: m.whole})
}

// Version says whether a saved page was read whole or its content alone,
// so that a page indexed the other way is read again (ingest.Versioned).
func (m mhtmlReader) Version(format string) string {
	switch {
	case format != "mhtml":
		return ""
	case m.whole:
		return "mhtml:whole"
	}
	// As ingest names a page's (html:content2), with the rules' version.
	return fmt.Sprintf("mhtml:content%d", normalize.ContentVersion)
}

// wholePages returns rs with its reader of saved pages reading them whole.
func wholePages(rs []ingest.Reader) []ingest.Reader {
	out := make([]ingest.Reader, len(rs))
	for i, r := range rs {
		if _, ok := r.(mhtmlReader); ok {
			r = mhtmlReader{whole: true}
		}
		out[i] = r
	}
	return out
}

// pdfReader reads PDFs through package pdf (pdfium in WebAssembly, started
// on the first PDF), turning its report into the document's notes.
type pdfReader struct {
	r         *pdf.Reader
	pagesFlag string // the flag setting r.MaxPages, named when a PDF is over it
}

func (pdfReader) Sniff(data []byte) (string, bool) {
	// PDF readers accept the header anywhere in the first KB.
	head := data[:min(len(data), 1024)]
	return "pdf", bytes.Contains(head, []byte("%PDF-"))
}

func (p pdfReader) Read(ctx context.Context, _ string, data []byte) (*normalize.Document, error) {
	d, rep, err := p.r.Read(ctx, data)
	if errors.Is(err, pdf.ErrEncrypted) {
		return nil, normalize.ErrEncrypted
	}
	if err != nil {
		return nil, overPages(err, p.pagesFlag)
	}
	d.Notes = append(d.Notes, pdfNotes(rep)...)
	return d, nil
}

// Version names what a PDF's text depends on besides the file: the OCR
// mode and, unless it is never, whether tesseract is installed. A PDF read
// without tesseract is read again once it is (ingest.Versioned).
func (p pdfReader) Version(format string) string {
	if format != "pdf" {
		return ""
	}
	mode := "auto"
	switch p.r.OCR {
	case pdf.OCRNever:
		return "pdf:ocr=never"
	case pdf.OCRAlways:
		mode = "always"
	}
	if _, err := exec.LookPath(cmp.Or(p.r.Tesseract, "tesseract")); err != nil {
		return "pdf:ocr=" + mode + ",no-tesseract"
	}
	return "pdf:ocr=" + mode
}

var _ ingest.Versioned = pdfReader{}

// pdfNotes says what a PDF's reader left out or could not read: each
// running line left out once, with the pages it was on, and the page
// numbers, which differ on every page, in one note (a 500-page report
// gets one line, not 500).
func pdfNotes(rep *pdf.Report) []string {
	if rep == nil {
		return nil
	}
	var notes []string
	type key struct{ text, why string }
	pages := map[key][]int{}
	var order []key
	var numbers []int      // pages whose number was left out
	var first, last string // the first and last of those numbers
	for _, d := range rep.Dropped {
		if d.Why == "page number" {
			if len(numbers) == 0 {
				first = d.Text
			}
			numbers, last = append(numbers, d.Page), d.Text
			continue
		}
		k := key{d.Text, d.Why}
		if _, ok := pages[k]; !ok {
			order = append(order, k)
		}
		pages[k] = append(pages[k], d.Page)
	}
	for _, k := range order {
		notes = append(notes, fmt.Sprintf("left out the %s %q on %s", k.why, k.text, pageList(pages[k])))
	}
	switch len(numbers) {
	case 0:
	case 1:
		notes = append(notes, fmt.Sprintf("left out the page number %q on %s", first, pageList(numbers)))
	default:
		notes = append(notes, fmt.Sprintf("left out the page numbers (%q … %q) on %s", first, last, pageList(numbers)))
	}
	if len(rep.OCR) > 0 {
		notes = append(notes, "read by OCR (tesseract): "+pageList(rep.OCR))
	}
	// Pages without text, by reason: a scanned book read without
	// tesseract is one note, naming its file's pages and what to install.
	noText := map[string][]int{}
	var reasons []string
	for _, n := range rep.NoText {
		if _, ok := noText[n.Reason]; !ok {
			reasons = append(reasons, n.Reason)
		}
		noText[n.Reason] = append(noText[n.Reason], n.Page)
	}
	for _, r := range reasons {
		verb := "have"
		if len(noText[r]) == 1 {
			verb = "has"
		}
		notes = append(notes, fmt.Sprintf("%s %s no text: %s", pageList(noText[r]), verb, r))
	}
	return notes
}

// pageList writes pages as "page 3" or "pages 1–4, 7".
func pageList(ps []int) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d–%d", ps[i], ps[j])
		} else {
			fmt.Fprintf(&b, "%d", ps[i])
		}
		i = j + 1
	}
	if len(ps) == 1 {
		return "page " + b.String()
	}
	return "pages " + b.String()
}

// imageReader reads pictures of pages (PNG, JPEG, TIFF, GIF, BMP, WebP)
// by OCR through package pdf, with the PDF reader's OCR mode, tesseract
// and limits. A picture needs no pdfium.
type imageReader struct {
	r         *pdf.Reader
	pagesFlag string // the flag setting r.MaxPages, named when a TIFF is over it
}

func (imageReader) Sniff(data []byte) (string, bool) {
	f := pdf.ImageFormat(data)
	return f, f != ""
}

func (i imageReader) Read(ctx context.Context, _ string, data []byte) (*normalize.Document, error) {
	d, rep, err := i.r.ReadImage(ctx, data)
	if err != nil {
		return nil, overPages(err, i.pagesFlag)
	}
	if rep.Pages == 1 {
		// A picture is its page: "read by OCR", not "page 1".
		if len(rep.OCR) == 1 {
			d.Notes = append(d.Notes, "read by OCR (tesseract)")
		}
		for _, n := range rep.NoText {
			d.Notes = append(d.Notes, n.Reason)
		}
		return d, nil
	}
	d.Notes = append(d.Notes, pdfNotes(rep)...)
	return d, nil
}

// prestartPDF says whether startPDF starts pdfium before the first PDF
// (tests turn it off to measure what it saves).
var prestartPDF = true

// pdfScanLimit bounds the entries of the PATHs' folders startPDF looks
// through for a PDF.
const pdfScanLimit = 10_000

// startPDF starts pdfium for r in the background when the PATHs name a
// PDF that the index in folder idx may not hold as it is (see changedPDF;
// all of them when force is set), so that pdfium's start-up (0.3–0.4 s of CPU
// with the compiled module cached) overlaps the tokenizer's load, the
// index's opening and the files read before the first PDF instead of
// delaying that PDF. Names and times are only a guess (formats are told by
// content, changes by hashes): a wrong guess costs that start-up in the
// background, a missed one nothing (the first PDF starts pdfium as
// before).
func startPDF(r *pdf.Reader, idx string, force bool, paths []string) {
	if !prestartPDF {
		return
	}
	go func() {
		var since time.Time
		if !force {
			since = lastWrite(idx)
		}
		if changedPDF(paths, since, pdfScanLimit) {
			r.Start()
		}
	}()
}

// lastWrite is the latest modification time of the files in the index
// folder dir, zero when it has none.
func lastWrite(dir string) time.Time {
	var t time.Time
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	return t
}

// changedPDF reports whether a PATH is a file named *.pdf modified after
// since, or a folder holding one within its first limit entries (hidden
// files and folders left out, as the walk leaves them out). A glob
// pattern named *.pdf counts when since is zero (a new index).
func changedPDF(paths []string, since time.Time, limit int) bool {
	for _, p := range paths {
		if !isPDFName(p) {
			continue
		}
		info, err := os.Stat(p)
		if err != nil && since.IsZero() || err == nil && info.ModTime().After(since) {
			return true
		}
	}
	n, found := 0, false
	for _, p := range paths {
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			n++
			switch {
			case n > limit:
				return fs.SkipAll
			case err != nil:
				return nil // the walk reports it
			case path != p && strings.HasPrefix(d.Name(), "."):
				if d.IsDir() {
					return fs.SkipDir
				}
			case !d.IsDir() && isPDFName(d.Name()):
				if info, err := d.Info(); err == nil && info.ModTime().After(since) {
					found = true
					return fs.SkipAll
				}
			}
			return nil
		})
		if found || n > limit {
			break
		}
	}
	return found
}

func isPDFName(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".pdf")
}

// officeReader reads Word, OpenDocument (text and spreadsheets), EPUB,
// PowerPoint and Excel files through package office, with its default
// limits.
type officeReader struct{ r office.Reader }

var officeKinds = map[string]office.Kind{"docx": office.DOCX, "pptx": office.PPTX, "odt": office.ODT, "epub": office.EPUB, "ole": office.OLE,
	"xlsx": office.XLSX, "ods": office.ODS}

func (officeReader) Sniff(data []byte) (string, bool) {
	k, ok := office.Detect(data)
	if ok {
		return strings.ToLower(k.String()), true
	}
	// A zip that cannot be opened (a Word file cut short) is claimed, to
	// fail as damaged as a damaged PDF does, not to be skipped as a format
	// cite does not read.
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		if _, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
			return "zip", true
		}
	}
	return "", false
}

func (o officeReader) Read(ctx context.Context, format string, data []byte) (*normalize.Document, error) {
	if format == "zip" {
		_, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		return nil, fmt.Errorf("damaged: %w", err)
	}
	k, ok := officeKinds[format]
	if !ok {
		return nil, fmt.Errorf("unknown office format %q", format)
	}
	return o.r.Read(ctx, k, data)
}
