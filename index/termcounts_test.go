package index

import (
	"maps"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/internal/testenv"
)

// refTermCounts is termCounts as it was first written: the fields of
// strings.Fields counted in a Go map.
func refTermCounts(terms string) (map[string]uint32, uint32) {
	m := map[string]uint32{}
	n := uint32(0)
	for t := range strings.FieldsSeq(terms) {
		m[t]++
		n++
	}
	return m, n
}

func checkTermCounts(t *testing.T, terms string) {
	t.Helper()
	counts, n := termCounts(nil, terms)
	want, wantN := refTermCounts(terms)
	got := map[string]uint32{}
	for _, c := range counts {
		if _, dup := got[c.term]; dup {
			t.Fatalf("%.80q: term %q counted twice", terms, c.term)
		}
		got[c.term] = c.tf
	}
	if n != wantN || !maps.Equal(got, want) {
		t.Fatalf("%.80q: %d terms %v, want %d %v", terms, n, got, wantN, want)
	}
}

// TestTermCounts checks termCounts against counting the fields in a map:
// on texts with terms that share their first and last bytes, long terms,
// other spaces, and on the corpus's chunks analyzed.
func TestTermCounts(t *testing.T) {
	long := strings.Repeat("x", 20)
	for _, terms := range []string{
		"", " ", "a", "a a b", "  a\tb\n\na  ", "ab aab aaab ab", "abcdefgh abcdefghh abcdefgh",
		"abcdxyz abcdyz abcdxyz abcwxyz", long + " " + long + "y " + long + " y" + long,
		"x\u00a0y x\u2003x \u3000x", "a\xffb a\xffb", "é ée éé é",
		strings.Repeat("abcdefgh12345678 abcdefgh22345678 ", 300),
	} {
		checkTermCounts(t, terms)
	}
	sample := testenv.MarkdownSample(t, 1<<20)
	for _, c := range testenv.SplitAtSpace(sample, 2100) {
		checkTermCounts(t, analysis.JoinedTerms(c))
	}
	checkTermCounts(t, analysis.JoinedTerms(sample))
}

func FuzzTermCounts(f *testing.F) {
	for _, s := range []string{"", "a b a", "ab\u2003ab\tab", strings.Repeat("q", 17) + " " + strings.Repeat("q", 17)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, terms string) { checkTermCounts(t, terms) })
}

// BenchmarkTermCounts counts the terms of the corpus's 500-token chunks:
// termCounts against the Go map it replaced, in the same run.
func BenchmarkTermCounts(b *testing.B) {
	var texts []string
	var size int64
	for _, c := range testenv.SplitAtSpace(testenv.MarkdownSample(b, 2<<20), 2100) {
		texts = append(texts, analysis.JoinedTerms(c))
		size += int64(len(texts[len(texts)-1]))
	}
	b.Run("table", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, t := range texts {
				termCounts(nil, t)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.SetBytes(size)
		m := map[string]uint32{}
		for b.Loop() {
			for _, t := range texts {
				for f := range strings.FieldsSeq(t) {
					m[f]++
				}
				out := make([]termCount, 0, len(m))
				for f, c := range m {
					out = append(out, termCount{term: f, tf: c})
				}
				clear(m)
			}
		}
	})
}
