package citations

import "bytes"

// The scanner turns a model's output into final text pieces and marker runs,
// left to right, over input that may arrive in pieces. [Render], [Stream] and
// [Parse] all drive it, so they agree on what is a marker: a streamed
// rendering equals the rendering of the whole text for every split of the
// input.
//
// It follows CommonMark's block structure, which decides what is code:
// container blocks (block quotes and list items, each line continuing those
// it can and lazily continuing an open paragraph otherwise), fenced code
// blocks (``` and ~~~, closed by a matching fence indented at most three
// columns, or by the end of their container: fenced code has no lazy
// continuation), indented code blocks (four columns past the container's
// content, not continuing a paragraph) and inline code spans (a backtick run
// closed by a run of the same length in the same paragraph). A backtick run that is never closed is
// literal text, as in CommonMark, so text after it is only known to be
// outside a code span when the paragraph ends. The scanner handles this with
// a checkpoint: it continues as if the span were code, holds back output from
// the first possible marker on, and, if the paragraph ends before the span
// closes, returns to the checkpoint and scans the text again as not code.
//
// Output is only ever held back for a marker that may still be forming (a
// partial group, white space that would be removed with a dropped group, the
// byte after a group), for a line start that is not yet classified, and for
// possible markers inside a code span that is not yet closed.

// maxDepth bounds the nesting of block quotes and list items the scanner
// tracks; deeper containers are treated as part of the innermost one.
const maxDepth = 32

// maxSpaceRun bounds the white space held back before a possible chain: a
// run of more spaces and tabs than this is text, never removed with a
// dropped chain, and a stream passes it on as it comes.
const maxSpaceRun = 256

type lineKind uint8

const (
	lineText     lineKind = iota // paragraph, list item, table row: scanned for markers
	lineHeading                  // ATX heading: scanned; a single-line block
	lineVerbatim                 // code, fence info string, thematic break: copied to the line end
)

// container is an open block quote or list item, as in CommonMark's block
// structure: a line continues it if it starts with ">" (a block quote) or is
// indented at least width columns past the enclosing container's content (a
// list item), or, for a list item with content, is blank.
type container struct {
	width int  // list item: columns from the enclosing content to this item's content
	quote bool // a block quote, else a list item
	child bool // list item: it has content, so a blank line does not end it
}

// state is what the scanner knows about the text so far. It is a plain value
// so that a checkpoint is a copy.
type state struct {
	atLineStart bool     // the next byte starts a line
	kind        lineKind // kind of the current line
	para        bool     // a paragraph is open
	fence       byte     // '`' or '~' inside a fenced code block, else 0
	fenceLen    int
	fenceCol    int // column of the opening fence
	nc          int // open containers
	cs          [maxDepth]container
	span        int // length of the backtick run of an open code span

	// A mirror of the output of the current line's content, for deciding
	// whether removing a dropped run would glue text into new syntax.
	content    bool // some output content on this line
	structOnly bool // that content has only block-structure characters
	bsOdd      bool // it ends in an odd number of backslashes
	ntail      int
	tail       [2 * maxGroupLen]byte // the last maxGroupLen to 2*maxGroupLen bytes
}

// inQuote reports whether a block quote is open.
func (st *state) inQuote() bool {
	for _, c := range st.cs[:st.nc] {
		if c.quote {
			return true
		}
	}
	return false
}

// inSpaceRun reports whether the line's output content ends in white
// space, which only a run longer than maxSpaceRun, taken as text, leaves
// (see inline).
func (st *state) inSpaceRun() bool {
	t := st.lastContent()
	return len(t) > 0 && isWS(t[len(t)-1])
}

func (st *state) resetLine() {
	st.content, st.structOnly, st.bsOdd, st.ntail = false, true, false, 0
}

// push records p as output content of the current line.
func (st *state) push(p []byte) {
	if len(p) == 0 {
		return
	}
	st.content = true
	if st.structOnly {
		for _, c := range p {
			if !isStruct(c) {
				st.structOnly = false
				break
			}
		}
	}
	t := 0
	for t < len(p) && p[len(p)-1-t] == '\\' {
		t++
	}
	if t == len(p) {
		st.bsOdd = st.bsOdd != (t%2 == 1)
	} else {
		st.bsOdd = t%2 == 1
	}
	if len(p) >= maxGroupLen {
		st.ntail = copy(st.tail[:], p[len(p)-maxGroupLen:])
		return
	}
	if st.ntail+len(p) > len(st.tail) { // keep the last maxGroupLen bytes
		st.ntail = copy(st.tail[:], st.tail[st.ntail-maxGroupLen:st.ntail])
	}
	st.ntail += copy(st.tail[st.ntail:], p)
}

// lastContent returns the last bytes of output content on the line, at
// least maxGroupLen of them if there are that many.
func (st *state) lastContent() []byte { return st.tail[:st.ntail] }

