package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/normalize/office"
)

// documentReaders are the readers of binary document formats every command
// that indexes files uses: what `cite index` reads besides Markdown, HTML
// and text.
func documentReaders() []ingest.Reader {
	return []ingest.Reader{officeReader{}}
}

// officeReader reads Word, OpenDocument, EPUB and PowerPoint files through
// package office, with its default limits.
type officeReader struct{ r office.Reader }

var officeKinds = map[string]office.Kind{"docx": office.DOCX, "pptx": office.PPTX, "odt": office.ODT, "epub": office.EPUB}

func (officeReader) Sniff(data []byte) (string, bool) {
	k, ok := office.Detect(data)
	if !ok {
		return "", false
	}
	return strings.ToLower(k.String()), true
}

func (o officeReader) Read(ctx context.Context, format string, data []byte) (*normalize.Document, error) {
	k, ok := officeKinds[format]
	if !ok {
		return nil, fmt.Errorf("unknown office format %q", format)
	}
	return o.r.Read(ctx, k, data)
}
