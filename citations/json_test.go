package citations

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReferenceJSON: a reference's source, a file name that need not be
// UTF-8, is written escaped (caf\xe9, not caf\ufffd) and read back exact,
// alone and as a Cited, which keeps its number and key.
func TestReferenceJSON(t *testing.T) {
	ref := Reference{Index: 2, Title: "Café", Passage: "p", ID: "c1", Type: TypeFile, Source: "/docs/caf\xe9\u202e.md", Span: Span{1, 5}}
	for _, tc := range []struct {
		name string
		v    any
		back any
	}{
		{"reference", ref, new(Reference)},
		{"cited", Cited{Number: 1, Key: "[doc:2]", Reference: ref}, new(Cited)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"source":"/docs/caf\\xe9\\xe2\\x80\\xae.md"`) || strings.Contains(string(b), `\ufffd`) {
				t.Errorf("JSON: %s", b)
			}
			if tc.name == "cited" && !strings.Contains(string(b), `"number":1,"key":"[doc:2]","index":2`) {
				t.Errorf("JSON lacks the number and key: %s", b)
			}
			if err := json.Unmarshal(b, tc.back); err != nil {
				t.Fatal(err)
			}
			var got Reference
			switch v := tc.back.(type) {
			case *Reference:
				got = *v
			case *Cited:
				got = v.Reference
				if v.Number != 1 || v.Key != "[doc:2]" {
					t.Errorf("read back %+v", v)
				}
			}
			if got != ref {
				t.Errorf("read back %+v, want %+v", got, ref)
			}
		})
	}
}
