package extractive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
)

// Defaults of [Options].
const (
	DefaultMaxSentences = 3
	DefaultMinCoverage  = 0.2
)

// Options configure [New]. The zero value means the defaults.
type Options struct {
	// MaxSentences caps the sentences of an answer (default
	// [DefaultMaxSentences]).
	MaxSentences int
	// MinCoverage is the share of the question's weighted terms a sentence
	// must contain for the question to count as answered (default
	// [DefaultMinCoverage]); below it the answer has no sentence. The
	// first cited sentence reaches it with its neighbours in the paragraph,
	// the others alone.
	MinCoverage float64
	// ReadSpan returns the raw bytes of ref.Span in ref's source, so that
	// each quote gets its byte range in the source. The default,
	// [ReadFileSpan], reads local files; a nil result or an error leaves the
	// quote without a span.
	ReadSpan func(ctx context.Context, ref citations.Reference) ([]byte, error)
	// TermStats, when set, gives the document frequencies of the question's
	// terms in the whole index, (*index.Store).TermStats: a term rare in the
	// index then weighs more than one that is merely rare among the
	// retrieved sentences. Without it the weights come from the candidate
	// sentences alone. An error from it is returned by Answer.
	TermStats func(ctx context.Context, terms []string) (index.TermStats, error)
}

// An Answerer picks the sentences of passages that answer a question (see
// the package documentation). It is safe for concurrent use.
type Answerer struct {
	opts Options
	w    weights
	// inspect, when set (by tests), sees the scored candidates and their
	// order, best first.
	inspect func(cands []scored, order []int)
}

// New returns an answerer with opts.
func New(opts Options) *Answerer {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = DefaultMaxSentences
	}
	if opts.MinCoverage <= 0 {
		opts.MinCoverage = DefaultMinCoverage
	}
	if opts.ReadSpan == nil {
		opts.ReadSpan = ReadFileSpan
	}
	return &Answerer{opts: opts, w: defaultWeights}
}

// A Sentence is one sentence of an answer, as the answer gives it, with
// what its passage's reference should quote.
type Sentence struct {
	// Ref is the passage the sentence is from.
	Ref citations.Reference
	// Text is the sentence as Markdown text, without a marker: without its
	// list bullet, after its item's label, with the rest of its paragraph
	// when it brings its example's code.
	Text string
	// Block is the Markdown code block or list the sentence brings (the
	// lines it introduces, its example's code), or "".
	Block string
	// Quote is what the reference quotes: the bytes of the sentence (and
	// of its heading and block) in the source, or the passage's text when
	// they cannot be found there.
	Quote string
	// Span is Quote's byte range in the source, or nil.
	Span *citations.Span
	// Heading is the heading path the sentence sits under: its passage's
	// ([citations.Reference.Heading]) when the sentence is in that
	// section (after the path's last heading where the passage has it,
	// with no other line like a heading between), else "" (not known).
	Heading string
}

// Answer returns the sentences of passages that answer question, best
// first; none when no passage answers it. passages are the candidates in
// retrieval rank order (the first is the best hit), each with its text
// (Passage), its source and the span of its source it is from; a
// sentence's Quote and Span are for [citations.Invocation.SetQuote] on its
// passage's reference. Answer fails only when ctx ends or
// [Options.TermStats] fails.
func (a *Answerer) Answer(ctx context.Context, question string, passages []citations.Reference) ([]Sentence, error) {
	var global func(string) float64
	if a.opts.TermStats != nil {
		ts, err := a.opts.TermStats(ctx, analysis.QueryTerms(question))
		if err != nil {
			return nil, fmt.Errorf("extractive: term statistics: %w", err)
		}
		global = ts.IDF
	}
	srcs, code, err := a.sources(ctx, passages)
	if err != nil {
		return nil, err
	}
	picks := a.pick(ctx, question, passages, global, code)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Sentence, 0, len(picks))
	for i, p := range picks {
		out = append(out, a.quote(ctx, p, srcs[p.ref.Index], i == 0))
	}
	return out, nil
}

// source is a passage's source span, as [Options.ReadSpan] read it.
type source struct {
	raw []byte
	err error
}

