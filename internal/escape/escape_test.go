package escape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHidden(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want bool
	}{
		{'a', false}, {' ', false}, {'é', false}, {'☕', false}, {'中', false},
		{'\n', true}, {'\t', true}, {'\x1b', true}, {'\x00', true}, {'\x7f', true},
		{'\u0085', true}, {'\u009b', true}, // C1: NEL, CSI
		{'\u00a0', false},                    // no-break space: shows as a space
		{'\u00ad', false},                    // soft hyphen: kept
		{'\u200b', true},                     // zero-width space
		{'\u200c', false}, {'\u200d', false}, // joiners: kept
		{'\u200e', true}, {'\u200f', true}, {'\u061c', true}, // bidi marks
		{'\u202a', true}, {'\u202e', true}, // embeddings, overrides
		{'\u2066', true}, {'\u2069', true}, // isolates
		{'\u2028', true}, {'\u2029', true}, // line and paragraph separators
		{'\u2060', true}, {'\ufeff', true}, // word joiner, zero-width no-break space
		{'\U000e0041', true}, // tag character
		{'\ufffd', false},    // the replacement character itself shows
	} {
		if got := Hidden(tc.r); got != tc.want {
			t.Errorf("Hidden(%U) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/ann/notes.md", "/home/ann/notes.md"},
		{"/docs/café ☕.md", "/docs/café ☕.md"},
		{"/docs/caf\xe9.md", `/docs/caf\xe9.md`},
		{"/docs/a\nb.md", `/docs/a\nb.md`},
		{`/docs/back\slash`, `/docs/back\\slash`},
		{"/docs/rtl\u202egpj.md", `/docs/rtl\xe2\x80\xaegpj.md`},
		{"/docs/zw\u200bsp", `/docs/zw\xe2\x80\x8bsp`},
		{"/docs/emoji👩\u200d💻", "/docs/emoji👩\u200d💻"},
	} {
		got := Path(tc.in)
		if got != tc.want {
			t.Errorf("Path(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := UnescapePath(got); err != nil || back != tc.in {
			t.Errorf("UnescapePath(%q) = %q, %v, want %q", got, back, err, tc.in)
		}
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"layout kept", "line one\n\tline two", "line one\n\tline two"},
		{"backslash kept", `C:\dir\x41`, `C:\dir\x41`},
		{"unicode kept", "café ☕ 中文 👩\u200d💻 soft\u00adhyphen", "café ☕ 中文 👩\u200d💻 soft\u00adhyphen"},
		{"OSC title", "hello \x1b]0;PWNED\x07 zzqosc \x1b[2J", `hello \x1b]0;PWNED\x07 zzqosc \x1b[2J`},
		{"OSC 52 clipboard", "\x1b]52;c;aGVsbG8=\x1b\\", `\x1b]52;c;aGVsbG8=\x1b\`},
		{"carriage return", "safe\rEVIL", `safe\rEVIL`},
		{"DEL and NUL", "a\x7fb\x00c", `a\x7fb\x00c`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "invoice\u202egpj.exe", `invoice\u202egpj.exe`},
		{"bidi isolate", "x\u2066y\u2069z", `x\u2066y\u2069z`},
		{"zero width space", "pay\u200bpal", `pay\u200bpal`},
		{"tag characters", "hi\U000e0041\U000e0042", `hi\U000e0041\U000e0042`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"not UTF-8", "caf\xe9 \xe2\x80", `caf\xe9 \xe2\x80`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestWriterSplits: a stream cut anywhere, even inside a character or an
// escape sequence, comes out as Text of the whole.
func TestWriterSplits(t *testing.T) {
	in := "a \x1b]0;T\x07 \u202eb\u009b \xe9 👩\u200d💻 \U000e0041 end\xf0\x9f"
	want := Text(in)
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var b strings.Builder
			w := NewWriter(&b)
			for _, part := range []string{in[:i], in[i:j], in[j:]} {
				if n, err := w.Write([]byte(part)); n != len(part) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", part, n, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Fatalf("cut at %d and %d: %q, want %q", i, j, b.String(), want)
			}
		}
	}
}

// checkText fails if s holds a character a terminal would act on or not
// show.
func checkText(t *testing.T, in, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("Text(%q) = %q: not UTF-8", in, s)
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && Hidden(r) {
			t.Fatalf("Text(%q) = %q: holds %U", in, s, r)
		}
	}
}

// FuzzText: Text leaves nothing hidden but newlines and tabs, keeps a
// string with nothing hidden as it is, and a Writer given the string in two
// writes, cut anywhere, writes the same.
func FuzzText(f *testing.F) {
	for _, s := range []string{"hello", "a\x1b[2Jb", "\u202e", "\xc2\x9b", "caf\xe9", "\xf0\x9f\x91", "👩\u200d💻", "\U000e0041"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := Text(s)
		checkText(t, s, out)
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && Hidden(r) }) && out != s {
			t.Fatalf("Text(%q) = %q: changed a clean string", s, out)
		}
		if cut < 0 {
			cut = -cut
		}
		cut %= len(s) + 1
		var b strings.Builder
		w := NewWriter(&b)
		w.WriteString(s[:cut])
		w.WriteString(s[cut:])
		w.Flush()
		if b.String() != out {
			t.Fatalf("Writer(%q | %q) = %q, want %q", s[:cut], s[cut:], b.String(), out)
		}
	})
}

// FuzzPath: the escape is valid UTF-8 without Hidden characters, and
// UnescapePath undoes it.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"/a/b.md", "caf\xe9", "a\nb", `x\y`, "\u202e", "\xc2\x85", `\x41`, "\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		e := Path(p)
		if !utf8.ValidString(e) {
			t.Fatalf("Path(%q) = %q: not UTF-8", p, e)
		}
		for _, r := range e {
			if Hidden(r) {
				t.Fatalf("Path(%q) = %q: holds %U", p, e, r)
			}
		}
		if back, err := UnescapePath(e); err != nil || back != p {
			t.Fatalf("UnescapePath(Path(%q)) = %q, %v", p, back, err)
		}
	})
}
