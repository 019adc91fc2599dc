package extractive

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index/analysis"
)

// fitSet is the file eval's TestDumpSQuADHits writes: every question of the
// shared SQuAD half with its gold answers and its top hybrid hits, and the
// index's document frequencies of the terms involved.
type fitSet struct {
	Questions []struct {
		Text    string   `json:"text"`
		Answers []string `json:"answers"`
		Hits    []struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		} `json:"hits"`
	} `json:"questions"`
	DF     map[string]int `json:"df"`
	Chunks int            `json:"chunks"`
}

// fitQuestion is a question's candidate sentences: their features, and
// whether each holds a gold answer, and whether its passage does.
type fitQuestion struct {
	sample bool // every fifth question: the fitting set
	feats  [][numFeatures]float64
	sent   []bool
	pass   []bool
}

// fitStats are the shares of questions whose first cited passage and
// sentence hold a gold answer.
type fitStats struct{ n, pass, sent int }

func (s fitStats) String() string {
	return fmt.Sprintf("%d questions: first passage %.4f, first sentence %.4f", s.n, float64(s.pass)/float64(s.n), float64(s.sent)/float64(s.n))
}

// TestFitWeights fits the feature weights of [defaultWeights] and prints
// them, with the figures of the current and the fitted weights on the
// sample it fits (every fifth question) and on the other questions. It
// needs the file of eval's TestDumpSQuADHits:
//
//	CITE_SQUAD_DUMP=/tmp/squad.json go test ./eval -run TestDumpSQuADHits
//	CITE_SQUAD_DUMP=/tmp/squad.json go test ./answer/extractive -run TestFitWeights -v
func TestFitWeights(t *testing.T) {
	path := os.Getenv("CITE_SQUAD_DUMP")
	if path == "" {
		t.Skip("set CITE_SQUAD_DUMP to the file of eval's TestDumpSQuADHits")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set fitSet
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	global := func(term string) float64 { return analysis.IDF(set.Chunks, set.DF[term]) }
	e := New(Options{})
	run := func() (sample, rest fitStats, qs []fitQuestion) {
		for i, q := range set.Questions {
			refs := make([]citations.Reference, min(len(q.Hits), 5))
			for j := range refs {
				refs[j] = citations.Reference{Index: j + 1, Title: q.Hits[j].Title, Passage: q.Hits[j].Text}
			}
			fq := fitQuestion{sample: i%5 == 0}
			e.inspect = func(cands []scored, _ []int) {
				for _, c := range cands {
					if !math.IsInf(c.score, -1) {
						fq.feats = append(fq.feats, c.feat)
						fq.sent = append(fq.sent, holdsAnswer(c.text, q.Answers))
						fq.pass = append(fq.pass, holdsAnswer(refs[c.ref].Passage, q.Answers))
					}
				}
			}
			picks := e.pick(t.Context(), q.Text, refs, global, nil)
			qs = append(qs, fq)
			st := &rest
			if fq.sample {
				st = &sample
			}
			st.n++
			if len(picks) > 0 && holdsAnswer(picks[0].ref.Passage, q.Answers) {
				st.pass++
			}
			if len(picks) > 0 && holdsAnswer(quoted(picks[0]), q.Answers) {
				st.sent++
			}
		}
		return sample, rest, qs
	}
	sample, rest, qs := run()
	t.Logf("current: sample %v; rest %v", sample, rest)
	var init [numFeatures]float64
	init[featCoverage] = 1
	e.w.feature = fitSoftmax(qs, init, 0.5, 0.001, 300)
	sample, rest, _ = run()
	t.Logf("fitted:  sample %v; rest %v", sample, rest)
	e.w.feature = refineTop(qs, e.w.feature, 4)
	sample, rest, _ = run()
	t.Logf("refined: sample %v; rest %v", sample, rest)
	var b strings.Builder
	for k, v := range e.w.feature {
		fmt.Fprintf(&b, "\t\t%s: %.3f,\n", featNames[k], v)
	}
	t.Logf("weights:\n%s", b.String())
}

var featNames = [numFeatures]string{
	"featCoverage", "featFuzzy", "featProx", "featLength", "featBigrams", "featBigramIDF", "featSurface",
	"featCount", "featLocal", "featTopic", "featNoNovelty", "featCue", "featNoCue", "featCueNear",
	"featWindow", "featPrev", "featAnaphoricPrev", "featParagraph", "featVector", "featRank", "featFirst",
	"featFragment", "featHeading", "featRelated",
}

// fitSoftmax fits w on the sample questions: it minimizes, by Adam, the
// negative log of the softmax probability of the sentences holding a gold
// answer, plus lamP times that of the sentences of passages holding one,
// plus l2 times the squared weights. The coverage weight stays as it is
// (it sets the scale).
func fitSoftmax(qs []fitQuestion, w [numFeatures]float64, lamP, l2 float64, iters int) [numFeatures]float64 {
	const lr, b1, b2, temp = 0.01, 0.9, 0.999, 10.0
	var m, v [numFeatures]float64
	for it := 1; it <= iters; it++ {
		var g [numFeatures]float64
		n := 0
		for _, q := range qs {
			if !q.sample || !slices.Contains(q.pass, true) {
				continue
			}
			n++
			s := make([]float64, len(q.feats))
			top := math.Inf(-1)
			for j, f := range q.feats {
				for k := range f {
					s[j] += w[k] * f[k]
				}
				s[j] *= temp
				top = max(top, s[j])
			}
			var z, zs, zp float64
			for j := range s {
				s[j] = math.Exp(s[j] - top)
				z += s[j]
				if q.sent[j] {
					zs += s[j]
				}
				if q.pass[j] {
					zp += s[j]
				}
			}
			for j, p := range s {
				var d float64
				if zs > 0 {
					d = p / z
					if q.sent[j] {
						d -= p / zs
					}
				}
				d += lamP * p / z
				if q.pass[j] {
					d -= lamP * p / zp
				}
				for k := range g {
					g[k] += d * temp * q.feats[j][k]
				}
			}
		}
		for k := range g {
			if k == featCoverage {
				continue
			}
			gk := g[k]/float64(n) + l2*w[k]
			m[k] = b1*m[k] + (1-b1)*gk
			v[k] = b2*v[k] + (1-b2)*gk*gk
			mh := m[k] / (1 - math.Pow(b1, float64(it)))
			vh := v[k] / (1 - math.Pow(b2, float64(it)))
			w[k] -= lr * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	return w
}

// refineTop adjusts w, one weight at a time in small steps, for as long
// as a step raises the shares of the sample questions whose best candidate
// holds a gold answer and whose best candidate's passage holds one, summed:
// what the softmax only stands in for. The coverage weight stays as it is.
func refineTop(qs []fitQuestion, w [numFeatures]float64, rounds int) [numFeatures]float64 {
	top := func(w [numFeatures]float64) int {
		var hits int
		for _, q := range qs {
			if !q.sample {
				continue
			}
			bi, bs := -1, math.Inf(-1)
			for j, f := range q.feats {
				var s float64
				for k := range f {
					s += w[k] * f[k]
				}
				if s > bs {
					bi, bs = j, s
				}
			}
			if bi >= 0 {
				hits += int(b2f(q.pass[bi]) + b2f(q.sent[bi]))
			}
		}
		return hits
	}
	best := top(w)
	for range rounds {
		for k := range w {
			if k == featCoverage {
				continue
			}
			for _, d := range []float64{-0.2, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 0.2} {
				w2 := w
				w2[k] += d
				if h := top(w2); h > best {
					best, w = h, w2
				}
			}
		}
	}
	return w
}

// quoted is the text a pick's quote covers, as eval judges it: the
// sentence, after the heading it stands for.
func quoted(p pick) string {
	if p.head != nil {
		return p.head.text + "\n" + p.sent.text
	}
	return p.sent.text
}

// holdsAnswer reports whether text contains one of answers, compared in
// lower case with white space collapsed, as eval judges.
func holdsAnswer(text string, answers []string) bool {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, a := range answers {
		if a = strings.Join(strings.Fields(strings.ToLower(a)), " "); a != "" && strings.Contains(t, a) {
			return true
		}
	}
	return false
}