type checkpoint struct {
	st  state
	pos int
}

// sink receives the scanner's final output in order.
type sink interface {
	// text receives text to copy to the output; code says it is in a code
	// span or block. p is only valid during the call.
	text(p []byte, code bool)
	// run renders or drops a run of adjacent marker groups and reports
	// whether anything of it was kept. The byte slices in r are only valid
	// during the call.
	run(r *run) bool
}

// group is one bracket group of a run.
type group struct {
	span        Span   // in the input
	raw         []byte // the group as written
	first, last int    // its items: run.items[first:last]
	malformed   bool
	bare        bool // a bracketed number, not a marker
}

// run is a chain of marker groups (see chain.go): segments, each a maximal
// sequence of adjacent groups such as "[doc:1][doc:2, doc:3]", joined by
// connectors such as " and ", possibly in parentheses.
type run struct {
	ws     []byte // white space before the chain on the same line; output only if kept
	open   []byte // an opening parenthesis and any lead word up to the first group
	close  []byte // white space and the closing parenthesis
	trail  []byte // white space after a chain at the start of a line; output only if kept
	groups []group
	segs   []segment
	items  []int
	sep    string // if nothing is kept, write this instead of nothing
	kept   []bool // set by the sink: which segments it kept
}

// segment is a run of adjacent groups within a chain: groups[first:last].
type segment struct {
	first, last int
	conn        []byte // the connector before it; empty for the first
	loc         []byte // a locator after it, with the space or comma before it
}

// keptMark stands for a rendered citation in the line mirror.
var keptMark = []byte("[0]")

type scanner struct {
	sink    sink
	buf     []byte // input from absolute offset base
	base    int
	pos     int  // absolute offset of the next byte to scan
	final   bool // buf ends at the end of the input
	st      state
	ck      checkpoint // where an open code span started
	hasCk   bool
	hold    int // absolute offset from which output is held back, or -1
	emitted int // absolute offset up to which output was produced
	r       run
}

func newScanner(s sink, buf []byte) *scanner {
	sc := &scanner{}
	sc.init(s, buf)
	return sc
}

func (sc *scanner) init(s sink, buf []byte) {
	*sc = scanner{sink: s, buf: buf, hold: -1}
	sc.st.atLineStart = true
	sc.st.resetLine()
}

func (sc *scanner) end() int { return sc.base + len(sc.buf) }

// write appends p to the input, dropping input that is no longer needed.
func (sc *scanner) write(p []byte) {
	keep := sc.pos
	if sc.hasCk && sc.ck.pos < keep {
		keep = sc.ck.pos
	}
	if drop := keep - sc.base; drop > 0 && drop >= len(sc.buf)/2 {
		sc.buf = sc.buf[:copy(sc.buf, sc.buf[drop:])]
		sc.base = keep
	}
	sc.buf = append(sc.buf, p...)
}

// scan processes as much input as can be decided.
func (sc *scanner) scan() {
	for {
		if sc.pos == sc.end() {
			if sc.final && sc.st.span > 0 {
				sc.rollback() // the end of input ends the paragraph
				continue
			}
			return
		}
		var ok bool
		switch {
		case sc.st.atLineStart:
			ok = sc.lineStart()
		case sc.st.kind == lineVerbatim:
			ok = sc.verbatim()
		default:
			ok = sc.inline()
		}
		if !ok {
			return
		}
	}
}

// emit outputs input bytes [from, to), skipping what was output before a
// rollback and holding everything back while a hold is in place.
func (sc *scanner) emit(from, to int) {
	sc.emitAs(from, to, sc.st.kind == lineVerbatim && !sc.st.atLineStart || sc.st.span > 0)
}

// emitAs is emit with the output said to be code or not.
func (sc *scanner) emitAs(from, to int, code bool) {
	if sc.hold >= 0 || to <= sc.emitted {
		return
	}
	from = max(from, sc.emitted)
	sc.sink.text(sc.buf[from-sc.base:to-sc.base], code)
	sc.emitted = to
}

// take consumes n bytes of text that is not line content.
func (sc *scanner) take(n int) {
	sc.emit(sc.pos, sc.pos+n)
	sc.pos += n
}

// takeContent consumes n bytes of line content.
func (sc *scanner) takeContent(n int) {
	i := sc.pos - sc.base
	sc.st.push(sc.buf[i : i+n])
	sc.take(n)
}

func (sc *scanner) rollback() {
	sc.st = sc.ck.st
	sc.pos = sc.ck.pos
	sc.hold = -1
	sc.hasCk = false
}

// paraEnd ends the open paragraph. If a code span is open it was not a code
// span: paraEnd rolls back and reports true, and the caller must return
// without consuming anything.
func (sc *scanner) paraEnd() bool {
	if sc.st.span > 0 {
		sc.rollback()
		return true
	}
	return false
}

