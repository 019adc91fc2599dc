package main

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// documents is a folder of the documents a new user has: a PDF of four
// pages printed by Chromium, a Word file, an OpenDocument text, an e-book
// and a slide deck made by pandoc (testdata/documents/make.sh).
const documents = "../../testdata/documents"

// newUserFolder copies the documents (not their sources) into a folder
// of the user's.
func newUserFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "My Documents")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rivers.pdf", "lighthouse.docx", "garden.odt", "clockmaker.epub", "volcano.pptx"} {
		data, err := os.ReadFile(filepath.Join(documents, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// askReference is a reference of cite ask --json.
type askReference struct {
	Source    string `json:"source"`
	Link      string `json:"link"`
	Page      int    `json:"page"`
	PageEnd   int    `json:"page_end"`
	Slide     int    `json:"slide"`
	SlideEnd  int    `json:"slide_end"`
	Quote     string `json:"quote"`
	QuoteSpan *struct {
		Start int `json:"start"`
		End   int `json:"end"`
	} `json:"quote_span"`
	DocumentID string `json:"document_id"`
}

// TestNewUser: a new user points cite index at a folder of PDFs, Word
// files, slide decks and e-books and gets answers whose citations open the
// right page. Each question's answer (cite ask --json, offline and
// extractive) cites the file that holds it; a PDF's reference names the
// page its quote is on, which poppler's pdftotext (an independent reader)
// finds on that page, and links to file:///…#page=N; a slide deck's names
// the slide, which holds the quote in the deck's own XML, and links to
// #slide=N; every quote is exactly the text at its quote_span in the
// extracted text cite show prints.
func TestNewUser(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := newUserFolder(t)
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, dir)
	if code != 0 || !strings.Contains(out, "5 files: 5 added") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `left out the running header "Rivers of Europe" on pages 1–4`) {
		t.Errorf("index does not say which running lines it left out:\n%s", errOut)
	}
	tests := []struct {
		question, file string
		page, slide    int
		quote          string // a part of the quote
	}{
		{"how many countries does the Danube flow through", "rivers.pdf", 1, 0, "ten countries"},
		{"who feared the Lorelei rock", "rivers.pdf", 2, 0, "Boatmen once feared the Lorelei rock"},
		{"which chateau has a double-helix staircase", "rivers.pdf", 3, 0, "double-helix staircase"},
		{"what protects London from storm surges", "rivers.pdf", 4, 0, "Thames Barrier"},
		{"when did the keeper trim the wick", "lighthouse.docx", 0, 0, "trimmed the wick at midnight"},
		{"when should lettuce be covered with fleece", "garden.odt", 0, 0, "Cover the lettuce with fleece"},
		{"what did the clockmaker of Lindau carry", "clockmaker.epub", 0, 0, "whale oil"},
		{"what do seismometers detect", "volcano.pptx", 0, 4, "harmonic tremor"},
	}
	texts := map[string]string{} // cite show --json's text, by document id
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.question, func(t *testing.T) {
			code, out, errOut := cite(t, "ask", "--index", idx, "--json", tt.question)
			if code != 0 {
				t.Fatalf("ask: exit %d\n%s%s", code, out, errOut)
			}
			var res struct {
				Text       string         `json:"text"`
				References []askReference `json:"references"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("ask --json: %v\n%s", err, out)
			}
			var ref *askReference
			for i, r := range res.References {
				if strings.Contains(r.Quote, tt.quote) {
					ref = &res.References[i]
					break
				}
			}
			if ref == nil {
				t.Fatalf("no reference quotes %q:\n%s", tt.quote, out)
			}
			path := filepath.Join(dir, tt.file)
			if ref.Source != path {
				t.Errorf("source %q, want %q", ref.Source, path)
			}
			link := (&url.URL{Scheme: "file", Path: path}).String()
			switch {
			case tt.page > 0:
				link += fmt.Sprintf("#page=%d", tt.page)
				if ref.Page != tt.page {
					t.Errorf("page %d, want %d", ref.Page, tt.page)
				}
				if text, ok := pdftotext(t, path, ref.Page); ok && !strings.Contains(strings.Join(strings.Fields(text), " "), ref.Quote) {
					t.Errorf("pdftotext finds no %q on page %d:\n%s", ref.Quote, ref.Page, text)
				}
			case tt.slide > 0:
				link += fmt.Sprintf("#slide=%d", tt.slide)
				if ref.Slide != tt.slide {
					t.Errorf("slide %d, want %d", ref.Slide, tt.slide)
				}
				if xml := zipEntry(t, path, fmt.Sprintf("ppt/slides/slide%d.xml", ref.Slide)); !strings.Contains(xml, tt.quote) {
					t.Errorf("slide %d of the deck does not hold %q", ref.Slide, tt.quote)
				}
			default:
				if ref.Page != 0 || ref.Slide != 0 {
					t.Errorf("page %d, slide %d in a document without pages", ref.Page, ref.Slide)
				}
			}
			if ref.Link != link {
				t.Errorf("link %q, want %q", ref.Link, link)
			}
			text, ok := texts[ref.DocumentID]
			if !ok {
				_, out, _ := cite(t, "show", "--index", idx, "--json", ref.DocumentID)
				var doc struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("show --json: %v\n%s", err, out)
				}
				text, texts[ref.DocumentID] = doc.Text, doc.Text
			}
			if q := ref.QuoteSpan; q == nil || q.End > len(text) || text[q.Start:q.End] != ref.Quote {
				t.Errorf("quote_span %+v is not the quote %q in the extracted text", q, ref.Quote)
			}
		})
	}
}

// pdftotext returns the text poppler's pdftotext reads on a page of the
// PDF; ok is false when it is not installed.
func pdftotext(t *testing.T, pdf string, page int) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Log("pdftotext is not installed (Debian: apt-get install poppler-utils): pages not checked against it")
		return "", false
	}
	n := fmt.Sprint(page)
	out, err := exec.Command(bin, "-f", n, "-l", n, pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out), true
}

// zipEntry returns an entry of a zip file.
func zipEntry(t *testing.T, file, name string) string {
	t.Helper()
	z, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	f, err := z.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestServeDocuments: cite serve's page names the formats its upload form
// takes, and uploads of each format (to a data source and to a
// conversation) are read as cite index reads them: their answers cite the
// page or slide, the notes of their reader come back with the upload, and
// /v1/documents/{id}/source serves the extracted text the spans are of
// (?original=1 the file itself).
func TestServeDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := newUserFolder(t)
	idx := filepath.Join(t.TempDir(), "idx")
	if code, out, errOut := cite(t, "index", "--index", idx, filepath.Join(documents, "garden.md")); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--no-token", "--addr", "127.0.0.1:0", "--index", idx}, &env{stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve: exit %d\n%s", code, stderr.String())
		}
	})
	var base string
	for deadline := time.Now().Add(time.Minute); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not listening within a minute:\n%s", stderr.String())
		}
	}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, string(data)
	}
	post := func(path, ctype string, body io.Reader) string {
		t.Helper()
		resp, err := http.Post(base+path, ctype, body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, data)
		}
		return string(data)
	}

	_, page := get("/")
	if !strings.Contains(page, "Add documents to this conversation (PDF, Word, OpenDocument, EPUB, PowerPoint, Excel, Markdown, HTML (a saved page too), text or pictures of pages (by OCR))") ||
		!strings.Contains(page, `accept=".pdf,.docx,.odt,.epub,.pptx,.doc,.ppt,.xlsx,.ods,.xls,.md,`) {
		t.Errorf("the page's upload form does not name the formats:\n%s", page)
	}

	upload := func(path string, files ...string) []struct {
		Name     string   `json:"name"`
		Outcome  string   `json:"outcome"`
		Notes    []string `json:"notes"`
		Document struct {
			ID     string `json:"id"`
			Format string `json:"format"`
		} `json:"document"`
	} {
		t.Helper()
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			fw, _ := mw.CreateFormFile("file", f)
			fw.Write(data)
		}
		mw.Close()
		out := post(path, mw.FormDataContentType(), &form)
		var res struct {
			Files []struct {
				Name     string   `json:"name"`
				Outcome  string   `json:"outcome"`
				Notes    []string `json:"notes"`
				Document struct {
					ID     string `json:"id"`
					Format string `json:"format"`
				} `json:"document"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Files) != len(files) {
			t.Fatalf("upload: %v\n%s", err, out)
		}
		return res.Files
	}
	formats := map[string]string{"rivers.pdf": "pdf", "lighthouse.docx": "docx", "garden.odt": "odt", "clockmaker.epub": "epub", "volcano.pptx": "pptx"}
	ids := map[string]string{}
	for _, f := range upload("/v1/documents?source=mine", "rivers.pdf", "lighthouse.docx", "garden.odt", "clockmaker.epub", "volcano.pptx") {
		if f.Outcome != "added" || f.Document.Format != formats[f.Name] {
			t.Errorf("%s: %s as %q, want added as %s", f.Name, f.Outcome, f.Document.Format, formats[f.Name])
		}
		ids[f.Name] = f.Document.ID
		if f.Name == "rivers.pdf" && !slices.Contains(f.Notes, `left out the running header "Rivers of Europe" on pages 1–4`) {
			t.Errorf("the PDF's upload does not say what its reader left out: %q", f.Notes)
		}
	}

	ask := func(body map[string]any) askReference {
		t.Helper()
		b, _ := json.Marshal(body)
		out := post("/v1/ask", "application/json", bytes.NewReader(b))
		var res struct {
			References []askReference `json:"references"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.References) == 0 {
			t.Fatalf("ask: %v\n%s", err, out)
		}
		return res.References[0]
	}
	ref := ask(map[string]any{"question": "which chateau has a double-helix staircase", "sources": []string{"mine"}})
	if ref.Page != 3 || !strings.HasSuffix(ref.Link, "/rivers.pdf#page=3") || !strings.Contains(ref.Quote, "double-helix") {
		t.Errorf("the uploaded PDF's reference: page %d, link %q, quote %q", ref.Page, ref.Link, ref.Quote)
	}
	resp, text := get("/v1/documents/" + ids["rivers.pdf"] + "/source")
	if resp.Header.Get("X-Cite-Source") != "extracted-text" || ref.QuoteSpan == nil || ref.QuoteSpan.End > len(text) || text[ref.QuoteSpan.Start:ref.QuoteSpan.End] != ref.Quote {
		t.Errorf("source of the PDF (%s): the quote_span %+v is not the quote %q in:\n%s", resp.Header.Get("X-Cite-Source"), ref.QuoteSpan, ref.Quote, text)
	}
	resp, original := get("/v1/documents/" + ids["rivers.pdf"] + "/source?original=1")
	if want, _ := os.ReadFile(filepath.Join(dir, "rivers.pdf")); resp.Header.Get("Content-Type") != "application/pdf" || original != string(want) {
		t.Errorf("?original=1: %s, %d bytes, want the PDF's %d", resp.Header.Get("Content-Type"), len(original), len(want))
	}
	for _, f := range []string{"lighthouse.docx", "garden.odt", "clockmaker.epub", "volcano.pptx"} {
		if resp, text := get("/v1/documents/" + ids[f] + "/source"); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || text == "" {
			t.Errorf("source of %s: %d %s %q", f, resp.StatusCode, resp.Header.Get("Content-Type"), text)
		}
	}

	// A conversation's uploads.
	var sess struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(post("/v1/sessions", "application/json", strings.NewReader("{}"))), &sess); err != nil {
		t.Fatal(err)
	}
	for _, f := range upload("/v1/sessions/"+sess.ID+"/documents", "volcano.pptx", "rivers.pdf") {
		if f.Outcome != "added" || f.Document.Format != formats[f.Name] {
			t.Errorf("session upload %s: %s as %q", f.Name, f.Outcome, f.Document.Format)
		}
	}
	ref = ask(map[string]any{"question": "what do seismometers detect", "session_id": sess.ID})
	if ref.Slide != 4 || !strings.HasSuffix(ref.Link, "/volcano.pptx#slide=4") {
		t.Errorf("the session's slide deck: slide %d, link %q", ref.Slide, ref.Link)
	}
}

