package answer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/answer/lexicon"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/provider"
)

// NothingFound is the whole answer of [Extractive] when no retrieved
// passage answers the question. It cites nothing.
const NothingFound = "I found nothing in the indexed documents that answers this."

// Defaults of [ExtractiveOptions].
const (
	DefaultMaxSentences = 3
	DefaultMinCoverage  = 0.2
)

// ExtractiveOptions configure [NewExtractive]. The zero value means the
// defaults.
type ExtractiveOptions struct {
	// MaxSentences caps the sentences of an answer (default
	// [DefaultMaxSentences]).
	MaxSentences int
	// MinCoverage is the share of the question's weighted terms a sentence
	// must contain for the question to count as answered (default
	// [DefaultMinCoverage]); below it the answer is [NothingFound]. The
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
	// sentences alone. An error from it is returned by Chat.
	TermStats func(ctx context.Context, terms []string) (index.TermStats, error)
}

// Extractive answers without a language model: it picks the sentences of
// the retrieved passages that best answer the question and cites each with
// its passage's marker. It is the [provider.ChatModel] used when no model is
// configured, so answers go through the same pipeline as generated ones.
//
// Chat reads the question from the request's last user message and the
// candidate passages from the [citations.Invocation] in ctx: every
// registered reference, in index order, which is retrieval rank order. The
// request's other messages and its tools are ignored; Extractive never
// calls a tool. For each sentence it cites, it sets the reference's quote
// ([citations.Invocation.SetQuote]) to the sentence's bytes in the source
// file and their range, so the reference's link opens that sentence.
//
// Scoring: each sentence of each passage is described by features (the
// feat constants) and scored by their weighted sum. The main one is the
// share of the question's weight it contains (its terms as stems, each
// weighted by inverse document frequency, half over the candidate sentences
// and half over the whole index when [ExtractiveOptions.TermStats] is set);
// the others add partial credit for words spelled nearly as the question's
// and for synonyms and derived forms of its words ([lexicon.Related]), its
// words in the question's order, the same share weighted by idf over the
// candidates alone and over the passages, what the previous sentence adds
// (more when the sentence opens with "he", "this" or "the"), the BM25 score
// of its paragraph, the cosine of its hash embedding with the question's,
// holding the kind of answer the question asks for (a number for "how
// many", a date for "when", a name for "who", a name after "in" or "at"
// for "where") beyond what the question already says and near its words,
// and the passage's rank; and they penalize long sentences, sentences that
// add nothing to the question and headings. The weights were fitted on
// SQuAD ([defaultWeights]). A question counts as answered when a sentence holds
// MinCoverage of its weight; a sentence can be cited when it and its
// neighbours do. The best sentence comes first. Up to MaxSentences-1 more
// follow, one per passage (a reference carries one quote), if they score
// close to the best or answer a part of the question the chosen ones leave
// out, each holding MinCoverage itself. A sentence that two passages hold
// (overlapping chunks, copies of a document) is a candidate once.
//
// The answer gives a sentence as the documents show it: without its list
// bullet, after its item's label when it is nested under one ("Restricted:
// The default execution policy…"), and with the lines it introduces when it
// ends with a colon (the command after "To create a directory, type:"). A
// heading that scores best stands for the first sentence of its section,
// and the first sentence brings the rest of its paragraph and the Markdown
// code block that follows it (the command of a documentation example), or,
// when none does, the block just before its paragraph that it speaks of (a
// reference page's example gives a heading, the code, then "This
// example…"), or, when the paragraph opens a section, the section's first
// block.
// Quotes cover the same: the heading, the sentence, the code.
//
// An Extractive is safe for concurrent use.
type Extractive struct {
	opts ExtractiveOptions
	w    weights
	// inspect, when set (by tests), sees the scored candidates and their
	// order, best first.
	inspect func(cands []scored, order []int)
}

var _ provider.ChatModel = (*Extractive)(nil)

// NewExtractive returns an extractive model with opts.
func NewExtractive(opts ExtractiveOptions) *Extractive {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = DefaultMaxSentences
	}
	if opts.MinCoverage <= 0 {
		opts.MinCoverage = DefaultMinCoverage
	}
	if opts.ReadSpan == nil {
		opts.ReadSpan = ReadFileSpan
	}
	return &Extractive{opts: opts, w: defaultWeights}
}

