// Package escape is how cite shows text it did not write (file names,
// document text, titles, a model's answer) without letting it act on the
// reader's terminal or hide from the reader: [Path] escapes a file name
// reversibly, for tables, messages and JSON; [Text] and [Writer] make the
// characters of document text that a terminal would act on, or that would
// not show, visible.
//
// Both escape the same characters ([Hidden]): control characters (C0, DEL,
// C1), the line and paragraph separators, and the invisible format
// characters (Unicode category Cf), which include the bidirectional marks,
// embeddings, overrides and isolates that reorder what a line shows, the
// zero-width space and the tag characters. The soft hyphen and the
// zero-width joiner and non-joiner are kept: they only shape the text
// around them, and scripts and emoji need them.
//
// Stage: presentation. Imports: the standard library only, so that every
// package that shows or serializes such text (index, citations, search,
// the server, cmd/cite) can use the one definition.
package escape

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether r is escaped by [Path] and [Text]: a control
// character, U+2028 or U+2029, or a format character (category Cf) other
// than the soft hyphen (U+00AD), the zero-width non-joiner (U+200C) and the
// zero-width joiner (U+200D).
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r < 0xad:
		return false
	case r == '\u00ad', r == '\u200c', r == '\u200d':
		return false
	case r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// hiddenAt reports whether the rune r, decoded from n bytes, is escaped:
// invalid UTF-8 (a single byte decoded as U+FFFD) or [Hidden].
func hiddenAt(r rune, n int) bool {
	return r == utf8.RuneError && n == 1 || Hidden(r)
}

// Path returns p as valid UTF-8 without [Hidden] characters, reversibly:
//
//   - a backslash becomes \\
//   - tab, newline and carriage return become \t, \n and \r
//   - each byte that is not part of valid UTF-8, and each byte of another
//     Hidden character, becomes \xNN in lower-case hex
//
// Everything else is kept, so a path that is valid UTF-8 without a
// backslash or Hidden character is returned unchanged. [UnescapePath]
// undoes it.
func Path(p string) string {
	i := 0
	for i < len(p) {
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == '\\' || hiddenAt(r, n) {
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
		case hiddenAt(r, n):
			for k := range n {
				writeByte(&b, p[i+k])
			}
		default:
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// writeByte writes c as \xNN.
func writeByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

// errBadEscape is the error of a string [UnescapePath] cannot undo.
var errBadEscape = errors.New(`bad escape (want \\, \t, \n, \r or \xNN)`)

// UnescapePath undoes [Path]. A string without a backslash is returned
// unchanged; a backslash not followed by one of the escapes Path writes is
// an error.
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

// Text returns s with each [Hidden] character other than newline and tab
// made visible, for a terminal:
//
//   - a carriage return becomes \r
//   - another ASCII control character (C0 or DEL) becomes \xNN, so the
//     escape that starts a terminal's control sequences shows as \x1b
//   - another Hidden character becomes \uNNNN (\U00NNNNNN above U+FFFF), so
//     a right-to-left override shows as \u202e
//   - a byte that is not part of valid UTF-8 becomes \xNN
//
// Newline and tab are kept, for layout. Unlike [Path], Text is not
// reversible: a backslash is kept as it is, so text such as code reads as
// written. A string with nothing to escape is returned unchanged.
func Text(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' { // the common case
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hiddenAt(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	appendText(&b, s[i:])
	return b.String()
}

// appendText writes s to b as [Text] returns it.
func appendText(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\t' || !hiddenAt(r, n):
			b.WriteString(s[i : i+n])
		case r == '\r':
			b.WriteString(`\r`)
		case n == 1: // ASCII control or invalid UTF-8
			writeByte(b, s[i])
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
		i += n
	}
}

// Writer writes to an underlying writer what [Text] returns for the bytes
// written to it, across writes: a character split between two writes (the
// chunks of a streamed answer) is held back until it is whole, then escaped
// or kept whole. An escape sequence split between writes is harmless, as
// each of its control characters is escaped by itself. Call Flush when the
// stream ends, to write an incomplete character left at its end (escaped,
// as bytes).
type Writer struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence that ended the last write
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p, escaped, except an incomplete character at its end. It
// returns len(p) unless the underlying writer fails.
func (t *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.tail) > 0 {
		p = append(append(make([]byte, 0, len(t.tail)+len(p)), t.tail...), p...)
		t.tail = t.tail[:0]
	}
	cut := len(p)
	for k := 1; k < utf8.UTFMax && k <= len(p); k++ {
		if utf8.RuneStart(p[len(p)-k]) {
			if !utf8.FullRune(p[len(p)-k:]) {
				cut = len(p) - k
			}
			break
		}
	}
	s := Text(string(p[:cut]))
	t.tail = append(t.tail, p[cut:]...)
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return n, nil
}

// WriteString is Write of a string.
func (t *Writer) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

// Flush writes the incomplete character held back, if any, escaped as
// bytes that are not UTF-8.
func (t *Writer) Flush() error {
	if len(t.tail) == 0 {
		return nil
	}
	s := Text(string(t.tail))
	t.tail = t.tail[:0]
	_, err := io.WriteString(t.w, s)
	return err
}