// TestRepairDocuments damages an index of every format in two ways (the
// chunks of every document lost; pages of the database file overwritten
// with garbage) and runs cite check --repair: each document is read again
// from its file through its reader, with its pages and slides, so search
// finds page 3 of the PDF on page 3 and cite show marks the pages again.
func TestRepairDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := newUserFolder(t)
	for _, damage := range []string{"chunks lost", "pages of garbage"} {
		t.Run(damage, func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", dir); code != 0 {
				t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
			}
			db := filepath.Join(idx, "index.db")
			switch damage {
			case "chunks lost":
				conn, err := sql.Open("sqlite3", db)
				if err != nil {
					t.Fatal(err)
				}
				_, err = conn.Exec(`DELETE FROM chunks`)
				conn.Close()
				if err != nil {
					t.Fatal(err)
				}
			case "pages of garbage":
				f, err := os.OpenFile(db, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.WriteAt(bytes.Repeat([]byte{0xde, 0xad}, 4*4096), 5*4096)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			if code, out, _ := cite(t, "check", "--index", idx); code != 1 {
				t.Fatalf("check of the damaged index: exit %d, want 1\n%s", code, out)
			}
			code, out, errOut := cite(t, "check", "--index", idx, "--repair")
			if code != 0 || !strings.Contains(out, "re-read 5 of 5 documents") || !strings.HasSuffix(out, "ok\n") {
				t.Fatalf("check --repair: exit %d\n%s%s", code, out, errOut)
			}
			_, out, _ = cite(t, "docs", "--index", idx, "--json")
			for _, f := range []string{"pdf", "docx", "odt", "epub", "pptx"} {
				if !strings.Contains(out, `"format": "`+f+`"`) {
					t.Errorf("after repair, no document of format %s:\n%s", f, out)
				}
			}
			if _, out, _ := cite(t, "show", "--index", idx, filepath.Join(dir, "rivers.pdf")); !strings.Contains(out, "── page 3 ──\nThe Loire") ||
				!strings.Contains(out, `note: left out the running header "Rivers of Europe" on pages 1–4`) {
				t.Errorf("show after repair:\n%s", out)
			}
			if _, out, _ := cite(t, "show", "--index", idx, filepath.Join(dir, "volcano.pptx")); !strings.Contains(out, "── slide 4 ──\nMonitoring") {
				t.Errorf("show after repair:\n%s", out)
			}
			_, out, _ = cite(t, "ask", "--index", idx, "--json", "which chateau has a double-helix staircase")
			if !strings.Contains(out, `"page": 3`) || !strings.Contains(out, "rivers.pdf#page=3") {
				t.Errorf("ask after repair does not cite page 3:\n%s", out)
			}
		})
	}
}