// Name returns "extractive".
func (*Extractive) Name() string { return "extractive" }

// Local reports true: nothing leaves the machine.
func (*Extractive) Local() bool { return true }

// ErrNoInvocation is returned by [Extractive.Chat] when ctx carries no
// [citations.Invocation]: the passages to answer from are unknown.
var ErrNoInvocation = errors.New("extractive: no citations invocation in the context (call citations.Begin and register the passages)")

// Chat answers the last user message of req from the passages registered
// in ctx's invocation. onDelta, when not nil, receives the answer in a few
// pieces (one per sentence, then one per marker).
func (e *Extractive) Chat(ctx context.Context, req provider.ChatRequest, onDelta func(string) error) (provider.ChatResponse, error) {
	inv, ok := citations.FromContext(ctx)
	if !ok {
		return provider.ChatResponse{}, ErrNoInvocation
	}
	question := lastUser(req.Messages)
	var global func(string) float64
	if e.opts.TermStats != nil {
		ts, err := e.opts.TermStats(ctx, analysis.QueryTerms(question))
		if err != nil {
			return provider.ChatResponse{}, fmt.Errorf("extractive: term statistics: %w", err)
		}
		global = ts.IDF
	}
	refs := inv.References()
	// The passages' sources: where quotes are found, and which lines are
	// code, never cited as sentences.
	type source struct {
		raw []byte
		err error
	}
	sources := make(map[int]source, len(refs))
	code := make([]map[string]bool, len(refs))
	for i, ref := range refs {
		raw, err := e.opts.ReadSpan(ctx, ref)
		if err != nil && ctx.Err() != nil {
			return provider.ChatResponse{}, ctx.Err()
		}
		sources[ref.Index] = source{raw, err}
		if err == nil && raw != nil {
			code[i] = e.codeLines(ctx, ref, raw)
		}
	}
	picks := e.pick(ctx, question, refs, global, code)
	if err := ctx.Err(); err != nil {
		return provider.ChatResponse{}, err
	}
	var deltas []string
	if len(picks) == 0 {
		deltas = []string{NothingFound}
	}
	block := false // the previous sentence came with a block
	e0 := e
	for i, p := range picks {
		pr := present(p.ref.Passage, p.sent, p.head)
		quote, span := p.ref.Passage[pr.start:pr.end], (*citations.Span)(nil)
		if src := sources[p.ref.Index]; src.err == nil && src.raw != nil {
			raw := src.raw
			s, e, ok := locate(raw, p.ref.Passage, pr.start, pr.end)
			if !ok && (pr.start != p.sent.start || pr.end != p.sent.end) {
				pr = presentation{text: p.sent.text, start: p.sent.start, end: p.sent.end}
				quote = p.sent.text
				s, e, ok = locate(raw, p.ref.Passage, p.sent.start, p.sent.end)
			}
			// The first sentence, the answer proper, brings its example's
			// code (a further one's would mostly be metadata or output).
			if ok && i == 0 && len(pr.block) == 0 {
				s, e, pr = e0.bringCode(ctx, p, raw, s, e, pr)
			}
			if ok {
				quote = string(raw[s:e])
				span = &citations.Span{Start: p.ref.Span.Start + s, End: p.ref.Span.Start + e}
			}
		}
		if _, err := inv.SetQuote(p.ref.Index, quote, span); err != nil {
			return provider.ChatResponse{}, err
		}
		text := pr.text
		switch {
		case i > 0 && block:
			text = "\n\n" + text
		case i > 0:
			text = " " + text
		}
		deltas = append(deltas, text, " "+p.ref.Key())
		block = len(pr.block) > 0
		if block {
			deltas = append(deltas, "\n\n"+markdownBlock(pr.block))
		}
	}
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(d)
		if onDelta != nil {
			if err := onDelta(d); err != nil {
				return provider.ChatResponse{Content: b.String()}, err
			}
		}
	}
	return provider.ChatResponse{Content: b.String(), StopReason: "stop"}, nil
}

