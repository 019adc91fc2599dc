package extractive

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/cite-rag/cite/citations"
)

// maxRest bounds the rest of a paragraph that a sentence brings along.
const maxRest = 600

// paragraphEnd returns the end of the text of the Markdown paragraph in raw
// that goes on from from, the end of a sentence: the end of its last line,
// before a blank line or a code fence; -1 when that is more than maxRest
// bytes on, or the source ends first.
func paragraphEnd(raw []byte, from int) int {
	for i := from; ; {
		j := bytes.IndexByte(raw[i:], '\n')
		if j < 0 {
			return -1
		}
		end := i + j
		if end-from > maxRest {
			return -1
		}
		next := end + 1
		k := bytes.IndexByte(raw[next:], '\n')
		if k < 0 {
			k = len(raw) - next
		}
		line := strings.TrimSpace(string(raw[next : next+k]))
		if line == "" || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			for end > from && (raw[end-1] == '\r' || raw[end-1] == ' ' || raw[end-1] == '\t') {
				end--
			}
			return end
		}
		i = next
	}
}

// restOfLine returns the text of passage's line after from, with its
// leading space, as answer text; "" when there is none or it exceeds
// maxRest.
func restOfLine(passage string, from int) string {
	end := len(passage)
	if i := strings.IndexByte(passage[from:], '\n'); i >= 0 {
		end = from + i
	}
	rest := strings.TrimSpace(passage[from:end])
	if rest == "" || len(rest) > maxRest {
		return ""
	}
	return " " + inlineText(rest)
}

// skipInfo are the info strings of code blocks that no sentence brings:
// metadata and output.
var skipInfo = map[string]bool{"yaml": true, "yml": true, "output": true}

// fencedAfter returns the content lines of the Markdown fenced code block
// that follows raw[:from], the source of a sentence, when the sentence ends
// its paragraph and the block comes next (past blank lines), and where its
// content ends; ok is false when there is none, when it is metadata or
// output (skipInfo), or when it exceeds maxBlockLines or maxBlockBytes. A block the source ends before its
// closing fence (a chunk's edge) ends there.
func fencedAfter(raw []byte, from int) (lines []string, end int, ok bool) {
	i := from
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r') {
		i++
	}
	if i >= len(raw) || raw[i] != '\n' {
		return nil, 0, false
	}
	// nextLine returns the line at i, without its line ending, and where
	// the next one starts.
	nextLine := func(i int) (string, int) {
		j := bytes.IndexByte(raw[i:], '\n')
		if j < 0 {
			return strings.TrimSuffix(string(raw[i:]), "\r"), len(raw)
		}
		return strings.TrimSuffix(string(raw[i:i+j]), "\r"), i + j + 1
	}
	i++
	var open string
	for i < len(raw) {
		l, next := nextLine(i)
		if strings.TrimSpace(l) == "" {
			i = next
			continue
		}
		open, i = l, next
		break
	}
	indent := len(open) - len(strings.TrimLeft(open, " "))
	body := open[indent:]
	if indent > 3 || len(body) < 3 || (body[0] != '`' && body[0] != '~') {
		return nil, 0, false
	}
	c := body[0]
	n := len(body) - len(strings.TrimLeft(body, body[:1]))
	if n < 3 || (c == '`' && strings.ContainsRune(body[n:], '`')) {
		return nil, 0, false
	}
	// Metadata and output are not what a sentence shows how to do.
	if info, _, _ := strings.Cut(strings.TrimSpace(body[n:]), " "); skipInfo[strings.ToLower(info)] {
		return nil, 0, false
	}
	var ends []int
	for i < len(raw) && len(lines) <= maxBlockLines {
		l, next := nextLine(i)
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && strings.HasPrefix(t, strings.Repeat(string(c), n)) && strings.Trim(strings.TrimSpace(t), string(c)) == "" {
			break // the closing fence
		}
		// Content loses up to the opening fence's indentation.
		k := 0
		for k < indent && k < len(l) && l[k] == ' ' {
			k++
		}
		lines = append(lines, l[k:])
		ends = append(ends, i+len(l))
		i = next
	}
	k, more := clip(lines)
	if k == 0 {
		return nil, 0, false
	}
	return clipped(lines, k, more), ends[k-1], true
}

