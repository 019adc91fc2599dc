package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is one sentence of a passage.
type sentence struct {
	text       string // trimmed
	start, end int    // byte range of text in the passage
	line       int    // line of the passage the sentence is on
	fragment   bool   // cut by the passage's start or end
	heading    bool   // a short line without closing punctuation
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true,
	"prof": true, "rev": true, "gen": true, "col": true, "lt": true, "capt": true, "sgt": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "approx": true,
	"no": true, "nos": true, "vol": true, "fig": true, "co": true, "inc": true, "ltd": true, "corp": true,
	"mt": true, "ft": true, "ca": true, "c": true, "u.s": true, "u.k": true, "a.d": true, "b.c": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// splitSentences cuts a passage into sentences: at line breaks, and after
// ".", "!", "?" or "…" (with any closing quotes or brackets) followed by
// white space and a sentence start, except after an abbreviation or an
// initial; after "。", "！" and "？" always.
//
// A run of more than maxSentenceWords words without an end (a transcript
// without punctuation, a long line of words) is cut into pieces of at most
// pieceWords, after a comma, semicolon or colon where one ends a piece's
// second half, else between words: each piece is a fragment of a sentence
// and citable, so that an answer quotes the piece that holds the question's
// words rather than the whole run.
func splitSentences(text string) []sentence {
	var out []sentence
	line := 0
	var add func(start, end int)
	addOne := func(start, end int, piece bool) {
		for start < end {
			r, n := utf8.DecodeRuneInString(text[start:])
			if !unicode.IsSpace(r) {
				break
			}
			start += n
		}
		for end > start {
			r, n := utf8.DecodeLastRuneInString(text[:end])
			if !unicode.IsSpace(r) {
				break
			}
			end -= n
		}
		if start == end {
			return
		}
		s := sentence{text: text[start:end], start: start, end: end, line: line}
		first, _ := utf8.DecodeRuneInString(s.text)
		last, _ := utf8.DecodeLastRuneInString(s.text)
		closed := closes(s.text)
		if (start == 0 && unicode.IsLower(first)) || (end == len(text) && !closed) {
			s.fragment = true
		}
		// A line without closing punctuation is no sentence: a heading, a
		// line of code. But a list item or a sentence cut by the passage's
		// end of ten words or more is. Nor is a table row, or a line of
		// fewer than four words ("PRAGMA journal_mode=WAL;"), unless it is
		// CJK text, which has no spaces between words.
		n := len(strings.Fields(s.text))
		cjk := strings.ContainsRune("。！？", last)
		if (n < 4 && !cjk) || (!closed && (n < 10 || (end < len(text) && marker(s.text) < 0))) || tableRow(text, start, end) {
			s.heading = true
		}
		if piece {
			s.fragment, s.heading = true, tableRow(text, start, end)
		}
		out = append(out, s)
	}
	add = func(start, end int) {
		if !runOn(text[start:end]) {
			addOne(start, end, false)
			return
		}
		for _, p := range pieces(text[start:end]) {
			addOne(start+p[0], start+p[1], true)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			add(start, i)
			start = i + n
			line++
		case r == '。' || r == '！' || r == '？':
			j := skipClosers(text, i+n)
			add(start, j)
			start = j
			i = j
			continue
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := skipClosers(text, i+n)
			if endsSentence(text, start, i, j, r) {
				add(start, j)
				start = j
				i = j
				continue
			}
		}
		i += n
	}
	add(start, len(text))
	return out
}

// A sentence of more than maxSentenceWords words is a run-on, cut into
// pieces of at most pieceWords. The longest sentence of SQuAD's articles
// has 142 words (its 99th percentile 71).
const (
	maxSentenceWords = 150
	pieceWords       = 40
)

// runOn reports whether s has more than maxSentenceWords words.
func runOn(s string) bool {
	n := 0
	in := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
			continue
		}
		if !in {
			in = true
			if n++; n > maxSentenceWords {
				return true
			}
		}
	}
	return false
}

// pieces cuts s, a run-on, into byte ranges of at most pieceWords words
// each, after a word ending in ",", ";" or ":" in a piece's second half
// when there is one.
func pieces(s string) [][2]int {
	var words [][2]int // each word's range
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			words = append(words, [2]int{start, i})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, [2]int{start, len(s)})
	}
	var out [][2]int
	for i := 0; i < len(words); {
		j := min(i+pieceWords, len(words)) // the piece is words[i:j]
		if j < len(words) {
			for k := j - 1; k >= i+pieceWords/2; k-- {
				if last := s[words[k][1]-1]; last == ',' || last == ';' || last == ':' {
					j = k + 1
					break
				}
			}
		}
		out = append(out, [2]int{words[i][0], words[j-1][1]})
		i = j
	}
	return out
}

// closes reports whether text ends with closing punctuation, before a
// footnote mark ("….[citation needed]", "….[1]", and a raised number as a
// PDF's text has it: "….²", "….2" after a word, not "version 1.2").
func closes(text string) bool {
	if strings.HasSuffix(text, "]") {
		if i := strings.LastIndexByte(text, '['); i > 0 {
			text = strings.TrimSpace(text[:i])
		}
	}
	if body, ok := raisedMark(text); ok {
		text = body
	}
	last, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".!?…。！？:;\"'”’)", last)
}

