package extractive

import (
	"context"
	"strings"

	"github.com/cite-rag/cite/answer/lexicon"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
)

// scored is a candidate sentence.
type scored struct {
	sentence
	ref     int              // position in refs
	para    int              // paragraph number, unique across passages
	toks    []analysis.Token // tokens of the text, spans in the passage
	novel   int              // content terms not in the question
	matched map[string]struct{}
	fuzzy   map[string]struct{} // question terms matched by a near spelling
	prox    float64             // matched terms over the words they span
	cov     float64             // share of the question's weight in the sentence
	feat    [numFeatures]float64
	score   float64
}

// hashEmbedder embeds sentences for [featVector]: the built-in hash
// embedder, offline and deterministic.
var hashEmbedder, _ = embed.New("hash", embed.Config{})

// hashEmbed returns the hash embeddings of question, its terms weighed by
// idf, and of texts; nil ones when the embedder fails.
func hashEmbed(ctx context.Context, question string, texts []string, idf map[string]float64) ([]float32, [][]float32) {
	if hashEmbedder == nil || len(texts) == 0 {
		return nil, nil
	}
	q, err := hashEmbedder.EmbedQuery(ctx, question, func(t string) float64 {
		if v, ok := idf[t]; ok {
			return v
		}
		return 1
	})
	if err != nil {
		return nil, nil
	}
	vs, err := hashEmbedder.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, nil
	}
	return q, vs
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// paragraphBM25 returns the BM25 score of each paragraph of cands for the
// question's terms, over the best paragraph's.
func paragraphBM25(cands []scored, qterms map[string]struct{}, idf map[string]float64) map[int]float64 {
	const k1, b = 1.2, 0.75
	tf := map[int]map[string]int{}
	dl := map[int]int{}
	for _, c := range cands {
		if tf[c.para] == nil {
			tf[c.para] = map[string]int{}
		}
		dl[c.para] += len(c.toks)
		for _, t := range c.toks {
			if _, ok := qterms[t.Term]; ok {
				tf[c.para][t.Term]++
			}
		}
	}
	var avg float64
	for _, n := range dl {
		avg += float64(n)
	}
	avg = max(avg/float64(len(dl)), 1)
	out := map[int]float64{}
	var best float64
	for p, m := range tf {
		norm := k1 * (1 - b + b*float64(dl[p])/avg)
		var s float64
		for t, n := range m {
			x := float64(n)
			s += idf[t] * x * (k1 + 1) / (x + norm)
		}
		out[p] = s
		best = max(best, s)
	}
	if best > 0 {
		for p := range out {
			out[p] /= best
		}
	}
	return out
}

// referring are the words that, among a sentence's first three, make it
// lean on the one before ("He died in 1259.").
var referring = map[string]bool{
	"he": true, "she": true, "it": true, "they": true, "his": true, "her": true, "its": true,
	"their": true, "him": true, "them": true, "this": true, "these": true, "that": true, "those": true, "the": true,
}

