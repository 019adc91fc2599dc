package citations

import (
	"reflect"
	"strings"
	"testing"
)

// streamAll feeds text split at cuts and returns the concatenated output.
func streamAll(reg Registry, text string, cuts ...int) (string, *Stream) {
	s := NewStream(reg)
	var b strings.Builder
	prev := 0
	for _, c := range cuts {
		b.WriteString(s.Feed(text[prev:c]))
		prev = c
	}
	b.WriteString(s.Feed(text[prev:]))
	b.WriteString(s.Close())
	return b.String(), s
}

// trickyTexts exercise every rule of the scanner.
var trickyTexts = []string{
	"Paris [doc:2] is big [doc:1][doc:3, doc:2]. Hallucinated [doc:99], zero [doc:0], bad [doc:x].\n",
	"【doc:3】 wide, [ Doc : 2 ] spaced, [doc1] bare, [doc:1,2;3] joined\n",
	"Code `[doc:1]` ``a ` [doc:2]`` and a stray ` tick [doc:3]\n\nnext ` para [doc:1] `` x\n",
	"```go\nx := a[doc:1]\n```\n~~~\n[doc:2]\n~~~\n\n    indented [doc:3]\n\nafter [doc:1]\n",
	"# Heading `x [doc:1]\n- item `y\n- [doc:2]` z\n> quote [doc:3]\n1. a\n   - b [doc:1]\n",
	"a `b\n---\n[doc:1]` c\n\n***\n[doc:2]\n",
	"[doc:9] line start\n1[doc:9]. x\na``[doc:9]`b\n\\[doc:9]`c`\n[d[doc:9]oc:1]\n",
	"cut [doc:1, doc:2\nnext [doc:",
	"Ünïcödé 引用【doc:2】です。 emoji 📎 [doc:1]\r\n\r\ncrlf [doc:3]\r\n",
	"- [doc:1]\n\n  ```sh\n  unclosed [doc:2]\n",
	"   \t  \n\n[doc:1]   \n\n   ",
	"glued dance[doc:1], x_[doc:2] [see][doc:3] arr[2] é[doc:1]\n",
	"[doc:1](x) [doc:2][y] [doc:3](http://a.example/) [doc:9](z)\n[doc:1]: x\n[doc:9]: y\n",
	"in [doc:1] and [doc:9]. [doc:9], [doc:2], and [doc:8] agree ([doc:9]) (see [doc:3]; [doc:9])\n",
	"Paris, [doc:9], is; [doc:9];; so [doc:1]. [doc:9].\n([doc:9]) x\n东京（[doc:9]、【doc:1】）。 a [doc:9] as well as [5]([doc:2] & [doc:9] or\n",
	"x ([doc:9] p. 4). x ([doc:9], pp. 3–5) y ([doc:1] p. 2; [doc:9] § 4) cats (and [doc:9]) dogs (see it [doc:9], p. 4)\n",
	"a, [doc:9]. b; [doc:9], c, [doc:9]; d: [doc:9]. e. [doc:9], f, ([doc:9])? g,[doc:9]. e.g., [doc:9]. h, [doc:9]\n",
	"in [doc:9] at 12 sites, [doc:9] at 12:30, [doc:9] p. 4 and [doc:1] line 5. [0](00() [0]:A00:00\n[1]([doc:9])\n",
	"",
}

func TestStreamEverySplit(t *testing.T) {
	reg := testRegistry(t, 5)
	for _, text := range trickyTexts {
		want := Render(text, reg, Options{Order: ByAppearance})
		md := want.Markdown()
		check := func(got string, s *Stream, cuts ...int) {
			t.Helper()
			if got != md {
				t.Fatalf("text %q split at %v:\n got %q\nwant %q", text, cuts, got, md)
			}
			if !reflect.DeepEqual(s.Result(), want) {
				t.Fatalf("text %q split at %v: Result %+v\nwant %+v", text, cuts, s.Result(), want)
			}
		}
		for i := 0; i <= len(text); i++ {
			got, s := streamAll(reg, text, i)
			check(got, s, i)
			for j := i; j <= len(text) && len(text) <= 120; j++ {
				got, s := streamAll(reg, text, i, j)
				check(got, s, i, j)
			}
		}
		bytewise := make([]int, len(text))
		for i := range bytewise {
			bytewise[i] = i
		}
		got, s := streamAll(reg, text, bytewise...)
		check(got, s, bytewise...)
	}
}

