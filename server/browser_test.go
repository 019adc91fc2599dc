package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/internal/chromiumtest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

// TestBrowser drives the chat page in real headless Chromium, on a server
// with a token: without a login the page is the login form; the login URL
// logs in (and leaves the address without the token); it asks a question,
// waits for the streamed answer, and checks the tool status, the
// superscript citations and the reference list in the DOM, that a
// citation opens its passage with the sentence highlighted, and that
// "Open the source" shows the document with the passage marked; then it
// uploads a file into the conversation and asks about it, and the answer
// cites the uploaded document (its passages follow the corpus's); then it
// reloads the page: both turns come back with live citations and their
// reference lists, and the uploaded document's source opens. No request
// of the page fails but the first, the login form's 401.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromiumtest.Bin(t)
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"checkpoint"}`}}},
		{Text: []string{"A checkpoint copies the committed pages back into the database file [do", "c:1]."}, Pace: 5 * time.Millisecond},
		// The passages given are the corpus's, then the session
		// document's: citing them all cites the upload.
		// Code is no citation: `$hz[1]` stays text; nor is an index the
		// model wrote outside code, hz[1], nor link text, [1](./x).
		{Text: []string{"It hums at forty-two hertz, `$hz[1]`, hz[1], [1](./x) [doc:1][doc:2][doc:3][doc:4][doc:5][doc:6][doc:7]."}},
	}})
	upload := filepath.Join(t.TempDir(), "zorbulator.md")
	if err := os.WriteFile(upload, []byte("# Zorbulator notes\n\nThe zorbulator hums at forty-two hertz when the hive is calm.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	token, err := server.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := start(t, m, server.Config{Token: token})

	ctx, cancel := chromiumtest.Context(t, bin, 90*time.Second, chromedp.WindowSize(412, 915)) // a phone-sized window
	defer cancel()
	// Every response the page gets, but the first.
	var mu sync.Mutex
	var failed []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventResponseReceived); ok && e.Response.Status >= 400 {
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%d %s", e.Response.Status, e.Response.URL))
			mu.Unlock()
		}
	})

	var login, address, answerText, status, refs, passage, source, sourceNote, uploads, answer2, refs2 string
	var reloaded1, reloaded2, refsAfter1, refsAfter2, uploadSource string
	var sups, sups2, supsAfter1, supsAfter2 int
	var shot, loginShot, sourceShot []byte
	err = chromedp.Run(ctx,
		network.Enable(),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible("#token", chromedp.ByID),
		chromedp.Text("#login", &login, chromedp.ByID),
		chromedp.CaptureScreenshot(&loginShot),
		chromedp.ActionFunc(func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if len(failed) != 1 || !strings.HasPrefix(failed[0], "401 ") {
				return fmt.Errorf("the login form's responses: %q", failed)
			}
			failed = nil
			return nil
		}),
		chromedp.Navigate(ts.URL+"/?token="+token),
		chromedp.WaitVisible("#question", chromedp.ByID),
		chromedp.Location(&address),
		chromedp.SendKeys("#question", "how do checkpoints work", chromedp.ByID),
		chromedp.Click("#send", chromedp.ByID),
		chromedp.WaitVisible(`article[data-done="true"]`, chromedp.ByQuery),
		chromedp.Text(".a", &answerText, chromedp.ByQuery),
		chromedp.Text(".status", &status, chromedp.ByQuery),
		chromedp.Text("ol.refs", &refs, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll(".a sup a.cite").length`, &sups),
		chromedp.Click(".a sup a.cite", chromedp.ByQuery),
		chromedp.WaitVisible("#passage", chromedp.ByID),
		chromedp.Text("#passage-text", &passage, chromedp.ByID),
		chromedp.Click("#passage-open", chromedp.ByID),
		chromedp.WaitVisible("#source-cited", chromedp.ByID),
		chromedp.Text("#source-cited", &source, chromedp.ByID),
		chromedp.Text("#passage-note", &sourceNote, chromedp.ByID, chromedp.AtLeast(0)),
		chromedp.CaptureScreenshot(&sourceShot),
		chromedp.Click("#passage form button", chromedp.ByQuery),
		chromedp.SetUploadFiles("#file", []string{upload}, chromedp.ByID),
		chromedp.Click("#upload-send", chromedp.ByID),
		chromedp.WaitVisible(`#uploads li[data-outcome="added"]`, chromedp.ByQuery),
		chromedp.Text("#uploads", &uploads, chromedp.ByID),
		chromedp.SendKeys("#question", "what does the zorbulator hum at", chromedp.ByID),
		chromedp.Click("#send", chromedp.ByID),
		chromedp.WaitVisible(`#t2[data-done="true"]`, chromedp.ByQuery),
		chromedp.Text("#t2 .a", &answer2, chromedp.ByQuery),
		chromedp.Text("#t2 ol.refs", &refs2, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#t2 .a sup a.cite").length`, &sups2),
		chromedp.FullScreenshot(&shot, 100), // quality 100 makes a PNG
		// The conversation survives a reload, citations and all.
		chromedp.Reload(),
		chromedp.WaitVisible(`#t2[data-done="true"] ol.refs li`, chromedp.ByQuery),
		chromedp.Text("#t1 .a", &reloaded1, chromedp.ByQuery),
		chromedp.Text("#t2 .a", &reloaded2, chromedp.ByQuery),
		chromedp.Text("#t1 ol.refs", &refsAfter1, chromedp.ByQuery),
		chromedp.Text("#t2 ol.refs", &refsAfter2, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#t1 .a sup a.cite").length`, &supsAfter1),
		chromedp.Evaluate(`document.querySelectorAll("#t2 .a sup a.cite").length`, &supsAfter2),
		// The uploaded document's citation opens its source.
		chromedp.Evaluate(`[...document.querySelectorAll("#t2 ol.refs a")].find((a) => a.textContent === "Zorbulator notes").click()`, nil),
		chromedp.WaitVisible("#passage", chromedp.ByID),
		chromedp.Click("#passage-open", chromedp.ByID),
		chromedp.WaitVisible("#source-cited", chromedp.ByID),
		chromedp.Text("#source-view", &uploadSource, chromedp.ByID),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(login, "Token") || strings.Contains(address, "token") {
		t.Errorf("login form %q; address after the login %q", login, address)
	}
	if !strings.Contains(answerText, "database file [1].") || strings.Contains(answerText, "[doc:") || sups != 1 {
		t.Errorf("answer %q, %d superscripts", answerText, sups)
	}
	if !strings.Contains(status, "search_data_sources: OK") {
		t.Errorf("status %q", status)
	}
	if !strings.Contains(refs, "Write-Ahead Logging in SQLite") {
		t.Errorf("references %q", refs)
	}
	if !strings.Contains(passage, "checkpoint") {
		t.Errorf("passage %q", passage)
	}
	if !strings.Contains(source, "checkpoint") || sourceNote != "" {
		t.Errorf("the source's cited passage %q, note %q", source, sourceNote)
	}
	if !strings.Contains(uploads, "zorbulator.md: ready") {
		t.Errorf("uploads %q", uploads)
	}
	if !strings.Contains(answer2, "forty-two hertz, `$hz[1]`, hz[1], [1](./x) [1]") || !strings.Contains(refs2, "Zorbulator notes") || sups2 != strings.Count(answer2, "[")-3 {
		t.Errorf("answer about the upload %q, %d superscripts, references %q", answer2, sups2, refs2)
	}
	if reloaded1 != answerText || reloaded2 != answer2 || supsAfter1 != sups || supsAfter2 != sups2 || refsAfter1 != refs || refsAfter2 != refs2 {
		t.Errorf("after a reload: answers %q and %q, %d and %d superscripts, references %q and %q", reloaded1, reloaded2, supsAfter1, supsAfter2, refsAfter1, refsAfter2)
	}
	if !strings.Contains(uploadSource, "# Zorbulator notes") {
		t.Errorf("the uploaded document's source %q", uploadSource)
	}
	mu.Lock()
	if len(failed) > 0 {
		t.Errorf("failed requests: %q", failed)
	}
	mu.Unlock()
	dir := os.Getenv("CITE_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for name, png := range map[string][]byte{"chat.png": shot, "login.png": loginShot, "source.png": sourceShot} {
		out := filepath.Join(dir, name)
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", out)
	}
}

// TestBrowserCutShort: the chat page warns, under the answer, when the
// answer is missing because the model still asked for tool calls once it
// could make no more, and when the model's output limit cut it short; a
// whole answer gets no warning. Before, the page showed an empty answer,
// or a cut one, and nothing else. Reloaded, it shows the same warnings.
func TestBrowserCutShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromiumtest.Bin(t)
	call := []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"wal"}`}}
	srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{
		// At most one tool call: the second is past the limit.
		{ToolCalls: call}, {ToolCalls: call},
		{Text: []string{"WAL keeps a log [doc:1] and then"}, Finish: "length"},
		{Text: []string{"WAL keeps a log [doc:1]."}},
	}})
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	ts, _, _ := startEngine(t, t.TempDir(), true, m, server.Config{}, answer.Config{MaxToolCalls: 1})

	ctx, cancel := chromiumtest.Context(t, bin, 60*time.Second, chromedp.WindowSize(412, 915))
	defer cancel()
	ask := func(n int, q string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.SendKeys("#question", q, chromedp.ByID),
			chromedp.Click("#send", chromedp.ByID),
			chromedp.WaitVisible(fmt.Sprintf(`#t%d[data-done="true"]`, n), chromedp.ByQuery),
		}
	}
	// Each turn's warning, "" when it is hidden.
	const warnings = `[...document.querySelectorAll(".turn")].map((t) => { const w = t.querySelector(".warn"); return w.hidden ? "" : w.textContent; })`
	var got []string
	var answer1, answer2 string
	var shot []byte
	err := chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible("#question", chromedp.ByID),
		ask(1, "what is WAL"),
		ask(2, "what is WAL mode"),
		ask(3, "what is WAL mode in SQLite"),
		chromedp.Text("#t1 .a", &answer1, chromedp.ByQuery, chromedp.AtLeast(0)),
		chromedp.Text("#t2 .a", &answer2, chromedp.ByQuery),
		chromedp.Evaluate(warnings, &got),
		chromedp.FullScreenshot(&shot, 100),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"The model gave no answer: it asked for more tool calls when it could make no more.",
		"The answer is cut short: the model reached its output limit.",
		"",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	if answer1 != "" || !strings.Contains(answer2, "and then") {
		t.Errorf("answers %q and %q", answer1, answer2)
	}
	// Reloaded, the page shows the session's turns with the same warnings
	// (it showed none: the session kept no stop reason).
	var reloaded []string
	err = chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(`#t3[data-done="true"]`, chromedp.ByQuery),
		chromedp.Evaluate(warnings, &reloaded),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reloaded, want) {
		t.Errorf("warnings after a reload %q, want %q", reloaded, want)
	}
	dir := os.Getenv("CITE_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	out := filepath.Join(dir, "cut-short.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}