// anaphoric reports whether one of the first three words of the sentence
// with tokens toks of text refers back.
func anaphoric(text string, toks []analysis.Token) bool {
	for _, t := range toks[:min(3, len(toks))] {
		if referring[strings.ToLower(text[t.Start:t.End])] {
			return true
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// nearTerm returns the question term t is a near spelling of: one sharing
// its first five letters, or one edit away from a word of six or more; or
// "".
func nearTerm(t string, qterms map[string]struct{}) string {
	if len(t) < 5 {
		return ""
	}
	for q := range qterms {
		if len(q) < 5 {
			continue
		}
		if t[:5] == q[:5] || len(q) >= 6 && oneEdit(t, q) {
			return q
		}
	}
	return ""
}

// oneEdit reports whether a and b differ by one byte inserted, deleted or
// replaced.
func oneEdit(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(b) {
		return true
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i+1:] == b[i:]
}

// candidates returns the candidate sentences of refs for q, in passage
// order: every sentence but the lines of code (code[i], when set, holds
// the lines of refs[i]'s source that are code) and the sentences an
// earlier passage holds too, with the question's terms each matches.
func candidates(q *query, refs []citations.Reference, code []map[string]bool) []scored {
	var cands []scored
	seen := map[string]bool{}
	para := 0
	for ri, ref := range refs {
		toks := analysis.AnalyzeTokens(ref.Passage)
		content := uniqueTerms(analysis.AnalyzeQuery(ref.Passage))
		ti := 0
		line := -1
		var isCode map[string]bool
		if ri < len(code) {
			isCode = code[ri]
		}
		for _, s := range splitSentences(ref.Passage) {
			if s.line != line {
				line = s.line
				para++
			}
			if isCode != nil && isCode[lineOf(ref.Passage, s.start)] {
				continue
			}
			c := scored{sentence: s, ref: ri, para: para, matched: map[string]struct{}{}, fuzzy: map[string]struct{}{}}
			first, last := -1, -1
			for ti < len(toks) && toks[ti].Start < s.start {
				ti++
			}
			t0 := ti
			for ; ti < len(toks) && toks[ti].End <= s.end; ti++ {
				t := toks[ti].Term
				if _, ok := q.terms[t]; ok {
					c.matched[t] = struct{}{}
					if first < 0 {
						first = ti - t0
					}
					last = ti - t0
				} else if _, ok := content[t]; ok {
					c.novel++
					if n := nearTerm(t, q.terms); n != "" {
						c.fuzzy[n] = struct{}{}
					}
				}
			}
			c.toks = toks[t0:ti]
			if first >= 0 {
				c.prox = float64(len(c.matched)) / float64(last-first+1)
			}
			// Overlapping chunks repeat sentences, and so do copies of a
			// document (one per version of a product's docs), at times as
			// list items in one and not in another.
			key := typography.Replace(strings.Join(strings.Fields(trimMarker(s.text)), " "))
			if seen[key] {
				continue
			}
			seen[key] = true
			cands = append(cands, c)
		}
	}
	return cands
}

// typography folds the typographic quotes, apostrophes and dashes that
// one copy of a document has where another has ASCII (a Word file and the
// Markdown it was made from), for telling repeated sentences apart.
var typography = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "–", "-", "—", "-", "\u00a0", " ")

// features returns the features of cands[i], a citable candidate for q
// from refs, weighed by w; paraBM holds its paragraph's BM25 share and vec,
// when qvec is set, its hash embedding.
func features(q *query, refs []citations.Reference, cands []scored, i int, w *weighing, paraBM map[int]float64, qvec, vec []float32) [numFeatures]float64 {
	var f [numFeatures]float64
	c := &cands[i]
	f[featCoverage] = c.cov
	fuzzyOnly := map[string]struct{}{}
	for t := range c.fuzzy {
		if _, ok := c.matched[t]; !ok {
			fuzzyOnly[t] = struct{}{}
		}
	}
	f[featFuzzy] = w.weigh(fuzzyOnly)
	f[featProx] = c.prox
	f[featLength] = max(0, float64(len(c.toks))/w.avgLen-1)
	var bigrams, surf int
	var bidf float64
	for j := 1; j < len(c.toks); j++ {
		a, b := c.toks[j-1].Term, c.toks[j].Term
		if q.pairs[[2]string{a, b}] {
			bigrams++
			bidf += w.idf[a] + w.idf[b]
		}
		if q.surface[[2]string{a, b}] {
			surf++
		}
	}
	var qsum float64
	for t := range q.terms {
		qsum += w.idf[t]
	}
	f[featBigrams] = float64(min(bigrams, 3))
	f[featBigramIDF] = min(bidf/qsum, 1)
	f[featSurface] = float64(min(surf, 4))
	f[featCount] = float64(len(c.matched)) / float64(len(q.terms))
	f[featLocal] = w.share(w.local, c.matched)
	f[featTopic] = w.share(w.pidf, c.matched)
	f[featNoNovelty] = b2f(c.novel == 0)
	if q.cue != cueNone {
		has := hasCue(c.text, q.cue, q.words)
		f[featCue], f[featNoCue] = b2f(has), b2f(!has)
		f[featCueNear] = b2f(has && cueNear(refs[c.ref].Passage, c.toks, q.cue, q.words, q.terms, 3))
	}
	win := []map[string]struct{}{c.matched}
	if i > 0 && cands[i-1].para == c.para {
		win = append(win, cands[i-1].matched)
		f[featPrev] = w.weigh(c.matched, cands[i-1].matched) - c.cov
		if anaphoric(refs[c.ref].Passage, c.toks) {
			f[featAnaphoricPrev] = f[featPrev]
		}
	}
	if i+1 < len(cands) && cands[i+1].para == c.para {
		win = append(win, cands[i+1].matched)
	}
	f[featWindow] = w.weigh(win...) - c.cov
	f[featParagraph] = paraBM[c.para]
	if qvec != nil {
		f[featVector] = dot(qvec, vec)
	}
	f[featRank] = 1 / float64(c.ref+1)
	f[featFirst] = b2f(c.ref == 0)
	f[featFragment] = b2f(c.fragment)
	f[featHeading] = b2f(c.heading)
	// Question terms the sentence paraphrases: a word of it is a synonym
	// or a derived form of theirs.
	related := map[string]struct{}{}
	for _, tk := range c.toks {
		for t := range lexicon.Related(tk.Term) {
			if _, ok := q.terms[t]; !ok {
				continue
			}
			_, m := c.matched[t]
			_, z := c.fuzzy[t]
			if !m && !z {
				related[t] = struct{}{}
			}
		}
	}
	f[featRelated] = w.weigh(related)
	return f
}
