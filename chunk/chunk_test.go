package chunk

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func newSplitter(tb testing.TB, size, overlap int) *Splitter {
	tb.Helper()
	s, err := New(Options{Size: size, Overlap: overlap})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// checkSplit splits text and checks the result with checkChunks, and the
// total token count against the tokenizer.
func checkSplit(tb testing.TB, s *Splitter, text string, headings []Heading) []Chunk {
	tb.Helper()
	chunks, tokens := s.Split(text, headings)
	checkChunks(tb, s, text, chunks)
	if n := s.tok.Count(text); tokens != n {
		tb.Fatalf("Split counted %d tokens, the text has %d", tokens, n)
	}
	return chunks
}

// checkChunks fails the test if chunks are not a correct split of text.
func checkChunks(tb testing.TB, s *Splitter, text string, chunks []Chunk) {
	tb.Helper()
	if err := s.Verify(text, chunks); err != nil {
		tb.Fatal(err)
	}
}

// TestVerifyCatches makes sure the checker every test relies on fails when
// it should.
func TestVerifyCatches(t *testing.T) {
	s := newSplitter(t, 16, 4)
	text := strings.Repeat("Some words here. ", 20)
	good, _ := s.Split(text, nil)
	if err := s.Verify(text, good); err != nil {
		t.Fatal(err)
	}
	mutate := map[string]func(c []Chunk) []Chunk{
		"drop last":   func(c []Chunk) []Chunk { return c[:len(c)-1] },
		"drop middle": func(c []Chunk) []Chunk { return append(c[:1:1], c[2:]...) },
		"ordinal":     func(c []Chunk) []Chunk { c[1].Ordinal = 5; return c },
		"tokens":      func(c []Chunk) []Chunk { c[1].Tokens++; return c },
		"text":        func(c []Chunk) []Chunk { c[1].Text = "x" + c[1].Text[1:]; return c },
		"duplicate":   func(c []Chunk) []Chunk { return append(c[:2:2], c[1:]...) },
		"no overlap": func(c []Chunk) []Chunk {
			c[1].Start = c[0].End
			c[1].Text = text[c[1].Start:c[1].End]
			c[1].Tokens = s.tok.Count(c[1].Text)
			return c
		},
		"too big": func(c []Chunk) []Chunk {
			c[0].End = c[1].End
			c[0].Text = text[:c[0].End]
			c[0].Tokens = s.tok.Count(c[0].Text)
			return c
		},
	}
	for name, m := range mutate {
		t.Run(name, func(t *testing.T) {
			bad := m(append([]Chunk(nil), good...))
			if err := s.Verify(text, bad); err == nil {
				t.Fatal("Verify accepted a broken split")
			}
		})
	}
	broken := "aé" // a cut after "a\xc3" splits é
	if err := s.Verify(broken, []Chunk{{Text: broken[:2], Start: 0, End: 2, Tokens: s.tok.Count(broken[:2])}, {Ordinal: 1, Text: broken[1:], Start: 1, End: 3, Tokens: s.tok.Count(broken[1:])}}); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("split inside a character: %v", err)
	}
}

func TestCharBoundary(t *testing.T) {
	text := "aé😀\xffb\x9b"
	want := map[int]bool{0: true, 1: true, 2: false, 3: true, 4: false, 5: false, 6: false, 7: true, 8: true, 9: true, 10: true}
	for p, w := range want {
		if got := charBoundary(text, p); got != w {
			t.Errorf("charBoundary(%q, %d) = %v, want %v", text, p, got, w)
		}
	}
}

