package pdf

import "testing"

func TestMetaTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Rivers of France", "Rivers of France"},
		{"  Rivers of France ", "Rivers of France"},
		{"notes.html", ""},
		{"Microsoft Word - Annual report 2024.docx", ""},
		{"my notes (1).md", ""},
		{"Version 2.0", "Version 2.0"},
		{"node.js in practice", "node.js in practice"},
		{"", ""},
	} {
		if got := metaTitle(tc.in); got != tc.want {
			t.Errorf("metaTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
