package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	sessions "github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/escape"
	"github.com/cite-rag/cite/search"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runSources(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "sources", "", "List the data sources (named collections) of the index.", true)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("sources takes no arguments")
	}
	st, err := f.openIndex(ctx, readIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	srcs, err := sessions.Public.Sources(ctx, st) // never cite serve's sessions'
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(e.stdout, map[string]any{"sources": srcs})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tDOCUMENTS\tCHUNKS\tTOKENS\tSIZE")
	for _, s := range srcs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", cell(s.Name), s.Documents, s.Chunks, humanCount(s.Tokens), ingest.FormatSize(s.Bytes))
	}
	return tw.Flush()
}

func runDocs(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "docs", "", "List the indexed documents: id, chunks, tokens, title and path.", true)
	source := f.once("source", "list only this data source (`NAME`)")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("docs takes no arguments (did you mean cite show?)")
	}
	st, err := f.openIndex(ctx, readIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	docs, err := sessions.Public.Documents(ctx, st, *source) // never cite serve's sessions'
	if err != nil {
		return err
	}
	if len(docs) == 0 && *source != "" {
		if err := search.CheckSources(ctx, st, sessions.Public, *source); err != nil {
			return err
		}
	}
	if f.json {
		return writeJSON(e.stdout, map[string]any{"documents": docs})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tCHUNKS\tTOKENS\tTITLE\tPATH")
	for _, d := range docs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", d.ID, cell(d.Source), d.Chunks, d.Tokens, cell(clip(d.Title, 48)), displayPath(d.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(docs) == 0 {
		fmt.Fprintln(e.stderr, "no documents (index some with cite index PATH)")
	}
	return nil
}

// shown is text cite did not write (a document's text, a title, a
// heading, a model's answer) as every printer of cite's human-readable
// output writes it, terminal or not: the characters a terminal would act on
// (escape sequences: the title, the screen, the clipboard) or that would
// not show (bidirectional overrides, zero-width characters) made visible,
// by [escape.Text]. Newlines and tabs are kept. --json output is exact.
func shown(s string) string { return escape.Text(s) }

// cell is [shown] on one line, to fit a table cell or a line of a list:
// newlines and tabs (a newline would start a new row) become spaces.
func cell(s string) string {
	if strings.ContainsAny(s, "\n\t") {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' {
				return ' '
			}
			return r
		}, s)
	}
	return shown(s)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// findDocument resolves a PATH or ID argument: an existing file is looked
// up by its absolute path, anything else as given (a stored path, an id or
// an id prefix), and then as a path escaped the way cite shows it
// (index.EscapePath), absolute or relative to the working directory.
// cite serve's sessions' documents are never found (sessions.Public).
func findDocument(ctx context.Context, st sessions.DocumentFinder, source, ref string) (index.Document, error) {
	d, err := lookupDocument(ctx, st, source, ref)
	if errors.Is(err, index.ErrNotFound) {
		return d, withLikelyDocuments(err, likelyDocuments(ctx, st, source, ref))
	}
	return d, err
}

// findByName is [findDocument] taking, as cite show does, a ref that is no
// document's path or id but ends exactly one document's path, on a path
// component boundary (a file name, a path below the folder indexed): that
// document, with byTail set so that the caller says which it took. A ref
// that ends several is an error listing them (up to 3), and one that
// names none an error saying so. flag names the argument in the errors
// ("--doc").
func findByName(ctx context.Context, st sessions.DocumentFinder, source, ref, flag string) (d index.Document, byTail bool, err error) {
	d, err = lookupDocument(ctx, st, source, ref)
	if !errors.Is(err, index.ErrNotFound) {
		return d, false, err
	}
	docs := likelyDocuments(ctx, st, source, ref)
	switch len(docs) {
	case 0:
		return d, false, fmt.Errorf("%s: %w (cite docs lists the indexed documents)", flag, err)
	case 1:
		return docs[0], true, nil
	}
	return d, false, fmt.Errorf("%s: %w: give more of its path, or its id", flag, withLikelyDocuments(err, docs))
}