// lastUser returns the content of the last user message.
func lastUser(msgs []provider.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
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

// pick is one chosen sentence.
type pick struct {
	ref  citations.Reference
	sent sentence
	head *sentence // the heading sent stands for, when that scored best
}

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

// pick chooses the answer's sentences, best first; none when nothing is
// relevant.
//
// code[i], when set, holds the lines of refs[i]'s source that are code:
// none is a candidate.
func (e *Extractive) pick(ctx context.Context, question string, refs []citations.Reference, global func(string) float64, code []map[string]bool) []pick {
	qlist := dropTypeWords(question, analysis.AnalyzeQuery(question))
	qterms := uniqueTerms(qlist)
	if len(qterms) == 0 || len(refs) == 0 {
		return nil
	}
	cue := questionCue(question)
	qwords := foldedWords(question)
	pairs := map[[2]string]bool{}
	for j := 1; j < len(qlist); j++ {
		pairs[[2]string{qlist[j-1], qlist[j]}] = true
	}
	all := analysis.Analyze(question) // stopwords too
	surface := map[[2]string]bool{}
	for j := 1; j < len(all); j++ {
		surface[[2]string{all[j-1], all[j]}] = true
	}

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
				if _, ok := qterms[t]; ok {
					c.matched[t] = struct{}{}
					if first < 0 {
						first = ti - t0
					}
					last = ti - t0
				} else if _, ok := content[t]; ok {
					c.novel++
					if q := nearTerm(t, qterms); q != "" {
						c.fuzzy[q] = struct{}{}
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
			key := strings.Join(strings.Fields(trimMarker(s.text)), " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Inverse document frequencies over the candidate sentences (local),
	// mixed with the index's (idf), and over the passages (pidf).
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
	avg := max(float64(total)/float64(len(cands)), 1)
	w := e.w
	local, idf, pidf := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for t := range qterms {
		local[t] = analysis.IDF(len(cands), df[t])
		idf[t] = local[t]
		if global != nil {
			idf[t] = (1-w.global)*local[t] + w.global*global(t)
		}
		pidf[t] = analysis.IDF(len(refs), pdf[t])
	}
	share := func(idf map[string]float64, sets ...map[string]struct{}) float64 {
		var m, all float64
		for t := range qterms {
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
	weigh := func(sets ...map[string]struct{}) float64 { return share(idf, sets...) }
	paraBM := paragraphBM25(cands, qterms, idf)
	// The hash embeddings of the question and of the sentences that match it.
	var texts []string
	var bestCov float64
	for i := range cands {
		cands[i].cov = weigh(cands[i].matched)
		bestCov = max(bestCov, cands[i].cov)
	}
	if bestCov < e.opts.MinCoverage {
		return nil // no sentence covers enough of the question
	}
	// A sentence is citable when it matches the question and, with its
	// neighbours in the paragraph, covers enough of it.
	citable := make([]bool, len(cands))
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
		if weigh(win...) >= e.opts.MinCoverage {
			citable[i] = true
			texts = append(texts, c.text)
		}
	}
	qvec, vecs := e.embed(ctx, question, texts, idf)
	for i := range cands {
		c := &cands[i]
		if !citable[i] {
			c.score = math.Inf(-1)
			continue
		}
		f := &c.feat
		f[featCoverage] = c.cov
		fuzzyOnly := map[string]struct{}{}
		for t := range c.fuzzy {
			if _, ok := c.matched[t]; !ok {
				fuzzyOnly[t] = struct{}{}
			}
		}
		f[featFuzzy] = weigh(fuzzyOnly)
		f[featProx] = c.prox
		f[featLength] = max(0, float64(len(c.toks))/avg-1)
		var bigrams, surf int
		var bidf float64
		for j := 1; j < len(c.toks); j++ {
			a, b := c.toks[j-1].Term, c.toks[j].Term
			if pairs[[2]string{a, b}] {
				bigrams++
				bidf += idf[a] + idf[b]
			}
			if surface[[2]string{a, b}] {
				surf++
			}
		}
		var qsum float64
		for t := range qterms {
			qsum += idf[t]
		}
		f[featBigrams] = float64(min(bigrams, 3))
		f[featBigramIDF] = min(bidf/qsum, 1)
		f[featSurface] = float64(min(surf, 4))
		f[featCount] = float64(len(c.matched)) / float64(len(qterms))
		f[featLocal] = share(local, c.matched)
		f[featTopic] = share(pidf, c.matched)
		f[featNoNovelty] = b2f(c.novel == 0)
		if cue != cueNone {
			has := hasCue(c.text, cue, qwords)
			f[featCue], f[featNoCue] = b2f(has), b2f(!has)
			f[featCueNear] = b2f(has && cueNear(refs[c.ref].Passage, c.toks, cue, qwords, qterms, 3))
		}
		win := []map[string]struct{}{c.matched}
		if i > 0 && cands[i-1].para == c.para {
			win = append(win, cands[i-1].matched)
			f[featPrev] = weigh(c.matched, cands[i-1].matched) - c.cov
			if anaphoric(refs[c.ref].Passage, c.toks) {
				f[featAnaphoricPrev] = f[featPrev]
			}
		}
		if i+1 < len(cands) && cands[i+1].para == c.para {
			win = append(win, cands[i+1].matched)
		}
		f[featWindow] = weigh(win...) - c.cov
		f[featParagraph] = paraBM[c.para]
		if qvec != nil {
			f[featVector] = dot(qvec, vecs[0])
			vecs = vecs[1:]
		}
		f[featRank] = 1 / float64(c.ref+1)
		f[featFirst] = b2f(c.ref == 0)
		f[featFragment] = b2f(c.fragment)
		f[featHeading] = b2f(c.heading)
		// Question terms the sentence paraphrases: a word of it is a synonym
		// or a derived form of theirs.
		related := map[string]struct{}{}
		for _, tk := range c.toks {
			for q := range lexicon.Related(tk.Term) {
				if _, ok := qterms[q]; !ok {
					continue
				}
				_, m := c.matched[q]
				_, z := c.fuzzy[q]
				if !m && !z {
					related[q] = struct{}{}
				}
			}
		}
		f[featRelated] = weigh(related)
		for j, v := range f {
			c.score += w.feature[j] * v
		}
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cands[b].score, cands[a].score) })
	if e.inspect != nil {
		e.inspect(cands, order)
	}
	best := cands[order[0]]
	var qweight float64
	for t := range qterms {
		qweight += idf[t]
	}
	first := pick{ref: refs[best.ref], sent: best.sentence}
	covered := maps.Clone(best.matched)
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
	out := []pick{first}
	// Further sentences: close to the best, or answering a part of the
	// question the chosen ones leave out.
	used := map[int]bool{best.ref: true}
	for _, i := range order[1:] {
		if len(out) >= e.opts.MaxSentences {
			break
		}
		c := cands[i]
		if c.score < w.related*best.score {
			break
		}
		// A reference carries one quote: one sentence per passage.
		if used[c.ref] || c.cov < e.opts.MinCoverage || c.heading {
			continue
		}
		var fresh float64
		for t := range c.matched {
			if _, ok := covered[t]; !ok {
				fresh += idf[t]
			}
		}
		if c.score < w.follow*best.score && fresh/qweight < e.opts.MinCoverage {
			continue
		}
		used[c.ref] = true
		maps.Copy(covered, c.matched)
		out = append(out, pick{ref: refs[c.ref], sent: c.sentence})
	}
	return out
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

// hashEmbedder embeds sentences for [featVector]: the built-in hash
// embedder, offline and deterministic.
var hashEmbedder, _ = embed.New("hash", embed.Config{})

// embed returns the hash embeddings of question, its terms weighed by idf,
// and of texts; nil ones when the embedder fails.
func (e *Extractive) embed(ctx context.Context, question string, texts []string, idf map[string]float64) ([]float32, [][]float32) {
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

func uniqueTerms(ts []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		m[t] = struct{}{}
	}
	return m
}

// sentence is one sentence of a passage.
type sentence struct {
	text       string // trimmed
	start, end int    // byte range of text in the passage
	line       int    // line of the passage the sentence is on
	fragment   bool   // cut by the passage's start or end
	heading    bool   // a short line without closing punctuation
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true,
	"prof": true, "rev": true, "gen": true, "col": true, "lt": true, "capt": true, "sgt": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "approx": true,
	"no": true, "nos": true, "vol": true, "fig": true, "co": true, "inc": true, "ltd": true, "corp": true,
	"mt": true, "ft": true, "ca": true, "c": true, "u.s": true, "u.k": true, "a.d": true, "b.c": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// splitSentences cuts a passage into sentences: at line breaks, and after
// ".", "!", "?" or "…" (with any closing quotes or brackets) followed by
// white space and a sentence start, except after an abbreviation or an
// initial; after "。", "！" and "？" always.
func splitSentences(text string) []sentence {
	var out []sentence
	line := 0
	add := func(start, end int) {
		for start < end {
			r, n := utf8.DecodeRuneInString(text[start:])
			if !unicode.IsSpace(r) {
				break
			}
			start += n
		}
		for end > start {
			r, n := utf8.DecodeLastRuneInString(text[:end])
			if !unicode.IsSpace(r) {
				break
			}
			end -= n
		}
		if start == end {
			return
		}
		s := sentence{text: text[start:end], start: start, end: end, line: line}
		first, _ := utf8.DecodeRuneInString(s.text)
		last, _ := utf8.DecodeLastRuneInString(s.text)
		closed := closes(s.text)
		if (start == 0 && unicode.IsLower(first)) || (end == len(text) && !closed) {
			s.fragment = true
		}
		// A line without closing punctuation is no sentence: a heading, a
		// line of code. But a list item or a sentence cut by the passage's
		// end of ten words or more is. Nor is a table row, or a line of
		// fewer than four words ("PRAGMA journal_mode=WAL;"), unless it is
		// CJK text, which has no spaces between words.
		n := len(strings.Fields(s.text))
		cjk := strings.ContainsRune("。！？", last)
		if (n < 4 && !cjk) || (!closed && (n < 10 || (end < len(text) && marker(s.text) < 0))) || tableRow(text, start, end) {
			s.heading = true
		}
		out = append(out, s)
	}
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			add(start, i)
			start = i + n
			line++
		case r == '。' || r == '！' || r == '？':
			j := skipClosers(text, i+n)
			add(start, j)
			start = j
			i = j
			continue
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := skipClosers(text, i+n)
			if endsSentence(text, start, i, j, r) {
				add(start, j)
				start = j
				i = j
				continue
			}
		}
		i += n
	}
	add(start, len(text))
	return out
}

// closes reports whether text ends with closing punctuation, before a
// footnote mark ("….[citation needed]", "….[1]").
func closes(text string) bool {
	if strings.HasSuffix(text, "]") {
		if i := strings.LastIndexByte(text, '['); i > 0 {
			text = strings.TrimSpace(text[:i])
		}
	}
	last, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".!?…。！？:;\"'”’)", last)
}

// tableRow reports whether text[start:end] is on a line of a table, whose
// cells normalized text separates with " | ".
func tableRow(text string, start, end int) bool {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	le := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		le = end + i
	}
	line := text[ls:le]
	return strings.Contains(line, " | ") || strings.HasPrefix(line, "| ") || strings.HasSuffix(line, " |")
}

func skipClosers(text string, j int) int {
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !strings.ContainsRune("\"')]”’»", r) {
			break
		}
		j += n
	}
	return j
}