func (sc *scanner) verbatim() bool {
	b := sc.buf[sc.pos-sc.base:]
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		sc.take(j + 1)
		sc.st.atLineStart = true
		return true
	}
	sc.take(len(b))
	return true
}

var special = func() (t [256]bool) {
	for _, c := range []byte("\n`\\ \t[(,;:") {
		t[c] = true
	}
	t['&'], t[0xe3], t[0xef] = true, true, true // entities, 【, full-width ［
	return t
}()

// opensAt reports whether b[k] starts an open bracket as the marker grammar
// reads it ('[', '【', '［', "&#91;"); more means it cannot be known yet.
func (sc *scanner) opensAt(k int) (open, more bool) {
	b := sc.buf
	if k == len(b) {
		return false, !sc.final
	}
	if b[k] == '[' {
		return true, false
	}
	if !opener(b[k]) {
		return false, false
	}
	c, _, more := displayAt(b[:min(len(b), k+maxGroupLen)], k, sc.final || k+maxGroupLen < len(b))
	if more {
		return false, true
	}
	_, open = isOpener(c)
	return open, false
}

// chainAt reports whether b[k] may start a chain of markers: an open
// bracket or an opening parenthesis (see chain.go).
func (sc *scanner) chainAt(k int) (open, more bool) {
	if k < len(sc.buf) {
		w, more := parenAt(sc.buf, k, sc.final)
		if more {
			return false, true
		}
		if w > 0 {
			return true, false
		}
	}
	return sc.opensAt(k)
}

func (sc *scanner) inline() bool {
	st := &sc.st
	b := sc.buf
	n := len(b)
	i := sc.pos - sc.base
	j := i
	for j < n {
		if c := b[j]; special[c] {
			// A single space between words is plain text unless a bracket
			// follows it.
			if c != ' ' || j == i || j+1 == n || special[b[j+1]] {
				break
			}
		}
		j++
	}
	if j > i {
		sc.takeContent(j - i)
		return true
	}
	switch c := b[i]; c {
	case '\n':
		if st.kind == lineHeading && sc.paraEnd() {
			return true
		}
		sc.take(1)
		if st.kind == lineHeading {
			st.para = false
		}
		st.atLineStart = true
		return true

	case '`':
		k := i
		for k < n && b[k] == '`' {
			k++
		}
		if k == n && !sc.final {
			return false
		}
		m := k - i
		sc.takeContent(m)
		switch st.span {
		case 0: // open a code span; the checkpoint is the state if it is not one
			sc.ck = checkpoint{st: *st, pos: sc.pos}
			sc.hasCk = true
			st.span = m
			// Its content is held back until it is known to be code: text
			// after a backtick run never closed is not, and the link
			// filter must see it as text.
			sc.hold = sc.pos
		case m: // the span is closed: it was code
			st.span = 0
			sc.hasCk = false
			if h := sc.hold; h >= 0 {
				sc.hold = -1
				sc.emitAs(h, sc.pos, true)
			}
		}
		return true

	case '\\':
		if st.span > 0 { // no escapes in code
			sc.takeContent(1)
			return true
		}
		if i+1 == n {
			if !sc.final {
				return false
			}
			sc.takeContent(1)
			return true
		}
		// An escaped backtick is not a code span delimiter. A backslash
		// before a bracket does not stop a marker: "\[1]" shows as "[1]".
		if d := b[i+1]; d != '[' && isPunct(d) {
			sc.takeContent(2)
		} else {
			sc.takeContent(1)
		}
		return true

	case ' ', '\t':
		k := i
		for k < n && isWS(b[k]) {
			k++
		}
		if st.span == 0 && (!st.content || k-i > maxSpaceRun || st.inSpaceRun()) {
			// White space at the start of the content, or in a run
			// longer than maxSpaceRun, is never removed with a chain:
			// take it as it comes.
			if st.content {
				sc.takeContent(k - i)
			} else {
				sc.take(k - i)
			}
			return true
		}
		if st.span > 0 {
			if sc.hold < 0 {
				open, more := sc.opensAt(k)
				if more {
					return false
				}
				if open {
					sc.hold = sc.base + i
				}
			}
			sc.takeContent(k - i)
			return true
		}
		open, more := sc.chainAt(k)
		if more {
			return false
		}
		if open {
			return sc.tryRun(i, k)
		}
		sc.takeContent(k - i)
		return true

	case ',', ';', ':':
		// A mark before a chain goes into the chain's white space, so
		// that a dropped chain can take it when the mark after the
		// chain is stronger ("a, [doc:9]. b" shows as "a. b"; a
		// sentence end before a chain always stays, see punctAround).
		if st.span == 0 && st.content {
			k := i + 1
			for k < n && isWS(b[k]) && k-i <= maxSpaceRun {
				k++
			}
			if k-i-1 <= maxSpaceRun {
				open, more := sc.chainAt(k)
				if more {
					return false
				}
				if open {
					return sc.tryRun(i, k)
				}
			}
		}
		sc.takeContent(1)
		return true

	default: // '[', '(' or the first byte of '【', '（' or of another character
		if st.span == 0 {
			pw, more := parenAt(b, i, sc.final)
			if more {
				return false
			}
			if pw > 0 {
				return sc.tryRun(i, i)
			}
		}
		open, more := sc.opensAt(i)
		if more && (st.span == 0 || sc.hold < 0) {
			return false
		}
		if st.span > 0 {
			if open && sc.hold < 0 {
				sc.hold = sc.base + i
			}
			sc.takeContent(1)
			return true
		}
		if !open {
			sc.takeContent(1)
			return true
		}
		return sc.tryRun(i, i)
	}
}

