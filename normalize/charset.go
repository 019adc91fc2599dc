package normalize

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// pageEncoding is how the bytes of an HTML page are read.
type pageEncoding struct {
	enc  encoding.Encoding // nil: UTF-8
	name string            // WHATWG name, "utf-8" for UTF-8
	bom  int               // length of the byte-order mark to drop
}

// metaScanLimit bounds the search for a late <meta charset> (past the first
// 1024 bytes that the WHATWG prescan reads).
const metaScanLimit = 64 << 10

// sniffEncoding decides how to read an HTML page:
//
//   - A byte-order mark (UTF-8, UTF-16LE, UTF-16BE) decides.
//   - Otherwise a declared charset (<meta charset>, <meta http-equiv
//     content-type>), found with x/net/html/charset's WHATWG prescan of the
//     first 1024 bytes, or at a later <meta> before <body> in the first 64 KB.
//     A declaration is overridden when the bytes are valid UTF-8 and hold
//     non-ASCII text: saved pages often keep a stale declaration, and legacy
//     text that happens to be valid UTF-8 is vanishingly rare.
//   - Without a declaration the page is UTF-8, unless it has invalid UTF-8
//     and not one valid multi-byte sequence: then it is windows-1252, the
//     WHATWG default for legacy pages.
//
// In UTF-8, invalid bytes become U+FFFD.
func sniffEncoding(src []byte) pageEncoding {
	switch {
	case bytes.HasPrefix(src, utf8BOM):
		return pageEncoding{name: "utf-8", bom: 3}
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}):
		e, name := charset.Lookup("utf-16be")
		return pageEncoding{enc: e, name: name, bom: 2}
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE}):
		e, name := charset.Lookup("utf-16le")
		return pageEncoding{enc: e, name: name, bom: 2}
	}
	e, name := declaredCharset(src)
	switch name {
	case "", "replacement":
		// Undeclared (a declaration of the "replacement" encoding would turn
		// the page into one U+FFFD; treat it as absent).
		if utf8.Valid(src) || hasMultiByteUTF8(src) {
			return pageEncoding{name: "utf-8"}
		}
		e, name = charset.Lookup("windows-1252")
		return pageEncoding{enc: e, name: name}
	case "utf-8":
		return pageEncoding{name: "utf-8"}
	case "iso-2022-jp":
		// 7-bit: valid UTF-8 whatever it holds; its escape sequences tell.
		if bytes.IndexByte(src, 0x1B) < 0 {
			return pageEncoding{name: "utf-8"}
		}
		return pageEncoding{enc: e, name: name}
	}
	if utf8.Valid(src) && hasMultiByteUTF8(src) {
		return pageEncoding{name: "utf-8"}
	}
	return pageEncoding{enc: e, name: name}
}

// declaredCharset returns the charset a page declares in a <meta> element, or
// "" when it declares none. It uses x/net/html/charset's WHATWG prescan (which
// also maps a UTF-16 declaration to UTF-8 and x-user-defined as WHATWG says).
func declaredCharset(src []byte) (encoding.Encoding, string) {
	if e, name := prescan(src); name != "" {
		return e, name
	}
	// A <meta> past the first 1024 bytes, before <body>.
	limit := min(len(src), metaScanLimit)
	head := src[:limit]
	if i := indexFold(head, []byte("<body")); i >= 0 {
		head = head[:i]
	}
	for off := 1; off < len(head); {
		i := indexFold(head[off:], []byte("<meta"))
		if i < 0 {
			break
		}
		off += i
		// Only a <meta> that mentions a charset can declare one.
		tagEnd := bytes.IndexByte(head[off:], '>')
		if tagEnd < 0 {
			tagEnd = len(head) - off
		}
		if containsFold(head[off:off+tagEnd], "charset") {
			if e, name := prescan(src[off:]); name != "" {
				return e, name
			}
		}
		off += len("<meta")
	}
	return nil, ""
}

// prescan runs charset.DetermineEncoding's prescan on the first 1024 bytes of
// p and reports what it found, or "" when p declares nothing. DetermineEncoding
// falls back to a guess when nothing is declared; to tell a declaration from
// the guess, the prescan runs on two ASCII copies of p that its fallback
// guesses differently (windows-1252 for pure ASCII, UTF-8 with "é " added):
// a declaration gives the same answer for both.
func prescan(p []byte) (encoding.Encoding, string) {
	const n = 1024 - 3
	var buf [1024]byte
	probe := buf[:min(len(p), n)]
	for i := range probe {
		c := p[i]
		if c >= utf8.RuneSelf {
			c = 'x'
		}
		probe[i] = c
	}
	e1, name1, _ := charset.DetermineEncoding(probe, "")
	_, name2, _ := charset.DetermineEncoding(append(probe, 0xC3, 0xA9, ' '), "")
	if name1 != name2 || e1 == nil {
		return nil, ""
	}
	if name1 == "utf-8" {
		return nil, "utf-8"
	}
	return e1, name1
}

