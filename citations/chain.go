package citations

// Chains. A model often joins its citations with words or punctuation:
// "[doc:1] and [doc:2]", "[doc:1], [doc:2]", "(see [doc:1]; [doc:2])". When
// one of them is dropped, the words that joined it to the others must go
// with it, or the answer reads "as shown in [1] and." or "()". So the
// scanner reads such a sequence as one chain: runs of adjacent groups
// (segments) joined by connectors, optionally enclosed in parentheses with a
// lead-in word. The sink shows the kept segments, each after the connector
// that preceded it in the text (the first kept one after none), and drops
// the rest; a chain of which nothing is kept goes with its parentheses and
// the white space before it.
//
// A connector is what joins two segments on one line and nothing else:
// white space, optionally one of connectorPunct, optionally one of connectorWords, and
// white space, in that order, with at least one of them. "[doc:1] and
// dogs" is prose, not a connector, and so is anything with a letter,
// period or line end in it that is not one of those words.
//
// A segment may be followed by a locator that belongs to it ("[doc:1]
// p. 4", "[doc:1], pp. 3-5"): white space or a comma, one of locatorWords
// and a number or range of numbers, where the locator ends: before the
// end of the text or line, a closing parenthesis, a punctuation mark that
// ends a clause, another group or a connector. A dropped segment takes its
// locator with it; a kept one shows it as written. "[doc:1] at 12 sites"
// has no locator: a word follows the number.

// maxChainLen bounds a chain: a segment that starts more than maxChainLen
// bytes after the chain does not join it, and parentheses that do not close
// within it do not enclose it. It bounds what a [Stream] holds back while a
// chain is undecided.
const maxChainLen = 1024

// connectorWords join two citations ("[doc:1] and [doc:2]"), matched
// without regard to ASCII case and followed by white space; a longer word
// comes before its prefix.
var connectorWords = []string{"and/or", "and", "or", "as well as", "&"}

// connectorPunct may join two citations, before a connector word if any:
// comma and semicolon, and their ideographic and full-width forms.
var connectorPunct = []string{",", ";", "、", "，", "；"}

// leadWords may open a parenthesized chain: "(see [doc:1])". So may a
// connector word: "(and [doc:1])".
var leadWords = []string{"see also", "see", "cf.", "e.g.,", "e.g."}

// locatorWords name a place in a cited source, before its number ("p. 4",
// "§ 2"), matched without regard to ASCII case; a longer word comes before
// its prefix. Those that end in a letter are followed by white space.
var locatorWords = []string{
	"pp.", "p.", "pages", "page", "§§", "§", "¶", "ch.", "chap.", "chapter", "sec.", "section",
	"para.", "lines", "line", "ll.", "l.", "slide", "fig.", "at",
}

// Opening and closing parentheses, ASCII and full-width.
const (
	parenWide      = "\uff08" // （
	parenWideClose = "\uff09" // ）
)

// matchWord reports whether b[j:] starts with w, ignoring ASCII case, and
// is followed by a space or tab. more reports that b ends before that is
// known and is not cut.
func matchWord(b []byte, j int, w string, cut bool) (ok, more bool) {
	for k := 0; k < len(w); k++ {
		if j+k == len(b) {
			return false, !cut
		}
		if lower(b[j+k]) != w[k] {
			return false, false
		}
	}
	if j+len(w) == len(b) {
		return false, !cut
	}
	return isWS(b[j+len(w)]), false
}

// skipSpace returns the offset of the first byte from b[j] that is not a
// space or tab.
func skipSpace(b []byte, j int) int {
	for j < len(b) && isWS(b[j]) {
		j++
	}
	return j
}

// matchAny returns the offset after the first of words matched at b[j] and
// the white space after it, or j.
func matchAny(b []byte, j int, words []string, cut bool) (end int, more bool) {
	for _, w := range words {
		ok, more := matchWord(b, j, w, cut)
		if more {
			return j, true
		}
		if ok {
			return skipSpace(b, j+len(w)), false
		}
	}
	return j, false
}

// connectorAt returns the offset after the connector that starts at b[i],
// where the next segment's first group would start, or -1 if b[i] starts
// no connector followed by an open bracket. b ends at the chain's limit;
// cut reports that the input goes no further than b or is complete.
func connectorAt(b []byte, i int, cut bool) (end int, more bool) {
	n := len(b)
	j := skipSpace(b, i)
	if j-i > maxSpaceRun { // a long run of white space is text (see inline)
		return -1, false
	}
	if j == n {
		return -1, !cut
	}
	for _, p := range connectorPunct {
		ok, more := hasPrefix(b, j, p, cut)
		if more {
			return -1, true
		}
		if ok {
			j = skipSpace(b, j+len(p))
			break
		}
	}
	j, more = matchAny(b, j, connectorWords, cut)
	if more {
		return -1, true
	}
	if j == i {
		return -1, false
	}
	if j == n {
		return -1, !cut
	}
	if !opener(b[j]) {
		return -1, false
	}
	return j, false
}

// hasPrefix reports whether b[j:] starts with p; more if b ends before
// that is known and is not cut.
func hasPrefix(b []byte, j int, p string, cut bool) (ok, more bool) {
	for k := 0; k < len(p); k++ {
		if j+k == len(b) {
			return false, !cut
		}
		if b[j+k] != p[k] {
			return false, false
		}
	}
	return true, false
}