func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		opts          Options
		size, overlap int
		wantErr       bool
	}{
		{Options{}, 500, 50, false},
		{Options{Size: 100}, 100, 50, false},
		{Options{Size: 60}, 60, 30, false},
		{Options{Size: 100, Overlap: -1}, 100, 0, false},
		{Options{Size: 100, Overlap: 99}, 100, 99, false},
		{Options{Size: 100, Overlap: 100}, 0, 0, true},
		{Options{Size: 100, Overlap: 200}, 0, 0, true},
		{Options{Size: 8}, 0, 0, true},
		{Options{Size: -5}, 0, 0, true},
	} {
		t.Run(fmt.Sprintf("%+v", tc.opts), func(t *testing.T) {
			s, err := New(tc.opts)
			if tc.wantErr {
				if !errors.Is(err, ErrOptions) {
					t.Fatalf("err = %v, want ErrOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Size() != tc.size || s.Overlap() != tc.overlap {
				t.Fatalf("size/overlap = %d/%d, want %d/%d", s.Size(), s.Overlap(), tc.size, tc.overlap)
			}
		})
	}
}

// TestSplitCases checks the invariants on texts built to hit each kind of
// boundary, at several sizes.
func TestSplitCases(t *testing.T) {
	para := "The quick brown fox jumps over the lazy dog. It was not amused! Was it? Perhaps."
	cases := map[string]string{
		"one-word":      "hello",
		"short":         para,
		"paragraphs":    strings.Repeat(para+"\n\n", 40),
		"lines":         strings.Repeat("- item with a few words in it\n", 200),
		"no-breaks":     strings.Repeat("word ", 2000),
		"one-piece":     strings.Repeat("abcdefghij", 5000),
		"one-piece-cjk": strings.Repeat("日本語のテキスト", 800),
		"digits":        strings.Repeat("1234567890", 800),
		"emoji":         strings.Repeat("👩‍👩‍👧🇫🇷😀 ", 600),
		"bom":           "\ufeff" + strings.Repeat("\ufeffword \ufeff", 700),
		"combining":     strings.Repeat("e\u0301\u0301\u0301", 900),
		"cjk-sentences": strings.Repeat("これは文です。", 600),
		"mixed":         strings.Repeat("Some text. "+strings.Repeat("x", 300)+"\n\n## Heading\n\n", 30),
	}
	for _, size := range []int{16, 17, 64, 500} {
		for _, overlap := range []int{-1, 1, 50} {
			if overlap >= size {
				continue
			}
			s := newSplitter(t, size, overlap)
			for name, text := range cases {
				t.Run(fmt.Sprintf("%s/%d/%d", name, size, overlap), func(t *testing.T) {
					checkSplit(t, s, text, nil)
				})
			}
		}
	}
}

func TestSplitPrefersBoundaries(t *testing.T) {
	s := newSplitter(t, 100, 10)
	var b strings.Builder
	var headings []Heading
	for i := range 30 {
		headings = append(headings, Heading{Offset: b.Len(), Level: 2, Text: fmt.Sprintf("Section %d", i)})
		fmt.Fprintf(&b, "Section %d\n\n", i)
		for range 3 {
			b.WriteString("A sentence that says something about the section. Another one follows it here.\n\n")
		}
	}
	text := strings.TrimSpace(b.String())
	chunks := checkSplit(t, s, text, headings)
	for _, c := range chunks[:len(chunks)-1] {
		if !strings.HasPrefix(text[c.End:], "\n\n") {
			t.Errorf("chunk %d ends mid-paragraph: %q", c.Ordinal, c.Text[max(0, len(c.Text)-30):])
		}
	}
	for _, c := range chunks[1:] {
		if c.Start > 0 && text[c.Start-1] != '\n' && text[c.Start-1] != ' ' {
			t.Errorf("chunk %d starts mid-word: %q", c.Ordinal, c.Text[:20])
		}
	}
}

func TestHeadingPath(t *testing.T) {
	text := "Guide\n\nIntro text.\n\nInstall\n\nSteps.\n\nLinux\n\nApt.\n\nUsage\n\nRun it."
	at := func(s string) int { return strings.Index(text, s) }
	headings := []Heading{
		{at("Guide"), 1, "Guide"},
		{at("Install"), 2, "Install"},
		{at("Linux"), 3, "Linux"},
		{at("Usage"), 2, "Usage"},
	}
	var h headingPath
	for _, tc := range []struct {
		pos  int
		want string
	}{
		{at("Intro"), "Guide"},
		{at("Steps"), "Guide > Install"},
		{at("Apt"), "Guide > Install > Linux"},
		{at("Run"), "Guide > Usage"},
	} {
		if got := strings.Join(h.at(headings, tc.pos), " > "); got != tc.want {
			t.Errorf("path at %d = %q, want %q", tc.pos, got, tc.want)
		}
	}
}

// TestSplitGolden splits the fixtures in testdata/*.txt (size 64, overlap
// TestHeadingPathBounded checks that a chunk's heading path costs a bounded
// size however long its headings: on today's main, before the bound, every
// chunk under a heading of a megabyte carried the whole megabyte.
func TestHeadingPathBounded(t *testing.T) {
	s := newSplitter(t, 0, 0)
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word, n/len(word))) }
	for _, tc := range []struct {
		name     string
		headings []string // one per level, outermost first
	}{
		{"short", []string{"Guide", "Install"}},
		{"many words", []string{long("lorem ", 1<<20)}},
		{"one word", []string{long("a", 800<<10)}},
		{"multibyte", []string{long("é", 1000)}},
		{"words just over", []string{long("abc ", MaxHeadingBytes+2)}},
		{"six levels", []string{long("a ", 300), long("b ", 300), long("c ", 300), long("d ", 300), long("e ", 300), long("f ", 300)}},
		{"ten levels", []string{"0", long("1 ", 300), long("2 ", 300), long("3 ", 300), long("4 ", 300), long("5 ", 300), long("6 ", 300), long("7 ", 300), long("8 ", 300), "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			var headings []Heading
			for i, h := range tc.headings {
				headings = append(headings, Heading{Offset: b.Len(), Level: i + 1, Text: h})
				b.WriteString(h + "\n\n")
			}
			b.WriteString(strings.Repeat("Body text of the last section. ", 200))
			text := b.String()
			chunks := checkSplit(t, s, text, headings)
			last := chunks[len(chunks)-1].Headings
			if len(last) == 0 || last[0] != Clip(tc.headings[0], MaxHeadingBytes) || last[len(last)-1] != Clip(tc.headings[len(tc.headings)-1], MaxHeadingBytes) {
				t.Errorf("last chunk's path %q does not run from the first heading to the last", last)
			}
			for _, c := range chunks {
				n := 0
				for _, h := range c.Headings {
					n += len(h)
					if len(h) > MaxHeadingBytes || !utf8.ValidString(h) {
						t.Fatalf("chunk %d: heading of %d bytes (valid UTF-8: %t)", c.Ordinal, len(h), utf8.ValidString(h))
					}
				}
				if n > MaxPathBytes {
					t.Fatalf("chunk %d: path of %d bytes", c.Ordinal, n)
				}
			}
			for i, h := range tc.headings {
				got := Clip(h, MaxHeadingBytes)
				if len(h) <= MaxHeadingBytes {
					if got != h {
						t.Errorf("heading %d of %d bytes clipped to %q", i, len(h), got)
					}
					continue
				}
				body, ok := strings.CutSuffix(got, Ellipsis)
				if !ok || !strings.HasPrefix(h, body) || len(body) < MaxHeadingBytes*3/4-len(Ellipsis) {
					t.Errorf("heading %d clipped to %q", i, got)
				}
			}
		})
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 12, "one two…"},
		{"abcdefghijklmnop", 10, "abcdefg…"},
		{"ééééé", 8, "éé…"},                                   // a cut inside a character backs off to its start
		{"abcdefghij klmnopqrstuvwxyz", 16, "abcdefghij…"},    // the word ends in the last quarter
		{"abcdefghijklm nopqrstuvwxyz", 16, "abcdefghijklm…"}, // the word ends at the cut
		{"abcdefgh ijklmnopqrstuvwxyz", 16, "abcdefgh ijkl…"}, // no word ends near the bound
	} {
		if got := Clip(tc.s, tc.n); got != tc.want || len(got) > max(tc.n, len(tc.s)) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// 8; lines starting with "#" are headings) and compares with the .golden
// files; go test -update rewrites them.
func TestSplitGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	s := newSplitter(t, 64, 8)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text := string(src)
			var headings []Heading
			off := 0
			for line := range strings.Lines(text) {
				if h, ok := strings.CutPrefix(line, "#"); ok {
					level := 1 + len(h) - len(strings.TrimLeft(h, "#"))
					headings = append(headings, Heading{off, level, strings.TrimSpace(strings.TrimLeft(h, "#"))})
				}
				off += len(line)
			}
			chunks := checkSplit(t, s, text, headings)
			var b strings.Builder
			for _, c := range chunks {
				fmt.Fprintf(&b, "--- chunk %d: tokens %d, bytes [%d,%d), headings %q\n%s\n", c.Ordinal, c.Tokens, c.Start, c.End, c.Headings, c.Text)
			}
			golden := strings.TrimSuffix(file, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("chunks differ from %s (go test -update rewrites it):\n%s", golden, b.String())
			}
		})
	}
}

