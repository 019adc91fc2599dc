package citetest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
)

// listHeader separates an answer's text from its reference list in the
// Markdown that citations renders.
const listHeader = "\n\n" + citations.ListHeading + "\n\n"

// AssertValid reports an error on t for each way r breaks the citation
// contract:
//   - the references are numbered 1..k in order, without gaps;
//   - each reference is listed once (no two share an index) and its Key is
//     the marker of its Index;
//   - every listed number is cited in the text as "[n]", and every "[n]" in
//     the text is a listed number;
//   - no marker, well formed or not, is left in the text outside code;
//   - the Markdown ends with the reference list, one item per number;
//   - every dropped marker has a known reason.
//
// A bracketed number that the answer itself contains, such as "a[3]" in
// prose, counts as a citation: do not use AssertValid on such answers.
func AssertValid(t testing.TB, r citations.Rendered) {
	t.Helper()
	seen := map[int]bool{}
	for i, c := range r.References {
		if c.Number != i+1 {
			t.Errorf("citetest: reference %d has number %d, want %d", i, c.Number, i+1)
		}
		if c.Index < 1 {
			t.Errorf("citetest: reference %d has index %d, want >= 1", c.Number, c.Index)
		}
		if seen[c.Index] {
			t.Errorf("citetest: %s listed more than once", c.Key)
		}
		seen[c.Index] = true
		if c.Key != citations.Key(c.Index) {
			t.Errorf("citetest: reference %d has key %q for index %d", c.Number, c.Key, c.Index)
		}
	}
	checkBody(t, r.Text, len(r.References))
	if md := r.Markdown(); len(r.References) > 0 {
		i := strings.LastIndex(md, listHeader)
		if i < 0 || md[:i] != r.Text {
			t.Errorf("citetest: Markdown is not the text followed by the reference list")
		} else {
			checkList(t, md[i+len(listHeader):], len(r.References))
		}
	} else if md != r.Text {
		t.Errorf("citetest: Markdown without references differs from the text")
	}
	for _, d := range r.Dropped {
		switch d.Reason {
		case citations.ReasonUnregistered, citations.ReasonZero, citations.ReasonMalformed:
		default:
			t.Errorf("citetest: dropped %q with unknown reason %q", d.Marker, d.Reason)
		}
	}
}

// AssertValidMarkdown is [AssertValid] for a rendered answer available only
// as Markdown text, such as the output of the CLI: the text before the
// reference list cites exactly the numbers 1..k that the list holds, each
// listed once, and leaves no marker outside code.
func AssertValidMarkdown(t testing.TB, md string) {
	t.Helper()
	body, list := md, ""
	if i := strings.LastIndex(md, listHeader); i >= 0 {
		body, list = md[:i], md[i+len(listHeader):]
	}
	k := 0
	if list != "" {
		k = checkList(t, list, -1)
	}
	checkBody(t, body, k)
}

// AssertQuote reports an error on t unless the passage of the reference
// cited as number in r contains quote, compared with white space collapsed.
func AssertQuote(t testing.TB, r citations.Rendered, number int, quote string) {
	t.Helper()
	if number < 1 || number > len(r.References) {
		t.Errorf("citetest: no reference [%d] (have %d)", number, len(r.References))
		return
	}
	c := r.References[number-1]
	if !strings.Contains(collapse(c.Passage), collapse(quote)) {
		t.Errorf("citetest: passage of [%d] %s %q does not contain %q", number, c.Key, c.Title, quote)
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkBody checks the citations in an answer's text against k references.
func checkBody(t testing.TB, body string, k int) {
	t.Helper()
	for _, m := range citations.Parse(body) {
		t.Errorf("citetest: raw marker %q left in the text at %d", body[m.Span.Start:m.Span.End], m.Span.Start)
	}
	used := make([]bool, k+1)
	for _, n := range bracketNumbers(body) {
		if n < 1 || n > k {
			t.Errorf("citetest: text cites [%d], but %d references are listed", n, k)
			continue
		}
		used[n] = true
	}
	for n := 1; n <= k; n++ {
		if !used[n] {
			t.Errorf("citetest: reference %d is listed but not cited in the text", n)
		}
	}
}

// checkList checks a reference list: items numbered 1, 2, ... in order,
// k of them unless k < 0. It returns the number of items.
func checkList(t testing.TB, list string, k int) int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	for i, line := range lines {
		num, rest, ok := strings.Cut(line, ". ")
		if n, err := strconv.Atoi(num); !ok || err != nil || n != i+1 || rest == "" {
			t.Errorf("citetest: reference list line %d is %q, want \"%d. title\"", i+1, line, i+1)
		}
	}
	if k >= 0 && len(lines) != k {
		t.Errorf("citetest: reference list has %d items, want %d", len(lines), k)
	}
	return len(lines)
}

// bracketNumbers returns n for every "[n]" in s.
func bracketNumbers(s string) []int {
	var out []int
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' && j-i <= 10 {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == ']' {
			if n, err := strconv.Atoi(s[i+1 : j]); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
