package benchquery

import (
	"fmt"
	"slices"
	"testing"
)

// TestPicker: every 50th chunk's innermost heading, once, if it has query
// terms, until Max are picked.
func TestPicker(t *testing.T) {
	tests := []struct {
		name     string
		headings func(i int) []string // of chunk i (1-based)
		chunks   int
		want     []string
		full     bool
	}{
		{"every 50th", func(i int) []string { return []string{"Doc", fmt.Sprintf("Section %d", i)} }, 160,
			[]string{"Section 50", "Section 100", "Section 150"}, false},
		{"no headings", func(i int) []string { return nil }, 200, nil, false},
		{"distinct", func(i int) []string { return []string{"Same"} }, 200, []string{"Same"}, false},
		{"no query terms", func(i int) []string { return []string{"--- !"} }, 200, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Picker
			more := true
			for i := 1; i <= tt.chunks && more; i++ {
				more = p.Add(tt.headings(i))
			}
			if !slices.Equal(p.Queries, tt.want) || more == tt.full {
				t.Errorf("got %q (more %v), want %q (full %v)", p.Queries, more, tt.want, tt.full)
			}
		})
	}
	t.Run("stops at Max", func(t *testing.T) {
		var p Picker
		i := 0
		for p.Add([]string{fmt.Sprintf("Heading %d", i)}) {
			i++
		}
		if len(p.Queries) != Max || i != Max*50-1 {
			t.Errorf("%d queries after %d chunks", len(p.Queries), i+1)
		}
	})
	for _, limit := range []int{1, 7, Max + 20} {
		t.Run(fmt.Sprintf("stops at Limit %d", limit), func(t *testing.T) {
			p := Picker{Limit: limit}
			i := 0
			for p.Add([]string{fmt.Sprintf("Heading %d", i)}) {
				i++
			}
			if len(p.Queries) != limit || i != limit*50-1 {
				t.Errorf("%d queries after %d chunks", len(p.Queries), i+1)
			}
		})
	}
}
