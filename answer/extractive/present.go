package extractive

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cite-rag/cite/citations"
)

// A presentation is how the answer gives a chosen sentence: its text, the
// lines it introduces, and the range of the passage its quote covers.
type presentation struct {
	text       string
	block      []string // lines the sentence introduces, after its marker
	start, end int
}

// Limits of what a sentence ending with a colon takes along.
const (
	maxBlockLines = 12
	maxBlockBytes = 1000
)

// present returns how the answer gives sentence s of passage, which is
// normalized text (package normalize): as it is, but
//   - without its bullet ("• ", "◦ ", "▪ "), when it opens a list item;
//   - prefixed with the label of the item it is nested in, when that item is
//     a label only ("Restricted" over "◦ The default execution policy for
//     Windows client computers." gives "Restricted: The default…");
//   - with the lines it introduces, when it ends with a colon and they follow
//     (a code block, a list: "To create a directory, type:" and the
//     command), up to the next blank line and within maxBlockLines and
//     maxBlockBytes.
//
// The range covers all of it, so the quote shows what the answer says.
func present(passage string, s sentence, head *sentence) presentation {
	p := presentation{text: s.text, start: s.start, end: s.end}
	lineStart := strings.LastIndexByte(passage[:s.start], '\n') + 1
	if strings.TrimSpace(passage[lineStart:s.start]) == "" {
		if m := marker(s.text); m >= 0 {
			p.text = s.text[len(bullets[m]):]
			if m > 0 {
				if label, at, ok := parentLabel(passage, lineStart, bullets[m-1]); ok {
					p.text = label + ": " + p.text
					p.start = at
				}
			}
		}
	}
	if head != nil {
		p.start = head.start
	}
	if m := alert.FindStringSubmatch(p.text); m != nil {
		// A GitHub or Docs alert ("> [!NOTE]"): "Note: …".
		p.text = m[1][:1] + strings.ToLower(m[1][1:]) + ": " + p.text[len(m[0]):]
	}
	p.text = inlineText(p.text)
	if strings.HasSuffix(s.text, ":") {
		if blk, end, ok := introduced(passage, s.end); ok {
			p.block = strings.Split(blk, "\n")
			p.end = end
		}
	}
	return p
}

// alert is the label of a GitHub or Microsoft Docs alert that opens a
// sentence ("[!NOTE] You can…").
var alert = regexp.MustCompile(`^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s+`)

// lookalike is text a reader would take for a display number ("[2]").
var lookalike = regexp.MustCompile(`\[\d+\]`)

// inlineText returns text, plain text from a passage, as Markdown that
// keeps markers and display numbers apart from it:
//   - text that reads as a marker ("[doc:2]", in a document about cite, say)
//     becomes an inline code span, where it is no marker: a passage cannot
//     cite another;
//   - each word that holds something a reader would take for a display
//     number ("Logs[2006]", "$a[1]": code the documents wrote as code)
//     becomes one too, as the renderer never puts a display number in code;
//   - other backticks are escaped, so that a stray one ("variable`s")
//     cannot open a code span that would hide the marker after it; nor can
//     a leading "~~~" open a fenced block.
func inlineText(text string) string {
	if strings.HasPrefix(text, "~~~") {
		// At a line's start, as a sentence may be, it would open a fence.
		text = "\\" + text
	}
	spans := CitationLike(text)
	if len(spans) == 0 {
		return inlineWords(text)
	}
	var b strings.Builder
	last := 0
	for _, m := range spans {
		b.WriteString(inlineWords(text[last:m[0]]))
		b.WriteString(codeSpan(text[m[0]:m[1]]))
		last = m[1]
	}
	b.WriteString(inlineWords(text[last:]))
	return b.String()
}

// noReferences is a registry with no reference: rendering against it drops
// every marker, so its drops are where a text holds what the citations
// renderer reads as markers or as citation numbers.
var noReferences = citations.NewInvocation()

