package citations

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
)

// Resolver builds the link of a reference. It returns "" when the reference
// has no link; the reference list then shows its title as plain text.
type Resolver interface {
	Resolve(ref Reference) string
}

// ResolverFunc adapts a function to the [Resolver] interface.
type ResolverFunc func(ref Reference) string

// Resolve returns f(ref).
func (f ResolverFunc) Resolve(ref Reference) string { return f(ref) }

// CompositeResolver dispatches each reference to the resolver registered for
// its Type. References of other types get no link.
type CompositeResolver map[Type]Resolver

// Resolve returns the link built by the resolver for ref.Type, or "".
func (c CompositeResolver) Resolve(ref Reference) string {
	if r, ok := c[ref.Type]; ok && r != nil {
		return r.Resolve(ref)
	}
	return ""
}

// DefaultResolver returns the resolvers cite uses: [FileResolver] for
// [TypeFile], [WebResolver] for [TypeWeb] and none for [TypeUpload].
func DefaultResolver() CompositeResolver {
	return CompositeResolver{
		TypeFile: FileResolver{},
		TypeWeb:  WebResolver{},
	}
}

var (
	_ Resolver = CompositeResolver(nil)
	_ Resolver = ResolverFunc(nil)
	_ Resolver = FileResolver{}
	_ Resolver = WebResolver{}
)

// FileResolver links local files as file: URLs that carry the passage's byte
// range: file:///abs/path.md#bytes=120-840 for Span {120, 840}. The range is
// half-open, exactly the numbers of the reference's span, so a viewer can
// open the file and highlight bytes [120, 840). A reference without a span
// (End <= Start) links to the file alone. A reference with a QuoteSpan
// links to the quote's range instead of the passage's.
//
// A reference with a Location (a PDF's page, a presentation's slide) links
// to it instead: file:///abs/report.pdf#page=3, which PDF viewers open at
// that page.
//
// FileResolver does no I/O. Relative paths are joined to Root; a path that is
// still relative gets no link.
type FileResolver struct {
	// Root is the directory relative Source paths are relative to.
	Root string
}

// Resolve returns the file: URL of ref.Source, or "".
func (r FileResolver) Resolve(ref Reference) string {
	p := ref.Source
	if p == "" {
		return ""
	}
	if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
		p = u.Path
	} else if !filepath.IsAbs(p) {
		if r.Root == "" {
			return ""
		}
		p = filepath.Join(r.Root, p)
		if !filepath.IsAbs(p) {
			return ""
		}
	}
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: C:/x becomes /C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	sp := ref.Span
	if q := ref.QuoteSpan; q != nil && q.Start >= 0 && q.End > q.Start {
		sp = *q
	}
	if f := ref.Location.Fragment(); f != "" {
		// The span is of the extracted text, which a viewer does not
		// show: open the page.
		u.Fragment = f
	} else if sp.Start >= 0 && sp.End > sp.Start && !ref.Extracted {
		u.Fragment = "bytes=" + strconv.Itoa(sp.Start) + "-" + strconv.Itoa(sp.End)
	}
	return u.String()
}

// WebResolver links web pages to their URL, ref.Source. Only absolute http
// and https URLs are links; anything else gets none.
type WebResolver struct{}

// Resolve returns ref.Source when it is an http or https URL, or "".
func (WebResolver) Resolve(ref Reference) string {
	u, err := url.Parse(strings.TrimSpace(ref.Source))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.String()
}
