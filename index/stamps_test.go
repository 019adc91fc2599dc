package index

import (
	"slices"
	"testing"
)

// TestStamps: the documents at or under the paths given, each once, of the
// source given; "" is all of the source's.
func TestStamps(t *testing.T) {
	st := openStore(t)
	for _, p := range []string{"/docs/a.md", "/docs/b/c.md", "/docs.md", "/docsx/d.md", "/docs0/e.md", "/other/f.md"} {
		textDoc(t, st, nil, "s", p, "alpha")
	}
	textDoc(t, st, nil, "t", "/docs/a.md", "beta")
	for _, tc := range []struct {
		source string
		paths  []string
		want   []string
	}{
		{"s", []string{""}, []string{"/docs.md", "/docs/a.md", "/docs/b/c.md", "/docs0/e.md", "/docsx/d.md", "/other/f.md"}},
		{"s", []string{"/"}, []string{"/docs.md", "/docs/a.md", "/docs/b/c.md", "/docs0/e.md", "/docsx/d.md", "/other/f.md"}},
		{"s", []string{"/docs"}, []string{"/docs/a.md", "/docs/b/c.md"}},
		{"s", []string{"/docs/"}, []string{"/docs/a.md", "/docs/b/c.md"}},
		{"s", []string{"/docs/b", "/docs", "/docs/a.md"}, []string{"/docs/a.md", "/docs/b/c.md"}},
		{"s", []string{"/docs.md", "/other"}, []string{"/docs.md", "/other/f.md"}},
		{"s", []string{"/doc"}, nil},
		{"s", nil, nil},
		{"t", []string{""}, []string{"/docs/a.md"}},
		{"u", []string{""}, nil},
	} {
		stamps, err := st.Stamps(t.Context(), tc.source, tc.paths)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range stamps {
			if s.ID != DocumentID(tc.source, s.Path) || s.Type != "text" || s.Hash != "h" || s.Pipeline != "p" {
				t.Errorf("%s %q: stamp %+v", tc.source, tc.paths, s)
			}
			got = append(got, s.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: got %q, want %q", tc.source, tc.paths, got, tc.want)
		}
	}
}