// backticks returns the length of the longest run of backticks in s.
func backticks(s string) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			n = max(n, run)
		} else {
			run = 0
		}
	}
	return n
}

// fence is a fenced code block of Markdown source: its opening fence line
// starts at open; its content lines (indentation up to the opening fence's
// removed) are lines; its closing fence line ends at end, or the source
// does, when the block is never closed.
type fence struct {
	open, end int
	info      string // the info string's first word, lower case
	lines     []string
	ends      []int // where each of lines ends in the source
	closed    bool
}

// fencedBlocks returns the fenced code blocks of Markdown source raw, in
// order, by CommonMark's rules for fences: an opening line of at least
// three backticks or tildes indented at most three spaces (a backtick
// fence's info string holds no backtick), closed by a line of at least as
// many of the same character and nothing else.
func fencedBlocks(raw []byte) []fence {
	var out []fence
	var cur *fence
	var c byte
	var n, indent int
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\n')
		next := len(raw)
		if j >= 0 {
			next = i + j + 1
		} else {
			j = len(raw) - i
		}
		l := strings.TrimSuffix(string(raw[i:i+j]), "\r")
		t := strings.TrimLeft(l, " ")
		in := len(l) - len(t)
		switch {
		case cur == nil:
			if in > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
				break
			}
			run := len(t) - len(strings.TrimLeft(t, t[:1]))
			if run < 3 || (t[0] == '`' && strings.ContainsRune(t[run:], '`')) {
				break
			}
			info, _, _ := strings.Cut(strings.TrimSpace(t[run:]), " ")
			out = append(out, fence{open: i, end: len(raw), info: strings.ToLower(info)})
			cur, c, n, indent = &out[len(out)-1], t[0], run, in
		case in <= 3 && strings.HasPrefix(t, strings.Repeat(string(c), n)) && strings.Trim(strings.TrimSpace(t), string(c)) == "":
			cur.end, cur.closed = i+len(l), true
			cur = nil
		default:
			k := 0
			for k < indent && k < len(l) && l[k] == ' ' {
				k++
			}
			cur.lines = append(cur.lines, l[k:])
			cur.ends = append(cur.ends, i+len(l))
		}
		i = next
	}
	return out
}

// atxHeading matches a Markdown heading line ("### Example 2: …").
var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)

// aboutExample matches a sentence that speaks of the code before it.
var aboutExample = regexp.MustCompile(`^(?:This|These|The|In this|In the)\s+(?:examples?|commands?|functions?|scripts?|cmdlets?|codes?|samples?|statements?|pipelines?)\b`)

// fencedBefore returns the content lines of the Markdown fenced code block
// that the sentence at raw[at:] comments on, and where the block's opening
// fence starts: the block that ends just before the sentence's paragraph
// (past blank lines; past a block of output too, to the code before it),
// when that block opens its section, following a heading, or the sentence
// speaks of it ("This example…"), as reference pages give an example:
// heading, code, then what it does. ok is false when there is none, or
// when it exceeds maxBlockLines or maxBlockBytes.
func fencedBefore(raw []byte, at int, text string) (lines []string, start int, ok bool) {
	ls := bytes.LastIndexByte(raw[:at], '\n') + 1
	if strings.TrimSpace(string(raw[ls:at])) != "" {
		return nil, 0, false // the sentence does not open its paragraph
	}
	prevLine := func(at int) (int, int) { return lineBefore(raw, at) }
	ps, pe := prevLine(ls)
	if ps < 0 {
		return nil, 0, false
	}
	blocks := fencedBlocks(raw[:pe])
	// find returns the closed block whose closing fence is the line
	// starting at s and ending at e.
	find := func(s, e int) *fence {
		if len(blocks) == 0 {
			return nil
		}
		if b := &blocks[len(blocks)-1]; b.closed && b.end >= s && b.end <= e {
			return b
		}
		return nil
	}
	b := find(ps, pe)
	if b != nil && skipInfo[b.info] {
		// Output: the code it comes from is just before it.
		s, e := prevLine(b.open)
		blocks, b = blocks[:len(blocks)-1], nil
		if s >= 0 {
			b = find(s, e)
		}
	}
	if b == nil || skipInfo[b.info] || len(b.lines) == 0 {
		return nil, 0, false
	}
	hs, he := prevLine(b.open)
	if !aboutExample.MatchString(text) && (hs < 0 || !atxHeading.Match(raw[hs:he])) {
		return nil, 0, false
	}
	lines = b.lines
	k, more := clip(lines)
	if k == 0 {
		return nil, 0, false
	}
	return clipped(lines, k, more), b.open, true
}

