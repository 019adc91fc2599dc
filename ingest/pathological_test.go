package ingest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/internal/testenv"
)

// BenchmarkPathological indexes, into a new index, single files built to
// defeat a stage that is not linear in its input, each next to ordinary
// prose of the same size:
//
//	go test -run '^$' -bench Pathological -benchtime 1x ./ingest
//
// For each input it reports time-ratio (the file's indexing time over that
// of the prose) and peak-RSS-MB, the peak resident memory of a child
// process that indexes just that file (loading the tokenizer included), with
// the target 8× the file size plus 100 MB beside it as target-RSS-MB.
// PATHOLOGICAL_MB sets the file size (default 4).
func BenchmarkPathological(b *testing.B) {
	size := 4 << 20
	if mb, err := strconv.Atoi(os.Getenv("PATHOLOGICAL_MB")); err == nil && mb > 0 {
		size = mb << 20
	}
	prose := indexTime(b, "prose.md", pathological["prose"](size))
	for _, name := range pathologicalNames {
		b.Run(name, func(b *testing.B) {
			src := pathological[name](size)
			var d time.Duration
			for b.Loop() {
				d = indexTime(b, name+pathologicalExt(name), src)
			}
			b.SetBytes(int64(len(src)))
			b.ReportMetric(float64(d)/float64(prose), "time-ratio")
			b.ReportMetric(childPeakRSS(b, name, size), "peak-RSS-MB")
			b.ReportMetric(float64(8*len(src))/(1<<20)+100, "target-RSS-MB")
		})
	}
}

var pathologicalNames = []string{"prose", "word", "random-word", "nested-list", "line", "entities", "brackets", "links", "escapes", "link-references", "table", "emphasis", "html-prose", "divs", "paragraphs", "heading", "heading-word", "html-heading", "deep-headings"}

func pathologicalExt(name string) string {
	if strings.HasPrefix(name, "html") || name == "divs" || name == "paragraphs" {
		return ".html"
	}
	return ".md"
}

// pathological builds each input at about n bytes.
var pathological = map[string]func(n int) []byte{
	"prose": proseOf,
	"word":  func(n int) []byte { return bytes.Repeat([]byte("a"), n) },
	// One word of pseudo-random letters: no piece of it repeats.
	"random-word": func(n int) []byte {
		b := make([]byte, n)
		x := uint32(1)
		for i := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[i] = 'a' + byte(x%26)
		}
		return b
	},
	// A list nested as deep as n bytes allow, each level indented two
	// more spaces (3,000 levels take 9 MB).
	"nested-list": func(n int) []byte {
		var buf bytes.Buffer
		for d := 0; ; d++ {
			line := strings.Repeat("  ", d) + "- item\n"
			if buf.Len()+len(line) > n {
				break
			}
			buf.WriteString(line)
		}
		return buf.Bytes()
	},
	// Ordinary words on one line.
	"line": func(n int) []byte {
		p := bytes.ReplaceAll(proseOf(n), []byte("\n"), []byte(" "))
		return p
	},
	"entities": func(n int) []byte { return repeatTo("&amp;", n) },
	"brackets": func(n int) []byte { return repeatTo("[", n) },
	"links":    func(n int) []byte { return repeatTo("[a](", n) },
	// Backslash escapes: each character is text of its own, a segment of
	// the offset map every two bytes.
	"escapes": func(n int) []byte { return repeatTo(`\*`, n) },
	// One paragraph of link reference definitions: goldmark takes each
	// off the paragraph's start, copying the lines after it.
	"link-references": func(n int) []byte {
		return append(repeatTo("[x]: http://a\n", n-len("[x] and [x]\n")), "[x] and [x]\n"...)
	},
	// A table of 4,000 columns: a node or two of syntax tree per byte.
	"table": func(n int) []byte {
		var buf bytes.Buffer
		buf.WriteString("|" + strings.Repeat("a|", 4000) + "\n|" + strings.Repeat("-|", 4000) + "\n")
		row := "|" + strings.Repeat("x|", 4000) + "\n"
		for buf.Len()+len(row) <= n {
			buf.WriteString(row)
		}
		return buf.Bytes()
	},
	// Emphasis delimiters that never match.
	"emphasis": func(n int) []byte { return repeatTo("*a **b ", n) },
	"html-prose": func(n int) []byte {
		var buf bytes.Buffer
		buf.WriteString("<html><body>\n")
		for _, para := range strings.Split(string(proseOf(n)), "\n\n") {
			buf.WriteString("<p>" + para + "</p>\n")
		}
		return buf.Bytes()
	},
	"divs":       func(n int) []byte { return repeatTo("<div>a", n) },
	"paragraphs": func(n int) []byte { return repeatTo("<p>a", n) },
	// One heading of the whole file, over one word of body: every chunk
	// of the heading sits under it (before heading paths were bounded,
	// each carried all of it: 393 MB of index for 1 MB).
	"heading": func(n int) []byte { return heading("# ", "lorem ", "\n\nbody\n", n) },
	// The same with one word for a heading.
	"heading-word": func(n int) []byte { return heading("# ", "x", "\n\nbody\n", n) },
	"html-heading": func(n int) []byte {
		return heading("<html><body><h1>", "lorem ", "</h1>\n<p>body</p>\n", n)
	},
	// Sections six levels deep, each heading a few hundred bytes, with a
	// paragraph of prose under each: the deepest paths there are.
	"deep-headings": func(n int) []byte {
		var buf bytes.Buffer
		para := proseOf(1500)
		for i := 0; buf.Len() < n; i++ {
			level := 1 + i%6
			fmt.Fprintf(&buf, "%s %d %s\n\n%s\n\n", strings.Repeat("#", level), i, strings.Repeat("heading words ", 30), para)
		}
		return buf.Bytes()[:n]
	},
}

