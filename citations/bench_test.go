package citations_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
)

// benchAnswer returns a Markdown answer of about 2,000 tokens (~8,500 bytes)
// with 50 markers over 200 registered references, and the registry.
func benchAnswer(tb testing.TB) (string, *citations.Invocation) {
	inv := citations.NewInvocation()
	inv.SetResolver(citations.DefaultResolver())
	for i := 1; i <= 200; i++ {
		if _, err := inv.Register(citations.Reference{
			Title: fmt.Sprintf("Handbook section %d", i), Passage: strings.Repeat("passage text ", 40),
			ID: fmt.Sprintf("handbook#%d", i), Type: citations.TypeFile,
			Source: fmt.Sprintf("/corpus/handbook/%02d.md", i/10), Span: citations.Span{Start: i * 100, End: i*100 + 2000},
		}); err != nil {
			tb.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the index stores chunks of every document with their byte spans so that each citation " +
		"points back to the exact passage a reader can open and check against the answer while hybrid search " +
		"fuses lexical and vector rankings")
	var b strings.Builder
	markers := 0
	for p := 0; b.Len() < 8400; p++ {
		switch p % 6 {
		case 0:
			fmt.Fprintf(&b, "## Part %d\n\n", p/6+1)
		case 3:
			b.WriteString("```sh\ncite ask \"how are [doc:1] markers kept in code?\"\n```\n\n")
		case 4:
			for i := range 3 {
				fmt.Fprintf(&b, "- item %d uses `--flag` and %s [doc:%d]\n", i, words[rng.IntN(len(words))], rng.IntN(200)+1)
				markers++
			}
			b.WriteString("\n")
		}
		for s := range 5 {
			for range 14 {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			if s%2 == 0 && markers < 50 {
				if markers%7 == 0 {
					fmt.Fprintf(&b, "[doc:%d, doc:%d]", rng.IntN(200)+1, rng.IntN(200)+1)
				} else {
					fmt.Fprintf(&b, "[doc:%d]", rng.IntN(200)+1)
				}
				markers++
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	text := b.String()
	if n := len(citations.Parse(text)); n < 50 {
		tb.Fatalf("benchmark answer has %d markers, want at least 50", n)
	}
	return text, inv
}

// tokenDeltas splits text into deltas of about one token (4 bytes).
func tokenDeltas(text string) []string {
	var d []string
	for i := 0; i < len(text); i += 4 {
		d = append(d, text[i:min(len(text), i+4)])
	}
	return d
}

func BenchmarkRender(b *testing.B) {
	text, inv := benchAnswer(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		citations.Render(text, inv, citations.Options{}).Markdown()
	}
}

func BenchmarkRenderByAppearance(b *testing.B) {
	text, inv := benchAnswer(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		citations.Render(text, inv, citations.Options{Order: citations.ByAppearance}).Markdown()
	}
}

func BenchmarkStream(b *testing.B) {
	text, inv := benchAnswer(b)
	deltas := tokenDeltas(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s := citations.NewStream(inv)
		for _, d := range deltas {
			s.Feed(d)
		}
		s.Close()
	}
}

func BenchmarkParse(b *testing.B) {
	text, _ := benchAnswer(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		citations.Parse(text)
	}
}
