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

// TestWebPageContentRulesChanged: a page indexed by the content rules
// before normalize.ContentVersion 2 ("html:content") is read again, once;
// one read whole is not.
func TestWebPageContentRulesChanged(t *testing.T) {
	const page = `<html><head><title>Tides</title></head><body><main><h1>Tides</h1>
<p>High water comes twice a day.</p><div class="share-buttons"><a href="/fb">Facebook</a></div></main></body></html>`
	for _, tc := range []struct {
		keep        bool
		suffix, old string // the pipeline's suffix now, and before
		again       bool
	}{
		{false, "/html:content2", "/html:content", true},
		{true, "/html:whole", "/html:whole", false},
	} {
		fsys := fstest.MapFS{"page.html": file(page)}
		st := newStore(t)
		ctx := t.Context()
		if s, _, err := run(t, st, fsys, Options{KeepBoilerplate: tc.keep}, "page.html"); err != nil || s.Added != 1 {
			t.Fatalf("keep %v: first run: %+v, %v", tc.keep, s, err)
		}
		d, err := st.Document(ctx, "", "page.html")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(d.Pipeline, tc.suffix) {
			t.Fatalf("keep %v: pipeline %q, want it to end %q", tc.keep, d.Pipeline, tc.suffix)
		}
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		d.Pipeline = strings.TrimSuffix(d.Pipeline, tc.suffix) + tc.old // as the first rules indexed it
		if _, err := st.PutDocument(ctx, &d, cs); err != nil {
			t.Fatal(err)
		}
		s, _, err := run(t, st, fsys, Options{KeepBoilerplate: tc.keep}, "page.html")
		if err != nil || tc.again && s.Updated != 1 || !tc.again && s.Unchanged != 1 {
			t.Fatalf("keep %v: run after the first rules: %+v, %v; want read again %v", tc.keep, s, err, tc.again)
		}
		if s, _, err := run(t, st, fsys, Options{KeepBoilerplate: tc.keep}, "page.html"); err != nil || s.Unchanged != 1 {
			t.Fatalf("keep %v: next run: %+v, %v; want it unchanged", tc.keep, s, err)
		}
	}
}
