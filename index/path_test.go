package index

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/escape"
)

func TestEscapePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/ann/notes.md", "/home/ann/notes.md"},
		{"/docs/café ☕.md", "/docs/café ☕.md"},
		{"/docs/caf\xe9.md", `/docs/caf\xe9.md`},
		{"/docs/a\nb.md", `/docs/a\nb.md`},
		{"/docs/tab\there\r", `/docs/tab\there\r`},
		{`/docs/back\slash`, `/docs/back\\slash`},
		{`/docs/lit\xe9`, `/docs/lit\\xe9`}, // a literal \xe9 stays distinct from the byte
		{"/docs/bell\x07\x7f", `/docs/bell\x07\x7f`},
		{"/docs/c1\u0085", `/docs/c1\xc2\x85`},
		{"/docs/rtl\u202egpj.md", `/docs/rtl\xe2\x80\xaegpj.md`},
		{"/docs/ls\u2028", `/docs/ls\xe2\x80\xa8`},
		{"\xff\xfe", `\xff\xfe`},
		{"\xe2\x82", `\xe2\x82`}, // a truncated rune
		{"", ""},
	} {
		got := EscapePath(tc.in)
		if got != tc.want {
			t.Errorf("EscapePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := UnescapePath(got)
		if err != nil || back != tc.in {
			t.Errorf("UnescapePath(%q) = %q, %v, want %q", got, back, err, tc.in)
		}
	}
}

func TestUnescapePathErrors(t *testing.T) {
	for _, s := range []string{`a\`, `a\q`, `\x`, `\x4`, `\xzz`, `\u1234`} {
		if got, err := UnescapePath(s); err == nil {
			t.Errorf("UnescapePath(%q) = %q, want an error", s, got)
		}
	}
}

// FuzzEscapePath: the escape is valid UTF-8 without control characters or
// line breaks, and UnescapePath undoes it.
func FuzzEscapePath(f *testing.F) {
	for _, s := range []string{"/a/b.md", "caf\xe9", "a\nb", `x\y`, "\u202e", "\xc2\x85", `\x41`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		e := EscapePath(p)
		if !utf8.ValidString(e) {
			t.Fatalf("EscapePath(%q) = %q: not UTF-8", p, e)
		}
		for _, r := range e {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("EscapePath(%q) = %q: holds %U", p, e, r)
			}
		}
		back, err := UnescapePath(e)
		if err != nil || back != p {
			t.Fatalf("UnescapePath(EscapePath(%q)) = %q, %v", p, back, err)
		}
		if utf8.ValidString(p) && !strings.ContainsAny(p, "\\") && e != p && !strings.ContainsFunc(p, func(r rune) bool { return escape.Hidden(r) }) {
			t.Fatalf("EscapePath(%q) = %q: changed a clean path", p, e)
		}
	})
}

// FuzzUnescapePath: whatever UnescapePath accepts, EscapePath of its result
// unescapes to the same bytes.
func FuzzUnescapePath(f *testing.F) {
	for _, s := range []string{`/a/b.md`, `caf\xe9`, `a\nb`, `x\\y`, `\xE2\x80\xAE`, `\`, `\q`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := UnescapePath(s)
		if err != nil {
			return
		}
		back, err := UnescapePath(EscapePath(p))
		if err != nil || back != p {
			t.Fatalf("round trip of %q: %q, %v", p, back, err)
		}
	})
}

func TestDocumentJSONPath(t *testing.T) {
	d := Document{ID: "abc", Source: "default", Path: "/docs/caf\xe9\n.md", Title: "T", ModTime: time.Unix(0, 0).UTC()}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"path":"/docs/caf\\xe9\\n.md"`) {
		t.Fatalf("JSON %s", data)
	}
	var back Document
	if err := json.Unmarshal(data, &back); err != nil || back != d {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// In a slice and a map, as cite docs --json writes it.
	data, _ = json.Marshal(map[string]any{"documents": []Document{d}})
	if !strings.Contains(string(data), `caf\\xe9`) {
		t.Fatalf("JSON %s", data)
	}
}

func ExampleEscapePath() {
	p := "/docs/caf\xe9\nmenu.md" // Latin-1 é and a newline in a file name
	e := EscapePath(p)
	fmt.Println(e)
	back, _ := UnescapePath(e)
	fmt.Println(back == p)
	// Output:
	// /docs/caf\xe9\nmenu.md
	// true
}

// TestProblemJSON: cite check --json names a problem's file escaped, as
// every path in cite's JSON, and reads it back exact.
func TestProblemJSON(t *testing.T) {
	p := Problem{DocumentID: "d1", Path: "/docs/caf\xe9.md", Problem: "has 0 chunks, recorded 1"}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"document_id":"d1","path":"/docs/caf\\xe9.md","problem":"has 0 chunks, recorded 1"}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Problem
	if err := json.Unmarshal(b, &back); err != nil || back != p {
		t.Errorf("read back %+v, %v", back, err)
	}
}
