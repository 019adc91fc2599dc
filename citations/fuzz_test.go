package citations_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/citations/citetest"
	"github.com/cite-rag/cite/internal/testenv"
)

// fuzzRegistered is the index range registered in fuzzRegistry.
const fuzzRegistered = 9

var fuzzRegistry = sync.OnceValue(func() *citations.Invocation {
	inv := citations.NewInvocation()
	inv.SetResolver(citations.DefaultResolver())
	for i := 1; i <= fuzzRegistered; i++ {
		inv.Register(citations.Reference{Title: fmt.Sprintf("T%d *x*", i), Type: citations.TypeFile, Source: fmt.Sprintf("/d/%d.md", i), Span: citations.Span{Start: i, End: 2 * i}})
	}
	return inv
})

var fuzzSeeds = []string{
	"Paris [doc:2] is big [doc:1][doc:3, doc:2]. Hallucinated [doc:99], zero [doc:0], bad [doc:x].\n",
	"【doc:3】 wide, [ Doc : 2 ] spaced, [doc1] bare, [doc:1,2;3] joined\n",
	"Code `[doc:1]` ``a ` [doc:2]`` and a stray ` tick [doc:3]\n\nnext ` para [doc:1] `` x\n",
	"```go\nx := a[doc:1]\n```\n~~~\n[doc:2]\n~~~\n\n    indented [doc:3]\n\nafter [doc:1]\n",
	"# Heading `x [doc:1]\n- item `y\n- [doc:2]` z\n> quote [doc:3]\n1. a\n   - b [doc:1]\n",
	"a `b\n---\n[doc:1]` c\n\n***\n[doc:2]\n",
	"[doc:99] line start\n1[doc:99]. x\na``[doc:99]`b\n\\[doc:99]`c`\n[d[doc:99]oc:1]\n",
	"cut [doc:1, doc:2\nnext [doc:",
	"- [doc:1]\n\n  ```sh\n  unclosed [doc:2]\n",
	"   \t  \n\n[doc:1]   \n\n   ",
	"as shown in [doc:1] and [doc:99]. [doc:99] and [doc:2] agree; ([doc:99]), ([doc:1], [doc:99]) (see [5])\n",
	"in [doc:1], [doc:99], and/or [doc:2] as well as [doc:0] ([doc:99]; x) （[doc:99]、【doc:3】）\n",
	"x ([doc:99] p. 4). y ([doc:1] p. 2; [doc:99], pp. 3–5) cats (and [doc:99]) dogs (see it [doc:99], § 2.1) at [doc:9] at 12:30\n",
	"a, [doc:99]. b; [doc:99], c, [doc:99]; d: ([doc:99])? e.g., [doc:99]. f,[doc:99].5 g, [doc:2] and [doc:0]. h\n",
	"a" + strings.Repeat(" ", 300) + "[doc:99] b," + strings.Repeat("\t", 257) + "[doc:99]. c [doc:1]" + strings.Repeat(" \n", 200),
	"[0](00() [1]([doc:9]) [2](x y)\n[0]:A00:00\n",
}

// addSeeds adds the hand-written seeds, the texts of the scenario fixtures
// and, when the shared data is present ([testenv.FindSharedData]), real
// Markdown (the PowerShell docs and Wikipedia articles) with markers
// inserted at the ends of paragraphs.
func addSeeds(f *testing.F, add func(string)) {
	for _, s := range fuzzSeeds {
		add(s)
	}
	files, _ := filepath.Glob("../testdata/citations/*.json")
	for _, file := range files {
		if s, err := citetest.Load(file); err == nil && len(s.Text()) < 4096 {
			add(s.Text())
		}
	}
	var corpus []string
	if data, ok := testenv.FindSharedData(""); ok {
		for _, pattern := range []string{"markdown/reference/*/*/*.md", "squad/articles/*.md"} {
			m, _ := filepath.Glob(filepath.Join(data, pattern))
			corpus = append(corpus, m...)
		}
	}
	slices.Sort(corpus)
	for i, file := range corpus {
		if i%97 != 0 { // a spread sample
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		text := string(b[:min(len(b), 3000)])
		n := 0
		text = strings.ReplaceAll(text, ".\n", ".XX\n")
		for strings.Contains(text, "XX") {
			n++
			text = strings.Replace(text, "XX", fmt.Sprintf(" [doc:%d]", []int{1, 2, 99, 3, 0, 4}[n%6]), 1)
		}
		add(text)
	}
}

// FuzzRender checks the rendering invariants on arbitrary text.
func FuzzRender(f *testing.F) {
	addSeeds(f, func(s string) { f.Add(s, false); f.Add(s, true) })
	reg := fuzzRegistry()
	f.Fuzz(func(t *testing.T, text string, byAppearance bool) {
		order := citations.ByIndex
		if byAppearance {
			order = citations.ByAppearance
		}
		r := citations.Render(text, reg, citations.Options{Order: order})
		checkRendered(t, text, r, order)
	})
}

// FuzzStream checks that streaming any split of any text gives the
// non-streamed rendering by appearance, byte for byte.
func FuzzStream(f *testing.F) {
	addSeeds(f, func(s string) { f.Add(s, []byte{1, 7, 2, 30, 3}) })
	for _, s := range []string{
		"![a](https://x.example/?q=1 \"t\") [b [doc:1]](<c d>) `![](y)` <https://y.example/> <b>",
		"[r]: //z.example\n\n[x `]` ![i](\nhttps://w.example\n)](u) \\[no](https://v.example)",
	} {
		f.Add(s, []byte{0, 3, 1})
	}
	reg := fuzzRegistry()
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		want := citations.Render(text, reg, citations.Options{Order: citations.ByAppearance})
		md := want.Markdown()
		// Split text into deltas whose lengths come from cuts, cycling.
		st := citations.NewStream(reg)
		var out strings.Builder
		var incoming []citations.Cited
		for i, k := 0, 0; i < len(text); k++ {
			n := 1
			if len(cuts) > 0 {
				n = int(cuts[k%len(cuts)]) + 1
			}
			j := min(len(text), i+n)
			out.WriteString(st.Feed(text[i:j]))
			incoming = append(incoming, st.NewCitations()...)
			i = j
		}
		out.WriteString(st.Close())
		incoming = append(incoming, st.NewCitations()...)
		if out.String() != md {
			t.Fatalf("streamed with cuts %v:\n got %q\nwant %q", cuts, out.String(), md)
		}
		if !reflect.DeepEqual(st.Result(), want) {
			t.Fatalf("Result differs:\n got %+v\nwant %+v", st.Result(), want)
		}
		if len(incoming) != len(want.References) || len(incoming) > 0 && !reflect.DeepEqual(incoming, want.References) {
			t.Fatalf("NewCitations reported %d citations, result has %d", len(incoming), len(want.References))
		}
		checkRendered(t, text, st.Result(), citations.ByAppearance)
	})
}