// maxPrefix bounds the source read before a passage to find where its
// code blocks open and close.
const maxPrefix = 1 << 20

// codeBefore returns the code block that the first pick p comments on
// (fencedBefore), when it lies within p's passage, whose source is raw;
// at is where the quote starts in raw, at the sentence or at the heading
// it stands for. The source before the passage is read too, so that a
// passage starting inside a block does not take its closing fence for an
// opening one.
func (a *Answerer) codeBefore(ctx context.Context, p pick, raw []byte, at int) (lines []string, start int, ok bool) {
	if p.head != nil {
		s, _, found := locate(raw, p.ref.Passage, p.sent.start, p.sent.end)
		if !found {
			return nil, 0, false
		}
		at = s
	}
	if !afterFence(raw, at) {
		return nil, 0, false // the cheap test, before reading more
	}
	var pre []byte
	if n := p.ref.Span.Start; n > 0 {
		if n > maxPrefix {
			return nil, 0, false
		}
		ref := p.ref
		ref.Span = citations.Span{Start: 0, End: n}
		b, err := a.opts.ReadSpan(ctx, ref)
		if err != nil || len(b) != n {
			return nil, 0, false
		}
		pre = b
	}
	full := append(pre[:len(pre):len(pre)], raw...)
	lines, start, ok = fencedBefore(full, len(pre)+at, p.sent.text)
	if !ok || start < len(pre) {
		return nil, 0, false
	}
	return lines, start - len(pre), true
}

// afterFence reports whether the text at raw[at:] opens a paragraph that
// follows, past blank lines, a line that can close a fenced block: three
// or more backticks or tildes and nothing else.
func afterFence(raw []byte, at int) bool {
	ls := bytes.LastIndexByte(raw[:at], '\n') + 1
	if len(bytes.TrimSpace(raw[ls:at])) != 0 {
		return false
	}
	for at = ls; at > 0; {
		e := at - 1
		s := bytes.LastIndexByte(raw[:e], '\n') + 1
		l := bytes.TrimSpace(raw[s:e])
		if len(l) == 0 {
			at = s
			continue
		}
		return len(l) >= 3 && (len(bytes.Trim(l, "`")) == 0 || len(bytes.Trim(l, "~")) == 0)
	}
	return false
}

// lineBefore returns the last line of raw that is not blank before the
// line starting at at: where it starts and where its text ends; -1 when
// there is none.
func lineBefore(raw []byte, at int) (int, int) {
	for at > 0 {
		e := at - 1 // the line's newline
		s := bytes.LastIndexByte(raw[:e], '\n') + 1
		if len(bytes.TrimSpace(raw[s:e])) != 0 {
			return s, e
		}
		at = s
	}
	return -1, -1
}

// maxGap bounds the text between a section's first paragraph and the code
// block it brings.
const maxGap = 1500

// fencedInSection returns the content lines of the first Markdown fenced
// code block of the section whose first paragraph is raw[at:from] (it
// follows a heading; from is where the paragraph ends), and where its
// content ends: a reference page's example may explain before it shows
// the code. Blocks of metadata or output are passed over; ok is false when
// the section ends (a heading) or the source does first, when the block
// starts more than maxGap bytes on, or when it exceeds maxBlockLines or
// maxBlockBytes.
func fencedInSection(raw []byte, at, from int) (lines []string, end int, ok bool) {
	ls := bytes.LastIndexByte(raw[:at], '\n') + 1
	if len(bytes.TrimSpace(raw[ls:at])) != 0 {
		return nil, 0, false // the sentence does not open its paragraph
	}
	if hs, he := lineBefore(raw, ls); hs < 0 || !atxHeading.Match(raw[hs:he]) {
		return nil, 0, false
	}
	limit := min(len(raw), from+maxGap)
	blocks := fencedBlocks(raw[from:])
	i := from
	for _, b := range blocks {
		b.open += from
		b.end += from
		if b.open > limit {
			return nil, 0, false
		}
		// A heading before the block ends the section.
		for _, l := range bytes.Split(raw[i:b.open], []byte("\n")) {
			if atxHeading.Match(l) {
				return nil, 0, false
			}
		}
		i = b.end
		if skipInfo[b.info] {
			continue
		}
		lines = b.lines
		k, more := clip(lines)
		if k == 0 {
			return nil, 0, false
		}
		// The quote ends with the last line shown.
		return clipped(lines, k, more), b.ends[k-1] + from, true
	}
	return nil, 0, false
}

