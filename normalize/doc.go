// Package normalize is the first stage of the ingestion pipeline: it turns
// raw bytes (HTML, Markdown or plain text) into clean text, a title, the
// section headings, and an offset map from the clean text back to the source
// bytes, so that every chunk cut from the text can be cited by its byte range
// in the original file.
//
// Stage and imports: normalize imports nothing else of this module. It is the
// only home of golang.org/x/net/html (tokenizing HTML, with
// golang.org/x/net/html/charset and golang.org/x/text for legacy encodings)
// and github.com/yuin/goldmark (parsing Markdown); go.yaml.in/yaml/v3 reads
// front matter titles that are not written plainly. The chunk stage consumes
// [Document.Text]; ingest calls [Normalize] and stores the spans that
// [Document.SourceSpan] gives.
//
// # Usage
//
//	d := normalize.Normalize(normalize.Markdown, src)
//	fmt.Println(d.Title)
//	for _, h := range d.Headings {
//		fmt.Println(h.Level, h.Text, h.Offset)
//	}
//	start, end := d.SourceSpan(chunkStart, chunkEnd) // bytes of src
//
// # Whitespace (all formats, titles too)
//
// Whitespace is what [unicode.IsSpace] says: ASCII space, tab, newline,
// carriage return, form feed and vertical tab, U+0085, U+00A0 (no-break
// space), U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F and U+3000.
// Zero-width characters (U+200B, U+200D, U+FEFF inside the text) are not
// whitespace and are kept.
//
//   - A run of whitespace becomes one space, or line breaks where the format
//     keeps them (see below); nothing else is whitespace in the output.
//   - No line starts or ends with a space (runs around a line break become the
//     break), and there are never more than two newlines in a row: three or
//     more become exactly two (one blank line).
//   - The text has no whitespace at its start or end.
//   - A line break is "\n", "\r\n", a lone "\r", U+0085, U+2028 or U+2029.
//   - Invalid UTF-8 never passes: each maximal run of invalid bytes becomes
//     one U+FFFD, and so does a NUL byte. A byte-order mark at the start of
//     the source is dropped.
//   - Titles follow the same rules on one line: line breaks become spaces.
//
// A consequence: code keeps its line breaks but not its indentation.
//
// # Plain text
//
// Line breaks are kept (at most one blank line in a row), horizontal runs
// become one space. No title, no headings.
//
// Plain text and Markdown that start with a UTF-16 byte-order mark are
// decoded from UTF-16, and those that are not UTF-8 but read as
// windows-1252 ([Windows1252]: mostly ASCII, with no UTF-8 sequence) from
// windows-1252, before these rules; each character's span leads back to its
// own bytes.
//
// # HTML
//
// HTML is tokenized with x/net/html (not parsed into a tree: the tokens keep
// their byte offsets) and read the way a browser renders text:
//
//   - Whitespace in the source, newlines included, is collapsible: a run of it
//     is one space, so line wraps in the source never become line breaks.
//     Inside <pre>, <listing>, <xmp>, <plaintext>, <textarea> and <code>, line
//     breaks are kept (a newline right after <pre>, <listing> or <textarea> is
//     dropped, as browsers do).
//   - <br> (also <br/>, <br />, </br>, any case) is a line break; two make a
//     blank line.
//   - Block elements break the text, at their start and at their end. A blank
//     line: p, h1–h6, pre, listing, xmp, plaintext, blockquote, table, hr,
//     figure, section, article, header, footer, nav, aside, main, form,
//     fieldset, details, address, hgroup, center, search, and ul, ol, menu, dl
//     when not nested in a list. A line break: div, li, dt, dd, tr, caption,
//     figcaption, summary, legend, thead, tbody, tfoot, option, optgroup,
//     dialog, textarea, body, html, frameset, frame, and nested lists. Breaks
//     do not add up: </p><p> is one blank line, </div></div> one line break.
//   - List items start with a marker: "• " for bullet lists ("◦ " and "▪ "
//     when nested, since lines cannot be indented) and "N. " for ordered lists
//     (<ol start> and <li value> honoured; nested ordered lists number
//     "2.1. "). An item with no text gets no marker.
//   - Table rows are lines; cells are separated by " | " (no tabs: they would
//     be whitespace), an empty cell by an empty column ("a | | c").
//   - Footnote references, links marked role="doc-noteref" (pandoc's HTML),
//     epub:type="noteref" (EPUB) or data-type="noteref" (O'Reilly), read
//     "[1]" as Word's and Markdown's do, not "1" run into the word or
//     number before ("5 seconds.23"); a text already in brackets is kept.
//     Links back from a note (role="doc-backlink", an arrow) are dropped.
//   - All other tags are removed without a trace: "<b>a</b>b" is "ab". Images
//     contribute nothing (their alt text is not rendered text).
//   - Character references are decoded as in HTML text: named (with or without
//     ";" for the legacy ones, "&copy 2024"), decimal and hexadecimal, with
//     the windows-1252 mapping for &#128;–&#159; and U+FFFD for &#0;,
//     surrogates and values past U+10FFFF. A decoded no-break space is
//     whitespace.
//   - Dropped with their content: script, style, noscript, template, iframe,
//     noembed, noframes, object, canvas, audio, video (fallback text), svg,
//     select and datalist (option lists), MathML annotation and
//     annotation-xml (TeX sources; the MathML itself is kept), comments,
//     doctypes and processing instructions. The <head> is dropped but for its
//     <title>; a head left open ends at <body>, at the first element that
//     cannot be in a head, or at the first text, as in a browser.
//   - The title is the first <title> (outside svg), else the text of the first
//     h1. Headings h1–h6 with text become [Heading] values; a footnote
//     reference in one stays in the text and is left out of its Text.
//   - Character sets: a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) decides;
//     else a declared charset (<meta charset>, <meta http-equiv=Content-Type>:
//     the WHATWG prescan of x/net/html/charset over the first 1024 bytes, then
//     any <meta> before <body> in the first 64 KB). A declaration is
//     overridden when the bytes are valid UTF-8 with non-ASCII text (saved
//     pages keep stale declarations; legacy text that is valid UTF-8 is
//     vanishingly rare). Undeclared pages are UTF-8, or windows-1252 when
//     they are not valid UTF-8 and hold no valid multi-byte sequence at all.
//
// # Page content
//
// A whole page (not the HTML inside Markdown, nor an EPUB chapter) is read
// by its content, as Readability and Trafilatura read pages, but from its
// markup alone: a first pass over the tokens finds the elements that are
// not content, and the second reads around them. Unless
// [Options.KeepBoilerplate] asks for the whole page ([NormalizeWith],
// [FromHTMLWith]):
//
//   - Left out wherever they are: nav, search, button, dialog (unless
//     open), and elements with role navigation, search, menubar, menu,
//     toolbar, dialog or alertdialog (the first role counts); hidden
//     elements (hidden, but not hidden="until-found"; aria-hidden="true"; an inline style
//     display:none or visibility:hidden) unless they hold MathML
//     (Wikipedia hides its formulas' MathML behind a picture of them);
//     elements whose class or id names a cookie or consent banner, a
//     breadcrumb trail or a skip link ("cookie-banner", "gdpr_consent",
//     "breadcrumbs", "skip-to-content"; not on html, body, main or
//     article).
//   - Left out outside main, article and section: header, footer, aside,
//     the roles banner, contentinfo and complementary, and the div, td,
//     ul, ol and table elements whose class or id is a page's layout
//     ("header", "footer", "sidebar", "nav", "navbar", "menu",
//     "masthead", "site-header"...). A header (or such a div) that holds
//     an h1 is kept: it is the title block of a page without main
//     (pandoc's standalone HTML), not a site's banner.
//   - Left out wherever they are, when they also look like it: blocks
//     (div, section, aside, header, footer, nav, ul, ol, dl, li, table,
//     td, form and custom elements) whose class or id names a menu, a
//     share bar, related or popular stories, a sidebar, a footer, tags,
//     pagination, sponsored or promoted links or a newsletter form
//     ("share-buttons", "related-posts", "rightSidebar", "l-footer";
//     words of Readability's unlikely candidates and negative names,
//     found inside the words of a class or id split at anything but
//     letters and digits), if half of their text or more is in links or
//     they hold under 100 bytes of it; and comment sections ("comments",
//     "comment-list", "disqus_thread", "replies") that are links or little
//     text like those, or hold a quarter to two thirds of the page's text
//     (a few comments under a long article are read with it, as
//     Readability reads some; a page that is mostly comments, a bug's or
//     a forum thread's, is its comments). Never a block whose class or id
//     also names the content ("content-sidebar-wrap", "articleBody"), nor
//     one that holds the page's h1 or its main, nor, but for comments,
//     one that holds over half of the text the rules above leave.
//   - When the page has one main (or role=main) left, else one outermost
//     article, only its content is read (the title still comes from
//     <title>), if it holds a quarter of the text the rules above leave:
//     an article may be a teaser beside the page's text.
//   - An element is left out only if its own end tag closes it: one
//     closed by its parent's end tag, or left open at the end, is read
//     (the first pass closes elements as their end tags come, and a <p>,
//     <li>, <dt>, <dd>, <tr>, <td>, <th> or <option> the one before it).
//     If what is left holds under 200 bytes of text and under 15% of the
//     page's, the page is read whole.
//
// Spans are unchanged: the content's text maps to its own bytes, and a
// separator to the source between the texts around it, what was left out
// included. The first pass costs about as much as the second: on the 129
// pages of the test corpus, reading their content took about twice the
// time of reading them whole (BenchmarkHTMLCorpus and
// BenchmarkHTMLCorpusWhole).
//
// # Markdown
//
// Markdown is parsed with goldmark (CommonMark plus the GitHub table and
// strikethrough extensions and footnotes) and its AST is walked; raw HTML is stripped only
// where the AST has raw HTML, so markup shown inside code survives as text.
//
//   - Headings (ATX and setext) are paragraphs of their own and [Heading]
//     values (a footnote reference, "## Title[^1]", reads "Title[1]" in the
//     text and "Title" in the Heading's Text). Paragraphs are separated by a blank line; a soft line break
//     inside a paragraph is a space (the paragraph reflows, as rendered), a
//     hard line break (two trailing spaces, a backslash, <br>) a newline.
//   - List items are lines with a marker as for HTML ("• ", "1. ", "1) " as
//     written; the start number is kept); loose lists keep their blank lines.
//   - Code blocks, fenced and indented, are kept verbatim but for the
//     whitespace rules: their content only (no fences, no info string), line
//     breaks kept. Code spans keep their content, markup and entities
//     included, on one line.
//   - Links give their text, not their URL; images their alt text; autolinks
//     their URL (it is their text). Link reference definitions vanish.
//   - Footnotes: a reference "[^label]" whose note is defined is its number
//     "[1]" (notes numbered in order of first reference, as rendered); a
//     definition stays where it is written, its first paragraph starting
//     "[1] " (one never referenced "[^label]: "), as the notes of Word and
//     OpenDocument files read. A reference to no definition stays text.
//   - Emphasis, strong, strikethrough markers vanish; backslash escapes and
//     entity and numeric references (with ";", as CommonMark requires) are
//     resolved.
//   - Tables: one line per row (header included), cells separated by " | ".
//   - Block quotes: their paragraphs, without the ">".
//   - Raw HTML goes through the HTML rules above, with offsets into the
//     Markdown source: HTML blocks as a whole, inline tags one by one (<br>
//     breaks the line, block tags break the paragraph, the content of an
//     inline <script> or <style> is dropped up to its closing tag or the end
//     of the paragraph).
//   - YAML front matter (a first line "---", a YAML mapping, a line "---" or
//     "...") is not text; its top-level "title" is the title. Otherwise the
//     title is the first level-1 heading. A block between two "---" lines
//     whose first line is not a mapping key is Markdown, not front matter.
//     TOML front matter ("+++") is not recognized.
//
// # Extracted formats
//
// Readers of binary formats (PDF, Word, OpenDocument, EPUB, PowerPoint) live
// in sub-packages and build their [Document] through [Extracted], block by
// block in reading order, under the same whitespace rules. Their source is
// the extracted text itself: [Document.SourceSpan] is the identity, and
// [Document.Pages] says where each page or slide starts.
//
// # The offset map
//
// [Document.SourceSpan] maps a byte range of Text to the byte range of the
// original source that produced it. The map is a sorted list of segments,
// one per run of text copied from the source and one per piece of
// synthesized text, stored as differences from the one before (typically 2
// bytes each, plus a 12-byte checkpoint every 16 segments);
// [Document.SourceSpan] binary-searches the checkpoints and decodes at most
// 16 segments.
//
//   - Copied text maps byte for byte (a single whitespace byte that became a
//     space or a newline counts as copied).
//   - Synthesized text (a decoded entity, a collapsed whitespace run, the
//     newlines of a block tag, a list marker or cell separator, U+FFFD)
//     maps as a whole to its source construct and the markup dropped after
//     it, up to the next content: a whitespace run maps to everything between
//     the text before it and the text after it.
//   - Mapping is monotone: a later start never maps before an earlier start,
//     a later end never before an earlier end; results are always within
//     [0, len(src)]. Out-of-range arguments are clamped, never a panic.
//   - Pages in legacy character sets map to their original bytes, not to the
//     UTF-8 decoding: ASCII maps byte for byte; other characters map per run
//     of characters of the same encoded width (a Cyrillic word in
//     windows-1251, a run of CJK in GBK), whole runs at a time.
//
// Costs: a document takes its text plus about one segment per markup
// boundary (on the PowerShell documentation corpus, 0.11 bytes of map per
// byte of source; 16 MB of nested <div>s, a segment every 3 bytes, 0.9);
// normalizing is one pass over the tokens or the AST, with no per-byte
// allocation. Sources over 512 MiB are read up to 512 MiB (the
// map stores 32-bit offsets).
package normalize