// endsSentence reports whether the punctuation r at text[i] (closers up to
// j) ends the sentence that started at start.
func endsSentence(text string, start, i, j int, r rune) bool {
	if j == len(text) {
		return true
	}
	next, n := utf8.DecodeRuneInString(text[j:])
	if !unicode.IsSpace(next) {
		return false
	}
	k := j + n
	for k < len(text) {
		c, m := utf8.DecodeRuneInString(text[k:])
		if !unicode.IsSpace(c) || c == '\n' {
			break
		}
		k += m
	}
	if k < len(text) {
		c, _ := utf8.DecodeRuneInString(text[k:])
		if unicode.IsLower(c) { // "e.g. the", "approx. five"
			return false
		}
	}
	if r != '.' || j != i+1 {
		return true
	}
	// The word before the period: an abbreviation or an initial?
	w := i
	for w > start {
		c, m := utf8.DecodeLastRuneInString(text[:w])
		if !unicode.IsLetter(c) && c != '.' {
			break
		}
		w -= m
	}
	word := text[w:i]
	if word == "" {
		return true
	}
	if utf8.RuneCountInString(word) == 1 {
		c, _ := utf8.DecodeRuneInString(word)
		return !unicode.IsUpper(c) // "J. Smith"
	}
	return !abbreviations[strings.ToLower(word)]
}