// indexFold is bytes.Index for an ASCII lower-case pattern, ignoring ASCII case.
func indexFold(s, pat []byte) int {
	for i := 0; i+len(pat) <= len(s); i++ {
		j := bytes.IndexByte(s[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if i+len(pat) > len(s) {
			return -1
		}
		k := 1
		for k < len(pat) && lowerASCII(s[i+k]) == pat[k] {
			k++
		}
		if k == len(pat) {
			return i
		}
	}
	return -1
}

// containsFold reports whether s contains the ASCII lower-case word, ignoring ASCII case.
func containsFold(s []byte, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		k := 0
		for k < len(word) && lowerASCII(s[i+k]) == word[k] {
			k++
		}
		if k == len(word) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Windows1252 reports whether src, text or Markdown that is not UTF-8,
// reads as windows-1252 (Latin-1 and Windows' Western European text: notes
// written by older editors on Windows): it has no UTF-8 byte-order mark,
// not one valid multi-byte UTF-8 sequence, no NUL, and at most one byte in
// five past ASCII (accents: French prose has a few in a hundred; text in a
// legacy encoding of Cyrillic, Greek or CJK has most of its bytes there,
// and would be misread). It is the
// rule of HTML without a declared charset, restricted to mostly-ASCII text.
func Windows1252(src []byte) bool {
	if utf8.Valid(src) || bytes.HasPrefix(src, utf8BOM) || bytes.IndexByte(src, 0) >= 0 || hasMultiByteUTF8(src) {
		return false
	}
	high := 0
	for _, c := range src {
		if c >= utf8.RuneSelf {
			high++
		}
	}
	return high*5 <= len(src)
}

// hasMultiByteUTF8 reports whether p holds at least one valid multi-byte
// UTF-8 sequence.
func hasMultiByteUTF8(p []byte) bool {
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r != utf8.RuneError || size > 1 {
			return true
		}
		i++
	}
	return false
}

// decodePiece describes a run of characters decoded from a legacy encoding:
// from decoded offset dec and source offset orig, characters of dw decoded
// bytes each came from ow source bytes each. dw == 0 marks an irregular run,
// mapped as a whole. A piece ends where the next one starts.
type decodePiece struct {
	dec, orig int
	dw, ow    int
}

// decodeMap maps offsets in decoded text back to the source.
type decodeMap struct {
	pieces []decodePiece // sorted; the last one is a sentinel at the ends
	// perChar makes compose map each character of a run on its own: in
	// UTF-16 every character is wider in the source, and a run is most of
	// a document (its ASCII letters, spaces and punctuation alike).
	perChar bool
}

func (m *decodeMap) add(dec, orig, dw, ow int) {
	if n := len(m.pieces); n > 0 {
		l := m.pieces[n-1]
		if l.dw == dw && l.ow == ow && dw > 0 && (dec-l.dec)%dw == 0 && l.orig+(dec-l.dec)/dw*ow == orig {
			return // the same kind of character continues the run
		}
	}
	m.pieces = append(m.pieces, decodePiece{dec: dec, orig: orig, dw: dw, ow: ow})
}

// find returns the index of the piece holding decoded byte p.
func (m *decodeMap) find(p int) int {
	lo, hi := 0, len(m.pieces)-1 // the sentinel holds nothing
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if m.pieces[mid].dec <= p {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// start maps a decoded start offset to the source.
func (m *decodeMap) start(p int) int {
	last := m.pieces[len(m.pieces)-1]
	if p >= last.dec {
		return last.orig
	}
	k := m.find(p)
	pc := m.pieces[k]
	if pc.dw == 0 {
		return pc.orig
	}
	return pc.orig + (p-pc.dec)/pc.dw*pc.ow
}

// end maps a decoded end offset p > 0 to the source.
func (m *decodeMap) end(p int) int {
	k := m.find(p - 1)
	pc := m.pieces[k]
	if pc.dw == 0 {
		return m.pieces[k+1].orig
	}
	return pc.orig + ((p-1-pc.dec)/pc.dw+1)*pc.ow
}

// fromEncoded normalizes src, text or Markdown that starts with a UTF-16
// byte-order mark (what Windows Notepad saved as "Unicode", and Windows
// PowerShell's > writes), by norm after decoding it to UTF-8; the
// document's map leads back to src's bytes. ok is false, and nothing is
// done, for any other src.
//
// Text that is not UTF-8 but reads as windows-1252 ([Windows1252]) is
// decoded from windows-1252 the same way.
func fromEncoded(src []byte, norm func([]byte) *Document) (d *Document, ok bool) {
	var name string
	from := 2
	switch {
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE}):
		name = "utf-16le"
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}):
		name = "utf-16be"
	case Windows1252(src):
		name, from = "windows-1252", 0
	default:
		return nil, false
	}
	e, name := charset.Lookup(name)
	decoded, m := decodeWithMap(e, name, src, from)
	d = norm(decoded) // UTF-8, so never with a UTF-16 mark
	d.m = compose(d.m, m)
	d.srcLen = len(src)
	return d, true
}

