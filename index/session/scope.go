package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cite-rag/cite/index"
)

// sourcePrefix starts the name of every session's data source.
const sourcePrefix = "session:"

// Source returns the name of the data source of session id's documents.
func Source(id string) string { return sourcePrefix + id }

// Scope is what one caller sees of an index: every data source, and the
// documents of at most one session. The zero Scope is [Public].
type Scope struct {
	// Session is the id of the session whose documents are seen besides
	// the data sources; "" for none.
	Session string
}

// Public is the scope of everything outside a session: every cite
// command, the server's listings and searches, the MCP tools. It sees no
// session's documents.
var Public = Scope{}

// Sees reports whether sc sees the documents of the data source named
// source. It is the visibility rule, written here only: a session's data
// source is seen by that session alone, every other data source by all.
func (sc Scope) Sees(source string) bool {
	id, ok := strings.CutPrefix(source, sourcePrefix)
	return !ok || sc.Session != "" && id == sc.Session
}

// SourceNamer lists data sources: an [*index.Store], or what searches read
// ([index.Reader]).
type SourceNamer interface {
	SourceNames(ctx context.Context) ([]string, error)
}

// SourceNames returns the names of the data sources of r that sc sees,
// sorted; never nil.
func (sc Scope) SourceNames(ctx context.Context, r SourceNamer) ([]string, error) {
	all, err := r.SourceNames(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, n := range all {
		if sc.Sees(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Sources returns the data sources of st that sc sees, with their totals,
// by name; never nil.
func (sc Scope) Sources(ctx context.Context, st *index.Store) ([]index.Source, error) {
	all, err := st.Sources(ctx)
	if err != nil {
		return nil, err
	}
	out := []index.Source{}
	for _, s := range all {
		if sc.Sees(s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Documents returns the documents of source that sc sees ("" for all of
// them), by source and path; never nil. A source sc does not see has none.
func (sc Scope) Documents(ctx context.Context, st *index.Store, source string) ([]index.Document, error) {
	out := []index.Document{}
	if source != "" && !sc.Sees(source) {
		return out, nil
	}
	all, err := st.Documents(ctx, source)
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if sc.Sees(d.Source) {
			out = append(out, d)
		}
	}
	return out, nil
}

// DocumentFinder finds a document by id, id prefix or path: an
// [*index.Store], or what searches read ([index.Reader]).
type DocumentFinder interface {
	SourceNamer
	Document(ctx context.Context, source, ref string) (index.Document, error)
}

// Document finds a document by id, id prefix or path, as
// [index.Store.Document] does, among those sc sees: a document sc does not
// see is not found ([index.ErrNotFound]), and neither the document found
// nor an error names one, even when ref matches it and another.
func (sc Scope) Document(ctx context.Context, r DocumentFinder, source, ref string) (index.Document, error) {
	notFound := fmt.Errorf("document %s: %w", short(ref), index.ErrNotFound)
	if source != "" && !sc.Sees(source) {
		return index.Document{}, notFound
	}
	d, err := r.Document(ctx, source, ref)
	switch {
	case err == nil && sc.Sees(d.Source):
		return d, nil
	case err == nil || errors.Is(err, index.ErrNotFound):
		return index.Document{}, notFound
	case !errors.Is(err, index.ErrAmbiguous):
		return index.Document{}, err
	}
	// Several documents match: look again in each source sc sees, so that
	// neither the answer nor the error names another's document.
	names, err := sc.SourceNames(ctx, r)
	if err != nil {
		return index.Document{}, err
	}
	var found []index.Document
	for _, n := range names {
		d, err := r.Document(ctx, n, ref)
		if errors.Is(err, index.ErrNotFound) {
			continue
		}
		if err != nil {
			return index.Document{}, err
		}
		found = append(found, d)
	}
	switch len(found) {
	case 0:
		return index.Document{}, notFound
	case 1:
		return found[0], nil
	}
	var which []string
	for _, d := range found {
		which = append(which, d.ID+" ("+d.Source+": "+index.EscapePath(d.Path)+")")
	}
	return index.Document{}, fmt.Errorf("document %s: %w: matches %s", short(ref), index.ErrAmbiguous, strings.Join(which, ", "))
}

// short keeps a reference from the outside short in messages: at most 64
// characters.
func short(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}
