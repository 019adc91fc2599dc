package normalize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/cite-rag/cite/internal/testenv"

	"golang.org/x/net/html"
)

type corpusFile struct {
	name string
	src  []byte
}

// loadCorpus reads the files with the given extension under dir, sorted by path.
func loadCorpus(t testing.TB, dir, ext string) []corpusFile {
	t.Helper()
	var files []corpusFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || filepath.Ext(p) != ext {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, corpusFile{name: rel, src: src})
		return nil
	})
	if err != nil {
		t.Fatalf("read corpus %s: %v", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files
}

// collapse turns every whitespace run into one space and trims the ends.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

var (
	tagLike    = regexp.MustCompile(`(?i)</?(script|style|div|p|span|a|img|meta|link|br|hr|table|tr|td|th|li|ul|ol|iframe|noscript|svg|head|body|html|title|h[1-6]|section|article|header|footer|nav|button|form|input|pre|code|em|strong|b|i)[\s/>]`)
	entityLike = regexp.MustCompile(`&(amp|lt|gt|quot|apos|nbsp|copy|mdash|ndash|hellip|#[0-9]+|#[xX][0-9a-fA-F]+);`)
)

// TestHTMLCorpus normalizes the 129 real pages of ../shared/data/html and
// checks that no markup, script, style or undecoded entity is left, and that
// the article fragments of html-fragments.jsonl are all found: in the
// pages' content, as cite reads them, as many as in the whole pages
// (Options.KeepBoilerplate). It logs how much text reading the content
// alone leaves out.
func TestHTMLCorpus(t *testing.T) {
	dir := testenv.SharedData(t, "html")
	files := loadCorpus(t, dir, ".html")
	if len(files) != 129 {
		t.Errorf("%d pages in %s, want 129", len(files), dir)
	}
	texts, wholes := map[string]string{}, map[string]string{}
	var wholeBytes, outBytes, wholeWords, outWords, pages int
	for _, f := range files {
		d := FromHTML(f.src)
		texts["html/"+f.name] = d.Text
		w := FromHTMLWith(f.src, Options{KeepBoilerplate: true})
		wholes["html/"+f.name] = w.Text
		if err := checkDocument(f.src, w); err != nil {
			t.Errorf("%s, read whole: %v", f.name, err)
		}
		wholeBytes += len(w.Text)
		outBytes += len(w.Text) - len(d.Text)
		nw, nd := len(strings.Fields(w.Text)), len(strings.Fields(d.Text))
		wholeWords += nw
		outWords += nw - nd
		if w.Text != d.Text {
			pages++
		}
		if d.Title != w.Title {
			t.Errorf("%s: title %q, read whole %q", f.name, d.Title, w.Title)
		}
		if len(d.Text) > len(w.Text) {
			t.Errorf("%s: the content has more text (%d bytes) than the whole page (%d)", f.name, len(d.Text), len(w.Text))
		}
		if err := checkDocument(f.src, d); err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		// Markup: a "<" that starts something tag-like in the text must come
		// from an escaped "&lt;" in the source, never from a real tag.
		for _, m := range tagLike.FindAllStringIndex(d.Text, -1) {
			s, _ := d.SourceSpan(m[0], m[0]+1)
			if f.src[s] == '<' {
				t.Errorf("%s: markup left in the text at %d: %q", f.name, m[0], around(d.Text, m[0]))
			}
		}
		// Entities: an entity-looking string in the text must come from a
		// double-escaped "&amp;..." in the source: its "&" is a decoded
		// reference, not a copied "&".
		for _, m := range entityLike.FindAllStringIndex(d.Text, -1) {
			s, e := d.SourceSpan(m[0], m[0]+1)
			if e-s < 2 || f.src[s] != '&' {
				t.Errorf("%s: undecoded entity at %d: %q", f.name, m[0], around(d.Text, m[0]))
			}
		}
		// Scripts and styles: their distinctive lines must not be in the text.
		for _, snip := range scriptSnippets(f.src) {
			if strings.Contains(collapse(d.Text), snip) {
				t.Errorf("%s: script or style text left: %q", f.name, snip)
			}
		}
	}

	fragFile := filepath.Join(filepath.Dir(dir), "html-fragments.jsonl")
	fh, err := os.Open(fragFile)
	if err != nil {
		t.Fatalf("open fragments: %v", err)
	}
	defer fh.Close()
	total, found, foundWhole := 0, 0, 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			File      string   `json:"file"`
			Fragments []string `json:"fragments"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", fragFile, err)
		}
		text, ok := texts[rec.File]
		if !ok {
			t.Errorf("%s: fragments for unknown page %s", fragFile, rec.File)
			continue
		}
		text = collapse(text)
		whole := collapse(wholes[rec.File])
		for _, frag := range rec.Fragments {
			total++
			if strings.Contains(whole, collapse(frag)) {
				foundWhole++
			}
			if strings.Contains(text, collapse(frag)) {
				found++
				continue
			}
			t.Errorf("%s: fragment not found: %q", rec.File, frag)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d fragments found (%d in the whole pages)", found, total, foundWhole)
	t.Logf("boilerplate left out of %d of %d pages: %d of %d text bytes (%.1f%%), %d of %d words (%.1f%%)",
		pages, len(files), outBytes, wholeBytes, 100*float64(outBytes)/float64(max(wholeBytes, 1)),
		outWords, wholeWords, 100*float64(outWords)/float64(max(wholeWords, 1)))
	if found < foundWhole {
		t.Errorf("%d fragments found in the pages' content, %d in the whole pages", found, foundWhole)
	}
	if total != 450 {
		t.Errorf("%d fragments, want 450", total)
	}
}

// scriptSnippets returns distinctive lines of a page's <script> and <style>
// contents: collapsed lines of 30 bytes or more that occur once in the page
// (so that the page cannot also show them as text).
func scriptSnippets(src []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(src))
	in := ""
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if n := string(name); n == "script" || n == "style" {
				in = n
			}
		case html.EndTagToken:
			in = ""
		case html.TextToken:
			if in == "" {
				continue
			}
			for line := range strings.Lines(string(z.Raw())) {
				line = strings.TrimSpace(line)
				if len(line) < 30 || bytes.Count(src, []byte(line)) != 1 {
					continue
				}
				out = append(out, collapse(line))
				if len(out) >= 20 {
					return out
				}
			}
		}
	}
}

var fenceOpen = regexp.MustCompile("^[ \t>]*(```+|~~~+)")

// TestMarkdownCorpus normalizes the 3,112 files of ../shared/data/markdown:
// the invariants hold on each, no fenced code is lost (the first non-empty
// line of every fenced block is in the text), and every heading maps back to
// source bytes that hold its words.
func TestMarkdownCorpus(t *testing.T) {
	dir := testenv.SharedData(t, "markdown")
	files := loadCorpus(t, dir, ".md")
	if len(files) != 3112 {
		t.Errorf("%d files in %s, want 3112", len(files), dir)
	}
	blocks, headings, segs, mapSize, size := 0, 0, 0, 0, 0
	for _, f := range files {
		d := FromMarkdown(f.src)
		segs += d.m.segs.len()
		mapSize += d.m.segs.size()
		size += len(f.src)
		if err := checkDocument(f.src, d); err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		text := collapse(d.Text)
		for _, first := range fencedFirstLines(f.src) {
			blocks++
			if !strings.Contains(text, collapse(first)) {
				t.Errorf("%s: fenced code lost: %q", f.name, first)
			}
		}
		for _, h := range d.Headings {
			headings++
			s, e := d.SourceSpan(h.Offset, h.End)
			if err := wordsInOrder(h.Text, string(f.src[s:e])); err != nil {
				t.Errorf("%s: heading %q maps to %q: %v", f.name, h.Text, f.src[s:e], err)
			}
		}
	}
	t.Logf("%d files, %d fenced blocks, %d headings checked; offset map: %d segments, %.2f bytes per source byte",
		len(files), blocks, headings, segs, float64(mapSize)/float64(size))
}

// fencedFirstLines returns the first non-empty content line of each fenced
// code block of a Markdown source, found line by line (prefixes of block
// quotes and list indentation included) without a Markdown parser.
func fencedFirstLines(src []byte) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		prefix := len(m[0]) - len(m[1])
		fence := m[1]
		if fence[0] == '`' && strings.Contains(lines[i][len(m[0]):], "`") {
			continue // an inline code span, not a fence
		}
		first := ""
		j := i + 1
		for ; j < len(lines); j++ {
			l := lines[j]
			body := strings.TrimLeft(l, " \t>")
			if strings.HasPrefix(body, fence) && strings.TrimSpace(strings.TrimLeft(body, fence[:1])) == "" {
				break
			}
			if first == "" {
				if len(l) > prefix {
					l = l[min(prefix, len(l)):]
				}
				if s := strings.TrimSpace(l); s != "" {
					first = s
				}
			}
		}
		if first != "" {
			out = append(out, first)
		}
		i = j
	}
	return out
}

// wordsInOrder checks that the alphanumeric words of heading appear in src
// in the same order.
func wordsInOrder(heading, src string) error {
	rest := src
	for _, w := range strings.FieldsFunc(heading, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		i := strings.Index(rest, w)
		if i < 0 {
			return &wordError{w}
		}
		rest = rest[i+len(w):]
	}
	return nil
}

type wordError struct{ word string }

func (e *wordError) Error() string { return "word " + e.word + " not in the source span" }
