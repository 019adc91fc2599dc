// Package office reads word-processing documents, slide decks, e-books and
// spreadsheets into the same [normalize.Document] as every other format:
// Word (DOCX), PowerPoint (PPTX), OpenDocument text (ODT), EPUB, Excel
// (XLSX) and OpenDocument spreadsheets (ODS).
//
// Stage and imports: a reader beneath normalize; it imports
// [github.com/cite-rag/cite/normalize] only, and knows nothing of ingest.
// It reads the zip and its XML with the standard library (archive/zip,
// encoding/xml): the formats need a few dozen elements each, which is less
// code than adapting a general library, and no well-kept free Go library
// covers all four (unidoc/unioffice is paid; the free DOCX ones are
// unmaintained or write documents rather than read them).
//
// # Usage
//
//	kind, ok := office.Detect(data) // from the content, never the file name
//	if !ok {
//		// not an office document: try PDF (magic bytes), then text
//	}
//	doc, err := office.Read(ctx, kind, data)
//	switch {
//	case errors.Is(err, office.ErrTooLarge): // a zip bomb, or past the Limits
//	case errors.Is(err, office.ErrDamaged): // not a zip, a part missing, bad XML
//	case errors.Is(err, normalize.ErrEncrypted): // password-protected DOCX, PPTX, ODT
//	case errors.Is(err, normalize.ErrUnsupported): // an old .doc, .ppt or .xls (kind OLE)
//	}
//
// The caller adds the file name to errors. [Reader] sets other [Limits].
//
// # What is text
//
// DOCX: paragraphs, headings, lists and tables of the main document in
// order. A paragraph is a heading when its style, followed through its
// basedOn chain in styles.xml, is named "heading N" (any style id, so
// localized ids work) or has an outline level (w:outlineLvl), or when it
// has an outline level of its own; the Title style is a level-1 heading and
// the document's title. A paragraph with numbering (its own w:numPr or its
// style's) is a list item at depth ilvl+1, ordered unless numbering.xml
// gives its level a bullet format. Table rows become rows (cells' paragraphs
// joined by spaces; nested tables flattened into their cell). Text boxes
// follow the paragraph they are anchored in (mc:AlternateContent is read
// once, from its first Choice). Tracked insertions (w:ins, w:moveTo) are
// text; tracked deletions (w:del, w:moveFrom), comments, field codes and a
// table of contents (a content control of the "Table of Contents" gallery,
// which repeats the headings) are not.
//
// Line breaks within a paragraph (DOCX w:br and w:cr, ODT text:line-break,
// PPTX a:br and a newline in a:t, as pandoc writes code blocks) are kept,
// as <br> is in HTML: an address, a verse and a code block keep their lines
// (not their indentation). In a heading, a list item or a table cell they
// are spaces.
//
// Footnotes and endnotes: the reference becomes a marker "[n]" in the text,
// numbered in order of first reference, and the notes follow at the end of
// the document under a level-1 heading "Notes", each a paragraph starting
// "[n] " (as pandoc's plain-text output does). A note stays one retrievable
// passage with its marker, and the body's paragraphs are not cut by it. A
// marker in a heading stays in the text and out of the heading's path
// ([normalize.Extracted.HeadingNotes]).
//
// PPTX: slides in presentation order (presentation.xml's sldIdLst through
// its relationships, not file names), each starting a page:
// [normalize.Document.Pages] numbers slides from 1 as the presentation
// shows them, so a span's page is its slide (link #slide=N). A slide's title
// (title or ctrTitle placeholder) is a level-1 heading; the first title
// slide's centered title is the document's title. The other shapes follow:
// top to bottom, then left to right, when every shape has its own position;
// else in the slide's drawing order (placeholders inherit their positions
// from the layout, which is not read). Groups are flattened; tables are
// rows; in a content placeholder a paragraph is a bullet (depth lvl+1)
// unless it says a:buNone, elsewhere only with a:buChar or a:buAutoNum
// (numbered). Slide numbers, dates and footers are left out (they repeat on
// every slide). Speaker notes follow the slide's text after a paragraph
// "Speaker notes:", on the same slide.
//
// ODT: content.xml's office:text in order. text:h is a heading of its
// text:outline-level (1 when unset); a paragraph whose style is, or derives
// from, "Title" is a level-1 heading and the title; paragraphs of the
// Preformatted Text style in a row (a code block as pandoc writes it, a
// line each) are one block of lines, an empty one a blank line (two code
// blocks in a row run together). text:list items are list
// items at their nesting depth, numbered when their list style (the
// innermost list's text:style-name, else the enclosing list's, looked up
// in content.xml's and styles.xml's styles) gives their level a
// list-level-style-number; an item's paragraphs are joined. Tables are
// rows (repeated columns repeated at most 64 times, trailing empty cells and
// empty rows dropped). Notes (text:note) are numbered and collected under
// "Notes" as in DOCX; text boxes (draw:text-box) follow their paragraph.
// Tracked changes: insertions are in the body and read; deletions live in
// text:tracked-changes, which is not read. Comments (office:annotation) and
// indexes (a table of contents repeats the headings) are not text.
//
// EPUB: the spine's XHTML items in spine order (the navigation document
// and items of other media types skipped), each read whole by
// [normalize.FromHTMLWith] (a chapter's header and footer are the
// chapter's, not a site's: Options.KeepBoilerplate) and appended: its headings as headings, the blocks between them with
// their line breaks. A chapter that does not start with a heading gets a
// level-1 heading from the navigation: EPUB 3's nav document (its toc nav),
// else EPUB 2's NCX, the first entry naming the chapter's file. So a
// chapter is cited by its heading path. Notes are where the book puts them
// (EPUB producers write them as text, usually at the chapter's end). The
// title is the package's dc:title.
//
// XLSX and ODS: each visible sheet in the workbook's order is a level-1
// heading (its name) and one table, a row a line with its cells separated
// by " | " (see [normalize.Extracted.Row]); a sheet without text is left
// out, and so is a hidden one (XLSX state hidden or veryHidden, an ODS
// table whose style says table:display="false"), which the document's
// notes name. Rows without text are left out, and so are the columns
// without text in every row of the sheet (a table starting at C5 starts at
// its first column); a cell's line breaks are spaces. A formula is not
// read, its cached value is. XLSX: shared strings (without their phonetic
// runs), inline strings, TRUE and FALSE, error values (#DIV/0!), and
// numbers as their style's number format shows them (numfmt.go: thousands
// 1,234,567, currencies $1,234.50, negatives in brackets, percentages,
// decimals, elapsed times 36:01:05, times of day 1:30 PM, fractions
// 3 14/99, scientific 1.23E+05, literals, scaling, conditional sections;
// "." and "," as separators, as LibreOffice shows an XLSX in an English
// locale), dates as 2026-11-27 whatever their format (with 13:30 when the
// format has a time of day; the 1900 and 1904 date systems), a string
// through its format's text section ("Code "@), a number without a format
// as General shows it (up to 15 significant digits). ODS: the text a cell
// shows (its text:p paragraphs, joined by spaces; LibreOffice writes the
// formatted value there), else its value rendered by its data style
// (odsfmt.go: the cell's style, or its column's default cell style, names
// it, in content.xml or styles.xml), a date as its office:date-value, and comments
// (office:annotation) left out. Repeated rows and cells
// (table:number-rows-repeated, number-columns-repeated) are expanded only
// when they have text, so the million empty rows LibreOffice declares at a
// sheet's end cost nothing; counts are capped at 1,048,576. The cells with
// text read are capped at [Limits].MaxCells (200,000 by default, all
// sheets together: a few MB of text); past it the rest is left out and a
// note says where. The workbook's title is its dc:title
// (docProps/core.xml, meta.xml), else none: a sheet's name is not the
// workbook's title, so a citation names the workbook (its file) and the
// sheet (§ Costs). Worksheets and content.xml are read as a stream of
// tokens, not a tree.
//
// # Cost
//
// Each part read is decompressed into memory and parsed into a tree, so a
// document costs a few times its decompressed XML, at most a few times
// [Limits].MaxTotal. BenchmarkDOCXvsPandoc compares Read with pandoc's
// plain-text output on the same DOCX (measured: 13–22× faster, see the
// README).
//
// # Limits and hygiene
//
// Names inside the zip are keys, never file paths: relationship targets are
// resolved with path.Clean inside the zip and only looked up. The zip's
// entry count ([Limits].MaxEntries) and the bytes decompressed
// ([Limits].MaxTotal) are capped: the bytes are counted while decompressing
// (a header's size only refuses early, and archive/zip refuses an entry
// that outgrows its header), so a zip bomb costs at most MaxTotal and is
// refused with [ErrTooLarge]. XML nesting is capped at [Limits].MaxDepth;
// encoding/xml reads no DTD and resolves no external entity (an undeclared
// entity is an error: [ErrDamaged]).
package office
