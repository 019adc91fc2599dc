package citations

import (
	"slices"
	"strconv"
)

// Order is how cited references are numbered.
type Order int

const (
	// ByIndex numbers cited references by their original index: if only
	// [doc:5] and [doc:2] are cited, [doc:2] becomes 1 and [doc:5] becomes 2.
	// It is the default.
	ByIndex Order = iota
	// ByAppearance numbers cited references in the order they are first
	// cited in the text. It is the order a [Stream] uses.
	ByAppearance
)

// Options configure [Render]. The zero value numbers by index.
type Options struct {
	Order Order
	// KeepLinks keeps every image and link in the text as written. By
	// default those that point to a host other than a web source
	// registered in the registry are neutralized (see [Render]).
	KeepLinks bool
}

// Rendered is an answer with its citations resolved, for display and for the
// JSON API.
type Rendered struct {
	// Text is the answer with each marker run replaced by display numbers,
	// "[1]" or "[1][3]", and each dropped marker removed. When there are
	// references, trailing white space is trimmed and an unclosed code fence
	// is closed, so that the reference list can follow.
	Text string `json:"text"`
	// References are the cited references in display order: Number is 1 for
	// the first, 2 for the second, and so on without gaps.
	References []Cited `json:"references"`
	// Dropped lists the markers that were removed, in text order.
	Dropped []Drop `json:"dropped"`
}

// Cited is a reference as cited in a rendered answer.
type Cited struct {
	// Number is the display number, [Number] in the text.
	Number int `json:"number"`
	// Key is the original marker, "[doc:N]".
	Key string `json:"key"`
	Reference
}

// Reason says why a marker was dropped.
type Reason string

// Reasons for dropping a marker.
const (
	// ReasonUnregistered: no reference with the marker's index was
	// registered (when the marker was rendered). The model made it up.
	ReasonUnregistered Reason = "unregistered"
	// ReasonZero: the marker's index is 0; indices start at 1.
	ReasonZero Reason = "zero"
	// ReasonMalformed: the text starts like a marker ("[doc:") but is not
	// one, such as "[doc:3-5]", "[doc:]" or a marker cut off by a line end.
	ReasonMalformed Reason = "malformed"
	// ReasonBare: not a marker but a bracketed number such as "[5]",
	// "[1, 2]" or "[1-3]" that the model wrote itself. A reader would take it
	// for one of cite's citations, so it is removed.
	ReasonBare Reason = "bare"
)

// Drop records a marker removed from the answer.
type Drop struct {
	// Marker is the bracket group as written, such as "[doc:99]" or
	// "[doc:2, doc:99]".
	Marker string `json:"marker"`
	// Index is the dropped index; 0 for malformed groups and bare numbers.
	Index int `json:"index"`
	// Reason says why it was dropped.
	Reason Reason `json:"reason"`
	// Span is the group's byte range in the model's output.
	Span Span `json:"span"`
}

// Markdown returns the answer as Markdown: Text, then, if anything was cited,
// a blank line, the [ListHeading] (a thematic break and a label that names
// the list as this answer's, so that a "References:" quoted from a
// document is not taken for it), a blank line and a numbered list of the
// references, one per display number, with linked titles where a reference
// has a link.
func (r Rendered) Markdown() string {
	if len(r.References) == 0 {
		return r.Text
	}
	b := make([]byte, 0, len(r.Text)+listSize(r.References))
	return string(appendList(append(b, r.Text...), r.References))
}

// Render resolves the citation markers in text against reg. It keeps the
// references whose markers appear in text, numbers them 1..k in the given
// order, replaces each marker run with its display numbers and removes
// markers whose index is not registered, is 0 or is malformed, with the
// connectors, locators and empty parentheses that only joined them to other
// citations (see the package documentation). Markers inside code spans
// and code blocks are left alone. reg may be nil, in which case every
// marker is dropped.
//
// Outside code, images and links whose destination is neither relative
// nor on the host of a registered web source (a Reference of [TypeWeb])
// are neutralized unless opts.KeepLinks is set, so that an answer cannot
// leak what it read to another host: an image shows as "[image: HOST]",
// a link as its text and "[link: HOST]", an autolink as "[link: HOST]";
// a link reference definition loses its destination (and a label that
// is a bare number, which would read as a citation); raw HTML tags are
// escaped to show as text. file: links are kept (not images); bare URLs
// are text and left alone.
//
// Render is a pure function of text, the registry's contents and opts. With
// Options{Order: ByAppearance} its Markdown is byte for byte what a [Stream]
// emits for the same text split into any deltas.
func Render(text string, reg Registry, opts Options) Rendered {
	c := collector{led: ledger{reg: reg}, links: linkFilter{reg: reg, keep: opts.KeepLinks}}
	sc := newScanner(&c, []byte(text))
	sc.final = true
	sc.scan()
	return c.finish(&sc.st, opts.Order)
}

