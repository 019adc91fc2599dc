package extractive

import (
	"bytes"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// locate finds the sentence passage[start:end] in raw, the source bytes of
// the passage, and returns its range in raw. Text copied verbatim (plain
// text, most Markdown) is found as is; otherwise the sentence's words are
// matched in order, skipping markup between them (Markdown emphasis and
// links, HTML tags), and the range runs from its first word to its last,
// with closing punctuation when the source has it. ok is false when the
// sentence cannot be placed with confidence. Character references
// ("cr&egrave;me", "&#233;") are read as the characters they stand for, and
// the range covers them whole.
func locate(raw []byte, passage string, start, end int) (s, e int, ok bool) {
	s, e, ok = locateIn(string(raw), passage, start, end)
	if ok || bytes.IndexByte(raw, '&') < 0 {
		return s, e, ok
	}
	dec, at := unescaped(raw)
	if s, e, ok = locateIn(dec, passage, start, end); !ok {
		return 0, 0, false
	}
	return at[s], at[e], true
}

// unescaped returns raw with its HTML character references replaced by
// the characters they stand for, and where each of its bytes (and its end)
// comes from in raw: a character's bytes from its reference's start, the
// end from where the next byte comes from.
func unescaped(raw []byte) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(raw)+1)
	for i := 0; i < len(raw); {
		if raw[i] == '&' {
			if j := bytes.IndexByte(raw[i:min(len(raw), i+40)], ';'); j > 1 && isRefName(raw[i+1:i+j]) {
				ref := string(raw[i : i+j+1])
				if u := html.UnescapeString(ref); u != ref {
					b.WriteString(u)
					for range len(u) {
						at = append(at, i)
					}
					i += j + 1
					continue
				}
			}
		}
		b.WriteByte(raw[i])
		at = append(at, i)
		i++
	}
	return b.String(), append(at, len(raw))
}

// isRefName reports whether b can be what a character reference holds
// between "&" and ";": a name, or "#" and digits.
func isRefName(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '#') {
			return false
		}
	}
	return true
}

// locateIn is locate in src.
func locateIn(src, passage string, start, end int) (s, e int, ok bool) {
	sent := passage[start:end]
	// Exact: the occurrence nearest to where the passage has it.
	want := 0
	if len(passage) > 0 {
		want = start * len(src) / len(passage)
	}
	bestDist := -1
	for off := 0; ; {
		i := strings.Index(src[off:], sent)
		if i < 0 {
			break
		}
		i += off
		if d := abs(i - want); bestDist < 0 || d < bestDist {
			s, e, bestDist = i, i+len(sent), d
		}
		off = i + 1
	}
	if bestDist >= 0 {
		return s, e, true
	}
	// Aligned: the words in order with bounded gaps.
	type span struct{ s, e int }
	var ws []span
	for i := 0; i < len(sent); {
		r, n := utf8.DecodeRuneInString(sent[i:])
		if isWordRune(r) {
			j := i + n
			for j < len(sent) {
				r2, n2 := utf8.DecodeRuneInString(sent[j:])
				if !isWordRune(r2) {
					break
				}
				j += n2
			}
			ws = append(ws, span{i, j})
			i = j
			continue
		}
		i += n
	}
	if len(ws) == 0 {
		return 0, 0, false
	}
	const maxGap = 300
	firstWord := sent[ws[0].s:ws[0].e]
	bestMiss := len(ws)
	for off := 0; off < len(src); {
		i := indexWord(src, firstWord, off, len(src))
		if i < 0 {
			break
		}
		pos, miss, last := i+len(firstWord), 0, i+len(firstWord)
		lastFound := true
		for k := 1; k < len(ws); k++ {
			w := sent[ws[k].s:ws[k].e]
			j := indexWord(src, w, pos, min(len(src), pos+maxGap))
			if j < 0 {
				miss++
				lastFound = false
				continue
			}
			pos, last, lastFound = j+len(w), j+len(w), true
		}
		// Fewest words missed, then the tightest: a sentence's words can
		// also be found in order from an earlier occurrence of its first.
		if lastFound && (miss < bestMiss || miss == bestMiss && last-i < e-s) {
			s, e, bestMiss = i, last, miss
		}
		off = i + 1
	}
	if bestMiss > len(ws)/10 {
		return 0, 0, false
	}
	// What the sentence has before its first word ("$Foo", "-Force"), as
	// the source has it, with the markup that opens it ("`$Foo` sets…",
	// "**Warning** …"); then the markup that closes the last word, and
	// the closing punctuation the sentence and the source both have.
	lead := sent[:ws[0].s]
	for lead != "" && s > 0 {
		r, n := utf8.DecodeLastRuneInString(lead)
		r2, n2 := utf8.DecodeLastRuneInString(src[:s])
		if r != r2 {
			if strings.IndexByte(markOpeners, src[s-1]) >= 0 {
				s--
				continue
			}
			break
		}
		if unicode.IsSpace(r) {
			break
		}
		lead, s = lead[:len(lead)-n], s-n2
	}
	if lead == "" {
		for s > 0 && strings.IndexByte(markOpeners, src[s-1]) >= 0 {
			s--
		}
	}
	tail := sent[ws[len(ws)-1].e:]
	for tail != "" && e < len(src) {
		r, n := utf8.DecodeRuneInString(tail)
		r2, n2 := utf8.DecodeRuneInString(src[e:])
		if r != r2 {
			if e2 := closingMarkup(src, e); e2 > e {
				e = e2
				continue
			}
			break
		}
		if unicode.IsSpace(r) {
			break
		}
		tail, e = tail[n:], e+n2
	}
	if tail == "" {
		e = closingMarkup(src, e)
	}
	return s, e, true
}

// markOpeners open inline Markdown markup: emphasis, code, a link's text.
const markOpeners = "*_~`["

// closingMarkup returns where the inline Markdown markup that closes at
// src[e:] ends: emphasis and code marks, and a link's "](…)" or "][…]"
// tail; e when there is none.
func closingMarkup(src string, e int) int {
	for e < len(src) {
		switch c := src[e]; {
		case c == '*' || c == '_' || c == '~' || c == '`':
			e++
		case c == ']':
			e++
			if e < len(src) && (src[e] == '(' || src[e] == '[') {
				closer := map[byte]byte{'(': ')', '[': ']'}[src[e]]
				j := strings.IndexByte(src[e:min(len(src), e+500)], closer)
				if j < 0 || strings.ContainsAny(src[e:e+j], "\n") {
					return e - 1
				}
				e += j + 1
			}
		default:
			return e
		}
	}
	return e
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// indexWord returns the first index ≥ from and < to of w in s as a whole
// word, or -1.
func indexWord(s, w string, from, to int) int {
	for from < to {
		i := strings.Index(s[from:to], w)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if (i == 0 || !isWordRune(before)) && (i+len(w) == len(s) || !isWordRune(after)) {
			return i
		}
		from = i + 1
	}
	return -1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