// tryRun scans the chain of marker runs starting at b[g0], with white
// space from b[ws]: a run of adjacent groups (markers and bare numbers),
// then any further runs joined to it by connectors, the whole possibly in
// parentheses ("([doc:1], [doc:2])"; see chain.go).
func (sc *scanner) tryRun(ws, g0 int) bool {
	st := &sc.st
	b := sc.buf
	n := len(b)
	r := &sc.r
	r.groups, r.items, r.segs = r.groups[:0], r.items[:0], r.segs[:0]
	atStart := !st.content

	// The chain's limit: what it may span, so that a stream decides it
	// having seen at most that much.
	lim := g0 + maxChainLen
	cut := sc.final || lim <= n
	lb := b[:min(n, lim)]

	p := g0 // the first group
	pw, more := parenAt(b, g0, sc.final)
	if more {
		return false
	}
	if pw > 0 {
		if p, more = leadIn(lb, g0+pw, cut); more {
			return false
		}
		if p < 0 { // "(" followed by no group: text
			sc.takeContent(g0 + 1 - ws)
			return true
		}
	}
	i, last, more := sc.groupsAt(ws, g0, p, atStart)
	if more {
		return false
	}
	if len(r.groups) == 0 { // not a marker: the white space and the bracket are text
		sc.takeContent(g0 + 1 - ws)
		return true
	}
	r.segs = append(r.segs, segment{last: len(r.groups)})
	eof := sc.final && lim >= n
	for !last {
		e, more := locatorAt(lb, i, cut, eof)
		if more {
			return false
		}
		if e >= 0 { // "[doc:1] p. 4": the locator goes with its segment
			r.segs[len(r.segs)-1].loc = b[i:e]
			i = e
		}
		j, more := connectorAt(lb, i, cut)
		if more {
			return false
		}
		if j < 0 {
			break
		}
		ng := len(r.groups)
		e, l, more := sc.groupsAt(i, j, j, false)
		if more {
			return false
		}
		if len(r.groups) == ng {
			break
		}
		r.segs = append(r.segs, segment{first: ng, last: len(r.groups), conn: b[i:j]})
		i, last = e, l
	}
	r.open, r.close = nil, nil
	if pw > 0 {
		cb := b[:min(n, i+maxGroupLen)]
		e, more := closeAt(cb, i, b[g0:g0+pw], sc.final || i+maxGroupLen <= n)
		if more {
			return false
		}
		if e < 0 { // parentheses around more than the chain: text
			sc.takeContent(g0 + 1 - ws)
			return true
		}
		if e == n && !sc.final { // what follows decides the separator
			return false
		}
		r.open, r.close = b[g0:p], b[i:e]
		i = e
	}

	k := i
	if atStart { // a run at the start of a line takes the white space after it
		for k < n && isWS(b[k]) && k-i <= maxSpaceRun {
			k++
		}
		if k-i > maxSpaceRun { // a long run is text (see inline)
			k = i
		} else if k == n && !sc.final {
			return false
		}
	}
	next := -1
	if k < n {
		next = int(b[k])
	}
	r.ws, r.trail = b[ws:g0], b[i:k]
	if ws == g0 && pw == 0 && sc.afterWord() {
		// Kept, a run glued to a word ("dance[doc:1]") is set apart by a
		// space: "dance[1]" would read as an index, which a bare number in
		// that place is (see bareIsText), not as a citation.
		r.ws = space
	}
	if k == i && pw == 0 {
		// Nor is a kept run read as link syntax with what follows it:
		// "[1](x)" would be a link whose text is the citation (an external
		// one neutralized to "1 [link: x]", the number lost), "[1][x]" a
		// reference link, and "[1]: x" at a line start a link reference
		// definition, which hides its line and links every "[1]".
		switch {
		case next == '(' || next == '[':
			r.trail = space
		case next == ':' && atStart:
			r.trail = []byte(zwsp)
		}
	}
	// Dropped between two punctuation marks, the chain takes the weaker
	// one, so that no mark is doubled and no sentence end is lost:
	// "Paris, [doc:9], is" shows as "Paris, is", "a, [doc:9]. b" as
	// "a. b". A mark right before the chain is in its white space (see
	// inline); shown unless it is the one taken.
	var mark byte
	if ws < g0 && (b[ws] == ',' || b[ws] == ';' || b[ws] == ':') {
		mark = b[ws]
	}
	skip, dropMark, more := sc.punctAround(atStart, mark, k)
	if more {
		return false
	}
	sepNext := next
	if skip > 0 {
		sepNext = -1
		if k+skip < n {
			sepNext = int(b[k+skip])
		}
	}
	if mark != 0 && !dropMark {
		after := *st
		after.push(b[ws : ws+1])
		r.sep = string(mark) + separator(&after, atStart, sepNext)
	} else {
		r.sep = separator(st, atStart, sepNext)
	}
	if sc.emitted != sc.base+ws {
		panic("citations: internal error: run output out of order")
	}
	r.kept = r.kept[:0]
	kept := sc.sink.run(r)
	if !kept {
		k += skip
	}
	sc.emitted = sc.base + k
	sc.pos = sc.base + k
	switch {
	case kept:
		st.push(r.ws)
		st.push(r.open)
		first := true
		for x, s := range r.segs {
			if x < len(r.kept) && !r.kept[x] {
				continue
			}
			if !first {
				st.push(s.conn)
			}
			st.push(keptMark)
			st.push(s.loc)
			first = false
		}
		st.push(r.close)
		st.push(r.trail)
	case r.sep != "":
		st.push([]byte(r.sep))
	}
	return true
}

