package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// grayTIFF returns an uncompressed TIFF of pages blank 8×8 grey pages.
func grayTIFF(pages int) []byte {
	le := binary.LittleEndian
	b := []byte("II*\x00\x00\x00\x00\x00")
	next := 4
	for range pages {
		pix := len(b)
		b = append(b, bytes.Repeat([]byte{0xff}, 64)...)
		le.PutUint32(b[next:], uint32(len(b)))
		entries := [][3]uint32{{256, 4, 8}, {257, 4, 8}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
			{273, 4, uint32(pix)}, {277, 3, 1}, {278, 4, 8}, {279, 4, 64}}
		b = le.AppendUint16(b, uint16(len(entries)))
		for _, e := range entries {
			b = le.AppendUint16(b, uint16(e[0]))
			b = le.AppendUint16(b, uint16(e[1]))
			b = le.AppendUint32(b, 1)
			b = le.AppendUint32(b, e[2])
		}
		next = len(b)
		b = le.AppendUint32(b, 0)
	}
	return b
}

// maxPagesFolder writes a folder holding report.pdf (3 pages), a TIFF of 3
// pages and a text file, and returns it.
func maxPagesFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pdfData, err := os.ReadFile(filepath.Join(pdfFixtures, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"report.pdf": pdfData, "scans.tif": grayTIFF(3), "small.txt": []byte("A few words on lighthouses.\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestIndexMaxPages: a PDF or a TIFF of more pages than --max-pages is
// skipped, as a file over --max-size is, naming the file, its pages and
// the flag, and the rest of the run goes on (it failed, and the run exited
// 1).
func TestIndexMaxPages(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := maxPagesFolder(t)
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, "--max-pages", "2", dir)
	if code != 0 || !strings.Contains(out, "1 added, 0 updated, 0 unchanged, 2 skipped, 0 failed") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"report.pdf: too many pages: 3, the limit is 2 (--max-pages)",
		"scans.tif: too many pages: 3, the limit is 2 (--max-pages)",
	} {
		if !strings.Contains(errOut, "skipped "+filepath.Join(dir, want)) {
			t.Errorf("no %q in stderr:\n%s", want, errOut)
		}
	}
	// With the limit raised, the next run reads the PDF.
	code, out, errOut = cite(t, "index", "--index", idx, "--max-pages", "3", "--ocr", "never", dir)
	if code != 0 || !strings.Contains(out, "1 added") {
		t.Errorf("raised limit: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := cite(t, "serve", "--index", idx, "--max-pages", "0"); code != 2 || !strings.Contains(errOut, "--max-pages 0: want at least 1") {
		t.Errorf("serve --max-pages 0: exit %d\n%s", code, errOut)
	}
}

// TestServeMaxPages: cite serve --watch skips a PDF or TIFF over
// --max-pages as cite index does, logging it, and an upload of one is
// answered 422, skipped, naming the limit and the flag.
func TestServeMaxPages(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles pdfium (WebAssembly) on a machine without its cache")
	}
	dir := maxPagesFolder(t)
	idx := filepath.Join(t.TempDir(), "idx")
	cmd, out := startCite(t, "serve", "--watch", "--no-token", "--addr", "127.0.0.1:0", "--index", idx, "--max-pages", "2", dir)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var base string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "watching for changes") {
			base = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not watching within two minutes:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	log := out.String()
	for _, name := range []string{"report.pdf", "scans.tif"} {
		re := regexp.MustCompile(`watch: skipped" path=\S*` + regexp.QuoteMeta(name) + ` reason="too many pages: 3, the limit is 2 \(--max-pages\)"`)
		if !re.MatchString(log) {
			t.Errorf("%s: not logged as skipped, naming its pages and the flag:\n%s", name, log)
		}
	}
	if !strings.Contains(log, "added=1") {
		t.Errorf("the text file was not indexed:\n%s", log)
	}

	data, err := os.ReadFile(filepath.Join(dir, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "big.pdf")
	fw.Write(data)
	mw.Close()
	resp, err := http.Post(base+"/v1/documents", mw.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got struct {
		Files []struct{ Name, Outcome, Reason string }
	}
	json.Unmarshal(body, &got)
	if resp.StatusCode != http.StatusUnprocessableEntity || len(got.Files) != 1 || got.Files[0].Outcome != "skipped" ||
		got.Files[0].Reason != "too many pages: 3, the limit is 2 (cite serve --max-pages)" {
		t.Errorf("upload of a PDF over the limit: %d %s", resp.StatusCode, body)
	}
}

// TestIndexLargePicture: a picture whose page is over 64 megapixels (a
// WebP cwebp made of a white 9000 × 8000 page, a TIFF whose header says
// 9000 × 8000) is skipped, not failed, naming the file, its size, the
// limit and what to do, and the run goes on (it failed, and the run
// exited 1). Its pixels are not decoded.
func TestIndexLargePicture(t *testing.T) {
	dir := t.TempDir()
	webp, err := os.ReadFile(filepath.Join(pdfFixtures, "large.webp"))
	if err != nil {
		t.Fatal(err)
	}
	tif := grayTIFF(1)
	le := binary.LittleEndian
	dirOff := le.Uint32(tif[4:])
	le.PutUint32(tif[dirOff+2+8:], 9000)    // ImageWidth
	le.PutUint32(tif[dirOff+2+12+8:], 8000) // ImageLength
	for name, data := range map[string][]byte{"large.webp": webp, "scan.tif": tif, "small.txt": []byte("A few words on lighthouses.\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, dir)
	if code != 0 || !strings.Contains(out, "1 added, 0 updated, 0 unchanged, 2 skipped, 0 failed") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	for _, name := range []string{"large.webp", "scan.tif"} {
		want := "skipped " + filepath.Join(dir, name) + ": too large to read by OCR: 9000 × 8000 pixels, over the limit of 64 megapixels (8192 × 8192); scale it down to read it"
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in stderr:\n%s", want, errOut)
		}
	}
}
