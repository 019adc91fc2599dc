package mhtml

import (
	"encoding/base64"
	"errors"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/cite-rag/cite/normalize"
)

// page is a saved page's HTML, as a browser writes it into the file.
const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bike repair guide</title>` +
	`<link rel="stylesheet" href="cid:css-1@mhtml.blink"><script>var tracker = 1;</script></head>` +
	`<body><h1>Fixing a flat tyre</h1><p>Patch the tube with a vulcanising patch — wait five minutes before refitting.</p>` +
	`<p>The recommended pressure for a road bike is between 80 and 100 psi.</p></body></html>`

func qp(s string) string {
	var b strings.Builder
	w := quotedprintable.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// message is a saved page as Chromium writes it ("Webpage, Single File"),
// with extra parameters and parts.
func message(params, parts string) string {
	return "From: <Saved by Blink>\r\nSnapshot-Content-Location: https://example.org/bike\r\n" +
		"Subject: =?utf-8?Q?Bike_repair_=E2=80=94_flat_tyres?=\r\nDate: Fri, 27 Nov 2026 16:21:00 -0000\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n\ttype=\"text/html\";\r\n\tboundary=\"----B--1----\"" + params + "\r\n\r\n\r\n" +
		parts + "------B--1------\r\n"
}

func part(typ, enc, id, body string) string {
	return "------B--1----\r\nContent-Type: " + typ + "\r\nContent-ID: <" + id + ">\r\nContent-Transfer-Encoding: " + enc +
		"\r\nContent-Location: https://example.org/" + id + "\r\n\r\n" + body + "\r\n\r\n"
}

func TestRead(t *testing.T) {
	css := part("text/css", "quoted-printable", "css-1@mhtml.blink", qp("body { margin: 0 auto; }"))
	frame := part("text/html", "quoted-printable", "frame-2@mhtml.blink", qp("<title>An ad</title><p>Buy a new bike today.</p>"))
	const want = "Fixing a flat tyre\n\nPatch the tube with a vulcanising patch — wait five minutes before refitting.\n\n" +
		"The recommended pressure for a road bike is between 80 and 100 psi."
	for _, tc := range []struct {
		name, file, title, text string
		err                     error
	}{
		{"Chromium, quoted-printable", message("", part("text/html", "quoted-printable", "frame-1@mhtml.blink", qp(page))+css+frame), "Bike repair guide", want, nil},
		{"base64", message("", part("text/html", "base64", "frame-1@mhtml.blink", base64.StdEncoding.EncodeToString([]byte(page)))+css), "Bike repair guide", want, nil},
		{"the start parameter names the root", message(";\r\n\tstart=\"<frame-1@mhtml.blink>\"", frame+css+part("text/html", "quoted-printable", "frame-1@mhtml.blink", qp(page))), "Bike repair guide", want, nil},
		{"a start that names no part: the first page", message(";\r\n\tstart=\"<nothing>\"", part("text/html", "quoted-printable", "frame-1@mhtml.blink", qp(page))+frame), "Bike repair guide", want, nil},
		{"no title: the subject", message("", part("text/html", "7bit", "f@x", "<p>Just a paragraph of the page.</p>")), "Bike repair — flat tyres", "Just a paragraph of the page.", nil},
		{"no page", message("", css), "", "", ErrDamaged},
		{"no boundary", strings.Replace(message("", css), "boundary=", "b=", 1), "", "", ErrDamaged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Sniff([]byte(tc.file)) {
				t.Fatal("not sniffed as MHTML")
			}
			d, err := Read([]byte(tc.file))
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if d.Title != tc.title || d.Text != tc.text {
				t.Errorf("title %q, text\n%q\nwant %q,\n%q", d.Title, d.Text, tc.title, tc.text)
			}
			// Spans are of the extracted text.
			if s, e := d.SourceSpan(0, len(d.Text)); s != 0 || e != len(d.Text) {
				t.Errorf("source span %d-%d, want 0-%d", s, e, len(d.Text))
			}
		})
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       bool
	}{
		{"an email with attachments", "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n", false},
		{"no MIME-Version", "Content-Type: multipart/related; boundary=x\r\n\r\n--x\r\n", false},
		{"Internet Explorer's .mht, LF line ends", "From: <Saved by Windows Internet Explorer 8>\nSubject: Page\nMIME-Version: 1.0\nContent-Type: multipart/related;\n\ttype=\"text/html\";\n\tboundary=\"----=_NextPart_000\"\n\n", true},
		{"Markdown", "# Notes\n\nContent-Type: multipart/related is a MIME type.\n", false},
		{"headers never end", "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=x\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sniff([]byte(tc.data)); got != tc.want {
				t.Errorf("Sniff = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzRead: any bytes sniffed as MHTML read into a document or fail with
// ErrDamaged, never panic, and the text's spans are its own.
func FuzzRead(f *testing.F) {
	f.Add(message("", part("text/html", "quoted-printable", "frame-1@mhtml.blink", qp(page))))
	f.Add(message("", part("text/html", "base64", "f@x", "PHA+aGk8L3A+")))
	f.Add(message(";\r\n\tstart=\"<f@x>\"", part("text/html", "7bit", "f@x", "<p>a</p>")))
	f.Fuzz(func(t *testing.T, data string) {
		if !Sniff([]byte(data)) {
			return
		}
		d, err := Read([]byte(data))
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("error %v is not ErrDamaged", err)
			}
			return
		}
		if s, e := d.SourceSpan(0, len(d.Text)); s != 0 || e != len(d.Text) {
			t.Fatalf("source span %d-%d of %d bytes of text", s, e, len(d.Text))
		}
	})
}

// TestReadContent: a saved page is read by its content, its site menu and
// footer left out, and whole with KeepBoilerplate.
func TestReadContent(t *testing.T) {
	const site = `<!DOCTYPE html><html><head><title>Bike repair guide</title></head><body>` +
		`<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>` +
		`<main><h1>Fixing a flat tyre</h1><p>Patch the tube.</p></main>` +
		`<footer>© Bike Club</footer></body></html>`
	file := []byte(message("", part("text/html", "quoted-printable", "frame-1@mhtml.blink", qp(site))))
	for _, tc := range []struct {
		keep bool
		want string
	}{
		{false, "Fixing a flat tyre\n\nPatch the tube."},
		{true, "Home Shop\n\nFixing a flat tyre\n\nPatch the tube.\n\n© Bike Club"},
	} {
		d, err := ReadWith(file, normalize.Options{KeepBoilerplate: tc.keep})
		if err != nil {
			t.Fatal(err)
		}
		if d.Text != tc.want || d.Title != "Bike repair guide" {
			t.Errorf("keep %v: title %q, text %q, want %q", tc.keep, d.Title, d.Text, tc.want)
		}
	}
}
