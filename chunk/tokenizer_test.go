package chunk

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/cite-rag/cite/internal/testenv"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

func tokenizer(tb testing.TB) *Tokenizer {
	tb.Helper()
	tok, err := O200k()
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

var (
	oracleOnce sync.Once
	oracleEnc  *tiktoken.Tiktoken
	oracleErr  error
)

// oracle returns tiktoken-go's o200k_base encoding, the oracle of these
// tests, with the tables tiktoken-go-loader embeds (never the network).
func oracle(tb testing.TB) *tiktoken.Tiktoken {
	tb.Helper()
	oracleOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		oracleEnc, oracleErr = tiktoken.GetEncoding(Encoding)
	})
	if oracleErr != nil {
		tb.Fatal(oracleErr)
	}
	return oracleEnc
}

// reference encodes text with tiktoken-go's own Encode path.
func reference(tb testing.TB, text string) []int { return oracle(tb).EncodeOrdinary(text) }

var tokenizerCases = []struct{ name, text string }{
	{"empty", ""},
	{"ascii", "Hello, world! This is a test of the o200k_base tokenizer."},
	{"contractions", "I'm sure they've said we'll do it, didn't they? THEY'RE HERE. It'S ok'd"},
	{"apostrophe-alone", "rock 'n' roll ' 's 'll"},
	{"numbers", "1 12 123 1234 12345 3.14159 ٣٤٥ ⅷ 10,000,000"},
	{"whitespace", "a  b   c\t\td \n\n\n e\r\n\r\nf   \n  g   "},
	{"trailing-space", "word   "},
	{"leading-space", "   word"},
	{"single-space-before-digit", " 123 x"},
	{"punctuation", "!!! ... --- /// ?!/\n\n (foo) [bar] {baz} <a href=\"x\">"},
	{"slash-newline", "path/to/file/\n\r\n/x"},
	{"upper-words", "NASA and the UN met USA-TODAY. HTTPServer JSONParser iPhone McDonald's"},
	{"accents", "café naïve résumé Ångström ÉCOLE Straße"},
	{"combining-marks", "e\u0301 a\u0308b \u0301x q\u0300\u0301"},
	{"mark-after-punct", "!\u0301 .\u0308a"},
	{"cjk", "日本語のテキストです。中文文本。한국어 텍스트입니다."},
	{"emoji", "I ❤️ Go 👩‍👩‍👧 🇫🇷 😀😀😀"},
	{"bom-start", "\ufeffHello world"},
	{"bom-middle", "Hello\ufeff world \ufeff\ufeff x"},
	{"bom-before-newline", "\ufeff\n\ufeff"},
	{"nbsp", "a\u00a0b \u00a0 c\u2003d\u3000e"},
	{"special-token-text", "before <|endoftext|> after <|endofprompt|>"},
	{"code", "func main() {\n\tfmt.Println(\"hi\")\n\tx := map[string]int{}\n}\n"},
	{"powershell", "Get-ChildItem -Path C:\\Windows -Recurse | Where-Object { $_.Length -gt 1MB }"},
	{"long-letters", strings.Repeat("abcdefghij", 25)},
	{"long-letters-past-256", strings.Repeat("abcdefghij", 60)},
	{"long-same", strings.Repeat("a", 1000)},
	{"long-punct", strings.Repeat("=-", 400)},
	{"long-space-run", "a" + strings.Repeat(" ", 300) + "b"},
	{"titlecase", "ǅemal ǈubljana ǋ"},
	{"modifier-letters", "ʰʲ ˈsomething ʼs"},
	{"arabic", "مرحبا بالعالم، هذا اختبار."},
	{"devanagari", "नमस्ते दुनिया"},
	{"thai", "สวัสดีชาวโลก"},
}

func TestTokenizerMatchesTiktoken(t *testing.T) {
	tok := tokenizer(t)
	for _, tc := range tokenizerCases {
		t.Run(tc.name, func(t *testing.T) {
			got, want := tok.Encode(tc.text), cappedReference(t, tok, tc.text)
			if !slices.Equal(got, want) {
				t.Fatalf("Encode(%q)\n got %v\nwant %v", tc.text, got, want)
			}
			if n := tok.Count(tc.text); n != len(want) {
				t.Fatalf("Count = %d, want %d", n, len(want))
			}
			checkTokenSpans(t, tok, tc.text)
		})
	}
}