// punctAround decides the punctuation on both sides of a chain, should
// it be dropped: mark, the mark right before the chain (in its white
// space), or else the last byte of output, and the byte at b[k] after the
// chain. If both are of sentencePunct, each alone (not "..."), only the
// stronger one stays (see punctRank), the one before if they are equal; a
// ",", ";" or ":" after a chain right after an opening parenthesis goes,
// with the white space after it. skip is the number of bytes from b[k]
// that go, dropMark reports that mark goes (only a mark in the chain's
// white space can, and only after a byte that is no such mark: "e.g.,
// [doc:9]." keeps its comma). more reports that what follows the mark is
// not known yet.
func (sc *scanner) punctAround(atStart bool, mark byte, k int) (skip int, dropMark, more bool) {
	b := sc.buf
	if atStart || k >= len(b) || !sentencePunct(b[k]) {
		return 0, false, false
	}
	t := sc.st.lastContent()
	a := mark
	if a == 0 && punctRank(b[k]) < 3 && (bytes.HasSuffix(t, []byte("(")) || bytes.HasSuffix(t, []byte(parenWide))) {
		// Right after an opening parenthesis, a clause mark joined the
		// chain to what follows: "x ([doc:9], and more)".
		e := k + 1
		for e < len(b) && isWS(b[e]) && e-k-1 <= maxSpaceRun {
			e++
		}
		if e == len(b) && !sc.final {
			return 0, false, true
		}
		if e == k+1 && e < len(b) && b[e] == b[k] {
			return 0, false, false
		}
		if e-k-1 > maxSpaceRun {
			return 1, false, false
		}
		return e - k, false, false // and the white space after it
	}
	if a == 0 {
		if len(t) == 0 || !sentencePunct(t[len(t)-1]) {
			return 0, false, false
		}
		a, t = t[len(t)-1], t[:len(t)-1]
	}
	if len(t) > 0 && t[len(t)-1] == a {
		return 0, false, false
	}
	if k+1 == len(b) {
		if !sc.final {
			return 0, false, true
		}
	} else if b[k+1] == b[k] {
		return 0, false, false
	}
	if punctRank(a) >= punctRank(b[k]) {
		return 1, false, false
	}
	if mark == 0 || len(t) > 0 && sentencePunct(t[len(t)-1]) || k+1 < len(b) && isAlnum(b[k+1]) {
		return 0, false, false
	}
	return 0, true, false
}

// punctRank orders the marks of sentencePunct by strength: those that end
// a sentence, then ";", ":" and ",".
func punctRank(c byte) int {
	switch c {
	case '.', '!', '?':
		return 3
	case ';':
		return 2
	case ':':
		return 1
	}
	return 0
}

// sentencePunct reports whether c is a mark of sentence punctuation that a
// dropped citation between two of them would leave doubled.
func sentencePunct(c byte) bool {
	switch c {
	case ',', ';', ':', '.', '!', '?':
		return true
	}
	return false
}

