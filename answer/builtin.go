package answer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/search"
)

// Clamps on what a model may ask of the built-in tools.
const (
	maxQueryBytes   = 1000
	defaultToolK    = 5
	maxToolK        = 20
	defaultReadSize = 8000
	maxReadSize     = 20000
)

func builtinFuncs() map[string]Func {
	return map[string]Func{
		"search_data_sources": searchDataSources,
		"search_documents":    searchDocuments,
		"list_documents":      listDocuments,
		"read_document":       readDocument,
		"current_datetime":    currentDatetime,
	}
}

// passages registers hits with the request and labels them for the model.
func (r *run) passages(hits []search.Hit) (string, error) {
	if len(hits) == 0 {
		return "No passage matched. Try other words.", nil
	}
	refs := make([]citations.Reference, 0, len(hits))
	for _, h := range hits {
		ref, err := r.register(h)
		if err != nil {
			return "", err
		}
		refs = append(refs, ref)
	}
	var b strings.Builder
	label(&b, refs)
	return strings.TrimSpace(b.String()), nil
}

func searchDataSources(ctx context.Context, c *Call, args map[string]any) (string, error) {
	r := c.env
	q := ArgString(args, "query", maxQueryBytes)
	k := ArgInt(args, "k", defaultToolK, 1, maxToolK)
	sources := ArgStrings(args, "sources", 20)
	if len(sources) == 0 {
		sources = r.req.Sources
	}
	for _, src := range sources {
		if !slices.Contains(r.req.Sources, src) {
			return "", fmt.Errorf("data source %q is not attached to this question; attached: %s", trimRunes(src, 64), strings.Join(r.req.Sources, ", "))
		}
		if r.localOnly(src) {
			return "", Blocked("data source %q is local-only, and its passages are never sent to a model that does not run on this machine (%s)", src, r.e.cfg.Model.Name())
		}
	}
	if len(sources) == 0 {
		return r.passages(nil)
	}
	res, err := r.e.cfg.Retriever.Search(ctx, search.Query{Text: q, K: k, Filter: index.Filter{Sources: slices.Compact(slices.Sorted(slices.Values(sources)))}, Scope: r.req.Scope})
	if err != nil {
		return "", err
	}
	hits := res.Hits
	if len(r.req.Documents) > 0 && len(hits) > 0 {
		// A passage the session's own documents have is cited as theirs,
		// as preemptive retrieval does.
		docHits, err := r.searchDocuments(ctx, q, r.req.Documents, k)
		if err != nil {
			return "", err
		}
		hits, _ = preferDocuments(hits, docHits)
	}
	return r.passages(hits)
}

func searchDocuments(ctx context.Context, c *Call, args map[string]any) (string, error) {
	r := c.env
	q := ArgString(args, "query", maxQueryBytes)
	k := ArgInt(args, "k", defaultToolK, 1, maxToolK)
	ids := ArgStrings(args, "document_ids", 50)
	for _, id := range ids {
		if !slices.Contains(r.req.Documents, id) {
			return "", fmt.Errorf("document %q is not attached to this conversation; call list_documents for the ids", trimRunes(id, 64))
		}
	}
	if len(ids) == 0 {
		ids = r.req.Documents
	}
	hits, err := r.searchDocuments(ctx, q, ids, k)
	if err != nil {
		return "", err
	}
	return r.passages(hits)
}

func listDocuments(ctx context.Context, c *Call, _ map[string]any) (string, error) {
	r := c.env
	if r.e.cfg.Library == nil {
		return "", fmt.Errorf("documents cannot be listed here")
	}
	var b strings.Builder
	for _, id := range r.req.Documents {
		d, err := r.e.cfg.Library.Document(ctx, "", id)
		if err != nil {
			fmt.Fprintf(&b, "- id %s: unavailable\n", id)
			continue
		}
		fmt.Fprintf(&b, "- id %s: %q (%s, %d passages)\n", d.ID, cleanTitle(d.Title, d.Path), d.Type, d.Chunks)
	}
	return strings.TrimSpace(b.String()), nil
}

