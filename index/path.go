package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A document's Path is the file's name as the operating system gives it: raw
// bytes, which need not be UTF-8 and may hold control characters such as a
// newline. The index stores those bytes, so the file can be read again, and
// everything that shows a path to a person or writes it as JSON shows it
// through [EscapePath], which [UnescapePath] undoes.

// EscapePath returns p as valid UTF-8 without control characters, reversibly:
//
//   - a backslash becomes \\
//   - tab, newline and carriage return become \t, \n and \r
//   - each byte that is not part of valid UTF-8, and each byte of another
//     control character (C0, DEL, C1), of U+2028 and U+2029 (line and
//     paragraph separators) and of the bidirectional formatting characters
//     (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), becomes \xNN in
//     lower-case hex
//
// Everything else is kept, so a path that is valid UTF-8 without a backslash
// or control character is returned unchanged. (Stored paths use forward
// slashes on every system, so a backslash in one is part of a name.)
func EscapePath(p string) string {
	i := 0
	for i < len(p) {
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == '\\' || mustEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	b.WriteString(p[:i])
	for i < len(p) {
		r, n := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case mustEscape(r, n):
			for k := range n {
				fmt.Fprintf(&b, `\x%02x`, p[i+k])
			}
		default:
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	return b.String()
}

// mustEscape reports whether rune r, decoded from n bytes, is escaped as
// bytes.
func mustEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1: // not UTF-8
		return true
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// errBadEscape is the error of a string [UnescapePath] cannot undo.
var errBadEscape = errors.New(`bad escape (want \\, \t, \n, \r or \xNN)`)

// UnescapePath undoes [EscapePath]. A string without a backslash is returned
// unchanged; a backslash not followed by one of the escapes EscapePath
// writes is an error.
func UnescapePath(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("unescape path %q: %w", s, errBadEscape)
		}
		i++
		switch s[i] {
		case '\\':
			b = append(b, '\\')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 'x':
			hi, ok1 := unhex(s, i+1)
			lo, ok2 := unhex(s, i+2)
			if !ok1 || !ok2 {
				return "", fmt.Errorf("unescape path %q: %w", s, errBadEscape)
			}
			b = append(b, hi<<4|lo)
			i += 2
		default:
			return "", fmt.Errorf("unescape path %q: %w", s, errBadEscape)
		}
	}
	return string(b), nil
}

func unhex(s string, i int) (byte, bool) {
	if i >= len(s) {
		return 0, false
	}
	switch c := s[i]; {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

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
