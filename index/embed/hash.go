package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/cite-rag/cite/index/analysis"
)

// DefaultHashDim is the default dimension of the hash embedder.
//
// Alone, more dimensions rank better (embed_squad_test.go, SQuAD passages:
// Recall@5 0.890 at 1024, 0.908 at 2048, 0.918 at 4096), but the embedder
// serves hybrid search beside BM25, where cite eval on the shared SQuAD half
// (500-token chunks) measures: clean questions, hybrid equals or beats BM25
// at every size; questions with a typo in their longest word (where n-grams
// earn their keep), hybrid Recall@1 0.705 at 1024, 0.712 at 2048, 0.716 at
// 4096, against BM25's 0.697. 2048 keeps nearly all of 4096's gain at half
// its cost: 8 KiB per chunk as float32, on disk and in memory (800 MB for
// 100,000 chunks; "hash:4096" is there for those who want it).
const DefaultHashDim = 2048

// MaxHashDim is the largest dimension of the hash embedder: a vector of
// 65,536 dimensions takes 256 KB in the database for every chunk, and more
// dimensions stop separating texts of a few hundred tokens.
const MaxHashDim = 1 << 16

// Defaults of the hash embedder's features, from the same measurements:
// n-grams of 3 to 5 runes beat none by 0.02 Recall@5 and 0.02 MRR@10 at
// every dimension; 3-4 and 3-6 and word shares of 0.3 to 0.7 land within
// 0.006 of the chosen 3-5 and 0.5.
const (
	defaultMinN  = 3
	defaultMaxN  = 5
	defaultWords = 0.5
)

// HashConfig configures the hash embedder; the zero value selects the
// defaults.
type HashConfig struct {
	// Dim is the number of dimensions (default [DefaultHashDim]).
	Dim int
	// MinN and MaxN bound the length, in runes, of the character n-grams
	// taken from each word with "<" and ">" marking its ends (default 3 and
	// 5). MaxN < 0 takes none.
	MinN, MaxN int
	// Words is the share of the cosine given to whole words, the rest going
	// to n-grams: 1 uses words only (default 0.5).
	Words float64
}

// hashEmbedder is the built-in, offline embedder: signed feature hashing of
// words and character n-grams.
type hashEmbedder struct {
	dim        int
	minN, maxN int     // 0, 0: no n-grams
	words      float64 // share of words in the cosine
}

var (
	_ embedder      = (*hashEmbedder)(nil)
	_ queryEmbedder = (*hashEmbedder)(nil)
)

// NewHash returns the built-in embedder: it needs no model and no
// network, and is the default. It is lexical, not semantic: texts are close
// when they share words (as [analysis.Analyze] gives them) and character n-grams
// (which catch typos, inflections and parts of identifiers), not when they
// mean the same in other words.
//
// Each feature (a word, or an n-gram of a word) is hashed (XXH64, a fixed
// algorithm, so vectors stay valid across processes and versions) to a
// dimension and a sign. A document's vector is the sublinear frequency
// 1+ln(tf) of its features, words and n-grams each scaled to unit length
// and mixed by the Words share, then normalized: it depends on the document
// alone, never on the other documents. Queries weigh their features by idf
// ([Embedder.EmbedQuery]).
func NewHash(cfg HashConfig) (*Embedder, error) {
	h := &hashEmbedder{dim: cfg.Dim, minN: cfg.MinN, maxN: cfg.MaxN, words: cfg.Words}
	if h.dim == 0 {
		h.dim = DefaultHashDim
	}
	if h.minN == 0 && h.maxN == 0 {
		h.minN, h.maxN = defaultMinN, defaultMaxN
	}
	if h.maxN < 0 {
		h.minN, h.maxN = 0, 0
	}
	if h.words == 0 {
		h.words = defaultWords
	}
	switch {
	case h.dim < 8 || h.dim > MaxHashDim:
		return nil, fmt.Errorf("hash embedder: dimension %d out of range [8, %d]", h.dim, MaxHashDim)
	case h.maxN > 0 && (h.minN < 1 || h.minN > h.maxN || h.maxN > 16):
		return nil, fmt.Errorf("hash embedder: n-gram lengths %d-%d: want 1 <= min <= max <= 16", h.minN, h.maxN)
	case !(h.words > 0 && h.words <= 1):
		return nil, fmt.Errorf("hash embedder: words share %v: want 0 < words <= 1", h.words)
	}
	if h.maxN == 0 {
		h.words = 1
	}
	e := &Embedder{name: h.name(), impl: h}
	e.dim.Store(int64(h.dim))
	return e, nil
}