// TestSplitCorpus splits every file of the shared Markdown corpus (as raw
// text; the ingest tests split it normalized) and checks the invariants:
// no broken UTF-8, none over the limit, none redundant, every byte covered.
func TestSplitCorpus(t *testing.T) {
	files := corpusFiles(t)
	if testenv.Race || testing.Short() {
		files = files[:len(files)/16]
	}
	s := newSplitter(t, DefaultSize, DefaultOverlap)
	var nchunks, nbytes int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		chunks := checkSplit(t, s, text, nil)
		nchunks += len(chunks)
		nbytes += len(text)
	}
	t.Logf("%d files, %d bytes, %d chunks: 0 broken UTF-8, 0 over %d tokens, 0 redundant, all bytes covered", len(files), nbytes, nchunks, s.size)
}

func FuzzSplit(f *testing.F) {
	for _, tc := range tokenizerCases {
		f.Add(tc.text, uint16(16), uint16(3))
	}
	f.Add(strings.Repeat("Word and more words. ", 100), uint16(20), uint16(5))
	f.Add(strings.Repeat("x", 3000), uint16(16), uint16(15))
	f.Add("# T\n\npara one.\n\n## U\n\npara two.", uint16(16), uint16(0))
	// Load the tokenizer before fuzzing: the engine gives each input 10
	// seconds of wall time, and loading takes about a second of CPU.
	tokenizer(f)
	f.Fuzz(func(t *testing.T, text string, size, overlap uint16) {
		sz := MinSize + int(size)%200
		ov := int(overlap) % sz
		if ov == 0 {
			ov = -1
		}
		s := newSplitter(t, sz, ov)
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("SLOW size=%d ov=%d len=%d", sz, ov, len(text))) })
		defer watchdog.Stop()
		var headings []Heading
		for i := 0; i < len(text); i += 37 {
			headings = append(headings, Heading{Offset: i, Level: 1 + i%3, Text: "h"})
		}
		checkSplit(t, s, text, headings)
	})
}

func BenchmarkSplit(b *testing.B) {
	text := corpusSample(b, 4<<20)
	s := newSplitter(b, DefaultSize, DefaultOverlap)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.Split(text, nil)
	}
}

// TestByTier checks the counting sort of overlap candidates against a
// stable sort by tier, on random lists, reusing the scratch space.
func TestByTier(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sp splitter
	for range 1000 {
		cands := make([]cand, rng.IntN(120))
		for i := range cands {
			cands[i] = cand{p: i, k: rng.IntN(50), tier: rng.IntN(startNone + 1)}
		}
		orig := slices.Clone(cands)
		want := slices.Clone(cands)
		slices.SortStableFunc(want, func(a, b cand) int { return cmp.Compare(a.tier, b.tier) })
		if got := sp.byTier(cands); !slices.Equal(got, want) {
			t.Fatalf("byTier(%v) = %v, want %v", orig, got, want)
		}
		if !slices.Equal(cands, orig) {
			t.Fatalf("byTier changed its input")
		}
	}
}