// ledger looks up the markers of each run, in text order, and records the
// cited references and the dropped markers.
type ledger struct {
	reg   Registry
	pos   map[int]int // cited index -> position in order
	order []Reference // cited references in order of first appearance
	drops []Drop
	cur   []int // registered indices of the current run, with repeats
}

// resolve records the markers of groups, in text order, and returns the
// registered indices in them.
func (l *ledger) resolve(r *run, groups []group) []int {
	l.cur = l.cur[:0]
	for _, g := range groups {
		if g.bare {
			l.drops = append(l.drops, Drop{Marker: string(g.raw), Reason: ReasonBare, Span: g.span})
			continue
		}
		if g.malformed {
			l.drops = append(l.drops, Drop{Marker: string(g.raw), Reason: ReasonMalformed, Span: g.span})
			continue
		}
		for _, n := range r.items[g.first:g.last] {
			if n == 0 {
				l.drops = append(l.drops, Drop{Marker: string(g.raw), Reason: ReasonZero, Span: g.span})
				continue
			}
			if _, ok := l.pos[n]; !ok {
				var ref Reference
				if l.reg != nil {
					ref, ok = l.reg.Lookup(n)
				}
				if !ok || ref.Index != n {
					l.drops = append(l.drops, Drop{Marker: string(g.raw), Index: n, Reason: ReasonUnregistered, Span: g.span})
					continue
				}
				if l.pos == nil {
					l.pos = make(map[int]int)
				}
				l.pos[n] = len(l.order)
				l.order = append(l.order, ref)
			}
			l.cur = append(l.cur, n)
		}
	}
	return l.cur
}

// runWriter is where [ledger.render] writes a chain: text, and the
// registered indices of each kept segment, valid during the call.
type runWriter interface {
	runText(p []byte)
	runCite(idx []int)
}

// render resolves the segments of chain r in order and writes what a reader
// sees of it. If a segment is kept: the white space before the chain, its
// opening parenthesis and lead word, the kept segments, each after the
// connector that preceded it in the text (the first after none), and the
// closing parenthesis and the white space after. So the connectors that
// only joined dropped segments go with them: "[doc:1] and [doc:9]" shows as
// "[1]". If nothing is kept, only r.sep. It records in r.kept which
// segments were kept and reports whether any was.
func (l *ledger) render(r *run, w runWriter) bool {
	kept := false
	for _, s := range r.segs {
		idx := l.resolve(r, r.groups[s.first:s.last])
		r.kept = append(r.kept, len(idx) > 0)
		if len(idx) == 0 {
			continue
		}
		if !kept {
			w.runText(r.ws)
			w.runText(r.open)
		} else {
			w.runText(s.conn)
		}
		w.runCite(idx)
		if len(s.loc) > 0 {
			w.runText(s.loc)
		}
		kept = true
	}
	if !kept {
		if r.sep != "" {
			w.runText([]byte(r.sep))
		}
		return false
	}
	w.runText(r.close)
	w.runText(r.trail)
	return true
}

// cited returns refs numbered from first.
func cited(refs []Reference, first int) []Cited {
	out := make([]Cited, len(refs))
	for i, ref := range refs {
		out[i] = Cited{Number: first + i, Key: ref.Key(), Reference: ref}
	}
	return out
}

func (l *ledger) droppedList() []Drop {
	if l.drops == nil {
		return []Drop{}
	}
	return l.drops
}

// collector is the sink of a non-streamed render. Its first phase writes the
// text with every kept run reduced to a slot, a placeholder that lives
// outside the text and so can never collide with it; finish then numbers the
// cited references and writes the final text with the slots filled in.
type collector struct {
	led   ledger
	body  []byte
	code  [][2]int // ranges of body in code, in order
	slots []slot
	nums  []int // indices of the slots' citations
	links linkFilter
}

type slot struct{ at, first, last int }

func (c *collector) text(p []byte, code bool) {
	if code && len(p) > 0 {
		if k := len(c.code); k > 0 && c.code[k-1][1] == len(c.body) {
			c.code[k-1][1] += len(p)
		} else {
			c.code = append(c.code, [2]int{len(c.body), len(c.body) + len(p)})
		}
	}
	c.body = append(c.body, p...)
}

// filterBody passes body[from:to] through the link filter, piece by piece
// as code or not; code ranges before from are dropped.
func (c *collector) filterBody(from, to int, out func([]byte)) {
	for from < to {
		for len(c.code) > 0 && c.code[0][1] <= from {
			c.code = c.code[1:]
		}
		if len(c.code) > 0 && c.code[0][0] <= from {
			end := min(c.code[0][1], to)
			c.links.feed(c.body[from:end], true, out)
			from = end
			continue
		}
		end := to
		if len(c.code) > 0 {
			end = min(c.code[0][0], to)
		}
		c.links.feed(c.body[from:end], false, out)
		from = end
	}
}

func (c *collector) run(r *run) bool { return c.led.render(r, c) }

func (c *collector) runText(p []byte) { c.body = append(c.body, p...) }

