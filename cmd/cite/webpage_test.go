package main

import (
	"database/sql"
	"encoding/json"
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

// TestRepairWebPages: cite check --repair reads web pages (.html and a
// saved .mhtml) whose chunks were lost again the way they were indexed,
// by their content or whole (--keep-boilerplate), and under an older
// pipeline's version too: the chunks are those of the index before, the
// index is sound, and the next cite index, given the same flags, finds
// the pages unchanged.
func TestRepairWebPages(t *testing.T) {
	const page = `<html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop the harbour store</a></nav>
<main><h1>Tides</h1><p>High water comes twice a day.</p><h2>Neaps</h2><p>Neap tides rise least.</p></main>
<footer>Copyright Harbour News</footer></body></html>`
	mhtml := "From: <Saved by Blink>\r\nSubject: Tides\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n\ttype=\"text/html\";\r\n\tboundary=\"----B----\"\r\n\r\n" +
		"------B----\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: 8bit\r\nContent-Location: https://example.com/tides\r\n\r\n" +
		page + "\r\n------B------\r\n"
	for _, c := range []struct {
		name     string
		flags    []string
		pipeline string // set on the pages before the damage, "" to leave it
		menu     bool
	}{
		{"content", nil, "", false},
		{"whole", []string{"--keep-boilerplate"}, "", true},
		{"older pipeline", nil, "v2/o200k_base/500/50/html:content", false},
		{"older pipeline, whole", []string{"--keep-boilerplate"}, "v2/o200k_base/500/50/html:whole", true},
		// Their records' pipeline damaged: read as the source's other
		// page was.
		{"pipeline lost", nil, "lost", false},
		{"pipeline lost, whole", []string{"--keep-boilerplate"}, "lost", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			idx := filepath.Join(t.TempDir(), "idx")
			files := map[string]string{"tides.html": page, "tides.mhtml": mhtml, "notes.md": "# Notes\n\nThe harbour master keeps the tide tables.\n",
				"other.html": strings.ReplaceAll(page, "High water", "Low water")}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			index := func(want string) {
				t.Helper()
				args := append([]string{"index", "--index", idx}, c.flags...)
				if code, out, errOut := cite(t, append(args, dir)...); code != 0 || !strings.Contains(out, want) {
					t.Fatalf("cite %s: exit %d, want %q\n%s%s", strings.Join(args, " "), code, want, out, errOut)
				}
			}
			show := func(name string) string {
				t.Helper()
				code, out, errOut := cite(t, "show", "--index", idx, "--chunks", "--json", filepath.Join(dir, name))
				var v struct{ Chunks json.RawMessage }
				if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
					t.Fatalf("show %s: exit %d\n%s%s", name, code, out, errOut)
				}
				return string(v.Chunks) // not its document's time of indexing

			}
			index("4 added")
			before := map[string]string{"tides.html": show("tides.html"), "tides.mhtml": show("tides.mhtml")}
			for name, out := range before {
				if strings.Contains(out, "Shop the harbour store") != c.menu {
					t.Fatalf("%s indexed with its menu %v, want %v:\n%s", name, !c.menu, c.menu, out)
				}
			}
			db, err := sql.Open("sqlite3", filepath.Join(idx, "index.db"))
			if err != nil {
				t.Fatal(err)
			}
			if c.pipeline == "lost" {
				if _, err := db.Exec(`UPDATE documents SET pipeline = 7 WHERE path LIKE '%tides%'`); err != nil {
					t.Fatal(err)
				}
			} else if c.pipeline != "" {
				pipe := strings.Replace(c.pipeline, "/html:", "/mhtml:", 1)
				if _, err := db.Exec(`UPDATE documents SET pipeline = CASE WHEN path LIKE '%.mhtml' THEN ?2 ELSE ?1 END WHERE path LIKE '%tides%'`, c.pipeline, pipe); err != nil {
					t.Fatal(err)
				}
			}
			// The pages' chunks damaged: their headings not JSON.
			_, err = db.Exec(`UPDATE chunks SET headings = 'xx' WHERE document_id IN (SELECT id FROM documents WHERE path LIKE '%tides%')`)
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if code, out, _ := cite(t, "check", "--index", idx); code != 1 || !strings.Contains(out, "cannot be read") {
				t.Fatalf("check: exit %d, want 1\n%s", code, out)
			}
			code, out, errOut := cite(t, "check", "--index", idx, "--repair")
			if code != 0 || !strings.Contains(out, "re-read 2 of 2 documents") || !strings.HasSuffix(out, "ok\n") {
				t.Fatalf("check --repair: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, errOut := cite(t, "check", "--index", idx); code != 0 {
				t.Fatalf("check after repair: exit %d\n%s%s", code, out, errOut)
			}
			for name, want := range before {
				if got := show(name); got != want {
					t.Errorf("%s re-read otherwise than indexed:\n%s\nwant\n%s", name, got, want)
				}
			}
			index("4 unchanged")
		})
	}
}