// groupsAt scans the adjacent groups from b[i] into sc.r, and returns the
// offset after them and whether the chain ends with them (a group cut off).
// The groups belong to a chain whose white space starts at b[ws] and whose
// first bracket (or parenthesis) is b[g0]; atStart says the chain starts a
// line.
func (sc *scanner) groupsAt(ws, g0, i int, atStart bool) (end int, last, more bool) {
	b := sc.buf
	n := len(b)
	r := &sc.r
	for {
		if i == n {
			if !sc.final {
				return 0, false, true
			}
			return i, false, false
		}
		if !opener(b[i]) {
			return i, false, false
		}
		first := len(r.items)
		status, end, items := parseGroup(b, i, sc.final, r.items)
		r.items = items
		if status == groupMore {
			return 0, false, true
		}
		if status == groupNone {
			return i, false, false
		}
		if status == groupBare {
			keep, more := sc.bareIsText(ws, g0, i, end, atStart)
			if more {
				return 0, false, true
			}
			if keep {
				return i, false, false
			}
		}
		r.groups = append(r.groups, group{
			span:      Span{sc.base + i, sc.base + end},
			raw:       b[i:end],
			first:     first,
			last:      len(r.items),
			malformed: status == groupMalformed || status == groupCut,
			bare:      status == groupBare,
		})
		i = end
		if status == groupCut {
			return i, true, false
		}
	}
}

// bareIsText reports whether the bracketed number b[i:end] is Markdown or
// code rather than a would-be citation: the text of an inline link
// ("[1](url)", a ")" following on the line), the label of a reference link
// ("[text][1]", after "]"), a link reference definition ("[1]: url" at the
// start of a line), or an index after a word ("arr[2]"). A bare number
// that follows a group of the same run is part of the run. more reports
// that what follows is not known yet.
func (sc *scanner) bareIsText(ws, g0, i, end int, atStart bool) (text, more bool) {
	b := sc.buf
	if i == g0 && ws == g0 && sc.afterWord() {
		return true, false
	}
	if end == len(b) {
		return false, !sc.final
	}
	switch b[end] {
	case '(':
		// Link text only if an inline link follows as the link filter
		// reads one, within maxGroupLen, with no bracket in its
		// destination or title: "[0](00()" is no link, and in
		// "[1]([doc:9])" the destination is a dropped marker, so either
		// would leave "[n]" for a reader to take for a citation.
		lim := min(len(b), i+maxGroupLen)
		cut := sc.final || i+maxGroupLen <= len(b)
		_, stop, ok, more := inlineDest(b[:lim], end+1, cut)
		if more {
			return false, true
		}
		return ok && bytes.IndexByte(b[end:stop], '[') < 0, false
	case ':':
		return i == g0 && atStart, false
	}
	return false, false
}

// afterWord reports whether the output so far ends where a bracket group
// would be Markdown or code rather than a citation: after a letter or digit
// ("arr[2]"), after "_" that follows one ("x_[1]"; "_[1]_" is emphasis), or
// after "]" ("[text][1]", a reference link).
func (sc *scanner) afterWord() bool {
	if !sc.st.content {
		return false
	}
	t := sc.st.lastContent()
	c := t[len(t)-1]
	if c == '_' {
		return len(t) > 1 && isAlnum(t[len(t)-2])
	}
	return c == ']' || isAlnum(c)
}

var space = []byte(" ")

// Separators that a dropped run leaves in its place.
const (
	zwsp        = "\u200b" // an invisible break where removing the run would change the Markdown
	replacement = "\ufffd" // a visible break where it would form a new group
)

// separator returns what a dropped run must leave, after the output
// described by st, in its place so that its
// removal does not change the meaning of the text around it: a zero-width
// space at the start of a line, where the next character would start a
// block construct or a blank line; after content of block-structure
// characters only; between backticks or tildes that would merge into one
// run; and after a backslash that would escape the next character. After an
// open bracket that the next text could turn into a group, such as "[d" +
// dropped run + "oc:1]", an invisible separator would leave something that
// looks like a marker, so the separator is U+FFFD, the replacement
// character.
func separator(st *state, atStart bool, next int) string {
	if next < 0 {
		return ""
	}
	c := byte(next)
	t := st.lastContent()
	if !atStart && glues(t, c) {
		return replacement
	}
	switch {
	case atStart:
		if isStruct(c) {
			return zwsp
		}
	case st.structOnly && isStruct(c):
		return zwsp
	case st.bsOdd && isPunct(c):
		return zwsp
	case len(t) > 0 && (t[len(t)-1] == '`' || t[len(t)-1] == '~') && c == t[len(t)-1]:
		return zwsp
	}
	return ""
}

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= lower(c) && lower(c) <= 'z' }

func isPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// isStruct reports whether c can start or make up a block construct at the
// start of a line.
func isStruct(c byte) bool {
	switch c {
	case '#', '-', '*', '_', '=', '+', '`', '~', '>', '.', ')', '<', ' ', '\t', '\r', '\n':
		return true
	}
	return isDigit(c)
}

// Line classification.
type lineClass uint8