func (c *collector) runCite(idx []int) {
	first := len(c.nums)
	c.nums = append(c.nums, idx...)
	c.slots = append(c.slots, slot{at: len(c.body), first: first, last: len(c.nums)})
}

func (c *collector) finish(st *state, order Order) Rendered {
	l := &c.led
	refs := l.order
	number := func(n int) int { return l.pos[n] + 1 }
	if order == ByIndex && len(refs) > 1 {
		refs = slices.Clone(refs)
		slices.SortFunc(refs, func(a, b Reference) int { return a.Index - b.Index })
		rank := make(map[int]int, len(refs))
		for i, ref := range refs {
			rank[ref.Index] = i + 1
		}
		number = func(n int) int { return rank[n] }
	}
	out := make([]byte, 0, len(c.body)+4*len(c.nums)+16)
	put := func(p []byte) { out = append(out, p...) }
	prev := 0
	var buf []byte
	for _, s := range c.slots {
		c.filterBody(prev, s.at, put)
		nums := c.nums[s.first:s.last]
		for i, n := range nums {
			nums[i] = number(n)
		}
		buf = appendCitations(buf[:0], nums)
		c.links.feed(buf, false, put)
		prev = s.at
	}
	c.filterBody(prev, len(c.body), put)
	c.links.close(put)
	if len(refs) > 0 {
		out = finishBody(out, st)
	}
	return Rendered{Text: string(out), References: cited(refs, 1), Dropped: l.droppedList()}
}

// isSpaceNL reports whether c is white space or a line end.
func isSpaceNL(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// appendCitations writes the display numbers of one run, sorted and without
// repeats, as "[1][2]". It sorts nums in place.
func appendCitations(dst []byte, nums []int) []byte {
	slices.Sort(nums)
	for i, n := range nums {
		if i > 0 && n == nums[i-1] {
			continue
		}
		dst = append(dst, '[')
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, ']')
	}
	return dst
}

// finishBody prepares a body with citations for the reference list: it trims
// trailing white space, unless there are more than maxSpaceRun bytes of it
// (which a [Stream] has passed on by then), and closes a fenced code block
// left open.
func finishBody(dst []byte, st *state) []byte {
	k := len(dst)
	for k > 0 && isSpaceNL(dst[k-1]) {
		k--
	}
	if len(dst)-k <= maxSpaceRun {
		dst = dst[:k]
	}
	if st.fence != 0 && !st.inQuote() {
		// A fence in a block quote is closed by the blank line before the
		// list, which ends the quote; one in list items by the unindented
		// thematic break of the list heading, but closing it where it was
		// opened is tidier.
		dst = append(dst, '\n')
		for range st.fenceCol {
			dst = append(dst, ' ')
		}
		for range st.fenceLen {
			dst = append(dst, st.fence)
		}
	}
	return dst
}

// listSize estimates the bytes of the reference list of refs.
func listSize(refs []Cited) int {
	n := 16
	for _, c := range refs {
		n += len(c.Title) + len(c.Link) + 16
	}
	return n
}

// ListHeading heads the reference list after an answer's text: a thematic
// break and a label no document's own "References:" looks like.
const ListHeading = "---\nSources cited in this answer:"

// appendList writes the reference list that follows the text.
func appendList(dst []byte, refs []Cited) []byte {
	if len(refs) == 0 {
		return dst
	}
	dst = append(dst, "\n\n"+ListHeading+"\n\n"...)
	for _, c := range refs {
		dst = strconv.AppendInt(dst, int64(c.Number), 10)
		dst = append(dst, ". "...)
		title := c.DisplayTitle()
		if loc := c.Location.String(); loc != "" {
			title += ", " + loc
		} else if h := c.section(title); c.Extracted && h != "" {
			title += " § " + h
		}
		if c.Link == "" {
			dst = appendTitle(dst, title)
		} else {
			dst = append(dst, '[')
			dst = appendTitle(dst, title)
			dst = append(dst, "]("...)
			dst = appendDestination(dst, c.Link)
			dst = append(dst, ')')
		}
		dst = append(dst, '\n')
	}
	return dst
}

// appendTitle writes a title with its Markdown syntax escaped so that it
// shows as written: inline syntax everywhere, block syntax at its start.
func appendTitle(dst []byte, s string) []byte {
	digits := 0 // leading digits: "1. x" or "1) x" would start a list
	for digits < len(s) && isDigit(s[digits]) {
		digits++
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '~', '|', '!', '#', '$':
			dst = append(dst, '\\')
		case '-', '+', '=':
			if i == 0 {
				dst = append(dst, '\\')
			}
		case '.', ')':
			if i == digits && i > 0 {
				dst = append(dst, '\\')
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// appendDestination writes a link destination, percent-encoding the bytes
// Markdown does not allow in one: white space, control characters, angle
// brackets, parentheses and backslashes.
func appendDestination(dst []byte, link string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(link); i++ {
		c := link[i]
		if c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == '(' || c == ')' || c == '\\' {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
