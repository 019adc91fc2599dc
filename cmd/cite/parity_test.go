package main

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/chromiumtest"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/normalize/pdf"
	"github.com/cite-rag/cite/search"
)

// parityEvery picks the questions TestFormatParity asks: every 5th of the
// SQuAD half's 5,397 in file order (1,080, from all 24 articles), to keep
// six indexes' worth of questions to a few minutes of CI.
const parityEvery = 5

// parityTolerance is how far a format's Recall@1 and Recall@5 may fall
// below the Markdown originals' (issue 21).
const parityTolerance = 0.03

// TestFormatParity writes the shared SQuAD half's articles as the formats
// a user's documents come in, with the tools that make them: PDF printed by
// headless Chromium (from the HTML pandoc makes of the Markdown, with
// Chromium's running header and footer), DOCX, ODT, EPUB and PPTX by
// pandoc. It indexes each format's set with cite's readers, asks the same
// questions of each (hybrid, the hash embedder), and judges the hits of
// every format, the Markdown originals too, by text ([eval.Options.ByText]:
// spans differ across formats). Each format's Recall@1 and Recall@5 must be
// within parityTolerance of Markdown's.
//
// For the PDFs it also checks the pages hits name against an independent
// oracle, poppler's pdftotext: at least 95% of the top hits' pages hold
// their text (pageHolds).
func TestFormatParity(t *testing.T) {
	if testenv.Race {
		t.Skip("slow (six indexes of the SQuAD half): runs in CI's race-free step")
	}
	if testing.Short() {
		t.Skip("runs Chromium and pandoc over the SQuAD half")
	}
	squad := testenv.SharedData(t, "squad")
	chromium := needTool(t, "chromium", "chromium")
	pandoc := needTool(t, "pandoc", "pandoc")
	pdftotext := needTool(t, "pdftotext", "poppler-utils")
	set, err := eval.Load(squad)
	if err != nil {
		t.Fatal(err)
	}
	var qs []eval.Question
	for i, q := range set.Questions {
		if i%parityEvery == 0 {
			qs = append(qs, q)
		}
	}
	set.Questions = qs
	articles, err := filepath.Glob(filepath.Join(set.Articles, "*.md"))
	if err != nil || len(articles) == 0 {
		t.Fatalf("no articles in %s: %v", set.Articles, err)
	}

	dir := t.TempDir()
	start := time.Now()
	for _, f := range []string{"html", "docx", "odt", "epub", "pptx"} {
		if err := os.Mkdir(filepath.Join(dir, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runPandoc(t, pandoc, articles, dir)
	printPDFs(t, chromium, filepath.Join(dir, "html"), filepath.Join(dir, "pdf"))
	t.Logf("wrote %d articles as PDF, DOCX, ODT, EPUB and PPTX in %v", len(articles), time.Since(start).Round(time.Second))

	type result struct {
		format string
		m      eval.Metrics
	}
	var results []result
	var pdfTop []search.Hit
	for _, f := range []struct{ name, dir string }{
		{"markdown", set.Articles},
		{"pdf", filepath.Join(dir, "pdf")},
		{"docx", filepath.Join(dir, "docx")},
		{"odt", filepath.Join(dir, "odt")},
		{"epub", filepath.Join(dir, "epub")},
		{"pptx", filepath.Join(dir, "pptx")},
	} {
		start := time.Now()
		st, s := indexFolder(t, f.dir)
		fs := *set
		fs.Articles = f.dir
		var top []search.Hit
		ms, err := eval.Run(t.Context(), &fs, st, s, eval.Options{Modes: []search.Mode{search.Hybrid}, ByText: true,
			Hits: func(q eval.Question, _ search.Mode, hits []search.Hit) {
				if len(hits) > 0 {
					top = append(top, hits[0])
				}
			}})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		results = append(results, result{f.name, ms[0]})
		t.Logf("%-8s R@1 %.3f  R@5 %.3f  R@20 %.3f  MRR@10 %.3f  (%d questions, indexed and asked in %v)",
			f.name, ms[0].Recall1, ms[0].Recall5, ms[0].Recall20, ms[0].MRR10, ms[0].Questions, time.Since(start).Round(time.Second))
		if f.name == "markdown" {
			// The text judge beside the span judge, on the same hits.
			bySpan, err := eval.Run(t.Context(), &fs, st, s, eval.Options{Modes: []search.Mode{search.Hybrid}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("markdown judged by span: R@1 %.3f  R@5 %.3f", bySpan[0].Recall1, bySpan[0].Recall5)
		}
		if f.name == "pdf" {
			pdfTop = top
		}
	}
	md := results[0].m
	for _, r := range results[1:] {
		if r.m.Recall1 < md.Recall1-parityTolerance || r.m.Recall5 < md.Recall5-parityTolerance {
			t.Errorf("%s: R@1 %.3f, R@5 %.3f; Markdown's %.3f, %.3f (at most %.2f below)", r.format, r.m.Recall1, r.m.Recall5, md.Recall1, md.Recall5, parityTolerance)
		}
	}

	// Pages are right: each PDF top hit's pages, by pdftotext.
	oracle := &pageOracle{bin: pdftotext, pages: map[string]string{}}
	right := 0
	var wrong []string
	for _, h := range pdfTop {
		ok, why, err := oracle.holds(t.Context(), h)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			right++
		} else if len(wrong) < 10 {
			wrong = append(wrong, fmt.Sprintf("%s p. %d-%d: %s", filepath.Base(h.Document.Path), h.Page, h.PageEnd, why))
		}
	}
	share := float64(right) / float64(max(len(pdfTop), 1))
	t.Logf("pages right: %d of %d PDF top hits (%.3f) by pdftotext; wrong:\n%s", right, len(pdfTop), share, strings.Join(wrong, "\n"))
	if share < 0.95 {
		t.Errorf("pages right for %.3f of the top hits, want at least 0.95", share)
	}
}

// needTool returns the path of a program the test needs, skipping the test
// when it is missing (failing it under CI, which installs it).
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian: apt-get install %s)", name, pkg)
		}
		t.Skipf("%s is not installed (Debian: apt-get install %s)", name, pkg)
	}
	return p
}