// parenAt returns the width of the opening parenthesis at b[i], 0 if there
// is none.
func parenAt(b []byte, i int, cut bool) (w int, more bool) {
	if b[i] == '(' {
		return 1, false
	}
	ok, more := hasPrefix(b, i, parenWide, cut)
	if ok {
		return len(parenWide), false
	}
	return 0, more
}

// leadIn returns the offset of the first group of a chain in parentheses
// whose content starts at b[j], after white space and a lead word, or -1 if
// no open bracket follows them.
func leadIn(b []byte, j int, cut bool) (start int, more bool) {
	j = skipSpace(b, j)
	k, more := matchAny(b, j, leadWords, cut)
	if more {
		return -1, true
	}
	if k == j {
		if k, more = matchAny(b, j, connectorWords, cut); more {
			return -1, true
		}
	}
	j = k
	if j == len(b) {
		return -1, !cut
	}
	if !opener(b[j]) {
		return -1, false
	}
	return j, false
}

// closeAt returns the offset after the parenthesis, matching open, that
// closes a chain ending at b[i] after white space, or -1.
func closeAt(b []byte, i int, open []byte, cut bool) (end int, more bool) {
	want := ")"
	if string(open) == parenWide {
		want = parenWideClose
	}
	j := skipSpace(b, i)
	ok, more := hasPrefix(b, j, want, cut)
	if !ok {
		return -1, more
	}
	return j + len(want), false
}

// locatorAt returns the offset after the locator that starts at b[i], right
// after a segment, or -1 if there is none (see the top of this file). eof
// reports that b ends where the input ends.
func locatorAt(b []byte, i int, cut, eof bool) (end int, more bool) {
	n := len(b)
	j := i
	if j < n && (b[j] == ',' || isWS(b[j])) {
		if b[j] == ',' {
			j++
		}
		j = skipSpace(b, j)
	}
	if j == i || j-i > maxSpaceRun+1 {
		return -1, false
	}
	if j == n {
		return -1, !cut
	}
	word := false
	for _, w := range locatorWords {
		ok, more := hasPrefixFold(b, j, w, cut)
		if more {
			return -1, true
		}
		if !ok {
			continue
		}
		k := j + len(w)
		if c := w[len(w)-1]; 'a' <= c && c <= 'z' {
			if k == n {
				return -1, !cut
			}
			if !isWS(b[k]) {
				continue
			}
		}
		j, word = skipSpace(b, k), true
		break
	}
	if !word {
		return -1, false
	}
	j, more = numberAt(b, j, cut)
	if j < 0 || more {
		return -1, more
	}
	k := skipSpace(b, j)
	if k == n && !cut {
		return -1, true
	}
	w, more := dashAt(b, k, cut)
	if more {
		return -1, true
	}
	if w > 0 {
		e, more := numberAt(b, skipSpace(b, k+w), cut)
		if more {
			return -1, true
		}
		if e >= 0 {
			j = e
		}
	}
	ok, more := locatorEnds(b, j, cut, eof)
	if !ok || more {
		return -1, more
	}
	return j, false
}

// numberAt returns the offset after the number at b[j], digits with
// optional dotted parts ("2.3"), or -1.
func numberAt(b []byte, j int, cut bool) (end int, more bool) {
	n := len(b)
	if j == n {
		return -1, !cut
	}
	if !isDigit(b[j]) {
		return -1, false
	}
	for {
		for j < n && isDigit(b[j]) {
			j++
		}
		if j == n {
			return j, !cut
		}
		if b[j] != '.' {
			return j, false
		}
		if j+1 == n {
			return -1, !cut
		}
		if !isDigit(b[j+1]) {
			return j, false
		}
		j++
	}
}

// dashAt returns the width of the hyphen, en or em dash at b[k] that
// joins a range of numbers, 0 if there is none.
func dashAt(b []byte, k int, cut bool) (w int, more bool) {
	for _, d := range []string{"-", "–", "—"} {
		ok, more := hasPrefix(b, k, d, cut)
		if more {
			return 0, true
		}
		if ok {
			return len(d), false
		}
	}
	return 0, false
}

// locatorEnds reports whether a locator may end at b[j]: what follows it,
// after white space, is the end of the text or line, a closing parenthesis,
// another group, a connector, or a punctuation mark that ends a clause
// (followed by white space, a line end or a closing parenthesis).
func locatorEnds(b []byte, j int, cut, eof bool) (ok, more bool) {
	n := len(b)
	k := skipSpace(b, j)
	if k == n {
		return eof, !cut
	}
	switch c := b[k]; {
	case c == '\n' || c == '\r' || c == ')' || opener(c):
		return true, false
	case sentencePunct(c):
		if k+1 == n {
			return eof, !cut
		}
		d := b[k+1]
		return isWS(d) || d == '\n' || d == '\r' || d == ')', false
	}
	if ok, more := hasPrefix(b, k, parenWideClose, cut); ok || more {
		return ok, more
	}
	e, more := connectorAt(b, j, cut)
	return e >= 0, more
}

// hasPrefixFold is [hasPrefix] without regard to ASCII case; p is lower
// case.
func hasPrefixFold(b []byte, j int, p string, cut bool) (ok, more bool) {
	for k := 0; k < len(p); k++ {
		if j+k == len(b) {
			return false, !cut
		}
		if lower(b[j+k]) != p[k] {
			return false, false
		}
	}
	return true, false
}