// checkRendered checks what must hold for every rendering of text against
// fuzzRegistry.
func checkRendered(t *testing.T, text string, r citations.Rendered, order citations.Order) {
	t.Helper()
	// Numbering: 1..k, each reference once, only registered ones.
	seen := map[int]bool{}
	for i, c := range r.References {
		if c.Number != i+1 || c.Key != citations.Key(c.Index) || seen[c.Index] || c.Index < 1 || c.Index > fuzzRegistered {
			t.Fatalf("bad reference %d: %+v", i, c)
		}
		seen[c.Index] = true
		if !strings.Contains(r.Text, fmt.Sprintf("[%d]", c.Number)) {
			t.Fatalf("reference %d is listed but [%d] is not in the text %q", c.Number, c.Number, r.Text)
		}
	}
	// Every marker in the input is cited or dropped, in order.
	var wantDrops int
	var firstSeen []int
	for _, m := range citations.Parse(text) {
		switch {
		case m.Malformed || m.Index == 0 || m.Index > fuzzRegistered:
			wantDrops++
		case !slices.Contains(firstSeen, m.Index):
			firstSeen = append(firstSeen, m.Index)
		}
	}
	var markerDrops int
	for _, d := range r.Dropped {
		if d.Reason != citations.ReasonBare {
			markerDrops++
		}
	}
	if markerDrops != wantDrops {
		t.Fatalf("dropped %d markers, want %d: %+v", markerDrops, wantDrops, r.Dropped)
	}
	var got []int
	for _, c := range r.References {
		got = append(got, c.Index)
	}
	if order == citations.ByIndex {
		slices.Sort(firstSeen)
	}
	if !slices.Equal(got, firstSeen) {
		t.Fatalf("cited indices %v, want %v", got, firstSeen)
	}
	for _, d := range r.Dropped {
		if d.Span.Start < 0 || d.Span.End > len(text) || text[d.Span.Start:d.Span.End] != d.Marker {
			t.Fatalf("drop %+v does not match the text", d)
		}
	}
	// No marker is left, and the only bracketed numbers left are the
	// citations: rendering again finds no marker and drops nothing but
	// citation numbers, which are bare numbers to it.
	if ms := citations.Parse(r.Text); len(ms) > 0 {
		t.Fatalf("marker %+v left in %q", ms[0], r.Text)
	}
	again := citations.Render(r.Text, fuzzRegistry(), citations.Options{Order: order})
	if len(again.References) > 0 {
		t.Fatalf("rendering again cited %+v in %q", again.References, r.Text)
	}
	for _, d := range again.Dropped {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(d.Marker, "["), "]"))
		if d.Reason != citations.ReasonBare || err != nil || n < 1 || n > len(r.References) || d.Marker != fmt.Sprintf("[%d]", n) {
			t.Fatalf("rendering again dropped %+v, which is not a citation, in %q", d, r.Text)
		}
	}
	// The Markdown is the text plus one list item per reference.
	md := r.Markdown()
	if !strings.HasPrefix(md, r.Text) {
		t.Fatalf("Markdown does not start with the text")
	}
	if list := md[len(r.Text):]; len(r.References) > 0 {
		if !strings.HasPrefix(list, "\n\n---\nSources cited in this answer:\n\n") || strings.Count(list, "\n") != len(r.References)+5 {
			t.Fatalf("bad reference list %q", list)
		}
	} else if list != "" {
		t.Fatalf("reference list without references: %q", list)
	}
}