// lookupDocument is [findDocument] without the documents whose paths end
// in ref named in its error.
func lookupDocument(ctx context.Context, st sessions.DocumentFinder, source, ref string) (index.Document, error) {
	if _, err := os.Stat(ref); err == nil {
		if abs, err := filepath.Abs(ref); err == nil {
			d, err := sessions.Public.Document(ctx, st, source, abs)
			if !errors.Is(err, index.ErrNotFound) {
				return d, err
			}
		}
	}
	d, err := sessions.Public.Document(ctx, st, source, ref)
	if !errors.Is(err, index.ErrNotFound) {
		return d, err
	}
	if raw, uerr := index.UnescapePath(ref); uerr == nil && raw != ref {
		if abs, aerr := filepath.Abs(raw); aerr == nil {
			if d, err2 := sessions.Public.Document(ctx, st, source, abs); !errors.Is(err2, index.ErrNotFound) {
				return d, err2
			}
		}
	}
	return d, err
}

// likelyDocuments returns the indexed documents whose paths end in ref (a
// file name, a path relative to the folder indexed), up to 100, but for
// cite serve's sessions'.
func likelyDocuments(ctx context.Context, st sessions.DocumentFinder, source, ref string) []index.Document {
	store, ok := st.(*index.Store)
	if !ok || !sessions.Public.Sees(source) {
		return nil
	}
	docs, err := store.DocumentsEndingIn(ctx, source, ref, 100)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(docs, func(d index.Document) bool { return !sessions.Public.Sees(d.Source) })
}

// withLikelyDocuments adds to err, a document ref not found, docs, the
// indexed documents whose paths end in ref ([likelyDocuments]), so that a
// user can give one of them: a tail is never taken for a path itself,
// which for cite rm could remove another file (cite show shows the one
// document a tail names, [runShow]).
func withLikelyDocuments(err error, docs []index.Document) error {
	const shown = 3
	if len(docs) == 0 {
		return err
	}
	var which []string
	for _, d := range docs[:min(shown, len(docs))] {
		which = append(which, displayPath(d.Path)+" (id "+d.ID[:min(8, len(d.ID))]+")")
	}
	more := ""
	if len(docs) > shown {
		more = fmt.Sprintf(" and %d more", len(docs)-shown)
		if len(docs) == 100 {
			more = " and more"
		}
	}
	if len(docs) == 1 {
		return fmt.Errorf("%w; the indexed document whose path ends in it: %s", err, which[0])
	}
	return fmt.Errorf("%w; indexed documents whose paths end in it: %s%s", err, strings.Join(which, ", "), more)
}