// heading returns open, word repeated to about n bytes in all, and end.
func heading(open, word, end string, n int) []byte {
	return slices.Concat([]byte(open), repeatTo(word, n-len(open)-len(end)), []byte(end))
}

func repeatTo(s string, n int) []byte { return bytes.Repeat([]byte(s), n/len(s)) }

// proseOf returns n bytes of ordinary English Markdown prose.
func proseOf(n int) []byte {
	words := strings.Fields(`The committee met on Tuesday to review the proposal for a new
	library branch in the northern district. Several residents spoke in favour, citing the long
	journey to the central library and the lack of quiet places for students to work after school.
	Others worried about the cost, which the council estimates at four million pounds over five
	years, and asked whether the money might be better spent on extending opening hours at the
	existing branches. The chair thanked everyone for their contributions and said a decision
	would be taken at the next meeting, once the finance officer had reported on the options.`)
	var buf bytes.Buffer
	for i, s := 0, 0; buf.Len() < n; i++ {
		w := words[(i*7+s)%len(words)]
		buf.WriteString(w)
		switch {
		case i%97 == 96:
			buf.WriteString("\n\n")
			s++
		case i%13 == 12:
			buf.WriteString(".\n")
		default:
			buf.WriteByte(' ')
		}
	}
	return buf.Bytes()[:n]
}

// indexTime indexes one file holding src into a new index, without
// vectors, and returns how long Index took.
func indexTime(tb testing.TB, name string, src []byte) time.Duration {
	d, _ := indexFile(tb, name, src)
	return d
}

// indexFile indexes one file holding src into a new index, without
// vectors, and returns how long Index took and the bytes of the index's
// files once closed.
func indexFile(tb testing.TB, name string, src []byte) (time.Duration, int64) {
	dir := tb.TempDir()
	file := filepath.Join(dir, "docs", name)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		tb.Fatal(err)
	}
	ixDir := filepath.Join(dir, "index")
	st, err := index.Open(tb.Context(), ixDir, index.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	ix, err := New(tb.Context(), st, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	stats, err := ix.Index(tb.Context(), file)
	d := time.Since(start)
	if err != nil {
		tb.Fatal(err)
	}
	if stats.Added != 1 {
		tb.Fatalf("%s: %+v", name, stats)
	}
	if err := st.Close(); err != nil {
		tb.Fatal(err)
	}
	return d, dirSize(tb, ixDir)
}

// dirSize returns the bytes of the files in dir.
func dirSize(tb testing.TB, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			tb.Fatal(err)
		}
		if info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// childPeakRSS indexes one input in a child process (this test binary
// running TestPathologicalChild) and returns the child's peak RSS in MB.
func childPeakRSS(tb testing.TB, name string, size int) float64 {
	cmd := exec.CommandContext(tb.Context(), os.Args[0], "-test.run=^TestPathologicalChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CITE_PATHOLOGICAL_CHILD="+name+":"+strconv.Itoa(size))
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child %s: %v\n%s", name, err, out)
	}
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "peak-RSS-MB "); ok {
			mb, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return mb
		}
	}
	tb.Fatalf("child %s printed no peak RSS:\n%s", name, out)
	return 0
}

// TestPathologicalChild is the child of [BenchmarkPathological]; without
// its environment variable it does nothing.
func TestPathologicalChild(t *testing.T) {
	arg := os.Getenv("CITE_PATHOLOGICAL_CHILD")
	if arg == "" {
		t.Skip("run by BenchmarkPathological")
	}
	name, sz, _ := strings.Cut(arg, ":")
	size, err := strconv.Atoi(sz)
	if err != nil || pathological[name] == nil {
		t.Fatalf("bad CITE_PATHOLOGICAL_CHILD %q", arg)
	}
	indexTime(t, name+pathologicalExt(name), pathological[name](size))
	fmt.Printf("peak-RSS-MB %.1f\n", peakRSSMB())
}

