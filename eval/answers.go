package eval

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// AnswerOptions configure [RunAnswers].
type AnswerOptions struct {
	// K is the number of passages retrieved and given to the model (default
	// [DefaultAnswerK]).
	K int
	// Mode is the search mode (default hybrid).
	Mode search.Mode
	// Limit caps the questions asked (0: all).
	Limit int
	// Progress, if set, is called after each question.
	Progress func(done, total int)
}

// DefaultAnswerK is the number of passages an answer is drawn from unless
// told otherwise.
const DefaultAnswerK = 5

// AnswerMetrics are the quality of a model's cited answers on a set, judged
// by the gold answers of each question. A passage or a sentence "contains a
// gold answer" when one of the question's answers occurs in it, compared in
// lower case with white space collapsed.
type AnswerMetrics struct {
	Model     string `json:"model"`
	Questions int    `json:"questions"`
	K         int    `json:"k"`
	// Answered is the share of answers that cite something.
	Answered float64 `json:"answered"`
	// TopHit is the share of questions whose top search hit contains a gold
	// answer: what citing the first passage blindly would achieve.
	TopHit float64 `json:"top_hit"`
	// AnyHit is the share whose K passages contain one somewhere: the
	// ceiling of FirstPassage.
	AnyHit float64 `json:"any_hit"`
	// FirstPassage is the share of answers whose first cited passage
	// contains a gold answer.
	FirstPassage float64 `json:"first_passage"`
	// FirstSentence is the share whose first cited reference's quote (the
	// sentence) contains one.
	FirstSentence float64 `json:"first_sentence"`
	// Violations counts answers that break the citation contract: a marker
	// left in the output ("[doc:"), a dropped marker, a display number
	// without a reference, a quote span outside its passage's span or
	// whose bytes in the source file differ from the quote, or a link that
	// does not open the quote.
	Violations int `json:"violations"`
	// Unlocated counts cited references whose quote has no span in the
	// source.
	Unlocated int `json:"unlocated"`
	// Examples are the first few violations, for debugging.
	Examples []string      `json:"examples,omitempty"`
	P50      time.Duration `json:"p50_ns"` // model call plus rendering
	P99      time.Duration `json:"p99_ns"`
}

// RunAnswers asks every question of the set: it retrieves K passages with
// s, registers them in a fresh [citations.Invocation] as file references,
// calls model with the question, renders its streamed output with a
// [citations.Stream], and judges the rendered answer.
func RunAnswers(ctx context.Context, set *Set, s *search.Searcher, model provider.ChatModel, opts AnswerOptions) (AnswerMetrics, error) {
	k := opts.K
	if k <= 0 {
		k = DefaultAnswerK
	}
	qs := set.Questions
	if opts.Limit > 0 && opts.Limit < len(qs) {
		qs = qs[:opts.Limit]
	}
	m := AnswerMetrics{Model: model.Name(), K: k}
	var answered, top, anyHit, first, sent int
	files := map[string][]byte{}
	var lat []time.Duration
	for qi, q := range qs {
		res, err := s.Search(ctx, search.Query{Text: q.Text, K: k, Mode: opts.Mode})
		if err != nil {
			return m, fmt.Errorf("question %s: %w", q.ID, err)
		}
		if len(res.Hits) > 0 && containsAnswer(res.Hits[0].Text, q.Answers) {
			top++
		}
		if slices.ContainsFunc(res.Hits, func(h search.Hit) bool { return containsAnswer(h.Text, q.Answers) }) {
			anyHit++
		}
		start := time.Now()
		out, r, err := Answer(ctx, model, q.Text, res.Hits)
		lat = append(lat, time.Since(start))
		if err != nil {
			return m, fmt.Errorf("question %s: %w", q.ID, err)
		}
		if len(r.References) > 0 {
			answered++
			if containsAnswer(r.References[0].Passage, q.Answers) {
				first++
			}
			if containsAnswer(r.References[0].Quote, q.Answers) {
				sent++
			}
		}
		problems, unlocated := checkAnswer(out, r, files)
		m.Unlocated += unlocated
		if len(problems) > 0 {
			m.Violations++
			if len(m.Examples) < 5 {
				m.Examples = append(m.Examples, fmt.Sprintf("question %s: %s", q.ID, strings.Join(problems, "; ")))
			}
		}
		if opts.Progress != nil {
			opts.Progress(qi+1, len(qs))
		}
	}
	n := float64(max(len(qs), 1))
	m.Questions = len(qs)
	m.Answered, m.TopHit, m.AnyHit = float64(answered)/n, float64(top)/n, float64(anyHit)/n
	m.FirstPassage, m.FirstSentence = float64(first)/n, float64(sent)/n
	if len(lat) > 0 {
		slices.Sort(lat)
		m.P50, m.P99 = percentile(lat, 0.50), percentile(lat, 0.99)
	}
	return m, nil
}

