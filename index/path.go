package index

import (
	"encoding/json"

	"github.com/cite-rag/cite/internal/escape"
)

// A document's Path is the file's name as the operating system gives it: raw
// bytes, which need not be UTF-8 and may hold control characters such as a
// newline. The index stores those bytes, so the file can be read again, and
// everything that shows a path to a person or writes it as JSON shows it
// through [EscapePath], which [UnescapePath] undoes.

// EscapePath returns p as valid UTF-8 without control characters,
// reversibly: it is [escape.Path], the one escaping of file names in cite.
//
//   - a backslash becomes \\
//   - tab, newline and carriage return become \t, \n and \r
//   - each byte that is not part of valid UTF-8, and each byte of another
//     control character (C0, DEL, C1), of U+2028 and U+2029 (line and
//     paragraph separators) and of an invisible format character (the
//     bidirectional marks, embeddings, overrides and isolates, the
//     zero-width space, ...: [escape.Hidden]), becomes \xNN in lower-case
//     hex
//
// Everything else is kept, so a path that is valid UTF-8 without a backslash
// or control character is returned unchanged. (Stored paths use forward
// slashes on every system, so a backslash in one is part of a name.)
func EscapePath(p string) string { return escape.Path(p) }

// UnescapePath undoes [EscapePath]. A string without a backslash is returned
// unchanged; a backslash not followed by one of the escapes EscapePath
// writes is an error.
func UnescapePath(s string) (string, error) { return escape.UnescapePath(s) }

// documentJSON is Document without its methods, for encoding/json.
type documentJSON Document

// MarshalJSON writes the document with its path escaped by [EscapePath], so
// that a path that is not UTF-8 survives as JSON (encoding/json would
// replace its bad bytes with U+FFFD).
func (d Document) MarshalJSON() ([]byte, error) {
	j := documentJSON(d)
	j.Path = EscapePath(d.Path)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, unescaping the path.
func (d *Document) UnmarshalJSON(data []byte) error {
	var j documentJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	p, err := UnescapePath(j.Path)
	if err != nil {
		return err
	}
	j.Path = p
	*d = Document(j)
	return nil
}

// problemJSON is Problem without its methods, for encoding/json.
type problemJSON Problem

// MarshalJSON writes the problem with its path escaped by [EscapePath], as
// [Document.MarshalJSON] does.
func (p Problem) MarshalJSON() ([]byte, error) {
	j := problemJSON(p)
	j.Path = EscapePath(p.Path)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, unescaping the path.
func (p *Problem) UnmarshalJSON(data []byte) error {
	var j problemJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	path, err := UnescapePath(j.Path)
	if err != nil {
		return err
	}
	j.Path = path
	*p = Problem(j)
	return nil
}
