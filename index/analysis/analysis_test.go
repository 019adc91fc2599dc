package analysis

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/analyze.golden")

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"punctuation only", " -- ** ;; ", nil},
		{"stemming and case", "The Quick brown FOXES were Running", []string{"the", "quick", "brown", "fox", "were", "run"}},
		{"hyphenated identifier", "Get-ChildItem", []string{"get", "childitem"}},
		{"snake case", "snake_case about_Parameters", []string{"snake", "case", "about", "paramet"}},
		{"version", "v1.2.3", []string{"v1", "2", "3"}},
		{"contraction", "don't", []string{"dont"}},
		{"possessive", "Tom's O’Neil’s", []string{"tom", "oneil"}},
		{"plural possessive", "students'", []string{"student"}},
		{"quotes", "'quoted'", []string{"quot"}},
		{"diacritics", "Café naïve", []string{"cafe", "naiv"}},
		{"decomposed diacritics", "Cafe\u0301", []string{"cafe"}},
		{"letters without decomposition", "Straße Øresund Łódź æther", []string{"strass", "oresund", "lodz", "aether"}},
		{"compatibility forms", "ﬁnancial Ｆｕｌｌ x²", []string{"financi", "full", "x2"}},
		{"normalization splits", "½", []string{"1", "2"}},
		{"greek final sigma", "ΣΊΣΥΦΟΣ σίσυφος", []string{"σισυφοσ", "σισυφοσ"}},
		{"cyrillic", "Москва", []string{"москва"}},
		{"cjk bigrams", "東京都", []string{"東京", "京都"}},
		{"cjk single", "中", []string{"中"}},
		{"half-width kana", "ｶﾞｷﾞ", []string{"ガギ"}},
		{"spacing voicing mark", "住゜ば", []string{"住゚ば"}},
		{"cjk after latin", "Go言語", []string{"go", "言語"}},
		{"hangul words", "한국어 텍스트", []string{"한국어", "텍스트"}},
		{"marks of other scripts kept", "हिन्दी", []string{"हिन्दी"}},
		{"soft hyphen", "co\u00ADoperate", []string{"cooper"}},
		{"zero-width space separates", "e\u200Bf", []string{"e", "f"}},
		{"digits not stemmed", "2020s x86", []string{"2020s", "x86"}},
		{"invalid utf-8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"long run cut", strings.Repeat("ab", 100), []string{strings.Repeat("ab", 64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Analyze(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Analyze(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAnalyzeQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What is the capital of France?", []string{"capit", "franc"}},
		{"Which NFL team represented the AFC at Super Bowl 50?", []string{"nfl", "team", "repres", "afc", "super", "bowl", "50"}},
		{"Doesn't it work?", []string{"work"}},
		// Only stopwords: all kept.
		{"to be or not to be", []string{"to", "be", "or", "not", "to", "be"}},
		{"The Who", []string{"the", "who"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := AnalyzeQuery(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("AnalyzeQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnalyzeTokens(t *testing.T) {
	text := "Get-ChildItem: Café's 東京都 ½"
	want := []struct{ term, src string }{
		{"get", "Get"}, {"childitem", "ChildItem"}, {"cafe", "Café's"},
		{"東京", "東京"}, {"京都", "京都"}, {"1", "½"}, {"2", "½"},
	}
	got := AnalyzeTokens(text)
	if len(got) != len(want) {
		t.Fatalf("AnalyzeTokens(%q) = %v, want %d tokens", text, got, len(want))
	}
	for i, w := range want {
		if got[i].Term != w.term || text[got[i].Start:got[i].End] != w.src {
			t.Errorf("token %d = %q from %q, want %q from %q", i, got[i].Term, text[got[i].Start:got[i].End], w.term, w.src)
		}
	}
}

// TestAnalyzeGolden analyzes the lines of testdata/embed/analyze.txt; run
// with -update to rewrite analyze.golden.
func TestAnalyzeGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "analyze.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for line := range strings.Lines(string(in)) {
		line = strings.TrimSuffix(line, "\n")
		fmt.Fprintf(&out, "> %s\n", line)
		fmt.Fprintf(&out, "index: %s\n", strings.Join(Analyze(line), " "))
		fmt.Fprintf(&out, "query: %s\n\n", strings.Join(AnalyzeQuery(line), " "))
	}
	golden := filepath.Join("testdata", "analyze.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("analysis differs from %s (run with -update to accept, and bump Version):\n%s", golden, out.String())
	}
}

// simpleTokenizerTerms splits s as SQLite's "simple" tokenizer does: terms are
// runs of ASCII alphanumerics and non-ASCII bytes, ASCII folded to lower
// case.
func simpleTokenizerTerms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r < utf8.RuneSelf && !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
}