func runShow(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "show", "PATH|ID", "Show an indexed document: its normalized text, or with --chunks each chunk\nwith its token count, byte spans (in the normalized text and in the file) and\nheading path.", true)
	source := f.once("source", "look the document up in this data source (`NAME`) only")
	showChunks := f.Bool("chunks", false, "show the chunks instead of the text")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() != 1 {
		return f.usageError("show takes one PATH or ID")
	}
	st, err := f.openIndex(ctx, readIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	// A path that is not a document's but ends one document's path (a
	// file name, a path below the folder indexed) shows that document,
	// saying which: showing changes nothing, unlike cite rm's removing.
	// Several are an error that lists them.
	d, err := lookupDocument(ctx, st, *source, f.Arg(0))
	if errors.Is(err, index.ErrNotFound) {
		docs := likelyDocuments(ctx, st, *source, f.Arg(0))
		if len(docs) != 1 {
			return withLikelyDocuments(err, docs)
		}
		d, err = docs[0], nil
		fmt.Fprintf(e.stderr, "showing %s, the indexed document whose path ends in %s\n", displayPath(d.Path), cell(f.Arg(0)))
	}
	if err != nil {
		return err
	}
	chunks, err := st.Chunks(ctx, d.ID)
	if err != nil {
		return err
	}
	layout, err := st.Layout(ctx, d.ID)
	if err != nil {
		return err
	}
	slides := search.HasSlides(d.Type)
	if f.json {
		v := map[string]any{"document": d, "pages": layout.Pages, "notes": layout.Notes}
		if layout.Pages == nil {
			v["pages"] = []index.Page{}
		}
		if layout.Notes == nil {
			v["notes"] = []string{}
		}
		if *showChunks {
			out := make([]chunkJSON, len(chunks))
			for i, c := range chunks {
				out[i] = chunkJSON{
					ID: c.ID, DocumentID: c.DocumentID, Ordinal: c.Ordinal, Text: c.Text, Tokens: c.Tokens,
					Span:       byteRange{c.Start, c.End},
					SourceSpan: byteRange{c.SourceStart, c.SourceEnd},
					Headings:   c.Headings,
					Location:   citations.PagesOf(c.Page, c.PageEnd, slides),
				}
				if c.Headings == nil {
					out[i].Headings = []string{} // an array, as in every --json output
				}
			}
			v["chunks"] = out
		} else {
			v["text"] = index.Text(chunks)
		}
		return writeJSON(e.stdout, v)
	}
	fmt.Fprintf(e.stdout, "%s\n%s (%s, source %s, id %s)\n%s, %s, %s of text from %s of %s\n\n",
		cell(d.Title), displayPath(d.Path), d.Type, cell(d.Source), d.ID, nof(d.Chunks, "chunk"), nof(d.Tokens, "token"), nof(d.TextBytes, "byte"), nof(int(d.Size), "byte"), d.Type)
	for _, n := range layout.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", shown(n))
	}
	if len(layout.Notes) > 0 {
		fmt.Fprintln(e.stdout)
	}
	if !*showChunks {
		_, err := fmt.Fprintln(e.stdout, withPageMarks(shown, index.Text(chunks), layout.Pages, slides))
		return err
	}
	for _, c := range chunks {
		// An extracted document's spans are of its text, not its file.
		where := fmt.Sprintf("  file bytes [%d,%d)", c.SourceStart, c.SourceEnd)
		if search.Extracted(d.Type) {
			where = ""
		}
		if loc := citations.PagesOf(c.Page, c.PageEnd, slides).String(); loc != "" {
			where = "  " + loc
		}
		fmt.Fprintf(e.stdout, "--- chunk %d  %d tokens  text [%d,%d)%s  id %s\n", c.Ordinal, c.Tokens, c.Start, c.End, where, c.ID)
		if len(c.Headings) > 0 {
			fmt.Fprintf(e.stdout, "    under: %s\n", cell(strings.Join(c.Headings, " > ")))
		}
		fmt.Fprintln(e.stdout, shown(c.Text))
	}
	return nil
}

