package answer

import (
	"slices"
	"testing"

	"github.com/cite-rag/cite/search"
)

// TestPreferDocuments: a data source's hit whose text a session passage
// has becomes that passage, in its place; each session passage replaces
// one hit at most, and the others follow.
func TestPreferDocuments(t *testing.T) {
	hit := func(id, text string) search.Hit { return search.Hit{ChunkID: id, Text: text} }
	ids := func(hs []search.Hit) []string {
		out := []string{}
		for _, h := range hs {
			out = append(out, h.ChunkID)
		}
		return out
	}
	for _, tc := range []struct {
		name             string
		hits, docs       []search.Hit
		wantHits, wantDo []string
	}{
		{"no session", []search.Hit{hit("s1", "a")}, nil, []string{"s1"}, []string{}},
		{"no data source", nil, []search.Hit{hit("d1", "a")}, []string{}, []string{"d1"}},
		{"none equal", []search.Hit{hit("s1", "a"), hit("s2", "b")}, []search.Hit{hit("d1", "c")}, []string{"s1", "s2"}, []string{"d1"}},
		{"twin in place", []search.Hit{hit("s1", "a"), hit("s2", "b")}, []search.Hit{hit("d1", "c"), hit("d2", "b")}, []string{"s1", "d2"}, []string{"d1"}},
		{"two copies indexed", []search.Hit{hit("s1", "b"), hit("s2", "b")}, []search.Hit{hit("d1", "b")}, []string{"d1", "s2"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, d := preferDocuments(tc.hits, tc.docs)
			if got := ids(h); !slices.Equal(got, tc.wantHits) {
				t.Errorf("hits %v, want %v", got, tc.wantHits)
			}
			if got := ids(d); !slices.Equal(got, tc.wantDo) {
				t.Errorf("documents' hits %v, want %v", got, tc.wantDo)
			}
		})
	}
}
