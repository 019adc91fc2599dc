package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cite-rag/cite/normalize"
)

// pagesReader reads a made-up paged format: files starting "%PAGES\n",
// one page per line; "%PAGES\nLOCKED" needs a password, "%PAGES\nBROKEN"
// is damaged, "%PAGES\nOLD" is in a format it does not read, and an empty
// page is noted.
type pagesReader struct{}

func (pagesReader) Sniff(data []byte) (string, bool) {
	return "pages", bytes.HasPrefix(data, []byte("%PAGES\n"))
}

func (pagesReader) Read(_ context.Context, _ string, data []byte) (*normalize.Document, error) {
	body := strings.TrimPrefix(string(data), "%PAGES\n")
	switch body {
	case "LOCKED":
		return nil, fmt.Errorf("the document is %w", normalize.ErrEncrypted)
	case "BROKEN":
		return nil, errors.New("damaged: no cross-reference table")
	case "OLD":
		return nil, fmt.Errorf("%w: old binary Word format (.doc); save it as .docx", normalize.ErrUnsupported)
	}
	var x normalize.Extracted
	for i, line := range strings.Split(body, "\n") {
		x.Page(i + 1)
		if line == "" {
			x.Note(fmt.Sprintf("page %d has no text", i+1))
		}
		x.Paragraph(line)
	}
	return x.Document(""), nil
}