// runPandoc writes each article with pandoc as HTML (a page with the
// article's title, for Chromium to print), DOCX, ODT, EPUB and PPTX, in
// folders of dir named after the formats, a few pandoc at a time.
func runPandoc(t *testing.T, pandoc string, articles []string, dir string) {
	type job struct{ in, format string }
	jobs := make(chan job)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for j := range jobs {
				name := eval.Article(j.in)
				out := filepath.Join(dir, j.format, name+"."+j.format)
				args := []string{"--quiet", j.in, "-o", out}
				if j.format == "html" {
					args = []string{"--quiet", j.in, "-t", "html"}
				}
				data, err := exec.CommandContext(t.Context(), pandoc, args...).Output()
				if err == nil && j.format == "html" {
					err = os.WriteFile(out, htmlPage(j.in, data), 0o644)
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("pandoc %s to %s: %w", j.in, j.format, err):
					default:
					}
				}
			}
		})
	}
	for _, a := range articles {
		for _, f := range []string{"html", "docx", "odt", "epub", "pptx"} {
			jobs <- job{a, f}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// htmlPage wraps pandoc's HTML of an article in a page titled with the
// article's first line (its "# Title").
func htmlPage(article string, body []byte) []byte {
	title := eval.Article(article)
	if data, err := os.ReadFile(article); err == nil {
		first, _, _ := strings.Cut(string(data), "\n")
		title = strings.TrimPrefix(first, "# ")
	}
	return fmt.Appendf(nil, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n%s</body></html>\n", html.EscapeString(title), body)
}

// printPDFs prints every page of htmlDir to a PDF in pdfDir with headless
// Chromium, as its --print-to-pdf does: Letter paper, its default margins,
// and its running header (date, title) and footer (address, page "N/M").
func printPDFs(t *testing.T, chromium, htmlDir, pdfDir string) {
	if err := os.Mkdir(pdfDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(htmlDir, "*.html"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in %s: %v", htmlDir, err)
	}
	ctx, cancel := chromiumtest.Context(t, chromium, 5*time.Minute)
	defer cancel()
	for _, p := range pages {
		var pdf []byte
		err := chromedp.Run(ctx,
			chromedp.Navigate("file://"+p),
			chromedp.ActionFunc(func(ctx context.Context) error {
				var err error
				pdf, _, err = page.PrintToPDF().WithDisplayHeaderFooter(true).Do(ctx)
				return err
			}))
		if err != nil {
			t.Fatalf("print %s: %v", p, err)
		}
		out := filepath.Join(pdfDir, strings.TrimSuffix(filepath.Base(p), ".html")+".pdf")
		if err := os.WriteFile(out, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// indexFolder indexes a folder with cite's readers as cite index has them
// (PDFs read by uninterruptible pdfium) and the hash embedder into a
// temporary index.
func indexFolder(t *testing.T, dir string) (*index.Store, *search.Searcher) {
	t.Helper()
	st, err := index.Open(t.Context(), t.TempDir(), index.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	emb, _ := embed.New("hash", embed.Config{})
	ix, err := ingest.New(t.Context(), st, ingest.Options{Embedder: emb, Readers: documentReaders(&pdf.Reader{Uninterruptible: true})})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := ix.Index(t.Context(), dir)
	if err != nil {
		t.Fatalf("index %s: %v", dir, err)
	}
	if stats.Failed > 0 || stats.Skipped > 0 {
		t.Fatalf("index %s: %+v", dir, stats)
	}
	s, err := search.New(t.Context(), st, emb)
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

// pageOracle reads PDFs' pages with poppler's pdftotext, one page a run
// (-f N -l N), remembering them.
type pageOracle struct {
	bin   string
	pages map[string]string // "path\x00N" -> the page's text
}

func (o *pageOracle) page(ctx context.Context, path string, n int) (string, error) {
	key := path + "\x00" + strconv.Itoa(n)
	if s, ok := o.pages[key]; ok {
		return s, nil
	}
	out, err := exec.CommandContext(ctx, o.bin, "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), path, "-").Output()
	if err != nil {
		return "", fmt.Errorf("pdftotext -f %d -l %d %s: %w", n, n, path, err)
	}
	o.pages[key] = string(out)
	return string(out), nil
}

// holds reports whether the pages a PDF hit names hold its text by
// pdftotext: read in order, the hit's words are on its first page, then on
// the pages after it up to its last, each page named holding some of them
// (a word pdftotext joined across a line-end hyphen, "gold-" "themed" as
// "goldthemed", counts as on the page).
func (o *pageOracle) holds(ctx context.Context, h search.Hit) (bool, string, error) {
	first, last := h.Page, max(h.PageEnd, h.Page)
	if first < 1 {
		return false, "no page", nil
	}
	pages := map[int]map[string]bool{}
	for n := first; n <= last; n++ {
		text, err := o.page(ctx, h.Document.Path, n)
		if err != nil {
			return false, "", err
		}
		pages[n] = map[string]bool{}
		for _, w := range eval.Words(text) {
			pages[n][w] = true
		}
	}
	words := eval.Words(h.Text)
	on := func(n, i int) bool {
		set, w := pages[n], words[i]
		return set[w] || i+1 < len(words) && set[w+words[i+1]] || i > 0 && set[words[i-1]+w]
	}
	n := first
	for i := range words {
		for n <= last && !on(n, i) {
			n++
		}
		if n > last {
			return false, fmt.Sprintf("word %d, %q, is not on pages %d-%d after the words before it", i+1, words[i], first, last), nil
		}
		if i == 0 && n != first {
			return false, fmt.Sprintf("its first word, %q, is not on page %d", words[0], first), nil
		}
	}
	if n != last {
		return false, fmt.Sprintf("its words end on page %d, not %d", n, last), nil
	}
	return true, "", nil
}