// hashAnalysis is the version of [analysis] that the hash embedder's names
// leave implicit. Its features are analysis terms, so vectors made under
// another version are other vectors: their name says so
// ("hash:2048?analysis=2"), and an index holding the older ones refuses the
// new ones (cite reindex makes them again) instead of mixing them.
const hashAnalysis = 1

// name returns the canonical spec: "hash:DIM", with the options that differ
// from the defaults.
func (h *hashEmbedder) name() string { return h.nameFor(analysis.Version) }

// nameFor is name under analysis version v.
func (h *hashEmbedder) nameFor(v int) string {
	name := "hash:" + strconv.Itoa(h.dim)
	var opts []string
	if v != hashAnalysis {
		opts = append(opts, "analysis="+strconv.Itoa(v))
	}
	if h.minN != defaultMinN || h.maxN != defaultMaxN {
		if h.maxN == 0 {
			opts = append(opts, "ngrams=0")
		} else {
			opts = append(opts, fmt.Sprintf("ngrams=%d-%d", h.minN, h.maxN))
		}
	}
	if h.words != defaultWords && h.maxN > 0 {
		opts = append(opts, "words="+strconv.FormatFloat(h.words, 'g', -1, 64))
	}
	if len(opts) > 0 {
		name += "?" + strings.Join(opts, "&")
	}
	return name
}

// parseHashSpec reads the part of a "hash:DIM?ngrams=A-B&words=W" spec after
// "hash:".
func parseHashSpec(dim string, opts url.Values) (HashConfig, error) {
	var c HashConfig
	if dim != "" {
		n, err := strconv.Atoi(dim)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("dimension %q: want a positive integer", dim)
		}
		c.Dim = n
	}
	for k, v := range opts {
		if len(v) != 1 {
			return c, fmt.Errorf("option %s given %d times", k, len(v))
		}
		switch k {
		case "ngrams":
			if v[0] == "0" || v[0] == "none" {
				c.MaxN = -1
				continue
			}
			lo, hi, ok := strings.Cut(v[0], "-")
			if !ok {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a < 1 {
				return c, fmt.Errorf("option ngrams=%q: want MIN-MAX, N or 0", v[0])
			}
			c.MinN, c.MaxN = a, b
		case "analysis":
			if v[0] != strconv.Itoa(analysis.Version) {
				return c, fmt.Errorf("option analysis=%s: this cite analyzes text with version %d, whose vectors differ (cite reindex makes them again)", v[0], analysis.Version)
			}
		case "words":
			w, err := strconv.ParseFloat(v[0], 64)
			if err != nil || !(w > 0 && w <= 1) {
				return c, fmt.Errorf("option words=%q: want a number in (0, 1]", v[0])
			}
			c.Words = w
		default:
			return c, fmt.Errorf("unknown option %q (want ngrams, words or analysis)", k)
		}
	}
	return c, nil
}

// hashState is the scratch space of one embedding.
type hashState struct {
	words featureTable
	grams featureTable
	seen  wordTable // a document's distinct words ([hashEmbedder.docVector])
	key   []byte
	pad   []byte
	runes []int
	feats []uint64 // a word's n-grams, hashed
	vw    []float64
	vg    []float64
	used  []uint64 // bit i: a feature reached dimension i of vw or vg
}

var hashStatePool = sync.Pool{New: func() any { return &hashState{seen: wordTable{seed: maphash.MakeSeed()}} }}

// getState returns scratch space for an embedding of h's dimension, with
// its tables empty and its vectors zero ([hashEmbedder.mix] leaves them
// zero).
func (h *hashEmbedder) getState() *hashState {
	s := hashStatePool.Get().(*hashState)
	s.words.reset()
	s.grams.reset()
	if len(s.vw) != h.dim {
		s.vw = make([]float64, h.dim)
		s.vg = make([]float64, h.dim)
		s.used = make([]uint64, (h.dim+63)/64)
	}
	return s
}