// checkTokenSpans checks that token lengths add up to the text.
func checkTokenSpans(t *testing.T, tok *Tokenizer, text string) {
	t.Helper()
	toks := tok.tokens(new(pieceCache), text)
	prev := 0
	for i := range toks.len() {
		if toks.end(i) <= prev {
			t.Fatalf("token %d ends at %d, not after %d", i, toks.end(i), prev)
		}
		prev = toks.end(i)
	}
	if prev != len(text) {
		t.Fatalf("tokens end at %d, text is %d bytes", prev, len(text))
	}
}

// TestTokenizerCorpus compares the tokenizer with tiktoken-go on a fixed
// sample of real Markdown files (every 8th file; about 4 MB).
func TestTokenizerCorpus(t *testing.T) {
	files := corpusFiles(t)
	tok := tokenizer(t)
	step := 8
	if testing.Short() || testenv.Race {
		step = 64
	}
	var bytes, tokens int
	for i := 0; i < len(files); i += step {
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		got, want := tok.Encode(text), reference(t, text)
		if !slices.Equal(got, want) {
			k := 0
			for k < min(len(got), len(want)) && got[k] == want[k] {
				k++
			}
			t.Errorf("%s: tokens differ from tiktoken-go at token %d", files[i], k)
		}
		bytes += len(text)
		tokens += len(want)
	}
	t.Logf("%d bytes, %d tokens identical to tiktoken-go", bytes, tokens)
}

func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	corpusDir := testenv.SharedData(tb, "markdown")
	var files []string
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// TestLongestMatch checks the encoding of long pieces: each token is the
// longest one at its position, the tokens add up to the piece, and on
// random runs their count stays close to byte-pair encoding's
// (tiktoken-go's).
func TestLongestMatch(t *testing.T) {
	tok := tokenizer(t)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"ab", "abcdefghijklmnopqrstuvwxyz", "etaoinshrdlu", "éàü", "日本語中文", "-=", "[("}
	byID := map[uint32]string{}
	for s, id := range tok.ranks.All() {
		byID[uint32(id)] = s
	}
	var got, bpe int
	for i := range 140 {
		alpha := []rune(alphabets[i%len(alphabets)])
		n := longPiece + 1 + rng.IntN(MaxPiece-longPiece)
		var b strings.Builder
		for b.Len() < n {
			b.WriteRune(alpha[rng.IntN(len(alpha))])
		}
		piece := b.String()
		ids := tok.longestMatch(piece)
		off := 0
		for k, id := range ids {
			s := byID[id]
			if !strings.HasPrefix(piece[off:], s) {
				t.Fatalf("piece %d: token %d is not the bytes at %d", i, k, off)
			}
			for l := len(s) + 1; l <= min(maxTokenBytes, len(piece)-off); l++ {
				if _, ok := tok.ranks.Rank(piece[off : off+l]); ok {
					t.Fatalf("piece %d: token %d at %d has %d bytes; one of %d starts there", i, k, off, len(s), l)
				}
			}
			off += len(s)
		}
		if off != len(piece) {
			t.Fatalf("piece %d: tokens cover %d of %d bytes", i, off, len(piece))
		}
		got += len(ids)
		bpe += len(reference(t, piece))
	}
	t.Logf("random runs: longest match %d tokens, byte-pair encoding %d (%.3f)", got, bpe, float64(got)/float64(bpe))
	if r := float64(got) / float64(bpe); r > 1.25 || r < 0.8 {
		t.Errorf("longest match gives %d tokens, byte-pair encoding %d: ratio %.3f", got, bpe, r)
	}
}

// cappedReference is tiktoken-go's encoding of text, except that every
// pre-token piece longer than longPiece is cut in MaxPiece pieces encoded
// by longest match, as Tokenizer does.
// Text without such a piece is encoded whole, so that the pre-tokenizer is
// checked too; with one, pieces come from nextPiece.
func cappedReference(t testing.TB, tok *Tokenizer, text string) []int {
	long := false
	for i := 0; i < len(text) && !long; {
		end := nextPiece(text, i)
		long = end-i > longPiece
		i = end
	}
	if !long {
		return reference(t, text)
	}
	var out []int
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			if e-i > longPiece {
				for _, id := range tok.longestMatch(text[i:e]) {
					out = append(out, int(id))
				}
			} else {
				out = append(out, reference(t, text[i:e])...)
			}
			i = e
		}
	}
	return out
}

