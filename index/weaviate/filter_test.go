package weaviate

import "testing"

// TestLikeOf checks the Like pattern a path filter is narrowed with before
// the exact GLOB match: it must admit every path the GLOB pattern does.
func TestLikeOf(t *testing.T) {
	for _, c := range []struct {
		glob, like string
		exact      bool
	}{
		{"/docs/*", "/docs/*", true},
		{"/docs/?.md", "/docs/?.md", true},
		{"/docs/[ab].md", "/docs/?.md", false},
		{"[]]x", "?x", false},
		{"[^]]x", "?x", false},
		{"[^]a]*", "?*", false},
		{"[a-c][x]", "??", false},
	} {
		like, exact := likeOf(c.glob)
		if like != c.like || exact != c.exact {
			t.Errorf("likeOf(%q) = %q, %v; want %q, %v", c.glob, like, exact, c.like, c.exact)
		}
	}
}
