// Package mhtml reads web pages saved as one file (MHTML: Chromium's and
// Edge's "Webpage, Single File", .mhtml, and the .mht of Internet
// Explorer and Word) into the same [normalize.Document] the HTML
// normalizer makes of a page: the MIME message is opened, its root HTML
// part decoded (quoted-printable or base64) and normalized, and its
// stylesheets, images and frames left out.
//
// Like the other readers of package normalize's sub-packages, it makes an
// extracted document: its spans are byte ranges of the text it extracted
// (its offset map is that text's), since the decoded page's bytes are not
// the file's. It imports only package normalize and the standard library.
package mhtml

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// ErrDamaged is the error of a file that sniffs as MHTML but whose message
// cannot be read: no boundary, no HTML part, a part cut short.
var ErrDamaged = errors.New("damaged MHTML")

// maxHead is how much of a file Sniff reads for the message's headers.
const maxHead = 8 << 10

// Sniff reports whether data is a saved web page: a MIME message (its
// headers first, MIME-Version among them) of Content-Type
// multipart/related.
func Sniff(data []byte) bool {
	head := data[:min(len(data), maxHead)]
	end := bytes.Index(head, []byte("\n\n"))
	if e := bytes.Index(head, []byte("\r\n\r\n")); e >= 0 && (end < 0 || e < end) {
		end = e
	}
	if end < 0 {
		return false
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(head[:end+2]))).ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && h.Get("Mime-Version") != "" && mt == "multipart/related"
}

// Read reads data, a saved web page, into a document: the text of its root
// HTML part (the part the message's "start" parameter names, else the
// first text/html part), titled by the page's title, else the message's
// Subject.
func Read(data []byte) (*normalize.Document, error) { return ReadWith(data, normalize.Options{}) }

// ReadWith is [Read] with options for the HTML normalizer: by default a
// page's content alone is read, without its navigation, banners, footers
// and sidebars; o.KeepBoilerplate reads it whole.
func ReadWith(data []byte, o normalize.Options) (*normalize.Document, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, fmt.Errorf("%w: no boundary between its parts", ErrDamaged)
	}
	start := strings.Trim(params["start"], "<>")
	mr := multipart.NewReader(msg.Body, params["boundary"])
	var page []byte // the root part, else the first HTML part
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if page != nil {
				break // a part after the page's cut short: the page is whole
			}
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		root := start != "" && strings.Trim(p.Header.Get("Content-Id"), "<>") == start
		if !root && (page != nil || (mt != "text/html" && mt != "application/xhtml+xml")) {
			continue
		}
		// multipart decodes quoted-printable itself.
		var r io.Reader = p
		if strings.EqualFold(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding")), "base64") {
			r = base64.NewDecoder(base64.StdEncoding, p)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		page = b
		if root || start == "" {
			break
		}
	}
	if page == nil {
		return nil, fmt.Errorf("%w: no HTML part", ErrDamaged)
	}
	d := normalize.FromHTMLWith(page, o)
	var x normalize.Extracted
	x.Append(d)
	title := d.Title
	if title == "" {
		title = decodeHeader(msg.Header.Get("Subject"))
	}
	return x.Document(title), nil
}

// decodeHeader decodes a header's encoded words (=?utf-8?Q?…?=).
func decodeHeader(s string) string {
	if d, err := new(mime.WordDecoder).DecodeHeader(s); err == nil {
		return d
	}
	return s
}
