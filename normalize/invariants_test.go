package normalize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkDocument returns the first broken invariant of d, normalized from src,
// or nil. These are the promises of the package documentation:
//   - Text and Title are valid UTF-8; their only whitespace is ' ' and '\n'
//     (Title has no '\n'); no "  ", " \n", "\n ", "\n\n\n"; no whitespace at
//     either end;
//   - headings have a level in 1..6, non-empty text found at their offset,
//     offsets ascending;
//   - the segment list covers Text in order, its source ranges are in bounds,
//     ordered and disjoint, and copied segments equal their source bytes
//     (whitespace bytes aside);
//   - SourceSpan is in bounds and monotone, also for empty and out-of-range
//     ranges.
func checkDocument(src []byte, d *Document) error {
	if err := checkText("Text", d.Text, true); err != nil {
		return err
	}
	if err := checkText("Title", d.Title, false); err != nil {
		return err
	}
	prev := -1
	for i, h := range d.Headings {
		if h.Level < 1 || h.Level > 6 {
			return fmt.Errorf("heading %d: level %d", i, h.Level)
		}
		if h.Text == "" {
			return fmt.Errorf("heading %d: empty text", i)
		}
		if h.Offset < 0 || h.End > len(d.Text) || h.End < h.Offset {
			return fmt.Errorf("heading %d: %q not at offset %d", i, h.Text, h.Offset)
		}
		if full := d.Text[h.Offset:h.End]; full != h.Text && !subsequence(h.Text, full) {
			return fmt.Errorf("heading %d: %q is not %q less its footnote markers", i, h.Text, full)
		}
		if h.Offset < prev {
			return fmt.Errorf("heading %d: offset %d before %d", i, h.Offset, prev)
		}
		prev = h.Offset
		if err := checkText(fmt.Sprintf("heading %d", i), h.Text, true); err != nil {
			return err
		}
	}
	if d.srcLen != len(src) {
		return fmt.Errorf("srcLen %d, source has %d bytes", d.srcLen, len(src))
	}
	if err := checkSegments(src, d); err != nil {
		return err
	}
	return checkSourceSpan(src, d)
}

func checkText(what, s string, multiline bool) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: invalid UTF-8", what)
	}
	for _, bad := range []string{"  ", " \n", "\n ", "\n\n\n"} {
		if i := strings.Index(s, bad); i >= 0 {
			return fmt.Errorf("%s: %q at %d: %q", what, bad, i, around(s, i))
		}
	}
	for i, r := range s {
		if unicode.IsSpace(r) && r != ' ' && (r != '\n' || !multiline) {
			return fmt.Errorf("%s: whitespace %U at %d: %q", what, r, i, around(s, i))
		}
	}
	if s != "" {
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			return fmt.Errorf("%s: whitespace at an end: %q", what, around(s, 0))
		}
	}
	return nil
}

func around(s string, i int) string {
	a, b := max(i-20, 0), min(i+20, len(s))
	return s[a:b]
}

func checkSegments(src []byte, d *Document) error {
	m := &d.m
	if m.textLen != len(d.Text) {
		return fmt.Errorf("map covers %d bytes of %d", m.textLen, len(d.Text))
	}
	if d.Text == "" {
		if m.segs.len() != 0 {
			return fmt.Errorf("empty text with %d segments", m.segs.len())
		}
		return nil
	}
	if m.segs.len() == 0 || m.segs.at(0).start() != 0 {
		return fmt.Errorf("segments do not start at 0")
	}
	prevEnd := 0
	for i := range m.segs.len() {
		t, te, s, se := m.span(i)
		if te <= t {
			return fmt.Errorf("segment %d: empty or unordered text range [%d,%d)", i, t, te)
		}
		if s < prevEnd || se < s || se > len(src) {
			return fmt.Errorf("segment %d: source [%d,%d) after %d in %d bytes", i, s, se, prevEnd, len(src))
		}
		prevEnd = se
		if m.segs.at(i).isSynth() {
			continue
		}
		norm, orig := d.Text[t:te], src[s:se]
		for k := range len(norm) {
			if norm[k] == orig[k] {
				continue
			}
			if (norm[k] == ' ' || norm[k] == '\n') && strings.IndexByte(" \t\n\r\f\v", orig[k]) >= 0 {
				continue
			}
			return fmt.Errorf("segment %d: copy differs at %d: %q vs %q", i, k, norm, orig)
		}
	}
	return nil
}

func checkSourceSpan(src []byte, d *Document) error {
	n := len(d.Text)
	step := 1
	if n > 4096 {
		step = n / 2048
	}
	prevS, prevE := 0, 0
	for p := 0; p <= n; p += step {
		s, e := d.SourceSpan(p, p)
		if s != e || s < 0 || s > len(src) {
			return fmt.Errorf("SourceSpan(%d,%d) = %d,%d", p, p, s, e)
		}
		if s < prevS {
			return fmt.Errorf("SourceSpan start not monotone at %d: %d < %d", p, s, prevS)
		}
		prevS = s
		if p == 0 {
			continue
		}
		s0, e0 := d.SourceSpan(p-1, p)
		if s0 > e0 || e0 > len(src) || s0 < 0 {
			return fmt.Errorf("SourceSpan(%d,%d) = %d,%d", p-1, p, s0, e0)
		}
		if e0 < prevE {
			return fmt.Errorf("SourceSpan end not monotone at %d: %d < %d", p, e0, prevE)
		}
		prevE = e0
		if s0 > s {
			return fmt.Errorf("SourceSpan start of %d maps after start of %d", p-1, p)
		}
		if a, b := d.SourceSpan(0, p); a > b || b != e0 {
			return fmt.Errorf("SourceSpan(0,%d) = %d,%d, end differs from %d", p, a, b, e0)
		}
	}
	if s, e := d.SourceSpan(-10, n+10); s < 0 || e > len(src) || s > e {
		return fmt.Errorf("SourceSpan clamping: %d,%d", s, e)
	}
	if s, e := d.SourceSpan(n, 0); s != e {
		return fmt.Errorf("SourceSpan(n,0) = %d,%d", s, e)
	}
	return nil
}

// subsequence reports whether s is t with some of its bytes left out.
func subsequence(s, t string) bool {
	j := 0
	for i := 0; i < len(t) && j < len(s); i++ {
		if t[i] == s[j] {
			j++
		}
	}
	return j == len(s)
}