// sources reads the passages' sources: where quotes are found, and which
// lines are code (code[i] for passages[i]), never cited as sentences. The
// sources are keyed by reference index.
func (a *Answerer) sources(ctx context.Context, refs []citations.Reference) (map[int]source, []map[string]bool, error) {
	srcs := make(map[int]source, len(refs))
	code := make([]map[string]bool, len(refs))
	for i, ref := range refs {
		raw, err := a.opts.ReadSpan(ctx, ref)
		if err != nil && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		srcs[ref.Index] = source{raw, err}
		if err == nil && raw != nil {
			code[i] = a.codeLines(ctx, ref, raw)
		}
	}
	return srcs, code, nil
}

// quote returns how the answer gives pick p and what its reference quotes:
// its presentation, found in src, its passage's source; the first
// sentence, the answer proper, brings its example's code (a further one's
// would mostly be metadata or output).
func (a *Answerer) quote(ctx context.Context, p pick, src source, first bool) Sentence {
	pr := present(p.ref.Passage, p.sent, p.head)
	if p.header != "" {
		pr.text = inlineText(rowText(p.header, p.sent.text))
	}
	quote, span := p.ref.Passage[pr.start:pr.end], (*citations.Span)(nil)
	if src.err == nil && src.raw != nil {
		raw := src.raw
		s, e, ok := locate(raw, p.ref.Passage, pr.start, pr.end)
		if !ok && (pr.start != p.sent.start || pr.end != p.sent.end) {
			pr = presentation{text: p.sent.text, start: p.sent.start, end: p.sent.end}
			quote = p.sent.text
			s, e, ok = locate(raw, p.ref.Passage, p.sent.start, p.sent.end)
		}
		if ok && first && len(pr.block) == 0 {
			s, e, pr = a.bringCode(ctx, p, raw, s, e, pr)
		} else if ok && len(pr.block) > 0 {
			// The lines a colon introduces are the passage's, whose code
			// lost its indentation: a fenced block in the source is
			// given from there.
			if _, se, found := locate(raw, p.ref.Passage, p.sent.start, p.sent.end); found {
				if pe := paragraphEnd(raw, se); pe >= 0 {
					if lines, blockEnd, found := fencedAfter(raw, pe); found && blockEnd >= e {
						pr.block, e = lines, blockEnd
					}
				}
			}
		}
		if ok {
			quote = string(raw[s:e])
			span = &citations.Span{Start: p.ref.Span.Start + s, End: p.ref.Span.Start + e}
		}
	}
	out := Sentence{Ref: p.ref, Text: pr.text, Quote: quote, Span: span, Heading: p.ref.Heading}
	if h, ok := sectionAt(p.ref, pr.start); ok {
		out.Heading = h
	} else if otherSection(p.ref.Passage, p.ref.Heading, pr.start) {
		out.Heading = ""
	}
	if len(pr.block) > 0 {
		out.Block = markdownBlock(pr.block)
	}
	return out
}

// sectionAt returns the heading path of the section that starts inside
// ref's passage at or before offset at of it, when the reference knows
// where its sections start ([citations.Reference.SectionStarts]: a
// workbook's later sheet, a Word file's next heading, in a passage of
// extracted text); ok is false when none does.
func sectionAt(ref citations.Reference, at int) (heading string, ok bool) {
	if !ref.Extracted {
		return "", false
	}
	for _, s := range ref.SectionStarts() {
		if rel := s.Offset - ref.Span.Start; rel > 0 && rel <= at && rel < len(ref.Passage) {
			heading, ok = s.Heading, true
		}
	}
	return heading, ok
}

// otherSection reports whether the sentence at offset at in passage may be
// in another section than heading's, the heading path of the passage (its
// headings joined by " > "): the path in effect where the passage's own
// text starts, after the text it shares with the passage before it, so
// that a passage may start with the end of the section before. When a
// line of the passage is the path's last heading (a sheet's name, a
// section's heading), the section starts there: the sentence is in it if
// it comes after that line and no line like a heading (see
// [sentence.heading]; not a table's row) comes between. Else the passage
// starts in the section, and the sentence is in it if no line like a
// heading comes before it.
func otherSection(passage, heading string, at int) bool {
	from := 0
	if _, end, ok := headingLine(passage, heading); ok {
		if at < end {
			return true
		}
		from = end
	}
	for _, s := range splitSentences(passage) {
		if s.start >= at {
			return false
		}
		if s.start < from {
			continue
		}
		if s.heading && !tableRow(passage, s.start, s.end) {
			return true
		}
	}
	return false
}

