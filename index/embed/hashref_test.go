package embed

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/internal/testenv"
)

// referenceVector is the hash embedder's vector as it was first written
// (its queries as well as its documents):
// every occurrence of a word hashes the word and its n-grams again. The
// vectors in indexes were made by it; hashEmbedder.vector must give the
// same bits (TestHashEmbedderMatchesReference, FuzzHashEmbedderMatchesReference).
//
// It uses none of the embedder's helpers, so that making them faster cannot
// change the reference with them: the features are summed in Go maps, in
// the order the first implementation met them.
func (h *hashEmbedder) referenceVector(text string, idf func(string) float64, query bool) []float32 {
	s := &refState{words: newRefTable(), grams: newRefTable()}
	vw := make([]float64, h.dim)
	vg := make([]float64, h.dim)
	n, stops := 0, 0
	add := func(t *analysis.Term, w float64) {
		s.words.add(xxhash.Sum64(append([]byte{1}, t.Term...)), w)
		if h.maxN > 0 && !t.CJK {
			h.refNgrams(s, t.Word, w)
		}
	}
	for t := range analysis.Terms(text) {
		n++
		if t.Stop {
			stops++
			continue
		}
		w := 1.0
		if query && idf != nil {
			w = idf(t.Term)
			if !(w > 0) || math.IsInf(w, 0) {
				continue
			}
		}
		add(t, w)
	}
	if n > 0 && stops == n {
		for t := range analysis.Terms(text) {
			w := 1.0
			if idf != nil {
				w = idf(t.Term)
				if !(w > 0) || math.IsInf(w, 0) {
					continue
				}
			}
			add(t, w)
		}
	}
	if s.words.len() == 0 {
		if query && n > 0 && idf != nil {
			return h.referenceVector(text, nil, true)
		}
		for _, f := range strings.Fields(text) {
			t := analysis.Term{Word: []byte(f), Term: f}
			add(&t, 1)
		}
	}
	weight := func(c float64) float64 {
		if query {
			return c
		}
		return 1 + math.Log(c)
	}
	for _, f := range s.words.order {
		refAddFeature(vw, f, weight(s.words.sum[f]))
	}
	for _, f := range s.grams.order {
		refAddFeature(vg, f, weight(s.grams.sum[f]))
	}
	nw, ng := refNorm(vw), refNorm(vg)
	aw, ag := math.Sqrt(h.words), math.Sqrt(1-h.words)
	if nw > 0 {
		aw /= nw
	}
	if ng > 0 {
		ag /= ng
	} else {
		ag = 0
	}
	for i := range vw {
		vw[i] = aw*vw[i] + ag*vg[i]
	}
	n2 := refNorm(vw)
	out := make([]float32, len(vw))
	if n2 == 0 {
		return out
	}
	for i, x := range vw {
		out[i] = float32(x / n2)
	}
	return out
}

// refState is the reference's scratch space.
type refState struct{ words, grams *refTable }

// refTable sums a weight per feature, remembering the order in which the
// features came (feature 0 counts as 1, as the first implementation's
// table kept 0 for its empty slots).
type refTable struct {
	sum   map[uint64]float64
	order []uint64
}

func newRefTable() *refTable { return &refTable{sum: map[uint64]float64{}} }

func (t *refTable) add(f uint64, w float64) {
	if f == 0 {
		f = 1
	}
	if _, ok := t.sum[f]; !ok {
		t.order = append(t.order, f)
	}
	t.sum[f] += w
}

func (t *refTable) len() int { return len(t.order) }

// refAddFeature adds w to the dimension of feature f, with the sign f gives.
func refAddFeature(v []float64, f uint64, w float64) {
	i := f % uint64(len(v))
	if f>>63 != 0 {
		w = -w
	}
	v[i] += w
}

func refNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// refNgrams adds weight w to each character n-gram of "<word>", n counted
// in runes.
func (h *hashEmbedder) refNgrams(s *refState, word []byte, w float64) {
	p := append(append([]byte{'<'}, word...), '>')
	var starts []int // rune boundaries of p, and its end
	for i := range len(p) {
		if utf8.RuneStart(p[i]) {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(p))
	runes := len(starts) - 1
	for n := h.minN; n <= h.maxN && n <= runes; n++ {
		for i := 0; i+n <= runes; i++ {
			s.grams.add(xxhash.Sum64(p[starts[i]:starts[i+n]]), w)
		}
	}
}

// referenceTexts are texts on the edges of the hash embedder's rules.
var referenceTexts = []string{
	"Get-ChildItem -Path C:\\Windows -Recurse lists the files, and Get-ChildItem lists folders",
	"Super Bowl 50 was an American football game. The game was played on February 7, 2016.",
	"Café naïve 東京都 don't Tom's ½ ﬁle ß Straße ǅ",
	"the the the and of to",       // stopwords only
	"--- *** 🙂 ||",                // no letters or digits
	"",                            // nothing
	"aaaa aaaa aaaaaaaa a aa aaa", // n-grams repeated inside and across words
	"東京都 東京 京都 東京都に住んでいます カタカナ ｶﾀｶﾅ",
	"lists listing listed list LIST List",                        // words sharing a term
	strings.Repeat("word", 40) + " " + strings.Repeat("ab1", 60), // past maxTermBytes
	"Ελληνικά Кириллица русский Ελληνικά",
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestHashEmbedderMatchesReference: the hash embedder's document vectors
// are those of its first implementation, bit for bit (indexes hold them),
// and the terms it reports as it goes are analysis.Analyze's.
func TestHashEmbedderMatchesReference(t *testing.T) {
	// Texts of 500 tokens, from the shared corpus where there is one.
	chunks := testenv.SplitAtSpace(strings.Repeat("The pipeline passes objects to the next command; ", 100), 2100)
	if !testing.Short() && !testenv.Race {
		if sample := embedCorpusSampleIf(t, 1<<20); sample != "" {
			chunks = testenv.SplitAtSpace(sample, 2100)
		}
	}
	for _, spec := range []string{"hash", "hash:64", "hash:100", "hash:256?ngrams=0", "hash:512?ngrams=2-6&words=0.3"} {
		e := mustEmbedder(t, spec)
		h := e.impl.(*hashEmbedder)
		texts := referenceTexts
		if spec == "hash" {
			texts = append(slices.Clone(texts), chunks...)
		}
		for _, text := range texts {
			want := h.referenceVector(text, nil, false)
			var terms []string
			got, ok, err := e.EmbedDocumentTerms(nil, text, func(t *analysis.Term) { terms = append(terms, t.Term) })
			if isBlank(text) {
				if !ok || !errors.Is(err, ErrEmptyText) {
					t.Fatalf("%s %q: %v %v", spec, text, ok, err)
				}
				continue
			}
			if !ok || err != nil {
				t.Fatalf("%s %q: %v %v", spec, text, ok, err)
			}
			if !sameBits(got, want) {
				t.Fatalf("%s %q: vector differs from the reference", spec, clip(text))
			}
			if all := analysis.Analyze(text); !slices.Equal(terms, all) {
				t.Fatalf("%s %q: terms %q, Analyze %q", spec, clip(text), terms, all)
			}
			// Into the memory of a vector given back (NaNs, and room to
			// spare): the same bits, in that memory.
			dst := slices.Repeat([]float32{float32(math.NaN())}, len(want)+3)
			if again, _, _ := e.EmbedDocumentTerms(dst, text, nil); !sameBits(again, want) || &again[0] != &dst[0] {
				t.Fatalf("%s %q: vector written to dst differs from the reference, or is not in dst", spec, clip(text))
			}
			if vs := embedDocs(t, e, text); !sameBits(vs[0], want) {
				t.Fatalf("%s %q: EmbedDocuments differs from the reference", spec, clip(text))
			}
			for _, idf := range []func(string) float64{nil, termIDF} {
				q, err := e.EmbedQuery(t.Context(), text, idf)
				if err != nil || !sameBits(q, h.referenceVector(text, idf, true)) {
					t.Fatalf("%s %q: query vector differs from the reference (%v)", spec, clip(text), err)
				}
			}
		}
	}
}

// termIDF is an idf of sorts that differs from term to term.
func termIDF(term string) float64 { return 1 + float64(len(term)%7)/3 }

func clip(s string) string { return s[:min(len(s), 80)] }

// embedCorpusSampleIf is testenv.MarkdownSample, or "" where the shared corpus
// is missing.
func embedCorpusSampleIf(t *testing.T, maxBytes int) string {
	var sample string
	t.Run("corpus", func(t *testing.T) { sample = testenv.MarkdownSample(t, maxBytes) })
	return sample
}

func FuzzHashEmbedderMatchesReference(f *testing.F) {
	for _, text := range referenceTexts {
		f.Add(text)
	}
	e, err := New("hash:64", Config{})
	if err != nil {
		f.Fatal(err)
	}
	h := e.impl.(*hashEmbedder)
	f.Fuzz(func(t *testing.T, text string) {
		if !sameBits(h.docVector(nil, text, nil), h.referenceVector(text, nil, false)) {
			t.Fatalf("%q: vector differs from the reference", text)
		}
	})
}