// Answer answers question from hits, already retrieved, through the
// orchestrator, as cite ask does (the hits stand for its preemptive
// retrieval), and returns the rendered answer with its reference list and
// the structured rendering.
func Answer(ctx context.Context, model provider.ChatModel, question string, hits []search.Hit) (string, citations.Rendered, error) {
	eng, err := answer.New(answer.Config{Model: model, Retriever: fixedHits(hits)})
	if err != nil {
		return "", citations.Rendered{}, err
	}
	res, err := answer.Collect(eng.Run(ctx, answer.Request{Question: question, Sources: []string{"eval"}, K: max(1, len(hits))}))
	if err != nil {
		return "", citations.Rendered{}, err
	}
	return res.Markdown, citations.Rendered{Text: res.Text, References: res.References, Dropped: res.Dropped}, nil
}

// fixedHits is a retriever that returns hits already found.
type fixedHits []search.Hit

func (f fixedHits) Search(context.Context, search.Query) (*search.Result, error) {
	return &search.Result{Hits: slices.Clone(f)}, nil
}

var (
	displayNumber = regexp.MustCompile(`\[(\d+)\]`)
	leftMarker    = regexp.MustCompile(`(?i)\[\s*doc\s*(:|\d)`)
)

// checkAnswer returns the contract violations of a rendered answer, and the
// number of cited references whose quote has no span. files caches the
// source files read.
func checkAnswer(out string, r citations.Rendered, files map[string][]byte) (problems []string, unlocated int) {
	if leftMarker.MatchString(out) {
		problems = append(problems, "a [doc: marker reached the output")
	}
	for _, d := range r.Dropped {
		problems = append(problems, fmt.Sprintf("dropped %s (%s)", d.Marker, d.Reason))
	}
	for _, mm := range displayNumber.FindAllStringSubmatch(withoutCode(r.Text), -1) {
		if n, _ := strconv.Atoi(mm[1]); n < 1 || n > len(r.References) {
			problems = append(problems, fmt.Sprintf("[%d] resolves to no reference", n))
		}
	}
	for i, c := range r.References {
		if c.Number != i+1 {
			problems = append(problems, fmt.Sprintf("reference %d numbered %d", i+1, c.Number))
		}
		if !strings.Contains(r.Text, "["+strconv.Itoa(c.Number)+"]") {
			problems = append(problems, fmt.Sprintf("reference %d is listed but not cited", c.Number))
		}
		qs := c.QuoteSpan
		if qs == nil {
			unlocated++
			continue
		}
		if qs.Start < c.Span.Start || qs.End > c.Span.End || qs.Start >= qs.End {
			problems = append(problems, fmt.Sprintf("%s: quote span %d-%d outside passage %d-%d", c.Key, qs.Start, qs.End, c.Span.Start, c.Span.End))
			continue
		}
		data, ok := files[c.Source]
		if !ok {
			var err error
			if data, err = os.ReadFile(c.Source); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", c.Key, err))
				continue
			}
			files[c.Source] = data
		}
		if qs.End > len(data) || string(data[qs.Start:qs.End]) != c.Quote {
			problems = append(problems, fmt.Sprintf("%s: source bytes %d-%d are not the quote %q", c.Key, qs.Start, qs.End, c.Quote))
		}
		if want := fmt.Sprintf("#bytes=%d-%d", qs.Start, qs.End); !strings.HasSuffix(c.Link, want) {
			problems = append(problems, fmt.Sprintf("%s: link %s does not open the quote", c.Key, c.Link))
		}
	}
	return problems, unlocated
}

// containsAnswer reports whether text contains one of answers, compared in
// lower case with white space collapsed.
func containsAnswer(text string, answers []string) bool {
	if text == "" {
		return false
	}
	t := foldAnswer(text)
	for _, a := range answers {
		if a = foldAnswer(a); a != "" && strings.Contains(t, a) {
			return true
		}
	}
	return false
}

func foldAnswer(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// withoutCode returns text without its fenced code blocks and inline code
// spans (an escaped backtick opens none), where the renderer puts no
// display number and "[1]" is code.
func withoutCode(text string) string {
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(strings.TrimSpace(t), fence[:1]) == "" {
				fence = ""
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
			continue
		}
		b.WriteString(codeSpan.ReplaceAllString(strings.ReplaceAll(line, "\\`", ""), ""))
	}
	return b.String()
}

// codeSpan is an inline code span of one or two backticks.
var codeSpan = regexp.MustCompile("``[^`](?:[^`]|`[^`])*``|`[^`]+`")