// raisedMark returns text without the footnote marker of one to three
// digits that ends it after closing punctuation, as a PDF's or a
// superscript's text has it ("…a green one.2", "…one.²", "…one.²³"), and
// whether it had one. Digits after a period between digits are a number
// ("version 1.2", "costs 3.50").
func raisedMark(text string) (string, bool) {
	end := len(text)
	for n := 0; end > 0; n++ {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if !isMarkDigit(r) {
			break
		}
		if n == 3 {
			return text, false
		}
		end -= size
	}
	if end == len(text) || end == 0 {
		return text, false
	}
	body := text[:end]
	p, size := utf8.DecodeLastRuneInString(body)
	if !strings.ContainsRune(".!?…:;\"'”’)", p) {
		return text, false
	}
	if before, _ := utf8.DecodeLastRuneInString(body[:len(body)-size]); p == '.' && unicode.IsDigit(before) {
		return text, false
	}
	return body, true
}

// isMarkDigit reports whether r is a digit of a footnote marker: an ASCII
// digit or a superscript one.
func isMarkDigit(r rune) bool {
	return r >= '0' && r <= '9' || r == '¹' || r == '²' || r == '³' || r >= '⁰' && r <= '⁹'
}

// tableRow reports whether text[start:end] is on a line of a table, whose
// cells normalized text separates with " | ".
func tableRow(text string, start, end int) bool {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	le := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		le = end + i
	}
	line := text[ls:le]
	return strings.Contains(line, " | ") || strings.HasPrefix(line, "| ") || strings.HasSuffix(line, " |")
}

// tableHeader returns the header row of the table s is a row of (the
// first of the lines of the table before it), if s is a whole row and not
// the header itself.
func tableHeader(text string, s sentence) (string, bool) {
	ls := strings.LastIndexByte(text[:s.start], '\n') + 1
	le := len(text)
	if i := strings.IndexByte(text[s.end:], '\n'); i >= 0 {
		le = s.end + i
	}
	if strings.TrimSpace(text[ls:s.start]) != "" || strings.TrimSpace(text[s.end:le]) != "" || !tableRow(text, s.start, s.end) {
		return "", false
	}
	header := ""
	for ls > 0 {
		ps := strings.LastIndexByte(text[:ls-1], '\n') + 1
		line := text[ps : ls-1]
		if strings.TrimSpace(line) == "" || !tableRow(text, ps, ls-1) {
			break
		}
		header, ls = strings.TrimSpace(line), ps
	}
	return header, header != ""
}

// tableBelow returns where the table ends whose header row s is (a whole
// line of a table, the table's first, with rows below it).
func tableBelow(text string, s sentence) (end int, ok bool) {
	if !tableRow(text, s.start, s.end) {
		return 0, false
	}
	if _, isRow := tableHeader(text, s); isRow {
		return 0, false
	}
	ls := strings.LastIndexByte(text[:s.start], '\n') + 1
	if strings.TrimSpace(text[ls:s.start]) != "" {
		return 0, false
	}
	end = s.end
	for end < len(text) && text[end] == '\n' {
		next := end + 1
		le := len(text)
		if i := strings.IndexByte(text[next:], '\n'); i >= 0 {
			le = next + i
		}
		if strings.TrimSpace(text[next:le]) == "" || !tableRow(text, next, le) {
			break
		}
		end = le
	}
	return end, end > s.end
}

// rowText is a table's row as an answer gives it: each cell named by its
// column's header ("Bird: Albatross; Wingspan: 3.5 m"), or the row as it is
// when the two differ in their numbers of cells.
func rowText(header, row string) string {
	hs, cs := cells(header), cells(row)
	if len(hs) != len(cs) || len(cs) < 2 {
		return row
	}
	parts := make([]string, 0, len(cs))
	for i, c := range cs {
		switch {
		case c == "":
		case hs[i] == "":
			parts = append(parts, c)
		default:
			parts = append(parts, hs[i]+": "+c)
		}
	}
	return strings.Join(parts, "; ")
}

// cells splits a normalized table row at " | ".
func cells(row string) []string {
	row = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(row), "| "), " |"))
	cs := strings.Split(row, " | ")
	for i := range cs {
		cs[i] = strings.TrimSpace(cs[i])
	}
	return cs
}

func skipClosers(text string, j int) int {
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !strings.ContainsRune("\"')]”’»", r) {
			break
		}
		j += n
	}
	return j
}

// endsSentence reports whether the punctuation r at text[i] (closers up to
// j) ends the sentence that started at start.
func endsSentence(text string, start, i, j int, r rune) bool {
	if j == len(text) {
		return true
	}
	next, n := utf8.DecodeRuneInString(text[j:])
	if !unicode.IsSpace(next) {
		return false
	}
	k := j + n
	for k < len(text) {
		c, m := utf8.DecodeRuneInString(text[k:])
		if !unicode.IsSpace(c) || c == '\n' {
			break
		}
		k += m
	}
	if k < len(text) {
		c, _ := utf8.DecodeRuneInString(text[k:])
		if unicode.IsLower(c) { // "e.g. the", "approx. five"
			return false
		}
	}
	if r != '.' || j != i+1 {
		return true
	}
	// The word before the period: an abbreviation or an initial?
	w := i
	for w > start {
		c, m := utf8.DecodeLastRuneInString(text[:w])
		if !unicode.IsLetter(c) && c != '.' {
			break
		}
		w -= m
	}
	word := text[w:i]
	if word == "" {
		return true
	}
	if utf8.RuneCountInString(word) == 1 {
		c, _ := utf8.DecodeRuneInString(word)
		return !unicode.IsUpper(c) // "J. Smith"
	}
	return !abbreviations[strings.ToLower(word)]
}