func putState(s *hashState) {
	// Do not keep the tables of a huge text for the next ones.
	if len(s.grams.slots) > 1<<18 || len(s.seen.slots) > 1<<18 {
		s.words, s.grams, s.seen = featureTable{}, featureTable{}, wordTable{seed: s.seen.seed}
	}
	hashStatePool.Put(s)
}

// wordTable collects the distinct words of a text (folded words, as
// [analysis.Term.Word], told apart from CJK bigrams of the same bytes)
// with their numbers of occurrences, in order of first occurrence.
type wordTable struct {
	seed  maphash.Seed
	slots []int32 // open addressing, linear probing: 1 + index in words; 0 empty
	words []docWord
	bytes []byte // the words' bytes
}

// docWord is a distinct word of a text.
type docWord struct {
	hash     uint64 // of its bytes (maphash)
	from, to int    // its bytes in wordTable.bytes
	term     string // its term ([analysis.Term.Term])
	cjk      bool
	count    float64 // its occurrences
}

// add counts an occurrence of t's word.
func (t *wordTable) add(w *analysis.Term) {
	if 2*(len(t.words)+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.Bytes(t.seed, w.Word)
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		k := t.slots[i]
		if k == 0 {
			from := len(t.bytes)
			t.bytes = append(t.bytes, w.Word...)
			t.words = append(t.words, docWord{hash: h, from: from, to: len(t.bytes), term: w.Term, cjk: w.CJK, count: 1})
			t.slots[i] = int32(len(t.words))
			return
		}
		d := &t.words[k-1]
		if d.hash == h && d.cjk == w.CJK && string(t.bytes[d.from:d.to]) == string(w.Word) {
			d.count++
			return
		}
	}
}

func (t *wordTable) grow() {
	n := max(2*len(t.slots), 1024)
	t.slots = make([]int32, n)
	mask := n - 1
	for k, d := range t.words {
		i := int(d.hash) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(k + 1)
	}
}

// reset empties the table, keeping its memory.
func (t *wordTable) reset() {
	clear(t.slots)
	t.words = t.words[:0]
	t.bytes = t.bytes[:0]
}

// featureTable sums a weight per feature hash: the features in order of
// first insertion, in two dense arrays, and an open-addressing index over
// them with linear probing, reused from text to text (a Go map costs 5
// times as much here). The index holds 4 bytes a slot and the arrays 16
// bytes a feature, so the table of a chunk (a few thousand features) stays
// in the first-level cache, where slots of key and weight side by side
// would not.
type featureTable struct {
	slots []uint32  // 1 + index in keys; 0 empty
	keys  []uint64  // the features, in insertion order; never 0
	vals  []float64 // their weights
}

// add adds w to feature f.
func (t *featureTable) add(f uint64, w float64) {
	if f == 0 {
		f = 1 // as the first implementation, whose 0 marked empty slots
	}
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := f & mask; ; i = (i + 1) & mask {
		k := t.slots[i]
		if k == 0 {
			t.keys = append(t.keys, f)
			t.vals = append(t.vals, w)
			t.slots[i] = uint32(len(t.keys))
			return
		}
		if t.keys[k-1] == f {
			t.vals[k-1] += w
			return
		}
	}
}

func (t *featureTable) grow() {
	n := max(2*len(t.slots), 1024)
	t.slots = make([]uint32, n)
	mask := uint64(n - 1)
	for k, f := range t.keys {
		i := f & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(k + 1)
	}
}

// reset empties the table, keeping its memory.
func (t *featureTable) reset() {
	if len(t.keys) > len(t.slots)/16 {
		clear(t.slots)
	} else {
		mask := uint64(len(t.slots) - 1)
		for _, f := range t.keys {
			i := f & mask
			for t.slots[i] != 0 {
				t.slots[i] = 0
				i = (i + 1) & mask
			}
		}
	}
	t.keys = t.keys[:0]
	t.vals = t.vals[:0]
}

