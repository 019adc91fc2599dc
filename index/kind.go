package index

import "fmt"

// Kind says where a document came from, and so what its Path is. It is
// recorded when the document is stored, never guessed from the path.
type Kind string

// Document kinds.
const (
	// KindFile is a document read from a file system: its Path is the
	// file's absolute path, and chunks' source spans are byte ranges of the
	// file. A saved web page (an .html file) is a file: the spans point into
	// the saved copy, not into the live page.
	KindFile Kind = "file"
	// KindWeb is a document fetched from the web: its Path is its URL.
	KindWeb Kind = "web"
)

// check returns an error unless k is a known kind.
func (k Kind) check() error {
	switch k {
	case KindFile, KindWeb:
		return nil
	}
	return fmt.Errorf("%w: document kind %q (want %q or %q)", ErrInvalidInput, k, KindFile, KindWeb)
}
