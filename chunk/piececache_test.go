package chunk

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// checkCached checks that the tokens of every piece of text, through the
// cache c, are the tokens [Tokenizer.pieceTokens] gives without it.
func checkCached(tb testing.TB, tok *Tokenizer, c *pieceCache, text string) {
	tb.Helper()
	var single, single2 [1]uint32
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			want := slices.Clone(tok.pieceTokens(text[i:e], single[:]))
			if got := tok.cachedTokens(c, text[i:e], single2[:]); !slices.Equal(got, want) {
				tb.Fatalf("piece %q: cached %v, uncached %v", text[i:e], got, want)
			}
			i = e
		}
	}
}

// TestPieceCache checks the piece cache against the uncached lookup on
// the corpus sample of TestTokenizerCorpus, twice through (the second time
// finding most pieces in the cache), on random text, and on pieces that
// share a set of the cache, so that they evict one another.
func TestPieceCache(t *testing.T) {
	tok := tokenizer(t)
	t.Run("cases", func(t *testing.T) {
		c := new(pieceCache)
		for range 2 {
			for _, tc := range tokenizerCases {
				checkCached(t, tok, c, tc.text)
			}
		}
	})
	t.Run("corpus", func(t *testing.T) {
		n := 4 << 20
		if testing.Short() || testenv.Race {
			n = 512 << 10
		}
		text := corpusSample(t, n)
		c := new(pieceCache)
		checkCached(t, tok, c, text)
		checkCached(t, tok, c, text)
	})
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		alphabet := []rune("abcdeABCDE 019.,'\n\t-/éü日本語😀\u0301")
		c := new(pieceCache)
		for range 2000 {
			var b strings.Builder
			for range 1 + rng.IntN(60) {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			if rng.IntN(8) == 0 {
				b.WriteByte(0xff) // invalid UTF-8
			}
			checkCached(t, tok, c, b.String())
		}
	})
	t.Run("collisions", func(t *testing.T) {
		// Tokens and multi-token pieces grouped by the set they fall in;
		// three or more to a set, taken in turns, hit both ways, evict
		// and are put back.
		bySet := map[uint64][]string{}
		for s := range tok.ranks.All() {
			if len(s) <= pieceKeyMax && nextPiece(s, 0) == len(s) {
				lo, hi := pieceKey(s)
				h := pieceHash(lo, hi, len(s))
				bySet[h] = append(bySet[h], s)
			}
		}
		for _, w := range []string{"xyzzy", " unbelievably", "Kubernetes", " 'quux'", "qwertyuiop"} {
			lo, hi := pieceKey(w)
			h := pieceHash(lo, hi, len(w))
			bySet[h] = append(bySet[h], w)
		}
		c := new(pieceCache)
		var single [1]uint32
		sets := 0
		for _, group := range bySet {
			if len(group) < 3 {
				continue
			}
			sets++
			slices.Sort(group)
			for _, k := range []int{0, 1, 0, 2, 1, 2, 2, 0, 1} {
				p := group[k%len(group)]
				want := slices.Clone(tok.pieceTokens(p, single[:]))
				if got := tok.cachedTokens(c, p, single[:]); !slices.Equal(got, want) {
					t.Fatalf("piece %q: cached %v, uncached %v", p, got, want)
				}
			}
		}
		if sets < 100 {
			t.Fatalf("only %d sets with three pieces or more", sets)
		}
	})
}

// TestPieceKey checks that pieceKey and the length tell all o200k_base
// tokens of up to pieceKeyMax bytes apart.
func TestPieceKey(t *testing.T) {
	tok := tokenizer(t)
	type key struct {
		lo, hi uint64
		n      int
	}
	seen := map[key]string{}
	for s := range tok.ranks.All() {
		if len(s) > pieceKeyMax {
			continue
		}
		lo, hi := pieceKey(s)
		k := key{lo, hi, len(s)}
		if other, ok := seen[k]; ok {
			t.Fatalf("%q and %q have the same key", s, other)
		}
		seen[k] = s
	}
	t.Logf("%d tokens of up to %d bytes, keys distinct", len(seen), pieceKeyMax)
}

// FuzzPieceCache checks the piece cache against the uncached lookup: the
// pieces of a, then b, then a again, through one cache.
func FuzzPieceCache(f *testing.F) {
	for _, tc := range tokenizerCases {
		f.Add(tc.text, "the end")
	}
	tok := tokenizer(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		c := new(pieceCache)
		checkCached(t, tok, c, a)
		checkCached(t, tok, c, b)
		checkCached(t, tok, c, a)
	})
}

// TestSplitConcurrent splits texts on several goroutines at once, each
// encoding call with a piece cache of its own, and checks that every split
// is the one made alone (run with -race).
func TestSplitConcurrent(t *testing.T) {
	s := newSplitter(t, DefaultSize, DefaultOverlap)
	var texts []string
	for _, tc := range tokenizerCases {
		texts = append(texts, strings.Repeat(tc.text+"\n\n", 40))
	}
	want := make([][]Chunk, len(texts))
	for i, text := range texts {
		want[i], _ = s.Split(text, nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(texts))
	for g := range 4 {
		wg.Go(func() {
			for k := range texts {
				i := (k + g*7) % len(texts)
				if got, _ := s.Split(texts[i], nil); !slices.EqualFunc(got, want[i], chunkEqual) {
					errs <- tokenizerCases[i].name
				}
				if n := s.Tokenizer().Count(texts[i]); n != len(s.Tokenizer().Encode(texts[i])) {
					errs <- tokenizerCases[i].name + " (Count)"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: split on several goroutines differs from the split alone", name)
	}
}

func chunkEqual(a, b Chunk) bool {
	return a.Ordinal == b.Ordinal && a.Text == b.Text && a.Tokens == b.Tokens &&
		a.Start == b.Start && a.End == b.End && slices.Equal(a.Headings, b.Headings)
}