// headingLine returns the byte range of the first line of passage that
// is, white space collapsed, the last heading of heading (a heading path
// joined by " > "); a heading the path clipped (ending in "…") is the
// start of its line.
func headingLine(passage, heading string) (start, end int, ok bool) {
	heading = strings.Join(strings.Fields(heading), " ")
	if heading == "" {
		return 0, 0, false
	}
	for start < len(passage) {
		end = len(passage)
		if i := strings.IndexByte(passage[start:], '\n'); i >= 0 {
			end = start + i
		}
		if line := strings.Join(strings.Fields(passage[start:end]), " "); line != "" && lastHeading(heading, line) {
			return start, end, true
		}
		start = end + 1
	}
	return 0, 0, false
}

// lastHeading reports whether line is the last heading of path, or its
// start when the path clipped it; a heading's footnote markers are not in
// its path, so the line may end in one ("Harbour lights1" in a PDF's
// text, "Harbour lights[1]", "Harbour lights ¹" of the path's "Harbour
// lights").
func lastHeading(path, line string) bool {
	if path == line || strings.HasSuffix(path, " > "+line) {
		return true
	}
	if body, ok := headingMark(line); ok && (path == body || strings.HasSuffix(path, " > "+body)) {
		return true
	}
	last := path
	if i := strings.LastIndex(path, " > "); i >= 0 {
		last = path[i+len(" > "):]
	}
	clipped, ok := strings.CutSuffix(last, "…")
	clipped = strings.TrimSpace(clipped)
	return ok && clipped != "" && strings.HasPrefix(line, clipped)
}

// headingMark returns line without the footnote marker that ends it, and
// whether it had one: "[1]", "*", "†", "‡", or one to three digits,
// superscript or not, after a space or a letter.
func headingMark(line string) (string, bool) {
	body := line
	switch {
	case strings.HasSuffix(line, "]"):
		i := strings.LastIndexByte(line, '[')
		if i <= 0 || i < len(line)-6 {
			return line, false
		}
		for _, r := range line[i+1 : len(line)-1] {
			if !isMarkDigit(r) {
				return line, false
			}
		}
		body = line[:i]
	case strings.HasSuffix(line, "*"), strings.HasSuffix(line, "†"), strings.HasSuffix(line, "‡"):
		body = strings.TrimRight(line, "*†‡")
	default:
		end, n := len(line), 0
		for end > 0 && n < 4 {
			r, size := utf8.DecodeLastRuneInString(line[:end])
			if !isMarkDigit(r) {
				break
			}
			end, n = end-size, n+1
		}
		if n == 0 || n > 3 || end == 0 {
			return line, false
		}
		if r, _ := utf8.DecodeLastRuneInString(line[:end]); r != ' ' && !unicode.IsLetter(r) {
			return line, false
		}
		body = line[:end]
	}
	body = strings.TrimSpace(body)
	return body, body != ""
}

// ReadFileSpan returns the bytes of ref.Span in the local file ref.Source
// (an absolute path or a file: URL), for [TypeFile] references; for other
// references it returns nil. It reads at most 4 MiB.
//
// [TypeFile]: citations.TypeFile
func ReadFileSpan(_ context.Context, ref citations.Reference) ([]byte, error) {
	const maxSpan = 4 << 20
	if ref.Type != citations.TypeFile || ref.Span.Start < 0 || ref.Span.End <= ref.Span.Start || ref.Span.Len() > maxSpan {
		return nil, nil
	}
	if ref.Extracted {
		// The span is of the text extracted from the file, which the
		// passage is.
		if len(ref.Passage) != ref.Span.Len() {
			return nil, nil
		}
		return []byte(ref.Passage), nil
	}
	p := ref.Source
	if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
		p = filepath.FromSlash(u.Path)
	}
	if !filepath.IsAbs(p) {
		return nil, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, ref.Span.Len())
	n, err := f.ReadAt(buf, int64(ref.Span.Start))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return buf[:n], nil
}