// bringCode returns the presentation of the first pick p, whose quote is
// raw[s:e], with the code of its example: the Markdown code block that
// follows its paragraph, or else the block before its paragraph that it
// speaks of (heading, code, "This example…"), or else, when the paragraph
// opens a section, the section's first block, with the rest of the
// paragraph; the quote grows to cover them. It returns its arguments as
// they are when there is none.
func (a *Answerer) bringCode(ctx context.Context, p pick, raw []byte, s, end int, pr presentation) (int, int, presentation) {
	pe := paragraphEnd(raw, end)
	if pe >= 0 {
		if lines, blockEnd, found := fencedAfter(raw, pe); found {
			pr.text += restOfLine(p.ref.Passage, p.sent.end)
			pr.block = lines
			return s, blockEnd, pr
		}
	}
	if lines, start, found := a.codeBefore(ctx, p, raw, s); found {
		if pe >= 0 {
			pr.text += restOfLine(p.ref.Passage, p.sent.end)
			end = pe
		}
		pr.block = lines
		if p.head == nil {
			s = start
		}
		return s, end, pr
	}
	at := s
	if p.head != nil {
		ss, _, found := locate(raw, p.ref.Passage, p.sent.start, p.sent.end)
		if !found {
			return s, end, pr
		}
		at = ss
	}
	if pe < 0 {
		return s, end, pr
	}
	if lines, blockEnd, found := fencedInSection(raw, at, pe); found {
		pr.text += restOfLine(p.ref.Passage, p.sent.end)
		pr.block = lines
		return s, blockEnd, pr
	}
	return s, end, pr
}

// lineOf returns the line of text that holds offset at, trimmed.
func lineOf(text string, at int) string {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	end := len(text)
	if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
		end = at + i
	}
	return strings.TrimSpace(text[start:end])
}

// hasFence reports whether b may hold a Markdown code fence.
func hasFence(b []byte) bool {
	return bytes.Contains(b, []byte("```")) || bytes.Contains(b, []byte("~~~"))
}

// codeLines returns the lines, trimmed, of the Markdown fenced code blocks
// that ref's source span raw holds or starts inside (the source before
// the span is read to tell); nil when there are none or that source
// cannot be read.
func (a *Answerer) codeLines(ctx context.Context, ref citations.Reference, raw []byte) map[string]bool {
	var pre []byte
	if n := ref.Span.Start; n > 0 && n <= maxPrefix {
		r := ref
		r.Span = citations.Span{Start: 0, End: n}
		if b, err := a.opts.ReadSpan(ctx, r); err == nil && len(b) == n {
			pre = b
		}
	}
	if !hasFence(raw) && !hasFence(pre) {
		return nil
	}
	var set map[string]bool
	for _, b := range fencedBlocks(append(pre[:len(pre):len(pre)], raw...)) {
		if b.end < len(pre) {
			continue
		}
		for _, l := range b.lines {
			if t := strings.TrimSpace(l); t != "" {
				if set == nil {
					set = map[string]bool{}
				}
				set[t] = true
			}
		}
	}
	return set
}

// clip returns how many of lines, a code block's, an answer shows: all
// when they are within maxBlockLines and maxBlockBytes, else as many as
// fit in maxBlockLines-1 lines and maxBlockBytes, followed by a line "…"
// (clipped is true); none when not even the first fits.
func clip(lines []string) (n int, clipped bool) {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1] // trailing blank lines show nothing
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	if len(lines) <= maxBlockLines && size <= maxBlockBytes {
		return len(lines), false
	}
	size = 0
	for n < len(lines) && n < maxBlockLines-1 && size+len(lines[n])+1 <= maxBlockBytes {
		size += len(lines[n]) + 1
		n++
	}
	return n, n > 0
}

// clipped returns the first n of lines, and "…" after them when clipped.
func clipped(lines []string, n int, more bool) []string {
	out := slices.Clone(lines[:n])
	if more {
		out = append(out, "…")
	}
	return out
}