// readDocument reads a session document by id: never a path the model
// names, so nothing outside the session's documents can be reached.
func readDocument(ctx context.Context, c *Call, args map[string]any) (string, error) {
	r := c.env
	id := ArgString(args, "document_id", 200)
	if !slices.Contains(r.req.Documents, id) {
		return "", fmt.Errorf("document %q is not attached to this conversation; call list_documents for the ids", trimRunes(id, 64))
	}
	if r.e.cfg.Library == nil {
		return "", fmt.Errorf("documents cannot be read here")
	}
	d, err := r.e.cfg.Library.Document(ctx, "", id)
	if err != nil {
		return "", fmt.Errorf("document %s: %v", id, err)
	}
	chunks, err := r.e.cfg.Library.Chunks(ctx, d.ID)
	if err != nil {
		return "", fmt.Errorf("document %s: %v", id, err)
	}
	if len(chunks) == 0 {
		return "", fmt.Errorf("document %s has no text", d.ID)
	}
	start := ArgInt(args, "start", 0, 0, math.MaxInt32)
	if start >= len(chunks) {
		return "", fmt.Errorf("the passages of document %s are numbered 0 to %d: start %d is past its end", d.ID, len(chunks)-1, start)
	}
	limit := ArgInt(args, "max_chars", defaultReadSize, 100, maxReadSize)
	typ := citations.TypeFile
	if d.Kind == index.KindWeb {
		typ = citations.TypeWeb
	}
	var pages []index.Page       // where the document's pages start, if it has any
	var sections []index.Section // and its sections, if it was extracted
	if lr, ok := r.e.cfg.Library.(interface {
		Layout(context.Context, string) (index.Layout, error)
	}); ok {
		if l, err := lr.Layout(ctx, d.ID); err == nil {
			pages, sections = l.Pages, l.Sections
		}
	}
	var refs []citations.Reference
	size := 0
	next := start
	for ; next < len(chunks) && (size == 0 || size+len(chunks[next].Text) <= limit); next++ {
		ch := chunks[next]
		ref, err := r.inv.Register(citations.Reference{
			Title: cleanTitle(d.Title, d.Path), Passage: ch.Text, ID: ch.ID, DocumentID: d.ID, Type: typ, Source: d.Path,
			Span:      citations.Span{Start: ch.SourceStart, End: ch.SourceEnd},
			Location:  citations.PagesOf(ch.Page, ch.PageEnd, search.HasSlides(d.Type)),
			Heading:   strings.Join(ch.Headings, " > "),
			Extracted: search.Extracted(d.Type),
		}.WithPageStarts(search.PageStartsIn(pages, max(ch.Page, 0), ch.PageEnd)).
			WithSectionStarts(search.SectionStartsIn(sections, ch.SourceStart, ch.SourceEnd)))
		if err != nil {
			return "", err
		}
		refs = append(refs, ref)
		size += len(ch.Text)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Document %s, passages %d to %d of %d.\n\n", d.ID, start, next-1, len(chunks))
	label(&b, refs)
	if next < len(chunks) {
		fmt.Fprintf(&b, "(more: call read_document with start %d)", next)
	}
	return strings.TrimSpace(b.String()), nil
}

func currentDatetime(_ context.Context, c *Call, args map[string]any) (string, error) {
	loc := time.UTC
	if tz := ArgString(args, "time_zone", 64); tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil || strings.Contains(tz, "..") || strings.HasPrefix(tz, "/") {
			return "", fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Paris", tz)
		}
		loc = l
	}
	return c.env.e.cfg.Now().In(loc).Format("Monday, 2 January 2006, 15:04:05 MST (2006-01-02T15:04:05Z07:00)"), nil
}
