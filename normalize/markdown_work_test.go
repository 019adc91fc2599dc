package normalize

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// markdownWorkRef is markdownWork as first written, line by line with
// bytes.Lines and every byte looked at: the oracle of TestMarkdownWork and
// FuzzMarkdownWork.
func markdownWorkRef(md []byte, stop bool) (cost, refPairs, nodes int, costly bool) {
	const (
		depthCost   = 150 // per column of indentation past 16, per line
		bracketCost = 100 // per "["
		// per pair of lines in a paragraph, one of which starts with "[":
		// a pair costs 0.03 to 0.3 bytes of prose (more in long paragraphs,
		// whose lines no longer fit in the processor's caches)
		refPairsPerUnit = 2
		nodeCost        = 10 // per node of the syntax tree (prose has one in 50 to 100 bytes)
	)
	budget := 20*len(md) + 1<<20
	// The tree of prose takes about 7 bytes per byte of input. Beyond that,
	// allow about 4 bytes a byte and 24 MB (at ~90 bytes a node, and as
	// much again before the collector runs).
	nodeBudget := len(md)/40 + 1<<17
	cost = len(md)
	paraLines, paraRefs := 0, 0
	for line := range bytes.Lines(md) {
		indent, rest := 0, line
	indentLoop:
		for i, c := range line {
			switch c {
			case ' ', '>':
				indent++
			case '\t':
				indent += 4
			default:
				rest = line[i:]
				break indentLoop
			}
		}
		cost += depthCost * max(0, indent-16)
		cost += bracketCost * bytes.Count(line, []byte("["))
		// Link reference definitions: a line that starts with "[" costs
		// the lines of its paragraph, and each line of a paragraph costs
		// the lines that started with "[" before it.
		if len(bytes.TrimSpace(rest)) == 0 {
			paraLines, paraRefs = 0, 0
		} else {
			paraLines++
			if rest[0] == '[' {
				paraRefs++
				refPairs += paraLines
			}
			refPairs += paraRefs
		}
		// Destinations: each "](" scans to the next space; "](<" to the
		// end of the line.
		runStart, opens := 0, 0
		nodes += 2 // a line of text
		escaped := false
		for i, c := range line {
			if escaped {
				// "\*" is text, merged with the text around it.
				escaped = false
			} else {
				nodes += int(nodeWeight[c])
				escaped = c == '\\'
			}
			switch {
			case c == ' ' || c == '\t' || c == '\n':
				cost += opens * (i - runStart)
				runStart, opens = i+1, 0
			case c == '(' && i > 0 && line[i-1] == ']':
				if i+1 < len(line) && line[i+1] == '<' {
					cost += len(line) - i
				}
				opens++
			}
		}
		cost += opens * (len(line) - runStart)
		if cost+refPairs/refPairsPerUnit+nodeCost*nodes/2 > budget || nodes/2 > nodeBudget {
			costly = true
			if stop {
				return
			}
		}
	}
	return
}

// markdownWorkCases are inputs whose estimate takes every branch of
// markdownWork: escapes before each kind of byte, destinations with and
// without spaces, "](<", indentation alone on a last line, Unicode spaces.
var markdownWorkCases = []string{
	"",
	"\n",
	"a",
	"   ",
	"  >  ",
	"\t\t>",
	"    \n",
	"\u00a0\n[x]: y\n",
	"\v\f\r\n",
	"[a](b) [c](d e) f\n",
	"[a](b[c](d",
	"x [a](<b c\nd](< e",
	"\\[a](b)\\](c) \\\n\\ \\\t\\",
	"\\\\[a](b)\\",
	"a\\",
	"](](](",
	"(](",
	"\t[a](b\t[c](d\n",
	"[x]: http://a\n[y]: http://b\ntext\n\n[z]\n",
	"| a | b |\n|---|---|\n| `c` | *d* |\n",
	"*a **b _c_ ~~d~~ <e> ![f](g)\n",
	"                      - deep\n>>>>>>>>>>>>>>>>>>>>>> quote\n",
	"é [a](b é) \u2028 \u3000[x]\n",
}

// TestMarkdownWork checks markdownWork's estimate against the oracle's on
// the cases above, on TestMarkdownCostly's kind of input and on the files
// of the shared corpus when present.
func TestMarkdownWork(t *testing.T) {
	inputs := markdownWorkCases
	inputs = append(inputs,
		strings.Repeat("[a](", 1<<12),
		strings.Repeat("[a](< ", 1<<11),
		strings.Repeat("*a **b ", 1<<12),
		strings.Repeat(`\*`, 1<<12),
		strings.Repeat("[x]: http://a\n", 1000)+"[x] and [x]\n",
	)
	for _, s := range inputs {
		checkMarkdownWork(t, []byte(s))
	}
	if dir, ok := testenv.FindSharedData("markdown"); ok && !testing.Short() {
		n := 0
		for _, f := range loadCorpus(t, dir, ".md") {
			checkMarkdownWork(t, f.src)
			n++
		}
		t.Logf("%d corpus files", n)
	}
}

func checkMarkdownWork(t *testing.T, md []byte) {
	t.Helper()
	for _, stop := range []bool{false, true} {
		c, r, n, costly := markdownWork(md, stop)
		wc, wr, wn, wcostly := markdownWorkRef(md, stop)
		if c != wc || r != wr || n != wn || costly != wcostly {
			t.Fatalf("markdownWork(%q, %v) = %d, %d, %d, %v; want %d, %d, %d, %v",
				md[:min(len(md), 200)], stop, c, r, n, costly, wc, wr, wn, wcostly)
		}
	}
}

// FuzzMarkdownWork checks markdownWork against its oracle on any input.
func FuzzMarkdownWork(f *testing.F) {
	for _, s := range markdownWorkCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, md []byte) {
		checkMarkdownWork(t, md)
	})
}