// cue is the kind of answer a question asks for.
type cue int

const (
	cueNone   cue = iota
	cueNumber     // how many, how much, what percentage
	cueDate       // when, what year
	cueName       // who, whom, whose
	cuePlace      // where: a name after in, at, near...
)

func questionCue(q string) cue {
	ws := strings.Fields(strings.ToLower(q))
	has := func(seq ...string) bool {
		for i := 0; i+len(seq) <= len(ws); i++ {
			ok := true
			for j, s := range seq {
				if strings.Trim(ws[i+j], "?,.\"'") != s {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("how", "many"), has("how", "much"), has("what", "percentage"), has("what", "percent"),
		has("how", "long"), has("how", "old"), has("how", "far"), has("how", "large"), has("how", "big"), has("how", "high"):
		return cueNumber
	case has("when"), has("what", "year"), has("which", "year"), has("what", "century"), has("what", "date"), has("what", "decade"):
		return cueDate
	case has("who"), has("whom"), has("whose"):
		return cueName
	case has("where"):
		return cuePlace
	}
	// "what day", "which company": the word after the question word.
	for i, w := range ws[:max(len(ws)-1, 0)] {
		if w != "what" && w != "which" {
			continue
		}
		if c, ok := headCues[strings.Trim(ws[i+1], "?,.\"'")]; ok {
			return c
		}
		break
	}
	return cueNone
}

// headCues are the kinds of answer of "what X" and "which X" questions.
var headCues = map[string]cue{
	"day": cueDate, "month": cueDate, "date": cueDate, "period": cueDate, "era": cueDate, "time": cueDate, "years": cueDate,
	"number": cueNumber, "amount": cueNumber, "size": cueNumber, "population": cueNumber, "age": cueNumber,
	"cost": cueNumber, "price": cueNumber, "temperature": cueNumber, "distance": cueNumber, "length": cueNumber,
	"height": cueNumber, "rate": cueNumber, "score": cueNumber, "speed": cueNumber, "weight": cueNumber,
	"company": cueName, "country": cueName, "team": cueName, "city": cueName, "network": cueName,
	"person": cueName, "player": cueName, "doctor": cueName, "group": cueName, "language": cueName,
	"university": cueName, "organization": cueName, "state": cueName, "river": cueName, "town": cueName,
	"station": cueName, "channel": cueName, "dynasty": cueName, "band": cueName, "king": cueName,
	"president": cueName, "emperor": cueName, "church": cueName, "island": cueName, "region": cueName,
	"nationality": cueName, "venue": cueName, "stadium": cueName, "author": cueName, "scientist": cueName,
}

var numberWords = map[string]bool{
	"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "twenty": true,
	"thirty": true, "forty": true, "fifty": true, "hundred": true, "hundreds": true, "thousand": true,
	"thousands": true, "million": true, "millions": true, "billion": true, "dozen": true, "half": true,
}

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"century": true, "centuries": true, "decade": true, "bc": true, "ad": true, "bce": true, "ce": true,
}

// foldedWords returns the lower-cased words of s.
func foldedWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[strings.ToLower(w)] = true
	}
	return m
}

