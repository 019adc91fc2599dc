// Package pdf reads PDF files into a [normalize.Document]: clean text in
// reading order, headings, tables as rows, and where each page starts, so
// that a citation names its page.
//
// It is a reader of the normalize stage: it imports [normalize] and nothing
// else of cite, and it is the only home of github.com/klippa-app/go-pdfium
// and of wazero, which runs pdfium compiled to WebAssembly (no C library).
//
// # Costs
//
// The pdfium runtime is created on the first PDF read by the process and
// shared by every [Reader] and goroutine after that. Compiling pdfium.wasm
// takes seconds; the compiled code is cached in [CacheDir]
// (os.UserCacheDir()/cite/wazero), so it is paid once per machine. pdfium
// gets no access to the host's files: documents are opened from bytes.
//
// A document is read page by page; only a page's lines (not its characters)
// are kept once it is read. [Reader.MaxPages] and [Reader.Timeout] bound
// what one document may cost.
//
// # What is read
//
// Lines are joined into paragraphs, which end at a gap wider than a line's
// (the page's, or after a short line the document's); the items of a list
// are kept apart, by their markers or their indent; code (a monospaced
// font), addresses and verse (short lines) keep their line breaks
// ([normalize.Extracted.Lines]). A word hyphenated at a line end is
// joined again (a soft hyphen is dropped; a hyphen, which pdfium marks
// alike at every line end, when the document uses the word whole or does
// not use both its parts as words, so "well-known" stays); pages
// set in two or three columns are read column by column; a page whose
// /Rotate turns it, or whose text is set turned a quarter or a half turn,
// is read as its text reads, upright ([textPage]); ligatures and soft
// hyphens are folded. Running headers, footers and page numbers (the first
// or last line of pages that repeats on at least half of them, numbers
// aside; on a document of one page, a browser's header of date and time
// and title, and footer of address and "1/1") are left out of the text and
// listed in [Report.Dropped]. Headings
// come from the outline (bookmarks) when the file has one, else from font
// size and weight; a footnote's marker at a heading's end (digits or a
// reference sign set smaller and raised by a quarter of an em: a
// superscript) stays in the text and is left out of the heading's path
// ([normalize.Extracted.HeadingNotes]) when a line of the document starts
// with it (its note) and it raises no unit or variable ("m²", "mc²", "10⁶":
// exponents, kept in the path). Rows of cells that line up are table rows
// ([normalize.Extracted.Row]).
//
// A page with no text layer is read by OCR when tesseract is on PATH: pdfium
// renders it at 300 DPI and `tesseract stdin stdout` reads the PNG. A page
// that reads as one turned (scanned upside down or sideways: tesseract
// sure of few of its letters, or reading its lines standing) is read again
// with tesseract finding which way up it is first (page segmentation mode
// 1), and its words turned upright; an upright page costs one reading. A
// picture of pages ([Reader.ReadImage]) is read so too, a multi-page
// TIFF's pages in one run of tesseract and those that look turned in a
// second. Without tesseract the page is listed in [Report.NoText] with what to
// install.
//
// # Errors
//
// Read returns [ErrEncrypted] for a PDF that needs a password, [ErrDamaged]
// (wrapped with pdfium's reason) for a file pdfium cannot read, and
// a [*PagesError] ([ErrTooLarge] and [normalize.ErrOverLimit]) above
// [Reader.MaxPages], and [ErrTimeout] (naming the
// limit and the page it was reading) for a document that takes longer than
// [Reader.Timeout]. Messages name the
// problem, not the file: the caller adds its name.
package pdf