// checkAnalyzedTerms verifies the invariants of analyzed terms.
func checkAnalyzedTerms(t *testing.T, in string, terms []string) {
	t.Helper()
	for _, term := range terms {
		if term == "" || len(term) > maxTermBytes || !utf8.ValidString(term) {
			t.Fatalf("Analyze(%q): bad term %q", in, term)
		}
		for _, r := range term {
			if r < utf8.RuneSelf && !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
				t.Fatalf("Analyze(%q): term %q has ASCII %q", in, term, r)
			}
			if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r) {
				t.Fatalf("Analyze(%q): term %q has %q", in, term, r)
			}
		}
	}
	if got := simpleTokenizerTerms(strings.Join(terms, " ")); !slices.Equal(got, terms) && len(terms) > 0 {
		t.Fatalf("Analyze(%q) = %q: the full-text tokenizer would see %q", in, terms, got)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"", "Get-ChildItem -Path C:\\", "don't Tom's", "Café e\u0301", "東京都ｶﾞ", "½ ﬁ x²",
		"a\u200Db co\u00ADop", "'''", "\xff\xfe", "\u0301", "ΣΊΣΥΦΟΣ", strings.Repeat("é", 200),
		"000000000000住゜",
	} {
		f.Add(s)
	}
	if in, err := os.ReadFile(filepath.Join("testdata", "analyze.txt")); err == nil {
		for line := range strings.Lines(string(in)) {
			f.Add(line)
		}
	}
	// Real text: the start of a few corpus files, when the data is there.
	if dir, ok := testenv.FindSharedData(filepath.Join("markdown", "reference")); ok {
		paths, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.md"))
		for i, p := range paths {
			if i%200 != 0 {
				continue
			}
			if data, err := os.ReadFile(p); err == nil {
				f.Add(string(data[:min(len(data), 2000)]))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		terms := Analyze(in)
		checkAnalyzedTerms(t, in, terms)
		if again := Analyze(in); !slices.Equal(terms, again) {
			t.Fatalf("Analyze(%q) not deterministic: %q then %q", in, terms, again)
		}
		toks := AnalyzeTokens(in)
		if len(toks) != len(terms) {
			t.Fatalf("AnalyzeTokens(%q) has %d tokens, Analyze %d terms", in, len(toks), len(terms))
		}
		prev := 0
		for i, tok := range toks {
			if tok.Term != terms[i] || tok.Start < prev || tok.Start >= tok.End || tok.End > len(in) {
				t.Fatalf("AnalyzeTokens(%q): token %d = %+v", in, i, tok)
			}
			prev = tok.Start
		}
		// Query terms are the index terms less stopwords, in order.
		q := AnalyzeQuery(in)
		k := 0
		for _, term := range terms {
			if k < len(q) && q[k] == term {
				k++
			}
		}
		if k != len(q) {
			t.Fatalf("AnalyzeQuery(%q) = %q: not a subsequence of %q", in, q, terms)
		}
	})
}

func ExampleAnalyze() {
	fmt.Println(Analyze("Get-ChildItem lists the files in Café's folders"))
	// Output: [get childitem list the file in cafe folder]
}

func ExampleAnalyzeQuery() {
	fmt.Println(AnalyzeQuery("Which cmdlet lists the files?"))
	// Output: [cmdlet list file]
}

func TestTerms(t *testing.T) {
	in := "The café's 東京都 Go"
	var got []string
	for term := range Terms(in) {
		got = append(got, fmt.Sprintf("%s/%s/%v/%v/%s", term.Word, term.Term, term.Stop, term.CJK, in[term.Start:term.End]))
	}
	want := []string{"the/the/true/false/The", "cafe/cafe/false/false/café's", "東京/東京/false/true/東京", "京都/京都/false/true/京都", "go/go/false/false/Go"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms(%q) = %q, want %q", in, got, want)
	}
	// Stopping early is honoured, also inside a word that gives several
	// terms ("½" is "1⁄2") and inside a CJK run.
	for _, in := range []string{"a b c", "½ x", "東京都 x"} {
		n := 0
		for range Terms(in) {
			n++
			break
		}
		if n != 1 {
			t.Errorf("Terms(%q) yielded %d terms after break", in, n)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"the files, the FILES and files", []string{"file"}},
		{"to be or not to be", []string{"to", "be", "or", "not"}},
		{strings.Repeat("w", 10) + " " + strings.Join(strings.Fields(strings.Repeat("x ", 100)), " "), []string{"wwwwwwwwww", "x"}},
	}
	for _, tt := range tests {
		if got := QueryTerms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var long []string
	for i := range 100 {
		long = append(long, fmt.Sprintf("w%d", i))
	}
	if got := QueryTerms(strings.Join(long, " ")); len(got) != MaxQueryTerms || got[0] != "w0" {
		t.Errorf("QueryTerms of 100 words = %d terms from %q, want %d from w0", len(got), got[0], MaxQueryTerms)
	}
}

func TestIDF(t *testing.T) {
	if a, b := IDF(100, 1), IDF(100, 50); !(a > b && b > 0) {
		t.Errorf("IDF(100, 1) = %v, IDF(100, 50) = %v: want rarer terms weighed more, all positive", a, b)
	}
	if got := IDF(10, 20); got <= 0 {
		t.Errorf("IDF(10, 20) = %v, want > 0 (docs raised to df)", got)
	}
	if got, want := IDF(0, -1), math.Log(2); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(0, -1) = %v, want %v", got, want)
	}
}