// TestPathologicalLinear indexes each pathological input at two sizes, 4x
// apart, and checks what the indexing allocates on the Go heap: at most 6x
// more for the larger (a stage quadratic in its input would allocate 16x),
// and, without the race detector (which makes more values escape to the
// heap), at most 40 bytes per byte of input (typically 3 to 25; on the code
// before the pathological-input work, the '[a](' bomb took 50). Time is for
// BenchmarkPathological to measure, and peak memory for
// TestPathologicalPeakRSS.
func TestPathologicalLinear(t *testing.T) {
	small, large := 512<<10, 2<<20
	if testing.Short() || testenv.Race {
		small, large = 64<<10, 256<<10
	}
	// Load the tokenizer and its table for long pieces first.
	indexTime(t, "warm.md", pathological["word"](4<<10))
	for _, name := range pathologicalNames {
		t.Run(name, func(t *testing.T) {
			var perByte [2]float64
			// Under the race detector the count also takes in what other
			// goroutines allocate meanwhile (20 to 44 bytes per byte for
			// the same 64 KB line): the least of three runs is the one
			// that measures indexing alone.
			runs := 1
			if testenv.Race {
				runs = 3
			}
			for i, size := range []int{small, large} {
				src := pathological[name](size)
				for r := range runs {
					before := heapAllocBytes()
					indexTime(t, name+pathologicalExt(name), src)
					if b := float64(heapAllocBytes()-before) / float64(len(src)); r == 0 || b < perByte[i] {
						perByte[i] = b
					}
				}
			}
			t.Logf("%.1f bytes allocated per byte of input at %d KB, %.1f at %d KB", perByte[0], small>>10, perByte[1], large>>10)
			if growth := perByte[1] * float64(large) / (perByte[0] * float64(small)); growth > 6 {
				t.Errorf("4x the input allocates %.1fx as much: not linear", growth)
			}
			if !testenv.Race && perByte[1] > 40 {
				t.Errorf("%.1f bytes allocated per byte of input, want at most 40", perByte[1])
			}
		})
	}
}

// TestPathologicalIndexSize indexes each pathological input of 1 MB and
// checks that its index takes at most 3x the bytes of the index of 1 MB of
// prose: what any input costs on disk is what its text costs (before heading
// paths were bounded, a heading of 1 MB made an index 60 times that of
// prose). In -short mode and under the race detector the inputs are 256 KB.
func TestPathologicalIndexSize(t *testing.T) {
	size := 1 << 20
	if testing.Short() || testenv.Race {
		size = 256 << 10
	}
	_, prose := indexFile(t, "prose.md", pathological["prose"](size))
	for _, name := range pathologicalNames {
		t.Run(name, func(t *testing.T) {
			_, n := indexFile(t, name+pathologicalExt(name), pathological[name](size))
			t.Logf("index of %d KB: %d KB, %.2fx that of prose (%d KB)", size>>10, n>>10, float64(n)/float64(prose), prose>>10)
			if n > 3*prose {
				t.Errorf("index of %d KB, over 3x that of prose (%d KB)", n>>10, prose>>10)
			}
		})
	}
}

// heapAllocBytes is how many bytes the Go heap has allocated so far, to
// the byte: runtime.ReadMemStats stops the world and flushes every P's
// cached spans first. (runtime/metrics' /gc/heap/allocs:bytes counts a
// small object only once its span leaves its P's cache, so it lagged by
// up to the spans cached then, hundreds of KB: under the race detector a
// 64 KB heading input measured 11.4 bytes per byte instead of its usual 14
// to 17, and TestPathologicalLinear saw 6.1x growth from it.)
func heapAllocBytes() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// TestPathologicalPeakRSS indexes each pathological input of 4 MB in a
// child process and checks its peak RSS against the target of
// BenchmarkPathological, 8x the file size plus 100 MB, with a quarter of
// slack: the peak depends on when the collector runs, and the test is
// there to catch a regression, not to measure (typically 80 to 115 MB of
// the 132). It needs Linux (/proc) and skips in -short mode and under the
// race detector.
func TestPathologicalPeakRSS(t *testing.T) {
	if testing.Short() || testenv.Race || peakRSSMB() == 0 {
		t.Skip("needs Linux, no -short, no -race")
	}
	const size = 4 << 20
	for _, name := range pathologicalNames {
		t.Run(name, func(t *testing.T) {
			target := float64(8*len(pathological[name](size)))/(1<<20) + 100
			rss := childPeakRSS(t, name, size)
			t.Logf("peak RSS %.1f MB, target %.0f MB", rss, target)
			if rss > 1.25*target {
				t.Errorf("peak RSS %.1f MB, over the target %.0f MB by more than a quarter", rss, target)
			}
		})
	}
}
