package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/internal/jsonkeys"
	"github.com/cite-rag/cite/search"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Passage is one passage an MCP tool returns: enough for the calling
// agent to cite it precisely.
type Passage struct {
	Title      string         `json:"title"`
	Link       string         `json:"link" jsonschema:"where the passage is: file:///path#bytes=START-END, file:///path.pdf#page=N, or a URL"`
	Passage    string         `json:"passage"`
	Source     string         `json:"source" jsonschema:"the document's path, escaped as cite shows paths (a byte that is not UTF-8 as \\xNN), or URL"`
	Span       citations.Span `json:"span" jsonschema:"the passage's byte range in the source file, end exclusive"`
	DocumentID string         `json:"document_id"`
	ChunkID    string         `json:"chunk_id"`
	DataSource string         `json:"data_source"`
	Score      float64        `json:"score,omitempty"`
	Page       int            `json:"page,omitempty" jsonschema:"the page the passage starts on, for PDFs"`
	PageEnd    int            `json:"page_end,omitempty" jsonschema:"the page it ends on, when past page"`
	Slide      int            `json:"slide,omitempty" jsonschema:"the slide the passage is on, for presentations"`
	SlideEnd   int            `json:"slide_end,omitempty" jsonschema:"the slide it ends on, when past slide"`
}

// withLocation sets p's page or slide fields.
func (p Passage) withLocation(l citations.Location) Passage {
	p.Page, p.PageEnd, p.Slide, p.SlideEnd = l.Page, l.PageEnd, l.Slide, l.SlideEnd
	return p
}

type mcpSearchIn struct {
	Query   string   `json:"query" jsonschema:"what to look for, in a few words or a question"`
	K       *int     `json:"k,omitempty" jsonschema:"how many passages, 1 to 20 (default 5)"`
	Sources []string `json:"sources,omitempty" jsonschema:"data sources to search; all when omitted"`
}

type mcpDocSearchIn struct {
	Query       string   `json:"query" jsonschema:"what to look for"`
	DocumentIDs []string `json:"document_ids" jsonschema:"the documents to search, by id"`
	K           *int     `json:"k,omitempty" jsonschema:"how many passages, 1 to 20 (default 5)"`
}