const (
	classText lineClass = iota
	classBlank
	classEmptyItem
	classIndented
	classFence
	classHeading
	classBreak // thematic break or setext underline
)

// skipWS returns the offset and column of the first byte from b[j], at
// column col, that is not a space or tab ('\r' counts as space). Tab stops
// are every four columns; col may be inside a tab that was partly consumed.
func skipWS(b []byte, j, col int) (int, int) {
	for j < len(b) {
		switch b[j] {
		case ' ', '\r':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return j, col
		}
		j++
	}
	return j, col
}

// advance consumes w columns of spaces and tabs from b[j] at column col. A
// tab may be consumed in part: then j stays on it and col is inside it.
func advance(b []byte, j, col, w int) (int, int) {
	target := col + w
	for col < target && j < len(b) {
		switch b[j] {
		case ' ':
			j++
			col++
		case '\t':
			if next := col + 4 - col%4; next <= target {
				j++
				col = next
			} else {
				col = target
			}
		default:
			return j, col
		}
	}
	return j, col
}

// lineStart classifies the line that starts at pos and consumes its prefix:
// container markers, indentation, list markers, heading markers. It follows
// CommonMark's two phases: first the line continues the open block quotes
// and list items it can, then new containers and a leaf block may start;
// a line that starts nothing new and would continue an open paragraph is a
// (possibly lazy) continuation, which leaves unmatched containers open.
// Fenced code has no lazy continuation: a fence ends with its container.
func (sc *scanner) lineStart() bool {
	st := &sc.st
	b := sc.buf
	n := len(b)
	final := sc.final
	i := sc.pos - sc.base
	j, col := i, 0

	// Phase 1: the open containers this line continues.
	matched := 0
match:
	for ; matched < st.nc; matched++ {
		k, kcol := skipWS(b, j, col)
		if k == n && !final {
			return false
		}
		blank := k == n || b[k] == '\n'
		c := st.cs[matched]
		switch {
		case c.quote:
			if blank || kcol-col > 3 || b[k] != '>' {
				break match
			}
			j, col = advance(b, k+1, kcol+1, 1)
		case blank:
			if !c.child {
				break match
			}
		case kcol-col >= c.width:
			j, col = advance(b, j, col, c.width)
		default:
			break match
		}
	}
	allMatched := matched == st.nc

	if st.fence != 0 && allMatched {
		return sc.fenceLine(i, j, col)
	}

	// Phase 2: new containers and the leaf block.
	tipPara := st.para
	var added [maxDepth]container
	nn := 0
	class := classText
	fenceLen, headEnd := 0, 0
	var k, kcol int
	for {
		k, kcol = skipWS(b, j, col)
		if k == n && !final {
			return false
		}
		if k == n || b[k] == '\n' {
			class = classBlank
			break
		}
		ind := kcol - col
		if ind >= 4 {
			if !tipPara || nn > 0 {
				class = classIndented
			}
			break // else a paragraph continuation
		}
		// Would this line continue the paragraph in the same containers?
		interrupt := tipPara && allMatched && nn == 0
		c := b[k]
		if c == '>' {
			if st.nc+nn < maxDepth {
				added[nn] = container{quote: true}
				nn++
			}
			j, col = advance(b, k+1, kcol+1, 1)
			continue
		}
		switch c {
		case '`', '~':
			e := k
			for e < n && b[e] == c {
				e++
			}
			if e == n && !final {
				return false
			}
			if e-k < 3 {
				break
			}
			if c == '`' {
				// A backtick fence's info string holds no backtick
				// (CommonMark); with one, the line is text.
				f := e
				for f < n && b[f] != '\n' && b[f] != '`' {
					f++
				}
				if f == n && !final {
					return false
				}
				if f < n && b[f] == '`' {
					break
				}
			}
			class, fenceLen = classFence, e-k
		case '#':
			e := k
			for e < n && b[e] == '#' && e-k < 7 {
				e++
			}
			if e == n && !final {
				return false
			}
			if e-k <= 6 && (e == n || isWS(b[e]) || b[e] == '\n' || b[e] == '\r') {
				for e < n && isWS(b[e]) {
					e++
				}
				if e == n && !final {
					return false
				}
				class, headEnd = classHeading, e
			}
		}
		if class != classText {
			break
		}
		if (c == '=' || c == '-') && interrupt {
			ok, more := setextLine(b, k, c, final)
			if more {
				return false
			}
			if ok {
				class = classBreak
				break
			}
		}
		if c == '-' || c == '*' || c == '_' {
			cnt, ok, more := lineOnly(b, k, c, final)
			if more {
				return false
			}
			if ok && cnt >= 3 {
				class = classBreak
				break
			}
		}
		w, one, more := listMarker(b, k, final)
		if more {
			return false
		}
		if w == 0 {
			break
		}
		m, mcol := k+w, kcol+w
		e, ecol := skipWS(b, m, mcol)
		if e == n && !final {
			return false
		}
		empty := e == n || b[e] == '\n'
		if interrupt && (empty || !one) {
			// Only a non-empty bullet or "1." item interrupts a paragraph.
			break
		}
		pad := ecol - mcol
		if empty || pad > 4 { // an item that starts with a blank line or with indented code
			pad = 1
		}
		if st.nc+nn < maxDepth {
			added[nn] = container{width: ind + w + pad}
			nn++
		}
		if empty {
			k, kcol = e, ecol
			class = classEmptyItem
			break
		}
		j, col = advance(b, m, mcol, pad)
	}

	if class == classText && tipPara && nn == 0 {
		// A paragraph continuation, lazy if not all containers matched:
		// the containers stay open.
		st.kind = lineText
		sc.take(k - i)
		st.atLineStart = false
		st.resetLine()
		return true
	}
	if tipPara && sc.paraEnd() {
		return true
	}
	st.nc = matched
	st.fence = 0 // a fence whose container ended
	copy(st.cs[st.nc:], added[:nn])
	st.nc += nn
	if class != classBlank || nn > 0 {
		for x := range st.nc {
			st.cs[x].child = true
		}
		if class == classEmptyItem {
			st.cs[st.nc-1].child = false
		}
	}
	st.para = false
	switch class {
	case classBlank, classEmptyItem:
		if k < n {
			k++ // the line feed
		}
		sc.take(k - i)
		return true // still at a line start
	case classIndented, classBreak:
		st.kind = lineVerbatim
	case classFence:
		st.fence, st.fenceLen, st.fenceCol = b[k], fenceLen, kcol
		st.kind = lineVerbatim
	case classHeading:
		st.kind = lineHeading
		k = headEnd
	case classText:
		st.para = true
		st.kind = lineText
	}
	sc.take(k - i)
	st.atLineStart = false
	st.resetLine()
	return true
}

