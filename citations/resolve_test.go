package citations

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
)

func TestResolvers(t *testing.T) {
	abs := "/srv/docs/guide.md"
	if runtime.GOOS == "windows" {
		abs = `C:\docs\guide.md`
	}
	fileLink := "file:///srv/docs/guide.md#bytes=120-840"
	if runtime.GOOS == "windows" {
		fileLink = "file:///C:/docs/guide.md#bytes=120-840"
	}
	tests := []struct {
		name string
		r    Resolver
		ref  Reference
		want string
	}{
		{"file with span", FileResolver{}, Reference{Source: abs, Span: Span{120, 840}}, fileLink},
		{"file without span", FileResolver{}, Reference{Source: "/a/b.md"}, "file:///a/b.md"},
		{"file with empty span", FileResolver{}, Reference{Source: "/a/b.md", Span: Span{5, 5}}, "file:///a/b.md"},
		{"file needing escapes", FileResolver{}, Reference{Source: "/a/my notes#1.md", Span: Span{0, 1}}, "file:///a/my%20notes%231.md#bytes=0-1"},
		{"file URL source", FileResolver{}, Reference{Source: "file:///a/b.md", Span: Span{1, 2}}, "file:///a/b.md#bytes=1-2"},
		{"relative file without root", FileResolver{}, Reference{Source: "docs/b.md"}, ""},
		{"relative file with root", FileResolver{Root: filepath.FromSlash("/srv")}, Reference{Source: "docs/b.md"}, "file:///srv/docs/b.md"},
		{"no source", FileResolver{}, Reference{}, ""},
		{"web", WebResolver{}, Reference{Source: "https://example.com/a?b=1#c"}, "https://example.com/a?b=1#c"},
		{"web http", WebResolver{}, Reference{Source: " http://example.com/ "}, "http://example.com/"},
		{"web rejects other schemes", WebResolver{}, Reference{Source: "javascript:alert(1)"}, ""},
		{"web rejects relative", WebResolver{}, Reference{Source: "/a/b"}, ""},
		{"composite file", DefaultResolver(), Reference{Type: TypeFile, Source: "/a.md", Span: Span{0, 3}}, "file:///a.md#bytes=0-3"},
		{"composite web", DefaultResolver(), Reference{Type: TypeWeb, Source: "https://x.org"}, "https://x.org"},
		{"composite upload has no link", DefaultResolver(), Reference{Type: TypeUpload, Source: "/tmp/up.pdf"}, ""},
		{"composite unknown type", DefaultResolver(), Reference{Type: "other", Source: "/a.md"}, ""},
		{"composite custom", CompositeResolver{"ticket": ResolverFunc(func(r Reference) string { return "https://t/" + r.ID })}, Reference{Type: "ticket", ID: "42"}, "https://t/42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tt.name != "file with span" && tt.r == (FileResolver{}) {
				t.Skip("POSIX paths")
			}
			if got := tt.r.Resolve(tt.ref); got != tt.want {
				t.Errorf("Resolve(%+v) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

func TestFileResolverLocation(t *testing.T) {
	tests := []struct {
		loc  Location
		want string
	}{
		{Location{}, "file:///d/r.pdf#bytes=10-20"},
		{PagesOf(3, 3, false), "file:///d/r.pdf#page=3"},
		{PagesOf(3, 5, false), "file:///d/r.pdf#page=3"},
		{PagesOf(2, 2, true), "file:///d/r.pdf#slide=2"},
	}
	for _, tt := range tests {
		ref := Reference{Type: TypeFile, Source: "/d/r.pdf", Span: Span{10, 20}, Location: tt.loc}
		if got := (FileResolver{}).Resolve(ref); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.loc, got, tt.want)
		}
	}
}

func TestLocation(t *testing.T) {
	tests := []struct {
		loc       Location
		str, frag string
		json      string
	}{
		{Location{}, "", "", `{}`},
		{PagesOf(4, 4, false), "p. 4", "page=4", `{"page":4}`},
		{PagesOf(4, 6, false), "pp. 4–6", "page=4", `{"page":4,"page_end":6}`},
		{PagesOf(1, 1, true), "slide 1", "slide=1", `{"slide":1}`},
		{PagesOf(1, 2, true), "slides 1–2", "slide=1", `{"slide":1,"slide_end":2}`},
		{PagesOf(0, 3, false), "", "", `{}`},
	}
	for _, tt := range tests {
		b, _ := json.Marshal(tt.loc)
		if tt.loc.String() != tt.str || tt.loc.Fragment() != tt.frag || string(b) != tt.json {
			t.Errorf("%+v: %q %q %s", tt.loc, tt.loc.String(), tt.loc.Fragment(), b)
		}
	}
}

func TestSetQuoteNarrowsPages(t *testing.T) {
	inv := NewInvocation()
	inv.SetResolver(DefaultResolver())
	ref, err := inv.Register(Reference{Type: TypeFile, Source: "/d/r.pdf", Span: Span{100, 400}, Location: PagesOf(3, 5, false)}.
		WithPageStarts([]PageStart{{4, 200}, {5, 300}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		span Span
		loc  Location
		link string
	}{
		{Span{120, 150}, Location{Page: 3}, "file:///d/r.pdf#page=3"},
		{Span{210, 250}, Location{Page: 4}, "file:///d/r.pdf#page=4"},
		{Span{250, 320}, Location{Page: 4, PageEnd: 5}, "file:///d/r.pdf#page=4"},
		{Span{300, 400}, Location{Page: 5}, "file:///d/r.pdf#page=5"},
	} {
		got, err := inv.SetQuote(ref.Index, "q", &tt.span)
		if err != nil || got.Location != tt.loc || got.Link != tt.link {
			t.Errorf("quote %v: %+v %s, %v; want %+v %s", tt.span, got.Location, got.Link, err, tt.loc, tt.link)
		}
	}
}
