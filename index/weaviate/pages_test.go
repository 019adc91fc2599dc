package weaviate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/weaviatetest"
	"github.com/cite-rag/cite/normalize"
	"github.com/cite-rag/cite/normalize/office"
	"github.com/cite-rag/cite/normalize/pdf"
	"github.com/cite-rag/cite/search"
)

// pdfReader and pptxReader read PDFs and PowerPoint files for ingest, as
// cite index does.
type pdfReader struct{ r *pdf.Reader }

func (pdfReader) Sniff(data []byte) (string, bool) {
	return "pdf", bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-"))
}

func (p pdfReader) Read(ctx context.Context, _ string, data []byte) (*normalize.Document, error) {
	d, _, err := p.r.Read(ctx, data)
	return d, err
}

type pptxReader struct{}

func (pptxReader) Sniff(data []byte) (string, bool) {
	k, ok := office.Detect(data)
	return "pptx", ok && k == office.PPTX
}

func (pptxReader) Read(ctx context.Context, _ string, data []byte) (*normalize.Document, error) {
	return office.Read(ctx, office.PPTX, data)
}

// TestPages indexes a PDF and a PowerPoint file (the readers' fixtures)
// into the embedded index and Weaviate, and reads them back from Weaviate
// as searches and citations do: every chunk keeps its pages (or slides),
// a hit's location and, for a passage that crosses pages, where each
// page starts in it (which a quote's page is found by) are the embedded
// index's, and so is the document's layout.
func TestPages(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"../../normalize/pdf/testdata/report.pdf", "../../normalize/office/testdata/slides.pptx"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := weaviatetest.Start(t, 1)
	ctx := t.Context()
	p := newPair(t, weaviate.Config{Addr: c.Addr(), Collection: "Pages"})
	if st := p.index(t, ingest.Options{Readers: []ingest.Reader{pdfReader{&pdf.Reader{}}, pptxReader{}}}, dir); st.Added != 2 {
		t.Fatalf("indexed %+v, want the 2 files added", st)
	}
	ls, err := search.New(ctx, p.local, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := search.New(ctx, p.remote, p.emb)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := p.local.Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var crossing, slides int
	for _, d := range docs {
		want, err := p.local.Layout(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Pages) < 2 {
			t.Fatalf("%s: layout %+v: want pages", d.Path, want)
		}
		got, err := p.remote.Layout(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: layout in Weaviate %+v, embedded %+v", d.Path, got, want)
		}
		chunks, err := p.local.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chunks {
			if ch.Page == 0 {
				t.Errorf("%s chunk %d: no page", d.Path, ch.Ordinal)
			}
			if ch.PageEnd > ch.Page {
				crossing++
			}
			// A citation's reference read back (cite show's location).
			lh, err := ls.Chunk(ctx, ch.ID)
			if err != nil {
				t.Fatal(err)
			}
			rh, err := rs.Chunk(ctx, ch.ID)
			if err != nil {
				t.Fatal(err)
			}
			if lh.Location.Slide > 0 {
				slides++
			}
			if !reflect.DeepEqual(rh.Location, lh.Location) || !reflect.DeepEqual(rh.PageStarts, lh.PageStarts) {
				t.Errorf("%s chunk %d: Weaviate %+v %+v, embedded %+v %+v", d.Path, ch.Ordinal, rh.Location, rh.PageStarts, lh.Location, lh.PageStarts)
			}
			// A search hit: the chunk found by its own words.
			q := search.Query{Text: strings.Join(strings.Fields(ch.Text)[:min(12, len(strings.Fields(ch.Text)))], " "), Mode: search.BM25, K: 5}
			lr, err := ls.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := rs.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]search.Hit{}
			for _, h := range rr.Hits {
				got[h.ChunkID] = h
			}
			for _, h := range lr.Hits {
				g, ok := got[h.ChunkID]
				if !ok {
					continue
				}
				if !reflect.DeepEqual(g.Location, h.Location) || !reflect.DeepEqual(g.PageStarts, h.PageStarts) {
					t.Errorf("search %q, hit %s: Weaviate %+v %+v, embedded %+v %+v", q.Text, h.ChunkID, g.Location, g.PageStarts, h.Location, h.PageStarts)
				}
			}
		}
	}
	if crossing == 0 || slides == 0 {
		t.Fatalf("%d chunks cross pages and %d are on slides: the fixtures no longer test what they should", crossing, slides)
	}
}