// fenceLine handles a line inside a fenced code block whose containers all
// continue; the line's content starts at b[j], column col: it is the closing
// fence (at most three columns of indentation, at least as long as the
// opening one, nothing after it but white space) or a line of code.
func (sc *scanner) fenceLine(i, j, col int) bool {
	st := &sc.st
	b := sc.buf
	n := len(b)
	final := sc.final
	k, kcol := skipWS(b, j, col)
	if k == n && !final {
		return false
	}
	e := k
	for e < n && b[e] == st.fence {
		e++
	}
	if e == n && !final {
		return false
	}
	if kcol-col <= 3 && e-k >= st.fenceLen {
		for e < n && (isWS(b[e]) || b[e] == '\r') {
			e++
		}
		if e == n && !final {
			return false
		}
		if e == n || b[e] == '\n' {
			if e < n {
				e++
			}
			st.fence = 0
			st.para = false
			sc.take(e - i)
			return true // still at a line start
		}
	}
	st.kind = lineVerbatim
	st.atLineStart = false
	return true
}

// setextLine reports whether the line from b[j] is a setext heading
// underline of c: a run of c and nothing after it but white space.
func setextLine(b []byte, j int, c byte, final bool) (ok, more bool) {
	k := j
	for k < len(b) && b[k] == c {
		k++
	}
	for k < len(b) && (isWS(b[k]) || b[k] == '\r') {
		k++
	}
	if k == len(b) {
		return final, !final
	}
	return b[k] == '\n', false
}

// lineOnly reports whether the line from b[j] has only c and white space,
// and how many c.
func lineOnly(b []byte, j int, c byte, final bool) (count int, ok, more bool) {
	for k := j; k < len(b); k++ {
		switch b[k] {
		case c:
			count++
		case ' ', '\t', '\r':
		case '\n':
			return count, true, false
		default:
			return 0, false, false
		}
	}
	if !final {
		return 0, false, true
	}
	return count, true, false
}

// listMarker returns the width of the list marker at b[j], or 0, and
// whether it is a bullet or an ordered marker numbered 1 (which alone may
// interrupt a paragraph).
func listMarker(b []byte, j int, final bool) (w int, one, more bool) {
	n := len(b)
	k := j
	v := 0
	switch b[j] {
	case '-', '+', '*':
		k++
		v = 1
	default:
		for k < n && isDigit(b[k]) && k-j < 10 {
			v = v*10 + int(b[k]-'0')
			k++
		}
		if k == n {
			return 0, false, !final && k-j < 10
		}
		if k == j || k-j > 9 || b[k] != '.' && b[k] != ')' {
			return 0, false, false
		}
		k++
	}
	if k == n {
		if !final {
			return 0, false, true
		}
		return k - j, v == 1, false
	}
	switch b[k] {
	case ' ', '\t', '\n', '\r':
		return k - j, v == 1, false
	}
	return 0, false, false
}
