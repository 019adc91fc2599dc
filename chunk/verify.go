package chunk

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Verify checks that chunks are a correct split of text by this Splitter:
// every guarantee listed in the package documentation, with each chunk's
// tokens counted again on its own. It returns the first violation found.
func (s *Splitter) Verify(text string, chunks []Chunk) error {
	if text == "" {
		if len(chunks) != 0 {
			return fmt.Errorf("empty text has %d chunks", len(chunks))
		}
		return nil
	}
	if len(chunks) == 0 {
		return errors.New("no chunks")
	}
	valid := utf8.ValidString(text)
	end := 0          // where the text rebuilt from the chunks ends
	var long [][2]int // pieces over longPiece bytes, found when needed
	afterLong := func(p int) bool {
		if long == nil {
			long = longPieces(text)
		}
		for _, l := range long {
			if l[0] < p && p == l[1] {
				return true
			}
		}
		return false
	}
	for i, c := range chunks {
		switch {
		case c.Ordinal != i:
			return fmt.Errorf("chunk %d has ordinal %d", i, c.Ordinal)
		case c.Start < 0 || c.End > len(text) || c.Start >= c.End:
			return fmt.Errorf("chunk %d span [%d,%d) out of bounds (text is %d bytes)", i, c.Start, c.End, len(text))
		case c.Text != text[c.Start:c.End]:
			return fmt.Errorf("chunk %d text differs from text[%d:%d]", i, c.Start, c.End)
		case !charBoundary(text, c.Start) || !charBoundary(text, c.End):
			return fmt.Errorf("chunk %d [%d,%d) cuts a UTF-8 character", i, c.Start, c.End)
		case valid && !utf8.ValidString(c.Text):
			return fmt.Errorf("chunk %d is not valid UTF-8", i)
		}
		if n := s.tok.Count(c.Text); n != c.Tokens {
			return fmt.Errorf("chunk %d: Tokens = %d, its text encodes to %d", i, c.Tokens, n)
		}
		if c.Tokens > s.size {
			return fmt.Errorf("chunk %d has %d tokens, limit %d", i, c.Tokens, s.size)
		}
		if i == 0 {
			if c.Start != 0 {
				return fmt.Errorf("first chunk starts at %d", c.Start)
			}
			end = c.End
			continue
		}
		p := chunks[i-1]
		switch {
		case c.Start <= p.Start || c.End <= p.End:
			return fmt.Errorf("chunk %d [%d,%d) does not move past chunk %d [%d,%d) (redundant)", i, c.Start, c.End, i-1, p.Start, p.End)
		case c.Start > p.End:
			return fmt.Errorf("gap between chunk %d (ends %d) and %d (starts %d)", i-1, p.End, i, c.Start)
		case s.overlap > 0 && c.Start == p.End && !afterLong(p.End):
			return fmt.Errorf("chunks %d and %d do not overlap", i-1, i)
		}
		if ov := s.tok.Count(text[c.Start:p.End]); ov > s.overlap && !oneChar(text[c.Start:p.End]) {
			return fmt.Errorf("chunks %d and %d overlap by %d tokens, overlap is %d", i-1, i, ov, s.overlap)
		}
		end = c.End
	}
	if end != len(text) {
		return fmt.Errorf("last chunk ends at %d, text is %d bytes", end, len(text))
	}
	return nil
}

// oneChar reports whether s is a single character (or invalid byte).
func oneChar(s string) bool {
	_, n := utf8.DecodeRuneInString(s)
	return n == len(s)
}

// longPieces returns the spans of text's pieces (as Tokenizer cuts them)
// longer than longPiece bytes: after one, consecutive chunks need not
// overlap.
func longPieces(text string) [][2]int {
	out := [][2]int{}
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			if e-i > longPiece {
				out = append(out, [2]int{i, e})
			}
			i = e
		}
	}
	return out
}