// CitationLike returns the byte ranges of text, in order and apart, that
// the citations renderer would take for markers or citation numbers once
// the text is in an answer, whatever its backticks (escaped there): the
// groups it would drop ("［doc:2］", "&#91;doc:3&#93;", "[0, 1]") and text
// that reads as the start of a marker ("[doc:2" cut short). Package answer
// defangs them in the passages it gives a model.
func CitationLike(text string) [][2]int {
	if !strings.ContainsAny(text, "[【［&") {
		return nil
	}
	probe := strings.ReplaceAll(text, "`", "'")
	var spans [][2]int
	for _, d := range citations.Render(probe, noReferences, citations.Options{}).Dropped {
		spans = append(spans, [2]int{d.Span.Start, d.Span.End})
	}
	if mayHoldMarker(text) {
		for _, m := range markerLike.FindAllStringIndex(text, -1) {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	// Whole words: a code span around part of one would leave the rest's
	// backticks to open spans of their own.
	for i, sp := range spans {
		for sp[0] > 0 && text[sp[0]-1] != ' ' {
			sp[0]--
		}
		for sp[1] < len(text) && text[sp[1]] != ' ' {
			sp[1]++
		}
		for sp[1] > sp[0]+1 && strings.IndexByte(".,;:!?", text[sp[1]-1]) >= 0 && sp[1] > spans[i][1] {
			sp[1]--
		}
		spans[i] = sp
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]int
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// markerLike is text the citations scanner could take for a marker: an
// opening bracket, ASCII or full-width, and "doc", up to the closing one.
var markerLike = regexp.MustCompile(`(?i)[\[【]\s*doc[^\]】\n]{0,256}[\]】]?`)

// mayHoldMarker reports whether text may hold marker-like text: an
// opening bracket, ASCII or full-width, then "doc" in any case past white
// space. It spares the regular expression the text that cannot.
func mayHoldMarker(text string) bool {
	for i := 0; i < len(text); i++ {
		var j int
		switch {
		case text[i] == '[':
			j = i + 1
		case strings.HasPrefix(text[i:], "【"):
			j = i + len("【")
		default:
			continue
		}
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j+3 <= len(text) && strings.EqualFold(text[j:j+3], "doc") {
			return true
		}
	}
	return false
}

// inlineWords is inlineText for text without marker-like parts.
func inlineWords(text string) string {
	escaped := noMarkup(text)
	if !strings.ContainsRune(text, '`') && !lookalike.MatchString(text) {
		return escaped
	}
	// noMarkup adds no space: the words of both line up.
	words, esc := strings.Split(text, " "), strings.Split(escaped, " ")
	for i, w := range words {
		core := strings.TrimRight(w, ".,;:!?")
		if !lookalike.MatchString(core) {
			words[i] = strings.ReplaceAll(esc[i], "`", "\\`")
			continue
		}
		words[i] = codeSpan(core) + w[len(core):]
	}
	return strings.Join(words, " ")
}

// noMarkup escapes what in text, plain text of a document, Markdown would
// read as live markup the document did not have: an HTML tag or autolink
// ("<img src=x onerror=…>", "<javascript:…>") and a link or image
// ("[here](javascript:…)"), which the source wrote as literal text.
func noMarkup(text string) string {
	if !strings.ContainsAny(text, "<[") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '<' && i+1 < len(text) && (isASCIILetter(text[i+1]) || strings.IndexByte("/!?", text[i+1]) >= 0):
			b.WriteString("\\<")
			continue
		case c == '[' && (i == 0 || text[i-1] != '\\') && strings.Contains(text[i:], "]("):
			b.WriteString("\\[")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// codeSpan returns s as an inline code span: fenced by a backtick run
// longer than any in it, padded when it starts or ends with one.
func codeSpan(s string) string {
	fence := strings.Repeat("`", backticks(s)+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// markdownBlock returns lines as Markdown that holds them as they are: a
// bulleted list when every line is an item of one ("• ", "◦ ", "▪ " by
// depth), else a fenced code block whose fence no line can close.
func markdownBlock(lines []string) string {
	var b strings.Builder
	list := true
	for _, l := range lines {
		list = list && marker(l) >= 0
	}
	if list {
		for i, l := range lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			m := marker(l)
			b.WriteString(strings.Repeat("  ", m) + "- " + inlineText(l[len(bullets[m]):]))
		}
		return b.String()
	}
	n := 3
	for _, l := range lines {
		n = max(n, backticks(l)+1)
	}
	fence := strings.Repeat("`", n)
	b.WriteString(fence + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString(fence)
	return b.String()
}

// bullets are the list markers of normalized text, by depth.
var bullets = [...]string{"• ", "◦ ", "▪ "}

// marker returns the depth of the bullet text opens with, or -1.
func marker(text string) int {
	for i, b := range bullets {
		if strings.HasPrefix(text, b) {
			return i
		}
	}
	return -1
}

// trimMarker returns text without the bullet it opens with.
func trimMarker(text string) string {
	if m := marker(text); m >= 0 {
		return text[len(bullets[m]):]
	}
	return text
}

// parentLabel finds, above the line at lineStart, the list item that line
// is nested in: the nearest line opening with bullet, past blank lines and
// the item's other nested lines, within maxBlockBytes. It returns that
// item's text, and where it starts, when the text is a label: at most six words and no closing
// punctuation but a colon, which is dropped.
func parentLabel(passage string, lineStart int, bullet string) (label string, at int, ok bool) {
	end := lineStart
	for end > 0 && lineStart-end <= maxBlockBytes {
		start := strings.LastIndexByte(passage[:end-1], '\n') + 1
		line := strings.TrimSpace(passage[start : end-1])
		end = start
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, bullet):
			text := strings.TrimSuffix(strings.TrimSpace(line[len(bullet):]), ":")
			n := len(strings.Fields(text))
			last, _ := utf8.DecodeLastRuneInString(text)
			if n == 0 || n > 6 || strings.ContainsRune(".!?;…", last) {
				return "", 0, false
			}
			return text, start + strings.Index(passage[start:], bullet) + len(bullet), true
		case marker(line) > marker(bullet):
			continue // a sibling of the nested line, or deeper
		default:
			return "", 0, false
		}
	}
	return "", 0, false
}

// introduced returns the lines of passage after from (the end of a
// sentence ending with a colon), past blank lines, up to the next blank
// line, and where they end; ok is false when there are none, when the
// sentence's line goes on after the colon, or when they exceed the limits.
func introduced(passage string, from int) (blk string, end int, ok bool) {
	rest := passage[from:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(rest[:nl]) != "" {
		return "", 0, false
	}
	start := from + nl
	for start < len(passage) && (passage[start] == '\n' || passage[start] == ' ' || passage[start] == '\t') {
		start++
	}
	if start == len(passage) {
		return "", 0, false
	}
	end = len(passage)
	if i := strings.Index(passage[start:], "\n\n"); i >= 0 {
		end = start + i
	}
	// A loose list (its items apart) goes on past blank lines.
	for isList(passage[start:end]) {
		next := end
		for next < len(passage) && (passage[next] == '\n' || passage[next] == ' ' || passage[next] == '\t') {
			next++
		}
		stop := len(passage)
		if i := strings.Index(passage[next:], "\n\n"); i >= 0 {
			stop = next + i
		}
		if next == len(passage) || !isList(passage[next:stop]) || stop-start > maxBlockBytes {
			break
		}
		end = stop
	}
	blk = strings.TrimRight(passage[start:end], " \t\n")
	if isList(blk) {
		// markdownBlock makes a list of it: its lines, without the blank
		// ones between items.
		var lines []string
		for _, l := range strings.Split(blk, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > maxBlockLines || len(blk) > maxBlockBytes {
			return "", 0, false
		}
		return strings.Join(lines, "\n"), start + len(blk), true
	}
	end = start + len(blk)
	if len(blk) > maxBlockBytes || strings.Count(blk, "\n")+1 > maxBlockLines {
		return "", 0, false
	}
	return blk, end, true
}

// isList reports whether every line of blk, past white space, is a list
// item of normalized text.
func isList(blk string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(blk), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if marker(l) < 0 {
			return false
		}
		n++
	}
	return n > 0
}
