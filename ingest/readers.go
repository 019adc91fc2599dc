package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/normalize"
)

// A Reader reads a binary document format (PDF, Word, ...) into normalized
// text. Readers live in normalize's sub-packages; cmd/cite wires them into
// [Options.Readers]. A Reader must be safe for concurrent use: the workers
// call it at once.
type Reader interface {
	// Sniff reports whether data, a whole file, is in a format the reader
	// reads, and which ("pdf", "docx", ...: the document's format in the
	// index). It decides by content, not by name.
	Sniff(data []byte) (format string, ok bool)
	// Read reads data as the format Sniff named. An error wrapping
	// [normalize.ErrEncrypted] skips the file, one wrapping
	// [normalize.ErrUnsupported] or [normalize.ErrOverLimit] (more pages
	// than a limit) skips it with its message; any other fails it.
	Read(ctx context.Context, format string, data []byte) (*normalize.Document, error)
}

// A Versioned reader's output depends, besides the file, on its settings
// or on what it finds installed (a PDF reader's OCR mode, and whether
// tesseract is there to read scanned pages). Version names them for a
// format it reads ("" for the others); a document read under another
// version is read again though its file is unchanged, as every file is
// when the chunk size changes. So installing tesseract, as a note of the
// last run advised, gets a PDF's scanned pages read by the next run.
type Versioned interface {
	Version(format string) string
}

// pipelineOf is the pipeline a document of format is made by: the
// indexer's, followed by how an HTML page is read (by its content or
// whole: pages indexed before either were read whole, without a suffix,
// and are read again) or by the version of the reader of format, if any.
func (ix *Indexer) pipelineOf(format string) string {
	if format == normalize.HTML.String() {
		// Pages were read whole before cite read their content alone.
		if ix.opts.KeepBoilerplate {
			return ix.pipeline + "/html:whole"
		}
		return ix.pipeline + contentPipeline("html")
	}
	for _, r := range ix.opts.Readers {
		if v, ok := r.(Versioned); ok {
			if s := v.Version(format); s != "" {
				return ix.pipeline + "/" + s
			}
		}
	}
	return ix.pipeline
}

// contentPipeline is the suffix of the pipeline of a page of format
// (html, mhtml) read by its content: "/html:content" for the first rules,
// then with [normalize.ContentVersion] ("/html:content2"), so that a page
// is read again when the rules change.
func contentPipeline(format string) string {
	return fmt.Sprintf("/%s:content%d", format, normalize.ContentVersion)
}

// documentExts are the extensions of the document formats readers may
// read: with readers, such files are read and sniffed, not skipped by name.
var documentExts = map[string]bool{
	".pdf": true, ".docx": true, ".odt": true, ".epub": true, ".pptx": true, ".xlsx": true, ".ods": true, ".mhtml": true, ".mht": true,
	".doc": true, ".ppt": true, ".xls": true, // read to say what to save them as
	// pictures of pages, read by OCR
	".png": true, ".jpg": true, ".jpeg": true, ".tif": true, ".tiff": true, ".gif": true, ".bmp": true, ".webp": true,
}

// IsDocumentName reports whether name is named as a document format that
// a reader reads whole (PDF, Word, OpenDocument, EPUB, PowerPoint, Excel,
// a picture): such a
// file cut short while it is written is damaged, where a text file cut
// short is text.
func IsDocumentName(name string) bool { return documentExts[strings.ToLower(path.Ext(name))] }

// savedPageExts are the extensions of web pages saved as one file, which
// cite read as text before it had a reader for them.
var savedPageExts = map[string]bool{".mhtml": true, ".mht": true}

// readAsText reports whether a document of format typ indexed from the
// file name was read as text where a reader may read it now: a saved page
// indexed as its MIME source (quoted-printable HTML) is read again, though
// its file is unchanged, and is no copy for a file of the same bytes.
func (ix *Indexer) readAsText(typ, name string) bool {
	return len(ix.opts.Readers) > 0 && typ == normalize.PlainText.String() && savedPageExts[strings.ToLower(path.Ext(name))]
}