type mcpReadIn struct {
	DocumentID string `json:"document_id" jsonschema:"the document's id or path, or the end of one document's path (a file name)"`
	Start      int    `json:"start,omitempty" jsonschema:"the first passage to read, 0-based (default 0)"`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"stop before the passage that would pass this many characters (100 to 20000, default 8000); the first passage is given whole"`
}

type mcpPassages struct {
	Passages []Passage `json:"passages"`
	// Warnings say what made the search weaker than asked (vector search
	// failed: the passages are full-text hits alone), as cite search's.
	Warnings []search.Warning `json:"warnings,omitempty"`
	// Of read_document: how many passages the document has, and the start
	// of the next call when passages are left (a passage is given whole,
	// so the first may be longer than max_chars).
	Total     *int `json:"total,omitempty"`
	NextStart *int `json:"next_start,omitempty"`
}

type mcpSources struct {
	Sources []index.Source `json:"sources"`
}

// MCP returns cite's search as a Model Context Protocol server, with the
// tools search_data_sources, search_documents, read_document and
// list_sources. cite mcp runs it over stdio; cite serve at /mcp over
// streamable HTTP.
//
// A tool's failure inside the server (the index, not the arguments) is a
// tool error with a stable message; its text goes to slog's default logger.
func MCP(deps Deps, version string) *mcp.Server {
	return newMCP(deps, version, slog.Default())
}

// newMCP is [MCP] logging failures inside the server to log.
func newMCP(deps Deps, version string, log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cite", Version: version}, nil)
	// hide keeps the text of errors the caller caused (arguments, unknown
	// sources and documents) and replaces any other, which may name files
	// or the database, with a stable message, logging it.
	hide := func(tool string, err error) error {
		switch {
		case err == nil, errors.Is(err, search.ErrInvalidQuery), errors.Is(err, search.ErrUnknownSource),
			errors.Is(err, index.ErrNotFound), errors.Is(err, index.ErrAmbiguous),
			errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return err
		}
		log.Error("mcp tool failed", "tool", tool, "err", err)
		return errors.New(internalMessage)
	}
	resolve := citations.DefaultResolver()
	fromHit := func(h search.Hit) Passage {
		ref := citations.Reference{Type: refType(h.Document.Kind), Source: h.Document.Path, Span: h.SourceSpan, Location: h.Location, Extracted: search.Extracted(h.Document.Format)}
		return Passage{Title: h.Document.Title, Link: resolve.Resolve(ref), Passage: h.Text, Source: index.EscapePath(h.Document.Path), Span: h.SourceSpan,
			DocumentID: h.Document.ID, ChunkID: h.ChunkID, DataSource: h.Document.DataSource, Score: h.Score}.withLocation(h.Location)
	}
	run := func(ctx context.Context, q search.Query) ([]Passage, []search.Warning, error) {
		res, err := deps.Searcher.Search(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		out := []Passage{}
		for _, h := range res.Hits {
			out = append(out, fromHit(h))
		}
		return out, res.Warnings, nil
	}
	// checkK checks a tool's k: omitted (or null) is the default, 5; 0
	// is out of range like any other number outside 1 to 20.
	checkK := func(k *int) (int, error) {
		if k == nil {
			return 5, nil
		}
		if *k < 1 || *k > 20 {
			return 0, fmt.Errorf("k: 1 to 20 passages (default 5), not %d", *k)
		}
		return *k, nil
	}

	addTool(srv, &mcp.Tool{Name: "search_data_sources", Description: "Search the indexed data sources and return the most relevant passages, each with its title, exact link (byte span) and text, to cite precisely."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpSearchIn) (mcpPassages, error) {
			if strings.TrimSpace(in.Query) == "" || len(in.Query) > DefaultMaxQuestionBytes {
				return mcpPassages{}, fmt.Errorf("query: 1 byte to %s", limitSize(DefaultMaxQuestionBytes))
			}
			k, err := checkK(in.K)
			if err != nil {
				return mcpPassages{}, err
			}
			if len(in.Sources) > 50 {
				return mcpPassages{}, fmt.Errorf("sources: at most 50, got %d", len(in.Sources))
			}
			// One search over the sources named (all when none is, never
			// a session's: session.Public, the zero Scope): its passages
			// are ranked across them.
			ps, warns, err := run(ctx, search.Query{Text: in.Query, K: k, Filter: index.Filter{Sources: in.Sources}})
			if err != nil {
				return mcpPassages{}, hide("search_data_sources", err)
			}
			return mcpPassages{Passages: nonNilP(ps), Warnings: warns}, nil
		})
	addTool(srv, &mcp.Tool{Name: "search_documents", Description: "Search within given documents (by id) and return the most relevant passages with exact links."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpDocSearchIn) (mcpPassages, error) {
			if strings.TrimSpace(in.Query) == "" || len(in.DocumentIDs) == 0 || len(in.DocumentIDs) > 50 {
				return mcpPassages{}, fmt.Errorf("query and 1 to 50 document_ids are required")
			}
			k, err := checkK(in.K)
			if err != nil {
				return mcpPassages{}, err
			}
			var all []Passage
			var warns []search.Warning
			searched := map[string]bool{} // an id named twice, or by id and path, is searched once
			for _, ref := range in.DocumentIDs {
				d, err := publicDocument(ctx, deps.Store, ref)
				if err != nil {
					return mcpPassages{}, hide("search_documents", fmt.Errorf("document_ids: %w", err))
				}
				if searched[d.ID] {
					continue
				}
				searched[d.ID] = true
				ps, ws, err := run(ctx, search.Query{Text: in.Query, K: k, Filter: index.Filter{Document: d.ID}})
				if err != nil {
					return mcpPassages{}, hide("search_documents", err)
				}
				all = append(all, ps...)
				for _, w := range ws {
					if !slices.Contains(warns, w) {
						warns = append(warns, w)
					}
				}
			}
			return mcpPassages{Passages: nonNilP(all), Warnings: warns}, nil
		})
	addTool(srv, &mcp.Tool{Name: "read_document", Description: "Read an indexed document's text, passage by passage, each with its exact link."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpReadIn) (mcpPassages, error) {
			if in.Start < 0 {
				return mcpPassages{}, fmt.Errorf("start: the first passage to read, 0 or more, not %d", in.Start)
			}
			if in.MaxChars != 0 && (in.MaxChars < 100 || in.MaxChars > 20000) {
				return mcpPassages{}, fmt.Errorf("max_chars: 100 to 20000 (default 8000), not %d", in.MaxChars)
			}
			d, err := publicDocument(ctx, deps.Store, in.DocumentID)
			if err != nil {
				return mcpPassages{}, hide("read_document", fmt.Errorf("document_id: %w", err))
			}
			chunks, err := deps.Store.Chunks(ctx, d.ID)
			if err != nil {
				return mcpPassages{}, hide("read_document", err)
			}
			if in.Start > 0 && len(chunks) == 0 {
				return mcpPassages{}, fmt.Errorf("start: document %s has no passages", d.ID)
			}
			if in.Start > 0 && in.Start >= len(chunks) {
				return mcpPassages{}, fmt.Errorf("start: the passages of document %s are numbered 0 to %d: %d is past its end", d.ID, len(chunks)-1, in.Start)
			}
			limit := cmpInt(in.MaxChars, 8000)
			out := []Passage{}
			size := 0
			for i := in.Start; i < len(chunks) && (size == 0 || size+len(chunks[i].Text) <= limit); i++ {
				c := chunks[i]
				span := citations.Span{Start: c.SourceStart, End: c.SourceEnd}
				loc := citations.PagesOf(c.Page, c.PageEnd, search.HasSlides(d.Type))
				out = append(out, Passage{Title: d.Title, Link: resolve.Resolve(citations.Reference{Type: refType(d.Kind), Source: d.Path, Span: span, Location: loc, Extracted: search.Extracted(d.Type)}),
					Passage: c.Text, Source: index.EscapePath(d.Path), Span: span, DocumentID: d.ID, ChunkID: c.ID, DataSource: d.Source}.withLocation(loc))
				size += len(c.Text)
			}
			res := mcpPassages{Passages: out, Total: new(len(chunks))}
			if next := in.Start + len(out); next < len(chunks) {
				res.NextStart = new(next)
			}
			return res, nil
		})
	addTool(srv, &mcp.Tool{Name: "list_sources", Description: "List the indexed data sources with their document counts."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (mcpSources, error) {
			srcs, err := session.Public.Sources(ctx, deps.Store)
			return mcpSources{Sources: srcs}, hide("list_sources", err)
		})
	return srv
}

// addTool adds tool t to srv, its arguments decoded into In and its
// result h's Out, as mcp.AddTool does, but with arguments of the wrong
// shape refused in JSON's terms (jsonError): the SDK's own messages name
// Go types ("Go struct field server.mcpReadIn.start of type int").
func addTool[In, Out any](srv *mcp.Server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err))
	}
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err))
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args In
		if err := decodeArgs(req.Params.Arguments, resolved, &args); err != nil {
			return toolError(err), nil
		}
		v, err := h(ctx, req, args)
		if err != nil {
			return toolError(err), nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
}

// decodeArgs decodes a tool's arguments into v, checked against their
// schema: an object (none is {}), no key given twice in one object, each
// argument of its JSON type, no argument v does not have, the required
// ones present.
func decodeArgs(data json.RawMessage, schema *jsonschema.Resolved, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		data = []byte("{}")
	}
	if data[0] != '{' {
		return errors.New("the arguments must be a JSON object")
	}
	// encoding/json keeps the last of a key given twice, and the agent
	// would not learn that its first value was dropped: refused as the
	// model tool loop refuses it (package answer).
	if key, dup := jsonkeys.Duplicate(data); dup {
		return fmt.Errorf("the arguments give %q twice; give each argument once", key)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(jsonError(err, "the arguments"))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return errors.New(jsonError(err, "the arguments"))
	}
	if err := schema.Validate(m); err != nil {
		return fmt.Errorf("the arguments: %v", strings.TrimPrefix(err.Error(), "validating root: "))
	}
	return nil
}

func toolError(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// publicDocument finds a document by id, id prefix or path in the data
// sources, never in a session's: a session's documents are seen only by
// its own questions. A path may be relative to the working directory (of
// cite mcp, or of cite serve), and escaped as cite shows it
// ([index.EscapePath]), as cite show takes it.
//
// A ref that is none of these but ends exactly one such document's path on
// a path component boundary (a file name, a path below the folder indexed)
// is that document, as for cite show; one that ends several is
// [index.ErrAmbiguous], naming up to 3 of them.
func publicDocument(ctx context.Context, st *index.Store, ref string) (index.Document, error) {
	d, err := publicDocumentExact(ctx, st, ref)
	if !errors.Is(err, index.ErrNotFound) {
		return d, err
	}
	docs, derr := st.DocumentsEndingIn(ctx, "", ref, 100)
	if derr != nil {
		return d, err
	}
	docs = slices.DeleteFunc(docs, func(d index.Document) bool { return !session.Public.Sees(d.Source) })
	switch len(docs) {
	case 0:
		return d, err
	case 1:
		return docs[0], nil
	}
	var which []string
	for _, d := range docs[:min(3, len(docs))] {
		which = append(which, index.EscapePath(d.Path))
	}
	more := ""
	if len(docs) > 3 {
		more = ", …"
	}
	return d, fmt.Errorf("%q ends the paths of %d documents (%s%s): give more of the path, or the id: %w", trimRunes(ref, 64), len(docs), strings.Join(which, ", "), more, index.ErrAmbiguous)
}

// publicDocumentExact is [publicDocument] without the documents whose
// paths end in ref.
func publicDocumentExact(ctx context.Context, st *index.Store, ref string) (index.Document, error) {
	d, err := publicDocumentAt(ctx, st, ref)
	if !errors.Is(err, index.ErrNotFound) {
		return d, err
	}
	raw, uerr := index.UnescapePath(ref)
	if uerr != nil {
		raw = ref
	}
	if raw == "" || strings.Contains(raw, "://") {
		return d, err
	}
	abs, aerr := filepath.Abs(raw)
	if aerr != nil || abs == ref {
		return d, err
	}
	if d, err2 := publicDocumentAt(ctx, st, abs); !errors.Is(err2, index.ErrNotFound) {
		return d, err2
	}
	return d, err
}

// publicDocumentAt is [publicDocument] for ref as it is stored.
func publicDocumentAt(ctx context.Context, st *index.Store, ref string) (index.Document, error) {
	d, err := session.Public.Document(ctx, st, "", ref)
	if errors.Is(err, index.ErrNotFound) {
		return d, fmt.Errorf("no document %q: %w", trimRunes(ref, 64), index.ErrNotFound)
	}
	return d, err
}

func refType(k index.Kind) citations.Type {
	if k == index.KindWeb {
		return citations.TypeWeb
	}
	return citations.TypeFile
}

func cmpInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func nonNilP(p []Passage) []Passage {
	if p == nil {
		return []Passage{}
	}
	return p
}
