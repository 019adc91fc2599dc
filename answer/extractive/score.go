package extractive

import (
	"context"
	"math"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/analysis"
)

// weights are the scoring constants.
type weights struct {
	global  float64 // share of the index-wide idf in a term's weight
	follow  float64 // a further sentence scoring this share of the best is taken
	related float64 // one covering new question terms needs this share
	// feature weighs the features of a sentence (the feat constants): its
	// score is their weighted sum.
	feature [numFeatures]float64
}

// Features of a candidate sentence. Coverages are shares of the question's
// weight: the idf of its terms, half over the candidate sentences and half
// over the index.
const (
	featCoverage      = iota // coverage by the sentence's terms
	featFuzzy                // coverage by words spelled nearly as the question's only
	featProx                 // matched terms over the words they span
	featLength               // words beyond the average, in averages
	featBigrams              // adjacent pairs of question terms in order, up to 3
	featBigramIDF            // the same, weighted by idf, up to 1
	featSurface              // adjacent word pairs of the question, stopwords included, up to 4
	featCount                // share of the question's terms, unweighted
	featLocal                // coverage with idf over the candidate sentences alone
	featTopic                // coverage with idf over the passages: what sets a passage apart
	featNoNovelty            // nothing beyond the question's own terms
	featCue                  // holds the kind of answer a typed question asks for
	featNoCue                // a typed question and no such answer
	featCueNear              // such an answer within 3 words of a question term
	featWindow               // coverage added by the neighbours in the paragraph
	featPrev                 // coverage added by the previous sentence of the paragraph
	featAnaphoricPrev        // the same, for a sentence opening with "he", "this", "the"...
	featParagraph            // BM25 of the paragraph over the best paragraph's
	featVector               // cosine of the hash embeddings of question and sentence
	featRank                 // 1/rank of the passage
	featFirst                // from the first passage
	featFragment             // cut by the chunk's edge
	featHeading              // a heading-like line
	featRelated              // coverage by synonyms and derived forms only (package lexicon)
	numFeatures
)

// defaultWeights: the feature weights are a listwise logistic regression
// (softmax over a question's candidate sentences, the coverage weight held
// at 1) fitted on every fifth question of the shared SQuAD half, with
// sentences holding a gold answer as the targets and, at half weight,
// sentences of passages holding one, then refined one weight at a time for
// the share of first choices holding one (TestFitWeights); the other
// questions check it. global, follow and related were tuned by hand with
// cite eval --answers.
var defaultWeights = weights{
	global: 0.5, follow: 0.75, related: 0.4,
	feature: [numFeatures]float64{
		featCoverage:      1,
		featFuzzy:         0.660,
		featProx:          0.066,
		featLength:        -0.034,
		featBigrams:       -0.109,
		featBigramIDF:     0.162,
		featSurface:       0.053,
		featCount:         -0.471,
		featLocal:         0.595,
		featTopic:         -0.226,
		featNoNovelty:     -0.159,
		featCue:           0.085,
		featNoCue:         -0.085,
		featCueNear:       0.065,
		featWindow:        -0.052,
		featPrev:          0.318,
		featAnaphoricPrev: 0.206,
		featParagraph:     0.269,
		featVector:        0.392,
		featRank:          0.136,
		featFirst:         -0.025,
		featFragment:      -0.004,
		featHeading:       -0.241,
		featRelated:       0.496,
	},
}

// weighing is how much each of the question's terms weighs among the
// candidate sentences.
type weighing struct {
	terms  map[string]struct{} // the question's terms
	local  map[string]float64  // idf over the candidate sentences
	idf    map[string]float64  // local mixed with the index's: the weight
	pidf   map[string]float64  // idf over the passages
	avgLen float64             // a candidate's terms, on average (at least 1)
}