// formatsRead is the list of formats named in skip reasons.
func (ix *Indexer) formatsRead() string {
	if len(ix.opts.Readers) == 0 {
		return "Markdown, HTML and text"
	}
	return "Markdown, HTML, text, PDF, Word (.docx), OpenDocument (.odt, .ods), EPUB, PowerPoint (.pptx), Excel (.xlsx), saved web pages (.mhtml) and pictures of pages (by OCR)"
}

// skipByName returns why a file is skipped from its name alone, or "".
func (ix *Indexer) skipByName(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if len(ix.opts.Readers) > 0 && documentExts[ext] {
		return ""
	}
	return skipByName(name, ix.formatsRead())
}

// readDocument reads data with the first reader that claims it. ok is false
// when none does.
func (ix *Indexer) readDocument(ctx context.Context, data []byte, hash string) (nd *normalize.Document, format string, ok bool, err error) {
	for _, r := range ix.opts.Readers {
		if f, yes := r.Sniff(data); yes {
			if !ix.opts.Force {
				if known, err := ix.store.NoText(ctx, hash, ix.pipelineOf(f)); err != nil || known {
					return nil, f, true, cmp.Or(err, errNoTextBefore)
				}
			}
			nd, err := r.Read(ctx, f, data)
			return nd, f, true, err
		}
	}
	return nil, "", false, nil
}

// errNoTextBefore: the file gave no text when it was last read, as it is
// and by the same pipeline ([index.Store.NoText]), and is not read again.
var errNoTextBefore = errors.New("no text: it gave none when read before, and it is unchanged")

// readerFailure turns a reader's error into the job's outcome: skipped when
// the document needs a password, is in a format the reader does not read
// or is over a limit the user sets (as a file over --max-size is), failed
// otherwise.
func (j *job) readerFailure(format string, err error) {
	if errors.Is(err, normalize.ErrEncrypted) {
		j.out, j.why = Skipped, normalize.ErrEncrypted.Error()
		return
	}
	if errors.Is(err, normalize.ErrUnsupported) || errors.Is(err, normalize.ErrOverLimit) || errors.Is(err, errNoTextBefore) {
		j.out, j.why = Skipped, err.Error()
		return
	}
	label := strings.ToUpper(format)
	if kind, ok := binaryExts[strings.ToLower(path.Ext(j.path))]; ok && format == "zip" && kind != "archive" {
		// A zip that does not open, named as what it should be: a Word
		// file cut short is "read Word (zip): damaged", not "read ZIP".
		label = kind + " (zip)"
	}
	j.out, j.err = Failed, &PathError{j.path, fmt.Errorf("read %s: %w", label, err)}
}

// layoutOf is what the index keeps of an extracted document's pages, notes
// and, for a document a reader extracted, where its sections start with
// their heading paths (bounded as the chunker bounds them).
func layoutOf(nd *normalize.Document, extracted bool) *index.Layout {
	var sections []index.Section
	if extracted {
		sections = sectionsOf(nd.Headings)
	}
	if len(nd.Pages) == 0 && len(nd.Notes) == 0 && len(sections) == 0 {
		return nil
	}
	l := &index.Layout{Notes: nd.Notes, Sections: sections}
	for _, p := range nd.Pages {
		l.Pages = append(l.Pages, index.Page{Number: p.Number, Offset: p.Offset})
	}
	return l
}

// sectionsOf returns each heading's offset and the heading path there.
func sectionsOf(headings []normalize.Heading) []index.Section {
	var out []index.Section
	var stack []normalize.Heading
	for _, h := range headings {
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		path := make([]string, len(stack))
		for i, s := range stack {
			path[i] = chunk.Clip(s.Text, chunk.MaxHeadingBytes)
		}
		out = append(out, index.Section{Offset: h.Offset, Heading: chunk.BoundPath(path)})
	}
	return out
}
