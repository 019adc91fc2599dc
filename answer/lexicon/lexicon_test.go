package lexicon

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
)

func term(w string) string { return analysis.Analyze(w)[0] }

func TestRelated(t *testing.T) {
	for _, tc := range []struct {
		word    string
		related []string // must be among Related
		not     []string // must not be
	}{
		{"founded", []string{"establish", "founder"}, []string{"found"}},
		{"happened", []string{"occur"}, nil},
		{"cost", []string{"price"}, []string{"cost"}},
		{"announced", []string{"proclaim"}, []string{"announcer"}}, // one stem: no relation to itself
		{"the", nil, nil},
	} {
		got := Related(term(tc.word))
		for _, w := range tc.related {
			if !slices.Contains(got, term(w)) {
				t.Errorf("Related(%q) = %v, want it to hold %q", term(tc.word), got, term(w))
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, term(w)) {
				t.Errorf("Related(%q) = %v holds %q", term(tc.word), got, term(w))
			}
		}
	}
	if n := len(related()); n < 30000 {
		t.Errorf("the table has %d words, want ≥ 30,000", n)
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		load()
	}
}

func ExampleRelated() {
	// Terms are stems, as package analysis makes them.
	rel := Related(analysis.Analyze("happened")[0])
	fmt.Println(slices.Contains(rel, analysis.Analyze("occurs")[0]))
	// Output: true
}