// words returns the runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) })
}

// hasCue reports whether sentence holds a new answer of kind c: a word the
// question does not contain that is a number, a date or a name.
func hasCue(sentence string, c cue, qwords map[string]bool) bool {
	ws := words(sentence)
	for i, w := range ws {
		if !qwords[strings.ToLower(w)] && isCue(ws, i, c) {
			return true
		}
	}
	return false
}

// cueNear reports whether the sentence with tokens toks of text holds a new
// answer of kind c within win words of a term of the question.
func cueNear(text string, toks []analysis.Token, c cue, qwords map[string]bool, qterms map[string]struct{}, win int) bool {
	ws := wordsOf(text, toks)
	lastQ, lastCue := -win-1, -win-1
	for i, t := range toks {
		if _, ok := qterms[t.Term]; ok {
			lastQ = i
			if i-lastCue <= win {
				return true
			}
			continue
		}
		if !qwords[strings.ToLower(ws[i])] && isCue(ws, i, c) {
			lastCue = i
			if i-lastQ <= win {
				return true
			}
		}
	}
	return false
}

// isCue reports whether ws[i], a word of a sentence as written, is an
// answer of kind c: a number, a date, a name (not the sentence's first
// word) or, for a place, a name after a locative ("in", "at").
func isCue(ws []string, i int, c cue) bool {
	w := ws[i]
	lw := strings.ToLower(w)
	first, _ := utf8.DecodeRuneInString(w)
	switch c {
	case cueNumber:
		return unicode.IsDigit(first) || numberWords[lw]
	case cueDate:
		return months[lw] || isYear(w)
	case cueName:
		return i > 0 && unicode.IsUpper(first)
	case cuePlace:
		return i > 0 && unicode.IsUpper(first) && locative(ws[max(i-2, 0):i])
	}
	return false
}