// addAll adds w to each feature of fs, in order: add's probe written out
// in the loop, which the compiler would not inline (a call per feature).
func (t *featureTable) addAll(fs []uint64, w float64) {
	for 2*(len(t.keys)+len(fs)) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for _, f := range fs {
		if f == 0 {
			f = 1
		}
		for i := f & mask; ; i = (i + 1) & mask {
			k := t.slots[i]
			if k == 0 {
				t.keys = append(t.keys, f)
				t.vals = append(t.vals, w)
				t.slots[i] = uint32(len(t.keys))
				break
			}
			if t.keys[k-1] == f {
				t.vals[k-1] += w
				break
			}
		}
	}
}

// len returns the number of features.
func (t *featureTable) len() int { return len(t.keys) }

func (h *hashEmbedder) embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.docVector(nil, t, nil)
	}
	return out, nil
}

// docVector is [hashEmbedder.vector] of a document, which it gives bit for
// bit, with each (if set) called with every term of the text, in order. It
// writes the vector to dst when dst has room for it ([hashEmbedder.mix]).
// The features of a word are hashed once, with its number of occurrences
// as weight, however often it occurs: they are met in the same order as
// vector meets them, and their weights, sums of ones, are the same
// integers.
func (h *hashEmbedder) docVector(dst []float32, text string, each func(*analysis.Term)) []float32 {
	s := h.getState()
	defer putState(s)
	s.seen.reset()
	for t := range analysis.Terms(text) {
		if each != nil {
			each(t)
		}
		if !t.Stop {
			s.seen.add(t)
		}
	}
	if len(s.seen.words) == 0 {
		// Only stopwords, or no words at all: the rare texts vector
		// treats apart.
		return h.vectorTo(dst, text, nil, false)
	}
	for i := range s.seen.words {
		d := &s.seen.words[i]
		s.key = append(append(s.key[:0], 1), d.term...)
		s.words.add(sum64(s.key), d.count)
		if h.maxN > 0 && !d.cjk {
			h.ngrams(s, s.seen.bytes[d.from:d.to], d.count)
		}
	}
	return h.mix(dst, s, false)
}

func (h *hashEmbedder) embedQuery(text string, idf func(string) float64) []float32 {
	return h.vector(text, idf, true)
}

// vector embeds text. A document counts its features (sublinear tf); a
// query weighs them by idf. Both leave out stopwords, unless the text has
// nothing else (as [analysis.AnalyzeQuery] does): on SQuAD, stopwords in document
// vectors only add noise (Recall@5 0.915 with them, 0.918 without, at 4096
// dimensions).
func (h *hashEmbedder) vector(text string, idf func(string) float64, query bool) []float32 {
	return h.vectorTo(nil, text, idf, query)
}

// vectorTo is [hashEmbedder.vector] written to dst when dst has room for
// it ([hashEmbedder.mix]).
func (h *hashEmbedder) vectorTo(dst []float32, text string, idf func(string) float64, query bool) []float32 {
	s := h.getState()
	defer putState(s)
	n, stops := 0, 0
	add := func(t *analysis.Term, w float64) {
		s.key = append(append(s.key[:0], 1), t.Term...)
		s.words.add(sum64(s.key), w)
		if h.maxN > 0 && !t.CJK {
			h.ngrams(s, t.Word, w)
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
		// Only stopwords: keep them, as AnalyzeQuery does.
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
			// Every term weighed 0 (found in every document): weigh
			// them alike rather than return nothing.
			return h.vectorTo(dst, text, nil, true)
		}
		// No letters or digits ("---", emoji): hash the raw fields so
		// that such texts still match each other.
		for _, f := range strings.Fields(text) {
			t := analysis.Term{Word: []byte(f), Term: f}
			add(&t, 1)
		}
	}
	return h.mix(dst, s, query)
}