func TestReaders(t *testing.T) {
	long := strings.Repeat("word ", 900)
	fsys := fstest.MapFS{
		"d/report.pdf":  file("%PAGES\nfirst page zebra\n" + long + "\nlast page yak"),
		"d/misnamed.md": file("%PAGES\nread as Markdown, by its name"),
		"d/binary.txt":  file("%PAGES\nnamed as text, binary\x00, read by its content"),
		"d/binary.md":   file("\x00binary, claimed by no reader"),
		"d/noext":       file("%PAGES\nsniffed by content"),
		"d/locked.pdf":  file("%PAGES\nLOCKED"),
		"d/broken.docx": file("%PAGES\nBROKEN"),
		"d/old.doc":     file("%PAGES\nOLD"),
		"d/other.pdf":   file("not a paged file at all"),
		"d/notes.pptx":  file("%PAGES\nslide one\n\nslide three"),
		"d/empty.pdf":   file("%PAGES\n"),
		"d/plain.txt":   file("plain text stays plain"),
		"d/picture.png": file("\x89PNG"),
	}
	st := newStore(t)
	_, events, err := run(t, st, fsys, Options{Readers: []Reader{pagesReader{}}}, "d")
	if err == nil {
		t.Fatal("the damaged file did not fail the run")
	}
	want := map[string]struct {
		out    Outcome
		format string
		reason string
	}{
		"d/report.pdf":  {Added, "pages", ""},
		"d/misnamed.md": {Added, "markdown", ""},
		"d/binary.txt":  {Added, "pages", ""},
		"d/binary.md":   {Skipped, "", "binary file"},
		"d/noext":       {Added, "pages", ""},
		"d/locked.pdf":  {Skipped, "", "encrypted: a password is required"},
		"d/broken.docx": {Failed, "", ""},
		"d/old.doc":     {Skipped, "", "old binary Word format (.doc); save it as .docx"},
		"d/other.pdf":   {Skipped, "", "unreadable as PDF: named .pdf, its content is not PDF"},
		"d/notes.pptx":  {Added, "pages", ""},
		"d/empty.pdf":   {Skipped, "", "no text"},
		"d/plain.txt":   {Added, "text", ""},
		"d/picture.png": {Skipped, "", "unreadable as a picture: named .png, its content is not a picture"},
	}
	for p, w := range want {
		e, ok := events[p]
		if !ok {
			t.Errorf("%s: no event", p)
			continue
		}
		if e.Outcome != w.out || !strings.Contains(e.Reason, w.reason) {
			t.Errorf("%s: %v %q %v, want %v %q", p, e.Outcome, e.Reason, e.Err, w.out, w.reason)
		}
		if w.out == Failed && (e.Err == nil || !strings.Contains(e.Err.Error(), "broken.docx") || !strings.Contains(e.Err.Error(), "damaged")) {
			t.Errorf("%s: error %v does not name the file and the cause", p, e.Err)
		}
	}
	if n := events["d/notes.pptx"].Notes; len(n) != 1 || n[0] != "page 2 has no text" {
		t.Errorf("notes = %q", n)
	}
	docs, err := st.Documents(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if w, ok := want[d.Path]; ok && d.Type != w.format {
			t.Errorf("%s: format %q, want %q", d.Path, d.Type, w.format)
		}
		if d.Path != "d/report.pdf" {
			continue
		}
		chunks, err := st.Chunks(t.Context(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) < 2 {
			t.Fatalf("%d chunks", len(chunks))
		}
		first, last := chunks[0], chunks[len(chunks)-1]
		if first.Page != 1 || !strings.Contains(first.Text, "zebra") {
			t.Errorf("first chunk: page %d-%d", first.Page, first.PageEnd)
		}
		if last.PageEnd != 3 || !strings.Contains(last.Text, "yak") {
			t.Errorf("last chunk: page %d-%d", last.Page, last.PageEnd)
		}
		for _, c := range chunks {
			if c.SourceStart != c.Start || c.SourceEnd != c.End {
				t.Errorf("chunk %d: source span %d-%d is not its text span %d-%d", c.Ordinal, c.SourceStart, c.SourceEnd, c.Start, c.End)
			}
		}
		l, err := st.Layout(t.Context(), d.ID)
		if err != nil || len(l.Pages) != 3 {
			t.Errorf("layout %+v, %v", l, err)
		}
	}
	// Without readers the same files are skipped by name, as before.
	_, events, _ = run(t, newStore(t), fsys, Options{}, "d")
	if e := events["d/report.pdf"]; e.Outcome != Skipped || !strings.Contains(e.Reason, "cite reads Markdown, HTML and text") {
		t.Errorf("without readers: %v %q", e.Outcome, e.Reason)
	}
}

// countingReader is pagesReader with a version, counting its calls.
type countingReader struct {
	pagesReader
	version       *string
	sniffs, reads *atomic.Int64
}

func (c countingReader) Sniff(data []byte) (string, bool) {
	c.sniffs.Add(1)
	return c.pagesReader.Sniff(data)
}

func (c countingReader) Read(ctx context.Context, f string, data []byte) (*normalize.Document, error) {
	c.reads.Add(1)
	return c.pagesReader.Read(ctx, f, data)
}

func (c countingReader) Version(format string) string {
	if format != "pages" {
		return ""
	}
	return *c.version
}

// TestReaderVersion: a file a reader reads costs nothing when unchanged
// (not sniffed, not read: a PDF starts no pdfium), nor when only its
// modification time changed; it is read again when the reader's version
// changes (tesseract installed), and files of other formats are not.
func TestReaderVersion(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.pdf": file("%PAGES\nfirst\nsecond"),
		"d/b.pdf": file("%PAGES\nthird"),
		"d/c.md":  file("# Markdown\n\nstays unchanged"),
	}
	version := "ocr=auto,no-tesseract"
	var sniffs, reads atomic.Int64
	opts := Options{Readers: []Reader{countingReader{version: &version, sniffs: &sniffs, reads: &reads}}}
	st := newStore(t)
	outcomes := func(want map[string]Outcome, wantReads int64) {
		t.Helper()
		sniffs.Store(0)
		reads.Store(0)
		_, events, err := run(t, st, fsys, opts, "d")
		if err != nil {
			t.Fatal(err)
		}
		for p, o := range want {
			if events[p].Outcome != o {
				t.Errorf("%s: %v, want %v", p, events[p].Outcome, o)
			}
		}
		if reads.Load() != wantReads {
			t.Errorf("%d reads, want %d", reads.Load(), wantReads)
		}
	}
	outcomes(map[string]Outcome{"d/a.pdf": Added, "d/b.pdf": Added, "d/c.md": Added}, 2)
	outcomes(map[string]Outcome{"d/a.pdf": Unchanged, "d/b.pdf": Unchanged, "d/c.md": Unchanged}, 0)
	if sniffs.Load() != 0 {
		t.Errorf("unchanged files sniffed %d times", sniffs.Load())
	}
	fsys["d/a.pdf"].ModTime = time.Now() // touched: read and hashed, not parsed
	outcomes(map[string]Outcome{"d/a.pdf": Unchanged}, 0)
	version = "ocr=auto"
	outcomes(map[string]Outcome{"d/a.pdf": Updated, "d/b.pdf": Updated, "d/c.md": Unchanged}, 2)
	outcomes(map[string]Outcome{"d/a.pdf": Unchanged, "d/b.pdf": Unchanged, "d/c.md": Unchanged}, 0)
	fsys["d/b.pdf"] = file("%PAGES\nthird, edited")
	outcomes(map[string]Outcome{"d/a.pdf": Unchanged, "d/b.pdf": Updated}, 1)
}