// TestMaxPiece checks that a run longer than MaxPiece is encoded in
// MaxPiece cuts, each by longest match, never cutting a character, that a
// piece of MaxPiece bytes is not cut, and that one of longPiece bytes is
// encoded exactly as tiktoken-go does.
func TestMaxPiece(t *testing.T) {
	tok := tokenizer(t)
	for _, text := range []string{
		strings.Repeat("a", 5000),
		"The " + strings.Repeat("xyzzy", 700) + " end.",
		strings.Repeat("é", 1500),
		strings.Repeat("日本語", 700) + " and more",
		strings.Repeat("[", 3000) + "\n" + strings.Repeat("&", 2000),
		strings.Repeat("-", MaxPiece),
		" " + strings.Repeat("a", MaxPiece-1),
	} {
		if got, want := tok.Encode(text), cappedReference(t, tok, text); !slices.Equal(got, want) {
			t.Errorf("Encode(%.40q...) = %d tokens, capped tiktoken-go %d", text, len(got), len(want))
		}
		checkTokenSpans(t, tok, text)
	}
	whole := strings.Repeat("xyzzy", MaxPiece/5) + "xyzz"
	want := []int{}
	for _, id := range tok.longestMatch(whole) {
		want = append(want, int(id))
	}
	if got := tok.Encode(whole); !slices.Equal(got, want) {
		t.Errorf("a piece of MaxPiece bytes is cut")
	}
	short := strings.Repeat("xyzzy", longPiece/5) + "x"
	if got, want := tok.Encode(short), reference(t, short); !slices.Equal(got, want) {
		t.Errorf("a piece of longPiece bytes is not encoded as tiktoken-go does")
	}
}

// TestTokenizerInvalidUTF8 checks text with invalid UTF-8: token lengths
// add up to the text, and the tokens are invalidReference's.
func TestTokenizerInvalidUTF8(t *testing.T) {
	tok := tokenizer(t)
	for _, text := range []string{
		"\xff", "ab\xffcd", "\xc3", "x\xe2\x82 y", strings.Repeat("\xfe", 300),
		"Hello world\xff, it's 2024!\xfe\xfd\n\nand\x80 more  text\xc3 here",
		"don't\xffdon't 123456\xff789 ,,,\xff... \xff\xff  \xff\n\xff",
		"日本\xff語のテ\xe3\x81キスト",
	} {
		checkTokenSpans(t, tok, text)
		if got, want := tok.Encode(text), invalidReference(t, tok, text); !slices.Equal(got, want) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", text, got, want)
		}
		if got, want := tok.Count(text), len(tok.Encode(text)); got != want {
			t.Errorf("%q: Count %d, len(Encode) %d", text, got, want)
		}
	}
}

// invalidReference is the encoding of text that may hold invalid UTF-8,
// which tiktoken-go cannot give (it turns invalid bytes into U+FFFD):
// pieces of valid UTF-8 as cappedReference encodes them, and in a piece
// with invalid bytes that is not a token, each of those as its byte's
// token and each valid run between them as tiktoken-go encodes it on its
// own.
func invalidReference(t testing.TB, tok *Tokenizer, text string) []int {
	var out []int
	for i := 0; i < len(text); {
		for end := nextPiece(text, i); i < end; {
			e := subPiece(text, i, end)
			piece := text[i:e]
			i = e
			if id, ok := oracleRanks(t)[piece]; ok {
				out = append(out, id) // a token, valid UTF-8 or not
				continue
			}
			switch {
			case len(piece) > longPiece:
				for _, id := range tok.longestMatch(piece) {
					out = append(out, int(id))
				}
				continue
			case utf8.ValidString(piece):
				out = append(out, reference(t, piece)...)
				continue
			}
			for len(piece) > 0 {
				r, n := utf8.DecodeRuneInString(piece)
				if r == utf8.RuneError && n == 1 {
					out = append(out, oracleRanks(t)[piece[:1]])
					piece = piece[1:]
					continue
				}
				valid := 0
				for valid < len(piece) {
					r, n := utf8.DecodeRuneInString(piece[valid:])
					if r == utf8.RuneError && n == 1 {
						break
					}
					valid += n
				}
				out = append(out, reference(t, piece[:valid])...)
				piece = piece[valid:]
			}
		}
	}
	return out
}

