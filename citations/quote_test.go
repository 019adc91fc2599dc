package citations

import (
	"errors"
	"testing"
)

func TestSetQuote(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ref       Reference
		index     int
		span      *Span
		wantSpan  *Span
		wantLink  string
		wantError error
	}{
		{"span inside: the link opens the quote", Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{100, 200}}, 1, &Span{120, 150}, &Span{120, 150}, "file:///d/a.md#bytes=120-150", nil},
		{"no span: the link stays the passage's", Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{100, 200}}, 1, nil, nil, "file:///d/a.md#bytes=100-200", nil},
		{"span outside the passage is dropped", Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{100, 200}}, 1, &Span{90, 150}, nil, "file:///d/a.md#bytes=100-200", nil},
		{"empty span is dropped", Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{100, 200}}, 1, &Span{150, 150}, nil, "file:///d/a.md#bytes=100-200", nil},
		{"the producer's own link is kept", Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{100, 200}, Link: "https://example.com/a"}, 1, &Span{120, 150}, &Span{120, 150}, "https://example.com/a", nil},
		{"unregistered index", Reference{Type: TypeFile, Source: "/d/a.md"}, 2, nil, nil, "", ErrNotRegistered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := NewInvocation()
			inv.SetResolver(DefaultResolver())
			if _, err := inv.Register(tc.ref); err != nil {
				t.Fatal(err)
			}
			got, err := inv.SetQuote(tc.index, "the quote", tc.span)
			if !errors.Is(err, tc.wantError) {
				t.Fatalf("err = %v, want %v", err, tc.wantError)
			}
			if err != nil {
				return
			}
			stored, _ := inv.Lookup(tc.index)
			if stored.Quote != "the quote" || stored.Link != tc.wantLink || got.Link != stored.Link {
				t.Errorf("stored %+v, returned %+v; want link %s", stored, got, tc.wantLink)
			}
			if (stored.QuoteSpan == nil) != (tc.wantSpan == nil) || stored.QuoteSpan != nil && *stored.QuoteSpan != *tc.wantSpan {
				t.Errorf("quote span %v, want %v", stored.QuoteSpan, tc.wantSpan)
			}
			if tc.span != nil && stored.QuoteSpan == tc.span {
				t.Error("the stored span aliases the caller's")
			}
		})
	}
}

func TestFileResolverQuoteSpan(t *testing.T) {
	ref := Reference{Type: TypeFile, Source: "/d/a.md", Span: Span{0, 50}, QuoteSpan: &Span{10, 20}}
	if got := (FileResolver{}).Resolve(ref); got != "file:///d/a.md#bytes=10-20" {
		t.Errorf("link %s", got)
	}
}