// weighTerms returns the weights of q's terms among cands, from n
// passages: inverse document frequencies over the candidate sentences
// (local), mixed with the index's, global, when set (idf), and over the
// passages (pidf).
func (a *Answerer) weighTerms(q *query, cands []scored, n int, global func(string) float64) *weighing {
	df := map[string]int{}
	pdf := map[string]int{}
	total := 0
	inPassage := map[[2]any]bool{}
	for _, c := range cands {
		total += len(c.toks)
		for t := range c.matched {
			df[t]++
			if k := [2]any{c.ref, t}; !inPassage[k] {
				inPassage[k] = true
				pdf[t]++
			}
		}
	}
	w := &weighing{
		terms:  q.terms,
		local:  map[string]float64{},
		idf:    map[string]float64{},
		pidf:   map[string]float64{},
		avgLen: max(float64(total)/float64(len(cands)), 1),
	}
	for t := range q.terms {
		w.local[t] = analysis.IDF(len(cands), df[t])
		w.idf[t] = w.local[t]
		if global != nil {
			w.idf[t] = (1-a.w.global)*w.local[t] + a.w.global*global(t)
		}
		w.pidf[t] = analysis.IDF(n, pdf[t])
	}
	return w
}

// share returns the share of the question's terms, weighed by idf, that
// one of sets holds.
func (w *weighing) share(idf map[string]float64, sets ...map[string]struct{}) float64 {
	var m, all float64
	for t := range w.terms {
		all += idf[t]
		for _, s := range sets {
			if _, ok := s[t]; ok {
				m += idf[t]
				break
			}
		}
	}
	if all == 0 {
		return 0
	}
	return m / all
}

// weigh is share by the terms' weights.
func (w *weighing) weigh(sets ...map[string]struct{}) float64 { return w.share(w.idf, sets...) }

// total returns the weight of all the question's terms.
func (w *weighing) total() float64 {
	var sum float64
	for t := range w.terms {
		sum += w.idf[t]
	}
	return sum
}

// cover sets each candidate's coverage, the share of the question's weight
// it holds, and returns the best.
func cover(cands []scored, w *weighing) float64 {
	var best float64
	for i := range cands {
		cands[i].cov = w.weigh(cands[i].matched)
		best = max(best, cands[i].cov)
	}
	return best
}

// citable reports which candidates can be cited: those that match the
// question and, with their neighbours in the paragraph, cover enough of
// it. texts are their texts, in order.
func (a *Answerer) citable(cands []scored, w *weighing) (ok []bool, texts []string) {
	ok = make([]bool, len(cands))
	for i := range cands {
		c := &cands[i]
		if c.cov == 0 {
			continue
		}
		win := []map[string]struct{}{c.matched}
		if i > 0 && cands[i-1].para == c.para {
			win = append(win, cands[i-1].matched)
		}
		if i+1 < len(cands) && cands[i+1].para == c.para {
			win = append(win, cands[i+1].matched)
		}
		if w.weigh(win...) >= a.opts.MinCoverage {
			ok[i] = true
			texts = append(texts, c.text)
		}
	}
	return ok, texts
}

// score sets the features and the score of each candidate for q: the
// features' weighted sum for a citable one (citable, whose texts are
// texts), -Inf for the others.
func (a *Answerer) score(ctx context.Context, q *query, refs []citations.Reference, cands []scored, citable []bool, texts []string, w *weighing) {
	paraBM := paragraphBM25(cands, q.terms, w.idf)
	// The hash embeddings of the question and of the sentences that match it.
	qvec, vecs := hashEmbed(ctx, q.text, texts, w.idf)
	for i := range cands {
		c := &cands[i]
		if !citable[i] {
			c.score = math.Inf(-1)
			continue
		}
		var vec []float32
		if qvec != nil {
			vec, vecs = vecs[0], vecs[1:]
		}
		c.feat = features(q, refs, cands, i, w, paraBM, qvec, vec)
		for j, v := range c.feat {
			c.score += a.w.feature[j] * v
		}
	}
}
