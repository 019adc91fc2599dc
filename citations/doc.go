// Package citations is cite's citation engine: the per-request invocation
// scope, the shared reference counter and registry, link resolvers, marker
// parsing, and rendering of [doc:N] markers into numbered citations with a
// reference list, streamed or not.
//
// Stage: between retrieval and presentation. The answer orchestrator
// registers the passages it gives the model and renders the model's output;
// the CLI and HTTP server show the result.
//
// Imports: the standard library, and cite's internal/escape for the one
// escaping of file names in JSON ([Reference.MarshalJSON]). The package does
// no I/O, calls no model and reads no store, so it can be tested on its own
// and used by any layer.
//
// # Invocation scope
//
// Every request starts a scope with [Begin]; producers deep in a tool call
// find it with [FromContext] and reserve indices from one shared counter, so
// indices never collide across preemptive retrieval and concurrent tool
// calls:
//
//	ctx = citations.Begin(ctx)
//	inv, _ := citations.FromContext(ctx)
//	inv.SetResolver(citations.DefaultResolver())
//	ref, err := inv.Register(citations.Reference{Title: "Guide", Passage: text, Type: citations.TypeFile, Source: path, Span: span})
//	// give the model ref.Key() + " " + text
//
// A passage is registered once per request: registering the same chunk (the
// same ID, or the same Source and Span) again returns the reference it
// already has, so a producer always gives the model the Index Register
// returned.
//
// # Markers
//
// A citation is a bracket group naming registered indices. Accepted, with
// "doc" in any case and spaces or tabs anywhere between the parts:
//
//	[doc:3]              canonical
//	[doc: 3]  [ DOC:3 ]  white space and case
//	[doc3]    [doc 3]    no colon (the [docN] style of some providers)
//	[doc:3, doc:5]       joined; ";" also separates
//	[doc:3,5]            joined, later items without "doc:"
//	【doc:3】            full-width lenticular brackets
//	[doc:3][doc:5]       adjacent groups form one run
//
// The grammar reads a group as a reader sees it once the Markdown is
// rendered, so look-alikes that show as a marker are markers: backslash
// escapes ("[doc\\:3]", "[doc:3\\]"), HTML character references
// ("&#91;doc:3&#93;", "&lbrack;doc&colon;3&rsqb;"), full-width forms
// ("［doc:3］", "［ｄｏｃ：３］"), a no-break or ideographic space for a
// space, and zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF,
// U+00AD), which are skipped wherever they are in the group.
//
// Not markers: anything inside an inline code span, a fenced code block or
// an indented code block, as CommonMark's block structure decides (a fence
// inside a block quote or list item ends with it; a line indented four
// spaces right after a paragraph line continues the paragraph); a group
// split across lines; a group longer than
// 256 bytes; text without the bracket, such as "doc:3" or "(doc:3)".
//
// # Bare numbers
//
// A bracketed number the model wrote itself, such as "[5]", "[1][2]",
// "[1, 2]", "[1;2]" or "[1-3]" (digits separated by ",", ";" or a dash,
// in any of the brackets above), is not a marker, but a reader would take it
// for one of the numbered citations, so it is removed like a dropped marker
// and listed in [Rendered.Dropped] with [ReasonBare]. Left alone, because
// they are Markdown or code rather than citations:
//
//	arr[2]  Logs[2006]   after a letter, digit or "_": an index
//	[1](http://x)        link text, when a ")" follows on the line
//	[the docs][1]        the label of a reference link (after "]")
//	[1]: http://x        a link reference definition at the start of a line
//	[^1]                 a footnote reference
//	[1.5] [-1] [1 2]     not a number list
//
// and anything in code. After a marker group, a bare number is part of its
// run: "[doc:1][2]" becomes "[1]". So that a citation is never read as one of
// these, a kept run written right after a letter, digit, "_" or "]" is set
// apart by a space: "dance[doc:1]" becomes "dance [1]", "[see][doc:1]"
// becomes "[see] [1]". Likewise a kept run followed by "(" or "[" is set apart
// from it ("[doc:1](x)" becomes "[1] (x)", not a link whose text is the
// citation), and one at the start of a line followed by ":" gets a zero-width
// space before it, so that it is no link reference definition.
//
// Text that starts like a marker, an open bracket, "doc" and then ":" or a
// digit, is reserved: if it is not a well-formed group ("[doc:3-5]",
// "[doc:]", "[doc:x]") it is removed as malformed up to its closing bracket,
// or, when no closing bracket follows on the same line within 256 bytes
// (a marker cut off at the end of an answer), the reserved prefix alone is
// removed. So no raw "[doc:" ever reaches the reader outside code.
//
// # Rendering
//
// [Render] keeps the references whose markers appear in the text and numbers
// them 1..k without gaps: [ByIndex] (the default) in the order of their
// original indices, so that citing only [doc:2] and [doc:5] shows 1 and 2;
// [ByAppearance] in order of first citation. Each run of adjacent markers
// becomes its display numbers, sorted and without repeats, each in its own
// brackets: "[doc:5][doc:2]" and "[doc:2, doc:5, doc:2]" both become
// "[1][2]". Markers whose index is 0, not registered or malformed are
// removed, together with the white space before them, and listed in
// [Rendered.Dropped]; they are never shown. What only joined a dropped
// marker to other citations goes with it: a connector between two runs on
// one line (white space, optionally ",", ";" or their ideographic and
// full-width forms, optionally "and", "or", "and/or", "as well as" or "&",
// and white space), a locator after the marker that names a place in its
// source (white space or a comma, "p.", "pp.", "page", "§", "ch.", "line",
// "at" and the like, and a number or range, followed by the end of the
// clause, a closing parenthesis or another citation), and parentheses that
// held nothing but citations and their locators, with a lead word ("see",
// "see also", "cf.", "e.g." or a connector word such as "and") and the white
// space before them. So "as shown in [doc:1] and [doc:9]." becomes "as shown in
// [1].", "[doc:9] and [doc:1] agree" becomes "[1] agree", "([doc:1],
// [doc:9])" becomes "([1])" and "x ([doc:9])." becomes "x."; a dropped
// marker between two kept ones takes the connector before it ("[doc:1],
// [doc:9] and [doc:2]" becomes "[1] and [2]"); "x ([doc:1] p. 2; [doc:9]
// p. 4)" becomes "x ([1] p. 2)" and "cats (and [doc:9]) dogs" "cats dogs".
// The model's other words stay: "cats [doc:9] and dogs" keeps its "and",
// "(see the manual [doc:9])" its "(see the manual)". Punctuation stays once:
// a chain dropped between two marks of ",", ";", ":", ".", "!" and "?"
// takes the weaker one, so that the sentence end stays ("a, [doc:9]. b"
// becomes "a. b", "a; [doc:9], b" "a; b"), and of two of the same mark the
// one after it ("Paris, [doc:9], is" becomes "Paris, is"); right after an
// opening parenthesis it takes a ",", ";" or ":" after it ("x ([doc:9],
// and more)" becomes "x (and more)"). A run of more
// than 256 bytes of white space is text: it never goes with a dropped
// chain and is not trimmed before the reference list. Where removing a
// dropped chain would change the Markdown structure around it (at a line start before a list marker, or
// between two backticks) a zero-width space (U+200B) takes its place; where
// the text around it would join into a new group ("[d[doc:9]oc:1]"), the
// replacement character U+FFFD does, since an invisible separator would
// leave something that looks like a marker.
//
// Replacement is two-phase: the first phase writes the text with every
// marker run reduced to a slot, a placeholder kept outside the text, so it
// can never collide with anything in it; the second fills in the final
// numbers.
//
// When anything is cited, [Rendered.Markdown] appends, after a blank line,
// [ListHeading] (a thematic break, "---", and "Sources cited in this
// answer:", so that a document's own "References:" quoted in the answer is
// not taken for the answer's list), a blank line and one list item per
// display number:
// "1. [Title](link)", or "1. Title" for a reference without a link, with the
// title's Markdown syntax escaped. A fenced code block left open at the end
// is closed first unless it is in a block quote, which the blank line before
// the list ends together with the fence.
//
// # Streaming
//
// A [Stream] renders while the model generates. Its concatenated output is
// byte for byte Render(text, reg, Options{Order: ByAppearance}).Markdown(),
// for any split of text into deltas; see [Stream] for what it holds back and
// for references registered mid-stream.
//
// # Costs
//
// Rendering is one left-to-right pass over the text plus one over the
// output. A 2,000-token answer with 50 markers over 200 references renders
// in about a tenth of a millisecond with about 150 allocations; a Stream
// costs well under a microsecond per token-sized delta, most of it the
// string it returns. Stream holds back at most one chain of marker groups
// (about 1.5 KB: 1 KB of chain and one group and parenthesis past it) or
// one undecided link or image (4 KB), plus, inside an unclosed inline code
// span, the rest of that paragraph, and up to 256 bytes of white space
// (and a ",", ";" or ":" before it) that may go with a marker or be trimmed
// at the end.
//
// # Links and images
//
// Outside code, images and links to hosts that are not a registered web
// source are neutralized so that an answer cannot leak what it read; see
// [Render] and [Options.KeepLinks].
// Nothing in the package panics on any input; [Stream.Feed] after
// [Stream.Close] panics as a programming error.
package citations
