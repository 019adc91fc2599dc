package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/chromiumtest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/server"
)

// pdfStub claims PDFs and gives them one page of text: the server serves
// the original file, whatever its reader made of it.
type pdfStub struct{}

func (pdfStub) Sniff(data []byte) (string, bool) {
	return "pdf", bytes.HasPrefix(data, []byte("%PDF-"))
}

func (pdfStub) Read(context.Context, string, []byte) (*normalize.Document, error) {
	var x normalize.Extracted
	x.Page(1)
	x.Paragraph("Lighthouses were built along dangerous coastlines.")
	return x.Document("Lighthouses"), nil
}

// viewerState reads the page count and the current page out of Chromium's
// PDF viewer (its toolbar, inside shadow roots).
const viewerState = `(function() {
	let out = {};
	(function walk(n) {
		if (n.shadowRoot) walk(n.shadowRoot);
		for (const k of n.children || []) walk(k);
		if (n.id === "pagelength") out.length = n.textContent.trim();
		if (n.id === "pageSelector") out.page = n.value;
	})(document);
	return (out.page || "") + "/" + (out.length || "");
})()`

// TestBrowserPDFOriginal opens a PDF's original, as a reference's link
// does (/v1/documents/{id}/source?original=1#page=2), in real headless
// Chromium: it is shown in Chromium's PDF viewer at page 2, not
// downloaded, though it is served with the Content-Security-Policy
// sandbox every source gets (which keeps an HTML original from running
// script on cite's origin).
func TestBrowserPDFOriginal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromiumtest.Bin(t)
	ts, _, st := startAt(t, t.TempDir(), false, nil, server.Config{})
	docs := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "normalize", "pdf", "testdata", "report.pdf")) // 3 pages
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "report.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: "docs", Readers: []ingest.Reader{pdfStub{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	d, err := st.Document(t.Context(), "docs", filepath.Join(docs, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := chromiumtest.Context(t, bin, 3*time.Minute)
	defer cancel()
	downloads := make(chan string, 1)
	chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadWillBegin); ok {
			select {
			case downloads <- e.URL:
			default:
			}
		}
	})
	var contentType, state string
	err = chromedp.Run(ctx,
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorDeny).WithEventsEnabled(true),
		chromedp.Navigate(ts.URL+"/v1/documents/"+d.ID+"/source?original=1#page=2"),
		chromedp.Evaluate(`document.contentType`, &contentType),
		// The viewer is an extension's frame: attach to it once it is
		// there, and poll it until it has loaded the document.
		chromedp.ActionFunc(func(ctx context.Context) error {
			var fctx context.Context
			for {
				select {
				case u := <-downloads:
					return fmt.Errorf("downloaded %s instead of showing it", u)
				case <-ctx.Done():
					return fmt.Errorf("the PDF viewer did not load the document (last seen %q): %w", state, ctx.Err())
				case <-time.After(250 * time.Millisecond):
				}
				if fctx == nil {
					targets, err := chromedp.Targets(ctx)
					if err != nil {
						return err
					}
					for _, x := range targets {
						if x.Type == "iframe" && strings.HasPrefix(x.URL, "chrome-extension://") {
							var cancel context.CancelFunc
							fctx, cancel = chromedp.NewContext(ctx, chromedp.WithTargetID(x.TargetID))
							defer cancel()
						}
					}
					continue
				}
				if err := chromedp.Run(fctx, chromedp.Evaluate(viewerState, &state)); err != nil {
					return err
				}
				if state == "2/3" {
					return nil
				}
			}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "application/pdf" || state != "2/3" {
		t.Errorf("shown as %q, viewer at page/pages %q; want application/pdf at 2/3", contentType, state)
	}
}

// TestBrowserSourceCharset: the chat page's source view shows a text file
// saved as UTF-16 (Notepad's "Unicode") or windows-1252 as cite read it,
// its cited passage marked by its byte span, not decoded as UTF-8 (NULs
// between the letters, U+FFFD for accents); its link to the file on its
// own opens a picture as the picture.
func TestBrowserSourceCharset(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromiumtest.Bin(t)
	ts, _, st := startAt(t, t.TempDir(), false, nil, server.Config{})
	docs := t.TempDir()
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range "Lamp oil: paraffin, café.\n" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	files := map[string][]byte{
		"unicode.txt": utf16,
		"western.txt": []byte("The keeper wrote: \x93fog signal\x94 needs leather, caf\xe9.\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(docs, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := ingest.New(t.Context(), st, ingest.Options{Source: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromiumtest.Context(t, bin, 2*time.Minute)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible("#question", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	// The link to "the file on its own" is the original for a picture
	// (the browser shows it) and a paged document; else the text.
	for _, tt := range []struct{ ref, want string }{
		{`{"document_id": "0123456789abcdef", "source": "/d/photo of a page.JPG"}`, "/v1/documents/0123456789abcdef/source?original=1"},
		{`{"document_id": "0123456789abcdef", "source": "/d/scan.tiff", "page": 2}`, "/v1/documents/0123456789abcdef/source?original=1#page=2"},
		{`{"document_id": "0123456789abcdef", "source": "/d/budget.xlsx"}`, "/v1/documents/0123456789abcdef/source"},
		{`{"document_id": "0123456789abcdef", "source": "/d/png-notes.md"}`, "/v1/documents/0123456789abcdef/source"},
	} {
		var got string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`sourceURL(`+tt.ref+`, true)`, &got)); err != nil || got != tt.want {
			t.Errorf("sourceURL(%s) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		name, want, cited string
	}{
		{"unicode.txt", "Lamp oil: paraffin, café.", "Lamp oil: paraffin, café."},
		{"western.txt", "The keeper wrote: “fog signal” needs leather, café.", "The keeper wrote: “fog signal” needs leather, café."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := st.Document(t.Context(), "docs", filepath.Join(docs, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := st.Chunks(t.Context(), d.ID)
			if err != nil || len(chunks) != 1 {
				t.Fatalf("%d chunks, %v", len(chunks), err)
			}
			c := chunks[0]
			ref, _ := json.Marshal(map[string]any{"document_id": d.ID, "span": map[string]int{"start": c.SourceStart, "end": c.SourceEnd}, "passage": c.Text})
			var view, cited string
			err = chromedp.Run(ctx,
				chromedp.Evaluate(`document.getElementById("source-view").textContent = ""; openRef = `+string(ref)+`; showSource(); 0`, nil),
				chromedp.Poll(`document.getElementById("source-cited") !== null`, nil),
				chromedp.Evaluate(`document.getElementById("source-view").textContent`, &view),
				chromedp.Evaluate(`document.getElementById("source-cited").textContent`, &cited),
			)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(view, tt.want) || strings.TrimSpace(cited) != tt.cited {
				t.Errorf("source view %q, cited %q; want %q", view, cited, tt.want)
			}
		})
	}
}
