package citations

import (
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
	// Type selects the resolver that builds Link.
	Type Type `json:"reference_type"`
	// Source locates the document: an absolute file path for [TypeFile], a
	// URL for [TypeWeb], empty or a display name for [TypeUpload].
	Source string `json:"source,omitempty"`
	// Span is the passage's byte range in the source document's raw bytes.
	Span Span `json:"span"`
	// Link is where a reader can open the passage. Registration fills it from
	// the invocation's resolver when it is empty.
	Link string `json:"link,omitempty"`
}

// Key returns the reference's marker, "[doc:N]".
func (r Reference) Key() string { return Key(r.Index) }

// Key returns the canonical marker for index n, "[doc:n]".
func Key(n int) string { return "[doc:" + strconv.Itoa(n) + "]" }

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