// mix makes the vector of the features in s: words and n-grams each scaled
// to unit length, mixed by the words' share, normalized. It writes it to
// dst[:dim] when dst has the capacity (what dst held is not read), else to
// new memory, and returns it. It leaves s.vw, s.vg and s.used zero.
//
// Its sums run in the order of the first implementation's (features in
// the order they came, dimensions in order), so that its float64
// arithmetic gives the same bits; it only makes fewer passes over the
// dimensions, and skips those no feature reached.
func (h *hashEmbedder) mix(dst []float32, s *hashState, query bool) []float32 {
	vw, vg := s.vw, s.vg[:len(s.vw)]
	used := s.used
	addFeatures(vw, used, &s.words, query)
	addFeatures(vg, used, &s.grams, query)
	// The sums run over the dimensions that features reached (used), in
	// order: the others hold +0 in vw and vg, whose squares and mix add
	// nothing to a sum (x + +0 is x, bit for bit) and whose quotient is
	// the +0 out already holds.
	var sw, sg float64
	for k, m := range used {
		for ; m != 0; m &= m - 1 {
			i := k<<6 | bits.TrailingZeros64(m)
			x, y := vw[i], vg[i]
			sw += x * x
			sg += y * y
		}
	}
	nw, ng := math.Sqrt(sw), math.Sqrt(sg)
	aw, ag := math.Sqrt(h.words), math.Sqrt(1-h.words)
	if nw > 0 {
		aw /= nw
	}
	if ng > 0 {
		ag /= ng
	} else {
		ag = 0
	}
	// normalized64 of the mix, which is built here in vw.
	var sum float64
	for k, m := range used {
		for ; m != 0; m &= m - 1 {
			i := k<<6 | bits.TrailingZeros64(m)
			x := aw*vw[i] + ag*vg[i]
			vw[i] = x
			vg[i] = 0
			sum += x * x
		}
	}
	n := math.Sqrt(sum)
	var out []float32
	if cap(dst) >= len(vw) {
		out = dst[:len(vw)]
		clear(out)
	} else {
		out = make([]float32, len(vw))
	}
	for k, m := range used {
		for ; m != 0; m &= m - 1 {
			i := k<<6 | bits.TrailingZeros64(m)
			if n != 0 {
				out[i] = float32(vw[i] / n)
			}
			vw[i] = 0
		}
		used[k] = 0
	}
	return out
}

// addFeatures adds the features of t to v, each to its dimension with the
// sign it gives ([addFeature]), weighed by [featureWeight], in the order
// they came.
func addFeatures(v []float64, used []uint64, t *featureTable, query bool) {
	dim := uint64(len(v))
	if dim&(dim-1) != 0 {
		for k, f := range t.keys {
			i := f % dim
			used[i>>6] |= 1 << (i & 63)
			addFeature(v, f, featureWeight(t.vals[k], query))
		}
		return
	}
	// A power of two (the default dimensions): f%dim is f&mask, without
	// a division.
	mask := dim - 1
	vals := t.vals[:len(t.keys)]
	for k, f := range t.keys {
		w := vals[k]
		if !query {
			// sublinearTF, inlined.
			if n := int(w); w >= 0 && w < float64(len(sublinearTable)) && float64(n) == w {
				w = sublinearTable[n&(len(sublinearTable)-1)]
			} else {
				w = sublinear(w)
			}
		}
		if f>>63 != 0 {
			w = -w
		}
		i := f & mask
		used[i>>6] |= 1 << (i & 63)
		v[i] += w
	}
}

// featureWeight turns a feature's count in a document into its sublinear term
// frequency; a query's features carry their idf weight already.
func featureWeight(c float64, query bool) float64 {
	if query {
		return c
	}
	if n := int(c); c >= 0 && c < float64(len(sublinearTable)) && float64(n) == c {
		return sublinearTable[n]
	}
	return sublinear(c)
}

// sublinear returns 1+ln(c), apart from its callers: they inline.
//
//go:noinline
func sublinear(c float64) float64 { return 1 + math.Log(c) }

// sublinearTable caches 1+ln(tf) for small counts (a power of two of
// them).
var sublinearTable = func() (t [64]float64) {
	for i := 1; i < len(t); i++ {
		t[i] = 1 + math.Log(float64(i))
	}
	return t
}()

// addFeature adds w to the dimension of feature f, with the sign f gives.
func addFeature(v []float64, f uint64, w float64) {
	i := f % uint64(len(v))
	if f>>63 != 0 {
		w = -w
	}
	v[i] += w
}

