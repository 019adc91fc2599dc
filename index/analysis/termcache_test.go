package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// checkTerm checks the term and stopword flag of the folded word w, through
// a's term cache, against stemming it afresh.
func checkTerm(tb testing.TB, a *analyzer, w []byte) {
	tb.Helper()
	want, wantStop := a.stem(w), isStopWord(w)
	if got, stop := a.term(w); got != want || stop != wantStop {
		tb.Fatalf("term(%q) = %q, %v; uncached %q, %v", w, got, stop, want, wantStop)
	}
}

// TestTermCache checks the term cache against stemming every word afresh:
// on the words of the corpus, twice through (the second time finding most
// of them in the cache), on random words, on the stopwords, and on words
// that share a set of the cache, so that they evict one another.
func TestTermCache(t *testing.T) {
	t.Run("corpus", func(t *testing.T) {
		n := 1 << 20
		if testing.Short() || testenv.Race {
			n = 256 << 10
		}
		text := testenv.MarkdownSample(t, n)
		a, b := newAnalyzer(), newAnalyzer()
		type key struct {
			lo, hi uint64
			n      int
		}
		keys := map[key]string{}
		for range 2 {
			b.run(text, func(tok *Term) {
				checkTerm(t, a, tok.Word)
				if want := a.stem(tok.Word); tok.Term != want || tok.Stop != isStopWord(tok.Word) {
					t.Fatalf("word %q: term %q, stop %v; uncached %q", tok.Word, tok.Term, tok.Stop, want)
				}
				if len(tok.Word) <= wordKeyMax {
					lo, hi := wordKey(tok.Word)
					k := key{lo, hi, len(tok.Word)}
					if w, ok := keys[k]; ok && w != string(tok.Word) {
						t.Fatalf("%q and %q have the same key", w, tok.Word)
					}
					keys[k] = string(tok.Word)
				}
			})
		}
		t.Logf("%d distinct words of up to %d bytes, keys distinct", len(keys), wordKeyMax)
	})
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		alphabet := []rune("abcdefghijklmnopqrstuvwxyz0123456789éσ東京")
		a := newAnalyzer()
		var w []byte
		for range 20000 {
			w = w[:0]
			for range 1 + rng.IntN(24) {
				if rng.IntN(4) == 0 {
					w = append(w, string(alphabet[rng.IntN(len(alphabet))])...)
				} else {
					w = append(w, byte('a'+rng.IntN(4)))
				}
			}
			checkTerm(t, a, w)
		}
	})
	t.Run("stopwords", func(t *testing.T) {
		a := newAnalyzer()
		for range 2 {
			for w := range stopwords {
				checkTerm(t, a, []byte(w))
				if _, stop := a.term([]byte(w)); !stop {
					t.Fatalf("%q is not a stopword", w)
				}
			}
		}
	})
	t.Run("collisions", func(t *testing.T) {
		// Words grouped by the set they fall in; three or more to a set,
		// taken in turns, hit both ways, evict and are put back.
		bySet := map[uint64][]string{}
		rng := rand.New(rand.NewPCG(7, 8))
		for range 100000 {
			w := make([]byte, 1+rng.IntN(wordKeyMax))
			for i := range w {
				w[i] = byte('a' + rng.IntN(26))
			}
			lo, hi := wordKey(w)
			h := wordHash(lo, hi, len(w))
			if !slices.Contains(bySet[h], string(w)) {
				bySet[h] = append(bySet[h], string(w))
			}
		}
		a := newAnalyzer()
		sets := 0
		for _, group := range bySet {
			if len(group) < 3 {
				continue
			}
			sets++
			for _, k := range []int{0, 1, 0, 2, 1, 2, 2, 0, 1} {
				checkTerm(t, a, []byte(group[k]))
			}
		}
		if sets < 100 {
			t.Fatalf("only %d sets with three words or more", sets)
		}
	})
}
