package extractive

import (
	"strings"

	"github.com/cite-rag/cite/index/analysis"
)

// typeWords are the words that, after "how", say what kind of answer is
// asked for rather than what it is about ("how old", "how long").
var typeWords = map[string]bool{
	"many": true, "much": true, "long": true, "old": true, "far": true, "large": true,
	"big": true, "high": true, "often": true, "tall": true, "wide": true, "deep": true,
}

// leadWords open a question that follows another: "and", "so", "ok".
var leadWords = map[string]bool{"and": true, "but": true, "so": true, "then": true, "ok": true, "okay": true, "also": true, "or": true}

// dropTypeWords returns terms, the question's analysed terms, without the
// stems of the words that follow "how" and only ask for a kind of answer.
func dropTypeWords(question string, terms []string) []string {
	ws := words(strings.ToLower(question))
	drop := map[string]bool{}
	for i := 1; i < len(ws); i++ {
		if ws[i-1] == "how" && typeWords[ws[i]] {
			for _, t := range analysis.Analyze(ws[i]) {
				drop[t] = true
			}
		}
	}
	// "How do checkpoints work?": the verb asks how; it names nothing a
	// sentence should match. A follow-up in a conversation may open with a
	// word that joins it to the last ("And how does it work?").
	hw := ws
	for len(hw) > 0 && leadWords[hw[0]] {
		for _, t := range analysis.Analyze(hw[0]) {
			drop[t] = true // "ok" is a term, and asks nothing
		}
		hw = hw[1:]
	}
	if n := len(hw); n >= 3 && hw[0] == "how" && (hw[1] == "do" || hw[1] == "does" || hw[1] == "did") && (hw[n-1] == "work" || hw[n-1] == "works") {
		for _, t := range analysis.Analyze(hw[n-1]) {
			drop[t] = true
		}
	}
	if len(drop) == 0 {
		return terms
	}
	out := terms[:0:0]
	for _, t := range terms {
		if !drop[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// query is what the scoring needs of a question.
type query struct {
	text    string
	terms   map[string]struct{} // its content terms (stems), without type words
	cue     cue                 // the kind of answer it asks for
	words   map[string]bool     // its words, lower-cased
	pairs   map[[2]string]bool  // adjacent content terms, in order
	surface map[[2]string]bool  // adjacent terms, stopwords included
	// phrase is the question's words, lower-cased, when it has no word but
	// stopwords ("what is it", "to be or not to be"): only a sentence that
	// has them in a row answers it.
	phrase []string
}

// newQuery analyses question.
func newQuery(question string) *query {
	qlist := dropTypeWords(question, analysis.AnalyzeQuery(question))
	q := &query{
		text:    question,
		terms:   uniqueTerms(qlist),
		cue:     questionCue(question),
		words:   foldedWords(question),
		pairs:   map[[2]string]bool{},
		surface: map[[2]string]bool{},
	}
	for j := 1; j < len(qlist); j++ {
		q.pairs[[2]string{qlist[j-1], qlist[j]}] = true
	}
	all := analysis.Analyze(question) // stopwords too
	for j := 1; j < len(all); j++ {
		q.surface[[2]string{all[j-1], all[j]}] = true
	}
	stops := true
	for t := range analysis.Terms(question) {
		stops = stops && t.Stop
	}
	if stops {
		q.phrase = words(strings.ToLower(question))
	}
	return q
}

func uniqueTerms(ts []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		m[t] = struct{}{}
	}
	return m
}