func ExampleQueryTerms() {
	fmt.Println(QueryTerms("Which cmdlet lists the files? The files!"))
	// Output: [cmdlet list file]
}

// TestJoinedTerms checks that JoinedTerms is Analyze joined by spaces.
func TestJoinedTerms(t *testing.T) {
	for _, text := range []string{"", " ", "Get-ChildItem lists the files", "東京都 and Café's x|x|x", strings.Repeat("a ", 1000)} {
		if got, want := JoinedTerms(text), strings.Join(Analyze(text), " "); got != want {
			t.Errorf("JoinedTerms(%q) = %q, want %q", text, got, want)
		}
	}
}

// FuzzScanWordFast checks the analyzer's fast path for words of ASCII
// letters and digits against its general path, which reads every word:
// the same terms, words, flags and spans.
func FuzzScanWordFast(f *testing.F) {
	for _, s := range []string{
		"", "Get-ChildItem -Path C:\\", "don't Tom's it's'", "Café cafe\u0301", "abc東京", "ab½",
		"a\u200Db co\u00ADop", "'''a'", "x'\xff", "ABC\xffdef", "v1.2_3 snake_case", "ab'", "ab's",
		strings.Repeat("Ab1", 50) + "'s", strings.Repeat("x", 127) + "é", "word\u2019s",
	} {
		f.Add(s)
	}
	if in, err := os.ReadFile(filepath.Join("testdata", "analyze.txt")); err == nil {
		for line := range strings.Lines(string(in)) {
			f.Add(line)
		}
	}
	fast, general := newAnalyzer(), newAnalyzer()
	general.general = true
	f.Fuzz(func(t *testing.T, in string) {
		var want []Term
		general.run(in, func(tok *Term) {
			c := *tok
			c.Word = slices.Clone(c.Word)
			want = append(want, c)
		})
		k := 0
		fast.run(in, func(tok *Term) {
			if k >= len(want) {
				t.Fatalf("%q: term %d %q past the general path's %d", in, k, tok.Term, len(want))
			}
			w := want[k]
			if tok.Term != w.Term || string(tok.Word) != string(w.Word) || tok.Stop != w.Stop ||
				tok.CJK != w.CJK || tok.Start != w.Start || tok.End != w.End {
				t.Fatalf("%q: term %d %+v, general path %+v", in, k, *tok, w)
			}
			k++
		})
		if k != len(want) {
			t.Fatalf("%q: %d terms, general path %d", in, k, len(want))
		}
	})
}

// TestScanWordFastCorpus is FuzzScanWordFast on the corpus's text.
func TestScanWordFastCorpus(t *testing.T) {
	n := 4 << 20
	if testing.Short() || testenv.Race {
		n = 256 << 10
	}
	text := testenv.MarkdownSample(t, n)
	fast, general := newAnalyzer(), newAnalyzer()
	general.general = true
	var want []Term
	general.run(text, func(tok *Term) {
		c := *tok
		c.Word = slices.Clone(c.Word)
		want = append(want, c)
	})
	k := 0
	fast.run(text, func(tok *Term) {
		w := want[min(k, len(want)-1)]
		if k >= len(want) || tok.Term != w.Term || string(tok.Word) != string(w.Word) ||
			tok.Stop != w.Stop || tok.CJK != w.CJK || tok.Start != w.Start || tok.End != w.End {
			t.Fatalf("term %d %+v, general path %+v", k, *tok, w)
		}
		k++
	})
	if k != len(want) {
		t.Fatalf("%d terms, general path %d", k, len(want))
	}
}
