package citations

import (
	"encoding/binary"
	"strconv"
)

// Location is where a passage lies in a document that has pages (a PDF) or
// slides (a presentation): the first page or slide its text is on, and the
// last when it runs onto a later one. Its zero value is "no pages": Markdown,
// HTML and text are located by byte ranges alone.
type Location struct {
	Page     int `json:"page,omitempty"`
	PageEnd  int `json:"page_end,omitempty"` // 0 unless past Page
	Slide    int `json:"slide,omitempty"`
	SlideEnd int `json:"slide_end,omitempty"` // 0 unless past Slide
}

// PagesOf returns the location of a passage on pages first..last of a
// document: slides when slides is true (a presentation's pages are its
// slides), pages otherwise. first <= 0 gives the zero Location.
func PagesOf(first, last int, slides bool) Location {
	if first <= 0 {
		return Location{}
	}
	end := 0
	if last > first {
		end = last
	}
	if slides {
		return Location{Slide: first, SlideEnd: end}
	}
	return Location{Page: first, PageEnd: end}
}

// IsZero reports whether l locates nothing.
func (l Location) IsZero() bool { return l.Page <= 0 && l.Slide <= 0 }

// Fragment returns the URL fragment viewers open at the location:
// "page=N" (what PDF viewers understand), "slide=N", or "".
func (l Location) Fragment() string {
	switch {
	case l.Page > 0:
		return "page=" + strconv.Itoa(l.Page)
	case l.Slide > 0:
		return "slide=" + strconv.Itoa(l.Slide)
	}
	return ""
}

// String returns "p. 3", "pp. 3–4", "slide 2", "slides 2–3" or "".
func (l Location) String() string {
	switch {
	case l.Page > 0 && l.PageEnd > l.Page:
		return "pp. " + strconv.Itoa(l.Page) + "–" + strconv.Itoa(l.PageEnd)
	case l.Page > 0:
		return "p. " + strconv.Itoa(l.Page)
	case l.Slide > 0 && l.SlideEnd > l.Slide:
		return "slides " + strconv.Itoa(l.Slide) + "–" + strconv.Itoa(l.SlideEnd)
	case l.Slide > 0:
		return "slide " + strconv.Itoa(l.Slide)
	}
	return ""
}

// PageStart is where a page (or slide) starts inside a passage: its number
// and the byte offset, in the same coordinates as the reference's Span.
type PageStart struct {
	Number int
	Offset int
}

// Narrow returns the location of span, a part of a passage located at l
// whose later pages start at starts (ascending): the pages the part itself
// is on. Without starts, or for an empty span, it returns l.
func (l Location) Narrow(starts []PageStart, span Span) Location {
	if len(starts) == 0 || span.End <= span.Start || l.IsZero() {
		return l
	}
	slides := l.Slide > 0
	first := l.Page
	if slides {
		first = l.Slide
	}
	last := first
	for _, p := range starts {
		if p.Offset <= span.Start {
			first = p.Number
		}
		if p.Offset < span.End {
			last = p.Number
		}
	}
	return PagesOf(first, max(last, first), slides)
}

// WithPageStarts returns r knowing where the pages after its first start
// inside its passage, so that [Invocation.SetQuote] can give a quote the
// location of its own page.
func (r Reference) WithPageStarts(starts []PageStart) Reference {
	var b []byte
	for _, p := range starts {
		b = binary.AppendUvarint(b, uint64(max(p.Number, 0)))
		b = binary.AppendUvarint(b, uint64(max(p.Offset, 0)))
	}
	r.pageStarts = string(b)
	return r
}

// PageStarts returns what [Reference.WithPageStarts] was given.
func (r Reference) PageStarts() []PageStart {
	var out []PageStart
	b := []byte(r.pageStarts)
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			break
		}
		o, k2 := binary.Uvarint(b[k:])
		if k2 <= 0 {
			break
		}
		out = append(out, PageStart{Number: int(n), Offset: int(o)})
		b = b[k+k2:]
	}
	return out
}

// SectionStart is where a section starts inside a passage, in the
// coordinates of its [Reference.Span], and its heading path there, joined
// by " > " as [Reference.Heading] is.
type SectionStart struct {
	Offset  int
	Heading string
}

// WithSectionStarts returns r knowing where the sections after its first
// start inside its passage (a workbook's later sheet, a Word file's next
// heading), so that a producer that quotes a part of the passage can name
// the section the part is in.
func (r Reference) WithSectionStarts(starts []SectionStart) Reference {
	var b []byte
	for _, s := range starts {
		b = binary.AppendUvarint(b, uint64(max(s.Offset, 0)))
		b = binary.AppendUvarint(b, uint64(len(s.Heading)))
		b = append(b, s.Heading...)
	}
	r.sectionStarts = string(b)
	return r
}

// SectionStarts returns what [Reference.WithSectionStarts] was given.
func (r Reference) SectionStarts() []SectionStart {
	var out []SectionStart
	b := []byte(r.sectionStarts)
	for len(b) > 0 {
		o, k := binary.Uvarint(b)
		if k <= 0 {
			break
		}
		n, k2 := binary.Uvarint(b[k:])
		if k2 <= 0 || uint64(len(b)-k-k2) < n {
			break
		}
		out = append(out, SectionStart{Offset: int(o), Heading: string(b[k+k2 : k+k2+int(n)])})
		b = b[k+k2+int(n):]
	}
	return out
}