func isYear(w string) bool {
	if len(w) < 3 || len(w) > 4 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// locate finds the sentence passage[start:end] in raw, the source bytes of
// the passage, and returns its range in raw. Text copied verbatim (plain
// text, most Markdown) is found as is; otherwise the sentence's words are
// matched in order, skipping markup between them (Markdown emphasis and
// links, HTML tags), and the range runs from its first word to its last,
// with closing punctuation when the source has it. ok is false when the
// sentence cannot be placed with confidence.
func locate(raw []byte, passage string, start, end int) (s, e int, ok bool) {
	sent := passage[start:end]
	src := string(raw)
	// Exact: the occurrence nearest to where the passage has it.
	want := 0
	if len(passage) > 0 {
		want = start * len(src) / len(passage)
	}
	bestDist := -1
	for off := 0; ; {
		i := strings.Index(src[off:], sent)
		if i < 0 {
			break
		}
		i += off
		if d := abs(i - want); bestDist < 0 || d < bestDist {
			s, e, bestDist = i, i+len(sent), d
		}
		off = i + 1
	}
	if bestDist >= 0 {
		return s, e, true
	}
	// Aligned: the words in order with bounded gaps.
	type span struct{ s, e int }
	var ws []span
	for i := 0; i < len(sent); {
		r, n := utf8.DecodeRuneInString(sent[i:])
		if isWordRune(r) {
			j := i + n
			for j < len(sent) {
				r2, n2 := utf8.DecodeRuneInString(sent[j:])
				if !isWordRune(r2) {
					break
				}
				j += n2
			}
			ws = append(ws, span{i, j})
			i = j
			continue
		}
		i += n
	}
	if len(ws) == 0 {
		return 0, 0, false
	}
	const maxGap = 300
	firstWord := sent[ws[0].s:ws[0].e]
	bestMiss := len(ws)
	for off := 0; off < len(src); {
		i := indexWord(src, firstWord, off, len(src))
		if i < 0 {
			break
		}
		pos, miss, last := i+len(firstWord), 0, i+len(firstWord)
		lastFound := true
		for k := 1; k < len(ws); k++ {
			w := sent[ws[k].s:ws[k].e]
			j := indexWord(src, w, pos, min(len(src), pos+maxGap))
			if j < 0 {
				miss++
				lastFound = false
				continue
			}
			pos, last, lastFound = j+len(w), j+len(w), true
		}
		// Fewest words missed, then the tightest: a sentence's words can
		// also be found in order from an earlier occurrence of its first.
		if lastFound && (miss < bestMiss || miss == bestMiss && last-i < e-s) {
			s, e, bestMiss = i, last, miss
		}
		off = i + 1
	}
	if bestMiss > len(ws)/10 {
		return 0, 0, false
	}
	// The markup that opens the first word ("`Remove-Item` deletes…",
	// "**Warning** …") and that closes the last, and the closing
	// punctuation the sentence and the source both have.
	if ws[0].s == 0 {
		for s > 0 && strings.IndexByte(markOpeners, src[s-1]) >= 0 {
			s--
		}
	}
	tail := sent[ws[len(ws)-1].e:]
	for tail != "" && e < len(src) {
		r, n := utf8.DecodeRuneInString(tail)
		r2, n2 := utf8.DecodeRuneInString(src[e:])
		if r != r2 {
			if e2 := closingMarkup(src, e); e2 > e {
				e = e2
				continue
			}
			break
		}
		if unicode.IsSpace(r) {
			break
		}
		tail, e = tail[n:], e+n2
	}
	if tail == "" {
		e = closingMarkup(src, e)
	}
	return s, e, true
}

// markOpeners open inline Markdown markup: emphasis, code, a link's text.
const markOpeners = "*_~`["

// closingMarkup returns where the inline Markdown markup that closes at
// src[e:] ends: emphasis and code marks, and a link's "](…)" or "][…]"
// tail; e when there is none.
func closingMarkup(src string, e int) int {
	for e < len(src) {
		switch c := src[e]; {
		case c == '*' || c == '_' || c == '~' || c == '`':
			e++
		case c == ']':
			e++
			if e < len(src) && (src[e] == '(' || src[e] == '[') {
				closer := map[byte]byte{'(': ')', '[': ']'}[src[e]]
				j := strings.IndexByte(src[e:min(len(src), e+500)], closer)
				if j < 0 || strings.ContainsAny(src[e:e+j], "\n") {
					return e - 1
				}
				e += j + 1
			}
		default:
			return e
		}
	}
	return e
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// indexWord returns the first index ≥ from and < to of w in s as a whole
// word, or -1.
func indexWord(s, w string, from, to int) int {
	for from < to {
		i := strings.Index(s[from:to], w)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if (i == 0 || !isWordRune(before)) && (i+len(w) == len(s) || !isWordRune(after)) {
			return i
		}
		from = i + 1
	}
	return -1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// typeWords are the words that, after "how", say what kind of answer is
// asked for rather than what it is about ("how old", "how long").
var typeWords = map[string]bool{
	"many": true, "much": true, "long": true, "old": true, "far": true, "large": true,
	"big": true, "high": true, "often": true, "tall": true, "wide": true, "deep": true,
}

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
	// sentence should match.
	if n := len(ws); n >= 3 && ws[0] == "how" && (ws[1] == "do" || ws[1] == "does" || ws[1] == "did") && (ws[n-1] == "work" || ws[n-1] == "works") {
		for _, t := range analysis.Analyze(ws[n-1]) {
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

// locatives are the words before a place's name.
var locatives = map[string]bool{"in": true, "at": true, "near": true, "from": true, "to": true, "into": true, "on": true, "of": true, "across": true}

// locative reports whether one of ws is a locative.
func locative(ws []string) bool {
	for _, w := range ws {
		if locatives[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// wordsOf returns the words of toks in text.
func wordsOf(text string, toks []analysis.Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = text[t.Start:t.End]
	}
	return out
}

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
	spans := citationLike(text)
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

// citationLike returns the byte ranges of text, in order and apart, that
// the citations renderer would take for markers or citation numbers once
// the text is in an answer, whatever its backticks (escaped there): the
// groups it would drop ("［doc:2］", "&#91;doc:3&#93;", "[0, 1]") and text
// that reads as the start of a marker ("[doc:2" cut short).
func citationLike(text string) [][2]int {
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
func (e *Extractive) codeBefore(ctx context.Context, p pick, raw []byte, at int) (lines []string, start int, ok bool) {
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
		b, err := e.opts.ReadSpan(ctx, ref)
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
func (e *Extractive) bringCode(ctx context.Context, p pick, raw []byte, s, end int, pr presentation) (int, int, presentation) {
	pe := paragraphEnd(raw, end)
	if pe >= 0 {
		if lines, blockEnd, found := fencedAfter(raw, pe); found {
			pr.text += restOfLine(p.ref.Passage, p.sent.end)
			pr.block = lines
			return s, blockEnd, pr
		}
	}
	if lines, start, found := e.codeBefore(ctx, p, raw, s); found {
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
func (e *Extractive) codeLines(ctx context.Context, ref citations.Reference, raw []byte) map[string]bool {
	var pre []byte
	if n := ref.Span.Start; n > 0 && n <= maxPrefix {
		r := ref
		r.Span = citations.Span{Start: 0, End: n}
		if b, err := e.opts.ReadSpan(ctx, r); err == nil && len(b) == n {
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
