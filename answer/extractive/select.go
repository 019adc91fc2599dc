package extractive

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/cite-rag/cite/answer/lexicon"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/analysis"
)

// pick is one chosen sentence.
type pick struct {
	ref  citations.Reference
	sent sentence
	head *sentence // the heading sent stands for, when that scored best
	// header is the header row of the table whose row sent is, when a
	// row answers: its cells name the row's.
	header string
}

// sectionStart returns the sentence that opens the section heading h
// heads in passage: the first after it that is no heading, past at most
// two more lines like headings (a subheading, a byline); ok is false when
// the passage ends first or a line of code (in isCode) comes first. (It
// may be no candidate: a sentence that an earlier passage holds too is a
// candidate there.)
func sectionStart(passage string, h sentence, isCode map[string]bool) (s sentence, ok bool) {
	skipped := 0
	for _, s := range splitSentences(passage) {
		switch {
		case s.start < h.end:
		case isCode[lineOf(passage, s.start)]:
			return sentence{}, false
		case !s.heading:
			return s, true
		case skipped == 2:
			return sentence{}, false
		default:
			skipped++
		}
	}
	return sentence{}, false
}

// pick chooses the answer's sentences from refs, best first; none when
// nothing is relevant. global, when set, gives a term's idf over the
// whole index; code[i], when set, holds the lines of refs[i]'s source
// that are code: none is a candidate.
//
// The steps: analyse the question, gather the candidate sentences, weigh
// the question's terms among them, give up when no sentence covers enough
// of the question, score the citable ones by their features, rank them,
// and choose.
func (a *Answerer) pick(ctx context.Context, question string, refs []citations.Reference, global func(string) float64, code []map[string]bool) []pick {
	q := newQuery(question)
	if len(q.terms) == 0 || len(refs) == 0 {
		return nil
	}
	cands := candidates(q, refs, code)
	if q.phrase != nil {
		// Stopwords alone match most sentences: only the phrase does.
		cands = slices.DeleteFunc(cands, func(c scored) bool { return !hasRun(words(strings.ToLower(c.text)), q.phrase) })
	}
	if len(cands) == 0 {
		return nil
	}
	w := a.weighTerms(q, cands, len(refs), global)
	if cover(cands, w) < a.opts.MinCoverage || !onTopic(q, refs, cands, w, global) {
		return nil // no sentence covers enough of the question
	}
	citable, texts := a.citable(cands, w)
	a.score(ctx, q, refs, cands, citable, texts, w)
	order := rank(cands)
	if a.inspect != nil {
		a.inspect(cands, order)
	}
	first, covered := lead(refs, code, cands, cands[order[0]])
	return a.follow(refs, cands, order, w, first, covered)
}

// Off-topic questions. A question the documents do not speak of still has
// words some sentence holds ("What seed was the Denver Broncos?" asked of
// the PowerShell docs: "Setting the seed results in non-random
// behavior."), and the idf over the candidates, which are all about
// something else, makes that word weigh. So a question is answered only
// when one sentence also holds minTerms of its terms, if it has as many
// as minTermsFrom, and minIndexCoverage of its weight by the index's idf
// alone; a term spelled nearly as the question's counts for both.
// Measured (eval's TestExtractiveOffTopic): of the SQuAD questions asked of
// the PowerShell docs' index, 0.327 were answered before and 0.077 after;
// of the docs' how-to questions asked of SQuAD's, 0.866 and 0.488; SQuAD's
// own first cited passage 0.872 and 0.866, first sentence 0.751 and 0.748
// (every fifth question); the how-to figures the same.
//
// A question of minTerms terms ("who won the election", "what is the
// capital of France") is answered only from a passage that speaks of its
// topic, the rarer of the two in the index: holds it (a near spelling, a
// synonym or a derived form counts) in its sentences, its title or its
// heading path. Before, the PowerShell docs answered those two with "You
// can elect to send the trace data…" and "Scope names and modifiers are
// capitalized:". Measured in one run (cite eval --answers on all of
// SQuAD's questions; TestExtractiveOffTopic), before and after: answered
// 0.987 and 0.986, first cited passage 0.874 and 0.873, first sentence
// 0.750 and 0.750; off-topic answered 0.077 and 0.065 (SQuAD asked of the
// PowerShell docs), 0.488 and 0.473 (the how-to asked of SQuAD). Asking
// for both terms in the passage instead gave 0.871 and 0.748, 0.062 and
// 0.465; both in the sentence, 0.868 and 0.746.
const (
	minTerms         = 2
	minTermsFrom     = 3
	minIndexCoverage = 0.25
)