// ngrams adds weight w to each character n-gram of "<word>".
func (h *hashEmbedder) ngrams(s *hashState, word []byte, w float64) {
	s.pad = append(append(append(s.pad[:0], '<'), word...), '>')
	p := s.pad
	ascii := true
	for _, c := range word {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		h.asciiGrams(s, w)
		return
	}
	// Rune boundaries of p, plus its end.
	s.runes = s.runes[:0]
	for i := range len(p) {
		if utf8.RuneStart(p[i]) {
			s.runes = append(s.runes, i)
		}
	}
	s.runes = append(s.runes, len(p))
	runes := len(s.runes) - 1
	for n := h.minN; n <= h.maxN && n <= runes; n++ {
		for i := 0; i+n <= runes; i++ {
			s.grams.add(sum64(p[s.runes[i]:s.runes[i+n]]), w)
		}
	}
}

// asciiGrams adds weight w to each n-gram of s.pad, an ASCII word between
// "<" and ">": the n-grams of 3, 4 and 5 bytes hashed by [sum3], [sum4]
// and [sum5] from one 8-byte load each, all hashed before they are added,
// in the order of [sum64]'s loop.
func (h *hashEmbedder) asciiGrams(s *hashState, w float64) {
	n := len(s.pad)
	// 8 bytes past the word, so that every n-gram can load 8.
	s.pad = append(s.pad, 0, 0, 0, 0, 0, 0, 0, 0)
	p := s.pad
	fs := s.feats[:0]
	for k := h.minN; k <= h.maxN && k <= n; k++ {
		switch k {
		case 3:
			for i := 0; i+3 <= n; i++ {
				fs = append(fs, sum3(binary.LittleEndian.Uint64(p[i:])))
			}
		case 4:
			for i := 0; i+4 <= n; i++ {
				fs = append(fs, sum4(binary.LittleEndian.Uint64(p[i:])))
			}
		case 5:
			for i := 0; i+5 <= n; i++ {
				fs = append(fs, sum5(binary.LittleEndian.Uint64(p[i:])))
			}
		default:
			for i := 0; i+k <= n; i++ {
				fs = append(fs, sum64(p[i:i+k]))
			}
		}
	}
	s.feats = fs
	s.grams.addAll(fs, w)
}

// sum3, sum4 and sum5 are [sum64] of the first 3, 4 or 5 bytes of u
// (little-endian).
func sum3(u uint64) uint64 {
	h := bits.RotateLeft64((prime5+3)^uint64(uint8(u))*prime5, 11) * prime1
	h = bits.RotateLeft64(h^uint64(uint8(u>>8))*prime5, 11) * prime1
	h = bits.RotateLeft64(h^uint64(uint8(u>>16))*prime5, 11) * prime1
	return avalanche(h)
}

func sum4(u uint64) uint64 {
	h := prime5 + 4
	h ^= (u & 0xffffffff) * prime1
	h = bits.RotateLeft64(h, 23)*prime2 + prime3
	return avalanche(h)
}

func sum5(u uint64) uint64 {
	h := prime5 + 5
	h ^= (u & 0xffffffff) * prime1
	h = bits.RotateLeft64(h, 23)*prime2 + prime3
	h ^= (u >> 32 & 0xff) * prime5
	h = bits.RotateLeft64(h, 11) * prime1
	return avalanche(h)
}

// avalanche is XXH64's final mix.
func avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

// XXH64's primes.
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// sum64 is xxhash.Sum64(b): XXH64 with seed 0. Features are short (an
// n-gram is a few bytes, a word rarely 32), and for them this Go version
// of XXH64's tail costs less than the call to xxhash's assembly
// (TestSum64 checks it against xxhash).
func sum64(b []byte) uint64 {
	if len(b) >= 32 {
		return xxhash.Sum64(b)
	}
	h := prime5 + uint64(len(b))
	for ; len(b) >= 8; b = b[8:] {
		h ^= bits.RotateLeft64(binary.LittleEndian.Uint64(b)*prime2, 31) * prime1
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}