// decodeWithMap decodes src[from:] with e and returns the UTF-8 text and the
// map from it back to src. Each character is decoded on its own so that the
// map is exact to the character; runs of characters of the same widths share
// one piece, so the map costs one entry per run, not per byte. Bytes that the
// decoder consumes without output (ISO-2022-JP escapes) map to nothing.
func decodeWithMap(e encoding.Encoding, name string, src []byte, from int) ([]byte, *decodeMap) {
	asciiSafe := name != "utf-16be" && name != "utf-16le" && name != "iso-2022-jp"
	out := make([]byte, 0, len(src)-from+len(src)/2)
	m := &decodeMap{perChar: !asciiSafe && name != "iso-2022-jp"}
	dec := e.NewDecoder()
	var scratch [32]byte
	i := from
	for i < len(src) {
		if asciiSafe && src[i] < utf8.RuneSelf {
			j := i + 1
			for j < len(src) && src[j] < utf8.RuneSelf {
				j++
			}
			m.add(len(out), i, 1, 1)
			out = append(out, src[i:j]...)
			i = j
			continue
		}
		w := 1
		for {
			atEOF := i+w >= len(src)
			nDst, nSrc, err := dec.Transform(scratch[:], src[i:min(i+w, len(src))], atEOF)
			if nSrc > 0 || nDst > 0 {
				if nSrc == 0 {
					nSrc = 1 // never stall
				}
				if nDst > 0 {
					m.add(len(out), i, nDst, nSrc)
					out = append(out, scratch[:nDst]...)
				}
				i += nSrc
				break
			}
			if err == transform.ErrShortSrc && !atEOF {
				w++
				continue
			}
			// No progress: replace the byte.
			m.add(len(out), i, 0, 0)
			out = append(out, replacementChar...)
			i++
			break
		}
	}
	m.pieces = append(m.pieces, decodePiece{dec: len(out), orig: len(src)})
	return out, m
}

// compose maps an offset map over decoded text through dm, giving a map
// over the source. Copied text stays a copy where it came from ASCII bytes
// copied one for one; elsewhere it becomes synthesized, one segment per run
// of characters of equal width (a word of Cyrillic, a run of CJK), so offsets
// stay exact to the run, or, for UTF-16 (dm.perChar), one per character.
func compose(om offsetMap, dm *decodeMap) offsetMap {
	out := offsetMap{segs: segList{hint: om.segs.len() + om.segs.len()/2}, textLen: om.textLen}
	for i := range om.segs.len() {
		t, _, s, e := om.span(i)
		if om.segs.at(i).isSynth() {
			a := dm.start(s)
			b := a
			if e > s {
				b = max(dm.end(e), a)
			}
			out.add(t, a, b, true)
			continue
		}
		// A copy: split where the decode pieces change.
		k := dm.find(s)
		for s < e {
			for dm.pieces[k+1].dec <= s {
				k++
			}
			pe := min(dm.pieces[k+1].dec, e)
			pc := dm.pieces[k]
			a := dm.start(s)
			switch {
			case pc.dw == 1 && pc.ow == 1:
				out.add(t, a, a+pe-s, false)
			case dm.perChar && pc.dw > 0:
				for c := s; c < pe; c += pc.dw {
					out.add(t+c-s, a+(c-s)/pc.dw*pc.ow, a+((c-s)/pc.dw+1)*pc.ow, true)
				}
			default:
				out.add(t, a, max(dm.end(pe), a), true)
			}
			t += pe - s
			s = pe
		}
	}
	if om.segs.len() > 0 {
		if om.end > 0 {
			out.end = dm.end(om.end)
		} else {
			out.end = dm.start(0)
		}
	}
	return out
}
