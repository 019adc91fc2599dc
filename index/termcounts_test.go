package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
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

// checkCountedPrep prepares a chunk of text twice, from its Terms and from
// its terms counted as analysis yields them (TermCounts), and compares the
// distinct terms, their frequencies and the number of terms.
func checkCountedPrep(t *testing.T, text string) {
	t.Helper()
	byTerms := []Chunk{{Chunk: chunk.Chunk{Text: text}, Terms: analysis.JoinedTerms(text)}}
	PrepareChunks(byTerms)
	counted := []Chunk{{Chunk: chunk.Chunk{Text: text}}}
	tc := NewTermCounts()
	for term := range analysis.Terms(text) {
		tc.Add(term.Term)
	}
	counted[0].SetTermCounts(tc)
	PrepareChunks(counted)
	if counted[0].Terms != "" {
		t.Fatalf("%.80q: counted chunk analyzed again for its Terms", text)
	}
	a, b := byTerms[0].prep, counted[0].prep
	tf := func(cs []termCount) map[string]uint32 {
		m := map[string]uint32{}
		for _, c := range cs {
			m[c.term] += c.tf
		}
		return m
	}
	if a.length != b.length || len(a.counts) != len(b.counts) || !maps.Equal(tf(a.counts), tf(b.counts)) {
		t.Fatalf("%.80q: counted %d terms %v, from Terms %d %v", text, b.length, tf(b.counts), a.length, tf(a.counts))
	}
	byTerms[0].spendPrep()
	counted[0].spendPrep()
}

// TestTermCountsMatchTerms checks that a chunk prepared from counts made as
// its analysis yields its terms (ingest's workers, in the hash embedder's
// pass) has the counts it has when prepared from its Terms; and that counts
// given for another text, or beside Terms, are not taken.
func TestTermCountsMatchTerms(t *testing.T) {
	for _, text := range []string{
		"", " ", "a", "The the THE a an", "x\u00a0y x\u2003x \u3000x", "naïve café Ünïcödé", "日本語のテキスト 中文",
		"a\xffb a\xffb", "don't won't it's", strings.Repeat("abcdefgh12345678 ", 40) + strings.Repeat("z", 40),
	} {
		checkCountedPrep(t, text)
	}
	sample := testenv.MarkdownSample(t, 1<<20)
	for _, c := range testenv.SplitAtSpace(sample, 2100) {
		checkCountedPrep(t, c)
	}

	// Counts of another text are not taken: the chunk is analyzed.
	c := []Chunk{{Chunk: chunk.Chunk{Text: "alpha beta"}}}
	tc := NewTermCounts()
	tc.Add("gamma")
	c[0].SetTermCounts(tc)
	c[0].Text = "alpha beta beta"
	PrepareChunks(c)
	if c[0].Terms == "" || c[0].prep.length != 3 {
		t.Fatalf("counts of another text taken: Terms %q, %d terms", c[0].Terms, c[0].prep.length)
	}
	// Nor beside Terms, which win.
	c = []Chunk{{Chunk: chunk.Chunk{Text: "alpha beta"}, Terms: "alpha beta"}}
	tc = NewTermCounts()
	tc.Add("gamma")
	c[0].SetTermCounts(tc)
	PrepareChunks(c)
	if c[0].prep.length != 2 || c[0].counted != nil {
		t.Fatalf("counts beside Terms taken: %d terms", c[0].prep.length)
	}
}

func FuzzTermCountsMatchTerms(f *testing.F) {
	for _, s := range []string{"", "a b a", "The café\u2003naïve", "日本語 x", "a\xffb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkCountedPrep(t, text) })
}

// A caller that analyzes a chunk's text anyway counts its terms as they
// come and hands them to the chunk, which is then stored without being
// analyzed again for its full-text terms.
func ExampleTermCounts() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cite-example")
	defer os.RemoveAll(dir)
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	chunks := []Chunk{{Chunk: chunk.Chunk{Text: "Pipelines pass objects, not text."}}}
	tc := NewTermCounts()
	for t := range analysis.Terms(chunks[0].Text) {
		tc.Add(t.Term)
	}
	chunks[0].SetTermCounts(tc)
	PrepareChunks(chunks) // on a worker, say

	doc := &Document{Source: "docs", Path: "/docs/pipelines.md"}
	if _, err := st.PutDocument(ctx, doc, chunks); err != nil {
		fmt.Println(err)
		return
	}
	hits, err := st.SearchText(ctx, "pipeline objects", Filter{}, 5)
	fmt.Println(len(hits), err)
	// Output: 1 <nil>
}