func runRm(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "rm", "PATH|ID...", "Remove documents and their chunks from the index (the files are left alone).\nA PATH is a document's file, a folder (every document indexed under it,\nwhether or not the folder is still on disk) or a quoted glob as cite index\ntakes ('docs/**/*.md'), matched against the indexed paths.", false)
	source := f.once("source", "look documents up in this data source (`NAME`) only")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() == 0 {
		return f.usageError("rm takes at least one PATH or ID")
	}
	st, err := f.openIndex(ctx, writeIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	unlock, err := lockIndex(ctx, e, f.index)
	if err != nil {
		return err
	}
	defer unlock()
	if *source != "" {
		if err := search.CheckSources(ctx, st, sessions.Public, *source); err != nil {
			return err
		}
	}
	docs, errs := documentsToRemove(ctx, st, *source, f.Args())
	for _, sd := range docs {
		err := ingest.RemoveDocuments(ctx, st, sd.docs, rmBatch, func(d index.Stamp, chunks int) {
			fmt.Fprintf(e.stdout, "removed %s (%s, %s)\n", displayPath(d.Path), cell(sd.source), nof(chunks, "chunk"))
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rmBatch is how many documents cite rm removes a transaction: 0, the
// default of [ingest.RemoveDocuments]; the crash test sets fewer, to kill
// it between two.
var rmBatch = 0

// sourceDocs are documents of one data source.
type sourceDocs struct {
	source string
	docs   []index.Stamp
}

// documentsToRemove resolves cite rm's arguments: a document (its path or
// id, as cite show finds it) or else the documents stored at or under a
// folder or matching a glob, in source or in every data source but cite
// serve's sessions'. Each document comes once, in the order of the
// arguments; an argument that names none is an error.
func documentsToRemove(ctx context.Context, st *index.Store, source string, refs []string) ([]sourceDocs, []error) {
	var errs []error
	var out []sourceDocs
	seen := map[string]bool{}
	add := func(src string, d index.Stamp) {
		if seen[d.ID] {
			return
		}
		seen[d.ID] = true
		if len(out) == 0 || out[len(out)-1].source != src {
			out = append(out, sourceDocs{source: src})
		}
		out[len(out)-1].docs = append(out[len(out)-1].docs, d)
	}
	sources := []string{source}
	if !sessions.Public.Sees(source) {
		sources = nil // cite serve's sessions' documents are never removed here
	}
	if source == "" {
		var err error
		if sources, err = sessions.Public.SourceNames(ctx, st); err != nil {
			return nil, []error{err}
		}
	}
	indexers := map[string]*ingest.Indexer{}
	for _, ref := range refs {
		d, err := findDocument(ctx, st, source, ref)
		if err == nil {
			add(d.Source, index.Stamp{ID: d.ID, Path: d.Path, Size: d.Size})
			continue
		}
		if !errors.Is(err, index.ErrNotFound) {
			errs = append(errs, err)
			continue
		}
		// Not a document: a folder or a pattern, in each data source.
		found := false
		for _, src := range sources {
			ix := indexers[src]
			if ix == nil {
				var nerr error
				if ix, nerr = ingest.New(ctx, st, ingest.Options{Source: src}); nerr != nil {
					return out, append(errs, nerr)
				}
				indexers[src] = ix
			}
			stored, serr := ix.Stored(ctx, ref)
			for _, d := range stored {
				add(src, d)
				found = true
			}
			var pe *ingest.PathError
			if serr != nil && !errors.As(serr, &pe) {
				errs = append(errs, serr)
			}
		}
		if !found {
			errs = append(errs, err) // the document's error: "document X: not found"
		}
	}
	return out, errs
}

// chunkJSON is a chunk as cite show --chunks --json prints it: byte ranges
// as {"start","end"} objects, as everywhere in cite's JSON (a search hit's
// source_span).
type chunkJSON struct {
	ID         string    `json:"id"`
	DocumentID string    `json:"document_id"`
	Ordinal    int       `json:"ordinal"`
	Text       string    `json:"text"`
	Tokens     int       `json:"tokens"`
	Span       byteRange `json:"span"`        // in the document's normalized text
	SourceSpan byteRange `json:"source_span"` // in the document's file
	Headings   []string  `json:"headings"`
	// page, page_end (slide, slide_end) for documents that have them
	citations.Location
}

// withPageMarks returns text, each piece passed through show, with a line
// "── page N ──" (or slide) before the text of each page.
func withPageMarks(show func(string) string, text string, pages []index.Page, slides bool) string {
	if len(pages) == 0 {
		return show(text)
	}
	word := "page"
	if slides {
		word = "slide"
	}
	var b strings.Builder
	at := 0
	for _, p := range pages {
		off := min(max(p.Offset, at), len(text))
		b.WriteString(show(text[at:off]))
		if off > 0 && !strings.HasSuffix(text[:off], "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "── %s %d ──\n", word, p.Number)
		at = off
	}
	b.WriteString(show(text[at:]))
	return b.String()
}

// byteRange is a range of bytes, End exclusive.
type byteRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}
