package lexicon

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/analysis"
)

// term returns the first term of w, or "".
func term(w string) string {
	if ts := analysis.Analyze(w); len(ts) > 0 {
		return ts[0]
	}
	return ""
}

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
		{"aachen", []string{"aken"}, nil},                          // the first line
		{"the", nil, nil},
		{"", nil, nil},
		{"zzzzzz", nil, nil},
	} {
		got := slices.Collect(Related(term(tc.word)))
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
		if len(tc.related) == 0 && len(got) > 0 {
			t.Errorf("Related(%q) = %v, want nothing", term(tc.word), got)
		}
	}
}

// TestTable checks that the table was stemmed by today's analyzer and is
// sorted, without duplicates, so that the binary search finds every term.
func TestTable(t *testing.T) {
	if v := AnalysisVersion(); v != analysis.Version {
		t.Fatalf("related.txt was stemmed by analysis version %d, the analyzer is version %d: run go generate ./answer/lexicon (it needs WordNet 3.0, Debian's wordnet-base)", v, analysis.Version)
	}
	ls := lines()
	if len(ls) < 30000 {
		t.Fatalf("the table has %d terms, want ≥ 30,000", len(ls))
	}
	for i, l := range ls {
		f := strings.Fields(l)
		if len(f) < 2 || strings.Join(f, " ") != l {
			t.Fatalf("line %d: %q is not a term and its related terms", i+2, l)
		}
		if i > 0 && key(ls[i-1]) >= f[0] {
			t.Fatalf("line %d: %q after %q: unsorted or repeated", i+2, f[0], key(ls[i-1]))
		}
		if slices.Contains(f[1:], f[0]) {
			t.Fatalf("line %d: %q is related to itself", i+2, f[0])
		}
		if got, ok := find(f[0]); !ok || got != strings.Join(f[1:], " ") {
			t.Fatalf("find(%q) = %q, %v", f[0], got, ok)
		}
	}
}

func BenchmarkRelated(b *testing.B) {
	terms := analysis.Analyze("the game was played at the stadium where the founder announced a new price")
	lines() // built once per process
	b.ResetTimer()
	for b.Loop() {
		for _, t := range terms {
			for range Related(t) {
			}
		}
	}
}

func ExampleRelated() {
	// Terms are stems, as package analysis makes them.
	for t := range Related(analysis.Analyze("happened")[0]) {
		if t == analysis.Analyze("occurs")[0] {
			fmt.Println("happened ~ occurs")
		}
	}
	// Output: happened ~ occurs
}