func FuzzTokenizer(f *testing.F) {
	for _, tc := range tokenizerCases {
		f.Add(tc.text)
	}
	tok := tokenizer(f)
	f.Fuzz(func(t *testing.T, text string) {
		checkTokenSpans(t, tok, text)
		want := invalidReference
		if utf8.ValidString(text) {
			want = cappedReference // the whole text: checks the pre-tokenizer too
		}
		if got, want := tok.Encode(text), want(t, tok, text); !slices.Equal(got, want) {
			t.Fatalf("Encode(%q)\n got %v\nwant %v", text, got, want)
		}
	})
}

func BenchmarkTokenizer(b *testing.B) {
	text := corpusSample(b, 4<<20)
	tok := tokenizer(b)
	b.Run("cite", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			tok.Count(text)
		}
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		enc := oracle(b)
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			enc.EncodeOrdinary(text)
		}
	})
}

// corpusSample concatenates corpus files, every 8th file, up to n bytes.
func corpusSample(tb testing.TB, n int) string {
	var b strings.Builder
	files := corpusFiles(tb)
	for i := 0; i < len(files) && b.Len() < n; i += 8 {
		data, err := os.ReadFile(files[i])
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestBytePairEncode checks the tokenizer's byte-pair encoding against
// tiktoken-go's EncodeOrdinary of the piece alone, on every piece of the
// corpus sample and of random text that is not a single token.
func TestBytePairEncode(t *testing.T) {
	tok := tokenizer(t)
	n := 4 << 20
	if testing.Short() || testenv.Race {
		n = 512 << 10
	}
	var b strings.Builder
	b.WriteString(corpusSample(t, n))
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []rune("abcdefgh ABCDEFGH 0123 .,;'\"-_/\\()[]{}\n\téüßœ日本語한국어Ωж😀\u0301\u00a0")
	for range 200000 {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	text := b.String()
	seen := map[string]bool{}
	for i := 0; i < len(text); {
		end := nextPiece(text, i)
		p := text[i:end]
		i = end
		if _, ok := tok.ranks.Rank(p); ok || seen[p] || len(p) > longPiece || !utf8.ValidString(p) {
			continue
		}
		seen[p] = true
		want := reference(t, p)
		got := tok.bytePairEncode(p)
		if !slices.Equal(got, toUint32(want)) {
			t.Fatalf("piece %q: %v, tiktoken-go %v", p, got, want)
		}
	}
	t.Logf("%d distinct pieces of several tokens identical to tiktoken-go", len(seen))
}

func toUint32(ids []int) []uint32 {
	out := make([]uint32, len(ids))
	for i, id := range ids {
		out[i] = uint32(id)
	}
	return out
}

// TestTokenListReuse checks that a token list made with the blocks of
// lists before (longer, shorter, of several blocks) has the tokens of a
// new one.
func TestTokenListReuse(t *testing.T) {
	tok := tokenizer(t)
	long := strings.Repeat("word ", 140000) // 140,001 tokens: three blocks
	for _, text := range []string{long, "short text", long[:5000], long, "", "x", long[:400000], long[:5000]} {
		want := &tokenList{hint: len(text)/4 + 1}
		for i := 0; i < len(text); {
			e := nextPiece(text, i)
			want.add(e, true)
			i = e
		}
		got := tok.tokens(new(pieceCache), text)
		if got.len() != want.len() {
			t.Fatalf("%d bytes: %d tokens, want %d", len(text), got.len(), want.len())
		}
		for k := range want.len() {
			if got.end(k) != want.end(k) || got.pieceStart(k) != want.pieceStart(k) {
				t.Fatalf("%d bytes: token %d differs", len(text), k)
			}
		}
		putTokenList(got)
	}
}
