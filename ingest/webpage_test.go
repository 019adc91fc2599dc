package ingest

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestWebPageContent: a page is indexed by its content, its site menu and
// footer left out, with spans into the file's bytes; with KeepBoilerplate
// it is read again, whole, and read again by its content when the option
// is off again.
func TestWebPageContent(t *testing.T) {
	const page = `<html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop the harbour store</a></nav>
<main><h1>Tides</h1><p>High water comes twice a day.</p></main>
<footer>Copyright Harbour News</footer></body></html>`
	fsys := fstest.MapFS{"page.html": file(page)}
	st := newStore(t)
	text := func(when string) string {
		t.Helper()
		d, err := st.Document(t.Context(), "", "page.html")
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		cs, err := st.Chunks(t.Context(), d.ID)
		if err != nil || len(cs) != 1 {
			t.Fatalf("%s: %d chunks, %v", when, len(cs), err)
		}
		c := cs[0]
		src := page[c.SourceStart:c.SourceEnd]
		if !strings.Contains(src, "High water comes twice a day.") || !strings.HasPrefix(c.Text, "Tides") && !strings.HasPrefix(c.Text, "Home") {
			t.Errorf("%s: chunk %q maps to %q", when, c.Text, src)
		}
		return c.Text
	}
	for i, step := range []struct {
		keep    bool
		out     func(Stats) int
		shop    bool // the menu is in the text
		outcome string
	}{
		{false, func(s Stats) int { return s.Added }, false, "added"},
		{true, func(s Stats) int { return s.Updated }, true, "read again whole"},
		{true, func(s Stats) int { return s.Unchanged }, true, "unchanged"},
		{false, func(s Stats) int { return s.Updated }, false, "read again by its content"},
	} {
		s, _, err := run(t, st, fsys, Options{KeepBoilerplate: step.keep}, "page.html")
		if err != nil || step.out(s) != 1 {
			t.Fatalf("run %d (keep %v): %+v, %v; want the page %s", i, step.keep, s, err, step.outcome)
		}
		got := text(step.outcome)
		if !step.shop && !strings.HasPrefix(got, "Tides\n\nHigh water") {
			t.Errorf("run %d: text %q, want the page's content first", i, got)
		}
		if strings.Contains(got, "Shop the harbour store") != step.shop || strings.Contains(got, "Copyright") != step.shop {
			t.Errorf("run %d (keep %v): text %q", i, step.keep, got)
		}
	}
}
