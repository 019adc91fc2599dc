package textdist

import (
	"fmt"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"index", "index", 0},
		{"idnex", "index", 2},
		{"serach", "search", 2},
		{"report.htm|", "report.html", 1},
		{"kitten", "sitting", 3},
	} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Levenshtein(c.b, c.a); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func ExampleLevenshtein() {
	fmt.Println(Levenshtein("report.htm|", "report.html"))
	// Output: 1
}