// onTopic reports whether a candidate holds enough of the question's terms
// for it to be answered (see minTerms).
func onTopic(q *query, refs []citations.Reference, cands []scored, w *weighing, global func(string) float64) bool {
	var gidf map[string]float64
	if global != nil {
		gidf = make(map[string]float64, len(q.terms))
		for t := range q.terms {
			gidf[t] = global(t)
		}
	}
	// A question of two terms: its topic is the rarer in the index.
	var spoken []map[string]struct{}
	var topic string
	if len(q.terms) == minTerms {
		spoken = spokenOf(q, refs, cands)
		idf := gidf
		if idf == nil {
			idf = w.idf
		}
		for t := range q.terms {
			if topic == "" || idf[t] > idf[topic] || idf[t] == idf[topic] && t < topic {
				topic = t
			}
		}
	}
	for i := range cands {
		c := &cands[i]
		n := len(c.matched)
		for t := range c.fuzzy {
			if _, ok := c.matched[t]; !ok {
				n++
			}
		}
		if len(q.terms) >= minTermsFrom && n < minTerms {
			continue
		}
		if spoken != nil {
			if _, ok := spoken[c.ref][topic]; !ok {
				continue
			}
		}
		if gidf == nil || w.share(gidf, c.matched, c.fuzzy) >= minIndexCoverage {
			return true
		}
	}
	return false
}

// spokenOf returns, for each of refs, the question's terms it speaks of:
// those its candidate sentences hold (or spell nearly, or paraphrase by a
// synonym or a derived form), and those of its title and heading path.
func spokenOf(q *query, refs []citations.Reference, cands []scored) []map[string]struct{} {
	spoken := make([]map[string]struct{}, len(refs))
	add := func(ref int, t string) {
		if _, ok := q.terms[t]; !ok {
			return
		}
		if spoken[ref] == nil {
			spoken[ref] = map[string]struct{}{}
		}
		spoken[ref][t] = struct{}{}
	}
	for ri, ref := range refs {
		for _, t := range analysis.AnalyzeQuery(ref.Title + "\n" + ref.Heading) {
			add(ri, t)
		}
	}
	for _, c := range cands {
		for t := range c.matched {
			add(c.ref, t)
		}
		for t := range c.fuzzy {
			add(c.ref, t)
		}
		for _, tk := range c.toks {
			for t := range lexicon.Related(tk.Term) {
				add(c.ref, t)
			}
		}
	}
	return spoken
}

// hasRun reports whether ws holds run, of two words or more, in a row.
func hasRun(ws, run []string) bool {
	if len(run) < 2 {
		return false
	}
	for i := 0; i+len(run) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// rank returns the positions of cands, best score first.
func rank(cands []scored) []int {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cands[b].score, cands[a].score) })
	return order
}

// lead returns the answer's first sentence, best the best candidate, and
// the question's terms it covers: best itself or, when best is a heading,
// its section's first sentence, which it stands for.
func lead(refs []citations.Reference, code []map[string]bool, cands []scored, best scored) (pick, map[string]struct{}) {
	first := pick{ref: refs[best.ref], sent: best.sentence}
	covered := maps.Clone(best.matched)
	// A table's row answers, named by its header row; when the header
	// row scored best (the question names a column), the row that scored
	// best among the table's does.
	passage := refs[best.ref].Passage
	if header, ok := tableHeader(passage, best.sentence); ok {
		first.header = header
		return first, covered
	}
	if end, ok := tableBelow(passage, best.sentence); ok {
		var row *scored
		for i := range cands {
			c := &cands[i]
			if c.ref == best.ref && c.start > best.end && c.end <= end && len(c.matched) > 0 && (row == nil || c.score > row.score) {
				row = c
			}
		}
		if row != nil {
			if header, ok := tableHeader(passage, row.sentence); ok {
				first = pick{ref: refs[best.ref], sent: row.sentence, header: header}
				maps.Copy(covered, row.matched)
				return first, covered
			}
		}
	}
	// A heading is no answer: its section's first sentence is.
	if best.heading {
		var isCode map[string]bool
		if best.ref < len(code) {
			isCode = code[best.ref]
		}
		if s, ok := sectionStart(refs[best.ref].Passage, best.sentence, isCode); ok {
			head := best.sentence
			first = pick{ref: refs[best.ref], sent: s, head: &head}
			for _, c := range cands {
				if c.ref == best.ref && c.start == s.start {
					maps.Copy(covered, c.matched)
				}
			}
		}
	}
	return first, covered
}

// follow returns first and the further sentences of the answer, in order
// (ranked by score): close to the best, or answering a part of the
// question the chosen ones leave out (covered holds the terms they
// cover), one per passage, up to MaxSentences in all.
func (a *Answerer) follow(refs []citations.Reference, cands []scored, order []int, w *weighing, first pick, covered map[string]struct{}) []pick {
	best := cands[order[0]]
	qweight := w.total()
	out := []pick{first}
	used := map[int]bool{best.ref: true}
	for _, i := range order[1:] {
		if len(out) >= a.opts.MaxSentences {
			break
		}
		c := cands[i]
		if c.score < a.w.related*best.score {
			break
		}
		// A reference carries one quote: one sentence per passage.
		if used[c.ref] || c.cov < a.opts.MinCoverage || c.heading {
			continue
		}
		var fresh float64
		for t := range c.matched {
			if _, ok := covered[t]; !ok {
				fresh += w.idf[t]
			}
		}
		if c.score < a.w.follow*best.score && fresh/qweight < a.opts.MinCoverage {
			continue
		}
		used[c.ref] = true
		maps.Copy(covered, c.matched)
		out = append(out, pick{ref: refs[c.ref], sent: c.sentence})
	}
	return out
}