// TestNotText: a file named as text is offered to the readers when its
// first bytes hold a NUL or a byte that is not UTF-8, but not for a
// character cut where the sniffed bytes end.
func TestNotText(t *testing.T) {
	long := strings.Repeat("a", sniffLen-2)
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"ascii", "plain text\n", false},
		{"utf-8", "café — ünïcödé 引用", false},
		{"empty", "", false},
		{"nul", "text\x00more", true},
		{"latin-1", "caf\xe9 cr\xe8me", true},
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", true},
		{"a character cut at the end", long + "€"[:2], false},
		{"a bad byte before the end", long[:len(long)-8] + "\xff" + strings.Repeat("b", 9) + "€", true},
		{"a bad byte past the sniffed bytes", long + "xx\xff", false},
	} {
		if got := notText([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: notText = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSavedPageReadAgain: a web page saved as one file (.mhtml, .mht) that
// an older cite indexed as text, its MIME source, is read again by a
// reader that claims it though the file is unchanged; then it is
// unchanged. Other files indexed as text are not read again.
func TestSavedPageReadAgain(t *testing.T) {
	fsys := fstest.MapFS{
		"web/page.mhtml":  file("%PAGES\nthe page's text"),
		"web/again.mhtml": file("%PAGES\nthe page's text"), // the same bytes: no copy of the text
		"web/old.MHT":     file("%PAGES\nan older page"),
		"web/notes.log":   file("%PAGES\nnot a saved page"),
	}
	st := newStore(t)
	// Without a reader, as before: the files are text, and stay so.
	for range 2 {
		if _, events, err := run(t, st, fsys, Options{}, "web"); err != nil || len(events) != 4 {
			t.Fatalf("%v: %v", err, events)
		}
	}
	for _, tc := range []struct {
		name string
		want map[string]Outcome
	}{
		{"read by the reader", map[string]Outcome{"web/page.mhtml": Updated, "web/again.mhtml": Updated, "web/old.MHT": Updated, "web/notes.log": Unchanged}},
		{"then unchanged", map[string]Outcome{"web/page.mhtml": Unchanged, "web/again.mhtml": Unchanged, "web/old.MHT": Unchanged, "web/notes.log": Unchanged}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, events, err := run(t, st, fsys, Options{Readers: []Reader{pagesReader{}}}, "web")
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range tc.want {
				if got := events[p].Outcome; got != want {
					t.Errorf("%s: %v, want %v", p, got, want)
				}
			}
		})
	}
}

// TestNoTextNotReadAgain: a file a reader read and found no text in (a
// picture of no words, read by OCR: seconds each time) is skipped, and
// not read again while it is unchanged, wherever it is copied, and the
// reader's version is the same; --force, a new version and new content
// read it again.
func TestNoTextNotReadAgain(t *testing.T) {
	fsys := fstest.MapFS{
		"d/icon.png": file("%PAGES\n"),
		"d/text.png": file("%PAGES\nwords"),
	}
	version := "ocr=auto"
	var sniffs, reads atomic.Int64
	st := newStore(t)
	for _, step := range []struct {
		name   string
		change func(*Options)
		want   Outcome
		why    string // in the icon's reason
		reads  int64
	}{
		{"first read", nil, Skipped, "page 1 has no text", 2},
		{"unchanged", nil, Skipped, "gave none when read before", 0},
		{"copied", func(*Options) { fsys["e/copy.png"] = file("%PAGES\n") }, Skipped, "gave none when read before", 0},
		{"forced", func(o *Options) { o.Force = true }, Skipped, "page 1 has no text", 2},
		{"new version", func(*Options) { version = "ocr=auto,v2" }, Skipped, "page 1 has no text", 2},
		{"new content", func(*Options) { fsys["d/icon.png"] = file("%PAGES\nnow with words") }, Added, "", 1},
	} {
		t.Run(step.name, func(t *testing.T) {
			delete(fsys, "e/copy.png")
			opts := Options{Readers: []Reader{countingReader{version: &version, sniffs: &sniffs, reads: &reads}}}
			if step.change != nil {
				step.change(&opts)
			}
			reads.Store(0)
			roots := []string{"d"}
			if _, ok := fsys["e/copy.png"]; ok {
				roots = append(roots, "e")
			}
			_, events, err := run(t, st, fsys, opts, roots...)
			if err != nil {
				t.Fatal(err)
			}
			e := events["d/icon.png"]
			if e.Outcome != step.want || !strings.Contains(e.Reason, step.why) {
				t.Errorf("icon: %v %q, want %v %q", e.Outcome, e.Reason, step.want, step.why)
			}
			if c, ok := events["e/copy.png"]; ok && (c.Outcome != Skipped || !strings.Contains(c.Reason, "gave none when read before")) {
				t.Errorf("copy: %v %q", c.Outcome, c.Reason)
			}
			if reads.Load() != step.reads {
				t.Errorf("%d reads, want %d", reads.Load(), step.reads)
			}
		})
	}
}

// limitedReader is pagesReader refusing documents of more than max pages
// as normalize/pdf refuses a PDF over --max-pages.
type limitedReader struct {
	pagesReader
	max int
}

func (r limitedReader) Read(ctx context.Context, format string, data []byte) (*normalize.Document, error) {
	if n := strings.Count(string(data), "\n"); n > r.max {
		return nil, fmt.Errorf("too many pages: %d, the limit is %d (--max-pages): %w", n, r.max, normalize.ErrOverLimit)
	}
	return r.pagesReader.Read(ctx, format, data)
}

// TestReaderOverLimit: a document over a reader's page limit is skipped
// with the reader's message, as a file over --max-size is, and the rest of
// the run goes on; one indexed before and unchanged stays, one changed
// loses its old version.
func TestReaderOverLimit(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	fsys := fstest.MapFS{
		"d/big.pdf":   file("%PAGES\none\ntwo\nthree"),
		"d/grows.pdf": file("%PAGES\none\ntwo"),
	}
	if s, _, err := run(t, st, fsys, Options{Readers: []Reader{limitedReader{max: 10}}}, "d"); err != nil || s.Added != 2 {
		t.Fatalf("first run: %+v, %v", s, err)
	}
	fsys["d/grows.pdf"] = &fstest.MapFile{Data: []byte("%PAGES\none\ntwo\nthree\nfour"), ModTime: t0.Add(time.Hour)}
	fsys["d/new.pdf"] = file("%PAGES\na\nb\nc\nd\ne")
	fsys["d/small.pdf"] = file("%PAGES\nshort and indexed")
	s, events, err := run(t, st, fsys, Options{Readers: []Reader{limitedReader{max: 2}}}, "d")
	if err != nil {
		t.Fatalf("a file over the limit failed the run: %v", err)
	}
	for p, want := range map[string]struct {
		out    Outcome
		reason string
	}{
		"d/big.pdf":   {Unchanged, ""},
		"d/grows.pdf": {Skipped, "too many pages: 4, the limit is 2 (--max-pages): over a limit; removed its old version from the index"},
		"d/new.pdf":   {Skipped, "too many pages: 5, the limit is 2 (--max-pages): over a limit"},
		"d/small.pdf": {Added, ""},
	} {
		if e := events[p]; e.Outcome != want.out || e.Reason != want.reason || e.Err != nil {
			t.Errorf("%s: %v %q %v, want %v %q", p, e.Outcome, e.Reason, e.Err, want.out, want.reason)
		}
	}
	if s.Skipped != 2 || s.Failed != 0 || s.Added != 1 || s.Unchanged != 1 {
		t.Errorf("stats %+v", s)
	}
	if _, err := st.Document(ctx, "", "d/grows.pdf"); err == nil {
		t.Error("grows.pdf's old version is still indexed")
	}
	checkIndex(t, st)
}

// TestMarkdownReadAsText checks that a Markdown file read as plain text
// (goldmark would take seconds on its 100,000 link reference definitions)
// is indexed with a note saying so, in its event and in its layout; an
// ordinary Markdown file has none.
func TestMarkdownReadAsText(t *testing.T) {
	fsys := fstest.MapFS{
		"d/refs.md":  file(strings.Repeat("[x]: http://example.com/x\n", 100_000) + "See [x].\n"),
		"d/plain.md": file("# Title\n\nSee [x].\n\n[x]: http://example.com/x\n"),
	}
	st := newStore(t)
	if _, _, err := run(t, st, fsys, Options{}, "d"); err != nil {
		t.Fatal(err)
	}
	docs, err := st.Documents(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		l, err := st.Layout(t.Context(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch d.Path {
		case "d/refs.md":
			if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "read as plain text, not as Markdown") || !strings.Contains(l.Notes[0], "100000 lines") {
				t.Errorf("%s: notes %q", d.Path, l.Notes)
			}
		case "d/plain.md":
			if len(l.Notes) != 0 {
				t.Errorf("%s: notes %q, want none", d.Path, l.Notes)
			}
		}
	}
}
