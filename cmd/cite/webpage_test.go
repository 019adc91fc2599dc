package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepBoilerplate: cite index reads a web page's content, without its
// site menu and footer; --keep-boilerplate reads the page again, whole,
// and an index without it reads it again by its content.
func TestKeepBoilerplate(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, ".cite")
	page := filepath.Join(dir, "tides.html")
	const src = `<html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop the harbour store</a></nav>
<main><h1>Tides</h1><p>High water comes twice a day.</p></main>
<footer>Copyright Harbour News</footer></body></html>`
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		args    []string
		summary string // in the index command's output
		menu    bool   // the menu is in cite show's text
	}{
		{nil, "1 added", false},
		{[]string{"--keep-boilerplate"}, "1 updated", true},
		{[]string{"--keep-boilerplate"}, "1 unchanged", true},
		{nil, "1 updated", false},
	} {
		args := append([]string{"index", "--index", idx}, step.args...)
		code, out, errOut := cite(t, append(args, dir)...)
		if code != 0 || !strings.Contains(out+errOut, step.summary) {
			t.Fatalf("step %d: cite %s: exit %d, want %q in\n%s%s", i, strings.Join(args, " "), code, step.summary, out, errOut)
		}
		code, out, errOut = cite(t, "show", "--index", idx, page)
		if code != 0 || !strings.Contains(out, "High water comes twice a day.") {
			t.Fatalf("step %d: cite show: exit %d\n%s%s", i, code, out, errOut)
		}
		if strings.Contains(out, "Shop the harbour store") != step.menu || strings.Contains(out, "Copyright Harbour News") != step.menu {
			t.Errorf("step %d (%v): cite show gives\n%s", i, step.args, out)
		}
	}
}

// TestMHTMLReaderVersion: a saved page read whole and one read by its
// content are made by different pipelines.
func TestMHTMLReaderVersion(t *testing.T) {
	content, whole := mhtmlReader{}, wholePages(documentReaders(nil))
	var found bool
	for _, r := range whole {
		if m, ok := r.(mhtmlReader); ok {
			found = m.whole
		}
	}
	if !found {
		t.Fatal("wholePages did not make the saved-page reader read pages whole")
	}
	if a, b := content.Version("mhtml"), (mhtmlReader{whole: true}).Version("mhtml"); a == b || a == "" {
		t.Errorf("versions %q and %q", a, b)
	}
	if v := content.Version("pdf"); v != "" {
		t.Errorf("version of a PDF: %q", v)
	}
}
