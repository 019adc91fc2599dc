package citations

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// Type says what kind of source a [Reference] points to. A [CompositeResolver]
// picks the [Resolver] that builds the reference's link by its Type.
type Type string

// The reference types cite produces. Other packages may define their own.
const (
	// TypeFile is a chunk of a local file in the index (a data-source chunk).
	// Its Source is the file's path and its Span the chunk's byte range in the
	// file's raw bytes.
	TypeFile Type = "file"
	// TypeWeb is a chunk of a web page. Its Source is the page's URL.
	TypeWeb Type = "web"
	// TypeUpload is a chunk of a document uploaded for one session only. It
	// has no link: the reference list shows its title as plain text.
	TypeUpload Type = "upload"
)

// Span is a half-open byte range [Start, End).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of bytes in s.
func (s Span) Len() int { return s.End - s.Start }

// Reference is a passage given to the model in one request, under the marker
// [doc:Index]. Producers (preemptive retrieval, tool calls) register
// references with an [Invocation]; the renderers look them up by Index.
type Reference struct {
	// Index is N in the marker [doc:N]: 1-based and unique within one
	// invocation. [Invocation.Register] assigns it when it is zero.
	Index int `json:"index"`
	// Title is the source document's title.
	Title string `json:"title"`
	// Passage is the text the model was given.
	Passage string `json:"passage"`
	// ID identifies the passage in its store, for example a chunk id.
	ID string `json:"reference_id"`
	// DocumentID identifies the passage's document in its store, when it
	// has one: cite serve serves the document at
	// /v1/documents/{DocumentID}/source.
	DocumentID string `json:"document_id,omitempty"`
	// Type selects the resolver that builds Link.
	Type Type `json:"reference_type"`
	// Source locates the document: an absolute file path for [TypeFile], a
	// URL for [TypeWeb], empty or a display name for [TypeUpload].
	Source string `json:"source,omitempty"`
	// Span is the passage's byte range in the source document's raw bytes;
	// for a format whose text is extracted (PDF, Word, ...), in that text.
	Span Span `json:"span"`
	// Location is the passage's page or slide, for documents that have them.
	Location
	// Heading is the heading path the passage sits under in its document,
	// outermost first, joined by " > ", when it has one. The reference
	// list shows it for a passage its link cannot open at (the text of a
	// Word file, say, which has no page).
	Heading string `json:"heading,omitempty"`
	// Extracted says that Span (and QuoteSpan) are ranges of the text cite
	// extracted from the document (a PDF, a Word file, ...), not of its
	// file's bytes: the passage is that text, and a link to the file opens
	// its page or slide, not a byte range.
	Extracted bool `json:"-"`

	// pageStarts are where the pages after the passage's first start
	// inside it (see [Reference.WithPageStarts]), encoded so that a
	// Reference stays comparable.
	pageStarts string
	// sectionStarts are where sections start inside the passage (see
	// [Reference.WithSectionStarts]), encoded likewise.
	sectionStarts string
	// Link is where a reader can open the passage. Registration fills it from
	// the invocation's resolver when it is empty.
	Link string `json:"link,omitempty"`
	// Quote is the sentence of the passage that supports the answer, when
	// the producer knows it (extractive answers do). See
	// [Invocation.SetQuote].
	Quote string `json:"quote,omitempty"`
	// QuoteSpan is Quote's byte range in the source document's raw bytes,
	// inside Span; nil when the quote could not be located in the source.
	// When it is set, the source's bytes in QuoteSpan are exactly Quote, and
	// [FileResolver] links to it instead of to the whole passage.
	QuoteSpan *Span `json:"quote_span,omitempty"`
}

// Key returns the reference's marker, "[doc:N]".
func (r Reference) Key() string { return Key(r.Index) }

// Key returns the canonical marker for index n, "[doc:n]".
func Key(n int) string { return "[doc:" + strconv.Itoa(n) + "]" }

// section returns the heading path shown after title in a reference list:
// Heading without its first heading when that is the title, its headings
// joined by " › " (which Markdown leaves alone).
func (r Reference) section(title string) string {
	h := collapseSpace(r.Heading)
	if first, rest, ok := strings.Cut(h, " > "); ok && first == title {
		h = rest
	} else if h == title {
		return ""
	}
	return strings.ReplaceAll(h, " > ", " › ")
}

// DisplayTitle returns the title shown in a reference list: Title with every
// run of white space collapsed to one space, or, when that is empty, the base
// name of Source, the ID, or "Untitled", in that order.
func (r Reference) DisplayTitle() string {
	if t := collapseSpace(r.Title); t != "" {
		return t
	}
	if r.Source != "" {
		if b := path.Base(strings.ReplaceAll(r.Source, `\`, "/")); b != "." && b != "/" {
			return b
		}
	}
	if id := collapseSpace(r.ID); id != "" {
		return id
	}
	return "Untitled"
}

// collapseSpace trims s and collapses each run of white space in it to one
// space. It returns s itself when there is nothing to change.
func collapseSpace(s string) string {
	space := true // at the start, a space would be leading
	for _, r := range s {
		switch {
		case r == ' ' && !space:
			space = true
		case unicode.IsSpace(r):
			return strings.Join(strings.Fields(s), " ")
		default:
			space = false
		}
	}
	if space && s != "" { // a trailing space
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// SetHeading sets the heading path of the reference registered under
// index (see [Reference.Heading]), for a producer that knows the section of
// what it quotes better than the passage's start does ("" when it does not
// know it).
func (inv *Invocation) SetHeading(index int, heading string) error {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	i, ok := inv.byIndex[index]
	if !ok {
		return fmt.Errorf("set heading of %s: %w", Key(index), ErrNotRegistered)
	}
	inv.refs[i].Heading = heading
	return nil
}

// ErrNotRegistered means no reference is registered under the index given
// to [Invocation.SetQuote].
var ErrNotRegistered = errors.New("reference not registered")

// SetQuote attaches quote, the supporting sentence, and its byte range in
// the source (nil when unknown) to the reference registered under index,
// and returns the reference as stored. A quote with a span on fewer pages
// than the passage has the Location of its own pages. A span must lie inside the
// reference's Span; otherwise it is dropped and the quote kept without one.
// A Link that the invocation's resolver built is rebuilt, so that it opens
// the quote; a Link the producer set itself is kept.
//
// Set the quote before the marker is rendered: renderers read the reference
// when they reach its marker.
func (inv *Invocation) SetQuote(index int, quote string, span *Span) (Reference, error) {
	inv.mu.Lock()
	i, ok := inv.byIndex[index]
	var old Reference
	if ok {
		old = inv.refs[i]
	}
	r := inv.resolver
	inv.mu.Unlock()
	if !ok {
		return Reference{}, fmt.Errorf("set quote of %s: %w", Key(index), ErrNotRegistered)
	}
	ref := old
	ref.Quote = quote
	ref.QuoteSpan = nil
	if span != nil && span.Start >= old.Span.Start && span.End <= old.Span.End && span.Start < span.End {
		ref.QuoteSpan = &Span{Start: span.Start, End: span.End}
		ref.Location = old.Location.Narrow(old.PageStarts(), *ref.QuoteSpan)
	}
	if r != nil && old.Link == r.Resolve(old) {
		ref.Link = r.Resolve(ref)
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.refs[inv.byIndex[index]] = ref
	return ref, nil
}