func TestStreamHoldsBackOnlyUndecidedText(t *testing.T) {
	reg := testRegistry(t, 3)
	tests := []struct {
		name   string
		deltas []string
		want   []string // output of each Feed, then of Close
	}{
		{
			name:   "plain text flows",
			deltas: []string{"Hello", " world", ".\n"},
			want:   []string{"Hello", " world", ".", "\n"},
		},
		{
			name:   "partial marker is held",
			deltas: []string{"Paris [", "doc", ":1", "]", " is big."},
			want:   []string{"Paris", "", "", "", " [1] is big.", "\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"},
		},
		{
			name:   "bracket that is not a marker is released",
			deltas: []string{"see [", "x] now"},
			want:   []string{"see", " [x] now", ""},
		},
		{
			name:   "run waits for the next byte",
			deltas: []string{"a [doc:1]", "[doc:2]", "."},
			want:   []string{"a", "", " [1][2].", "\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n2. [Doc 2](file:///docs/2.md#bytes=20-30)\n"},
		},
		{
			name:   "comma before a possible marker is held",
			deltas: []string{"a,", " [doc:9]", ". b,", " c"},
			want:   []string{"a", "", ". b", ", c", ""}, // "a, [doc:9]. b" shows as "a. b"
		},
		{
			name:   "partial bare number is held",
			deltas: []string{"see [", "12", "] and [3", "](x)."},
			want:   []string{"see", "", "", " and [3](x).", ""}, // " and" may join [12] to a citation
		},
		{
			name:   "partial look-alike is held",
			deltas: []string{"a &#9", "1;doc:1&#93", "; b"},
			want:   []string{"a", "", " [1] b", "\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"},
		},
		{
			name:   "fenced code flows",
			deltas: []string{"```\n", "x [doc:1] y", "\n```\n"},
			want:   []string{"```", "\nx [doc:1] y", "\n```", "\n"}, // trailing newlines wait for text
		},
		{
			name:   "open code span holds to its end",
			deltas: []string{"a `b", " [doc:1] c", "` d"},
			want:   []string{"a `", "", "b [doc:1] c` d", ""},
		},
		{
			name:   "unclosed code span is text at the paragraph end",
			deltas: []string{"a `b", " [doc:1] c", "\n\nd"},
			want:   []string{"a `", "", "b [1] c\n\nd", "\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"},
		},
		{
			name:   "line start waits for its classification",
			deltas: []string{"a\n", "-", "-", "-\n", "b"},
			want:   []string{"a", "", "", "\n---", "\nb", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream(reg)
			var got []string
			for _, d := range tt.deltas {
				got = append(got, s.Feed(d))
			}
			got = append(got, s.Close())
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outputs\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStreamMidStreamRegistration(t *testing.T) {
	inv := testRegistry(t, 2)
	s := NewStream(inv)
	var out strings.Builder
	out.WriteString(s.Feed("Early guess [doc:3]. Known [doc:2]. "))
	if got := s.NewCitations(); len(got) != 1 || got[0].Key != "[doc:2]" || got[0].Number != 1 {
		t.Fatalf("NewCitations after first delta = %+v", got)
	}
	if got := s.NewCitations(); got != nil {
		t.Fatalf("NewCitations again = %+v, want nil", got)
	}
	// A tool call registers [doc:3] now.
	if _, err := inv.Register(Reference{Title: "Tool result"}); err != nil {
		t.Fatal(err)
	}
	out.WriteString(s.Feed("From the tool [doc:3][doc:1]."))
	out.WriteString(s.Close())
	news := s.NewCitations()
	if len(news) != 2 || news[0].Key != "[doc:3]" || news[0].Number != 2 || news[1].Key != "[doc:1]" || news[1].Number != 3 {
		t.Fatalf("NewCitations after tool call = %+v", news)
	}
	want := "Early guess. Known [1]. From the tool [2][3].\n\n---\nSources cited in this answer:\n\n" +
		"1. [Doc 2](file:///docs/2.md#bytes=20-30)\n2. Tool result\n3. [Doc 1](file:///docs/1.md#bytes=10-20)\n"
	if out.String() != want {
		t.Errorf("output\n got %q\nwant %q", out.String(), want)
	}
	r := s.Result()
	if len(r.Dropped) != 1 || r.Dropped[0].Index != 3 || r.Dropped[0].Reason != ReasonUnregistered {
		t.Errorf("Dropped = %+v, want the early [doc:3]", r.Dropped)
	}
}

func TestStreamPanics(t *testing.T) {
	s := NewStream(nil)
	s.Close()
	for name, f := range map[string]func(){
		"Feed after Close": func() { s.Feed("x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestStreamBuffersLittle(t *testing.T) {
	// A long answer streamed in small deltas keeps only a small buffer.
	reg := testRegistry(t, 3)
	s := NewStream(reg)
	line := "Some sentence with a citation [doc:1] and code `x` here.\n"
	for range 2000 {
		s.Feed(line[:20])
		s.Feed(line[20:])
	}
	if n := len(s.sc.buf); n > 4*len(line) {
		t.Errorf("input buffer holds %d bytes after 2000 lines", n)
	}
	s.Close()
}

// TestStreamCloseTwice: a second Close (a deferred one after an explicit
// one) returns nothing and keeps the result.
func TestStreamCloseTwice(t *testing.T) {
	reg := testRegistry(t, 2)
	s := NewStream(reg)
	out := s.Feed("See [doc:2].")
	out += s.Close()
	want := s.Result()
	if again := s.Close(); again != "" {
		t.Errorf("second Close returned %q", again)
	}
	if got := s.Result(); got.Text != want.Text || len(got.References) != len(want.References) || len(want.References) != 1 {
		t.Errorf("Result after a second Close = %+v, want %+v", got, want)
	}
	if !strings.Contains(out, "Sources cited in this answer:") {
		t.Errorf("output %q", out)
	}
}

// TestStreamHoldsChainsBounded: a chain of markers joined by connectors is
// held back while undecided, but never more than maxChainLen and one group
// and parenthesis beyond it, however long the chain goes on.
func TestStreamHoldsChainsBounded(t *testing.T) {
	reg := testRegistry(t, 3)
	for _, text := range []string{
		"x [doc:1]" + strings.Repeat(", [doc:9] and [doc:2]", 300) + ".\n",
		"x ([doc:1]" + strings.Repeat("; see [doc:9]", 300) + ")\n",
		"x [doc:1]" + strings.Repeat(" and [doc:9]", 30) + strings.Repeat(" and", 300) + "\n",
	} {
		s := NewStream(reg)
		var out strings.Builder
		held := 0
		for i := range len(text) {
			out.WriteString(s.Feed(text[i : i+1]))
			held = max(held, s.sc.end()-s.sc.emitted)
		}
		out.WriteString(s.Close())
		if limit := maxChainLen + 2*maxGroupLen; held > limit {
			t.Errorf("held back %d bytes of %q…, want at most %d", held, text[:20], limit)
		}
		if want := Render(text, reg, Options{Order: ByAppearance}).Markdown(); out.String() != want {
			t.Errorf("streamed %q…:\n got %q\nwant %q", text[:20], out.String(), want)
		}
	}
}

// TestStreamHoldsSpaceBounded: a long run of white space before a possible
// marker, after one at a line start, or at the end of the text is held
// back at most maxSpaceRun bytes; such a run is text, never removed with a
// dropped marker nor trimmed, in Render as in the stream.
func TestStreamHoldsSpaceBounded(t *testing.T) {
	reg := testRegistry(t, 3)
	mb := strings.Repeat(" ", 1<<20)
	short := strings.Repeat(" ", maxSpaceRun)
	tests := []struct {
		name string
		text string
		want string // Render's text
	}{
		{"before a dropped marker", "a" + mb + "[doc:9] b", "a" + mb + " b"},
		{"before a kept marker", "a" + mb + "[doc:1] b", "a" + mb + "[1] b"},
		{"after a comma", "a," + mb + "[doc:9]. b", "a," + mb + ". b"},
		{"tabs and spaces", "a" + strings.Repeat(" \t", 1<<19) + "[doc:9] b", "a" + strings.Repeat(" \t", 1<<19) + " b"},
		{"after a marker at a line start", "x\n[doc:9]" + mb + "b", "x\n\u200b" + mb + "b"},
		{"at the end", "a [doc:1]" + mb, "a [1]" + mb},
		{"lines at the end", "a [doc:1]" + strings.Repeat(" \n", 1<<19), "a [1]" + strings.Repeat(" \n", 1<<19)},
		{"at most the bound", "a" + short + "[doc:9] b", "a b"},
		{"at most the bound at the end", "a [doc:1]" + short, "a [1]"},
		{"at most the bound after a comma", "a," + short + "[doc:9]. b", "a. b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.text, reg, Options{Order: ByAppearance})
			if r.Text != tt.want {
				t.Errorf("Render: got %d bytes %q…, want %d bytes %q…", len(r.Text), r.Text[:min(20, len(r.Text))], len(tt.want), tt.want[:min(20, len(tt.want))])
			}
			want := r.Markdown()
			for _, size := range []int{1, 7, 4096} {
				if size == 1 && len(tt.text) > 1<<16 {
					continue // a million Feeds: slow under -race
				}
				s := NewStream(reg)
				var out strings.Builder
				held := 0
				for i := 0; i < len(tt.text); i += size {
					out.WriteString(s.Feed(tt.text[i:min(len(tt.text), i+size)]))
					held = max(held, s.sc.end()-s.sc.emitted+len(s.ws))
				}
				out.WriteString(s.Close())
				if limit := maxSpaceRun + 2*maxGroupLen + size; held > limit {
					t.Errorf("deltas of %d bytes: held back %d bytes, want at most %d", size, held, limit)
				}
				if out.String() != want {
					t.Errorf("deltas of %d bytes: streamed %d bytes, want %d", size, out.Len(), len(want))
				}
			}
		})
	}
}
