package normalize

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
)

// htmlText writes b.src[s:e], HTML text, with character references decoded
// the way HTML decodes them in text (legacy names without ';' included).
// Each decoded reference is synthesized text for the bytes of the reference.
func htmlText(b *builder, s, e int) {
	p := b.src
	for s < e {
		amp := bytes.IndexByte(p[s:e], '&')
		if amp < 0 {
			b.text(s, e)
			return
		}
		amp += s
		b.text(s, amp)
		n, dec := htmlEntity(p[amp:e])
		if n == 0 {
			b.text(amp, amp+1)
			s = amp + 1
			continue
		}
		b.synthText(dec, amp, amp+n)
		s = amp + n
	}
}

// Common references, decoded without allocating.
var commonEntities = map[string][]byte{
	"&amp;":  []byte("&"),
	"&lt;":   []byte("<"),
	"&gt;":   []byte(">"),
	"&quot;": []byte(`"`),
	"&apos;": []byte("'"),
	"&#39;":  []byte("'"),
	"&nbsp;": []byte("\u00a0"),
	"&#160;": []byte("\u00a0"),
}

// htmlEntity decodes the character reference at the start of p (p[0] == '&').
// It returns the length of the reference in p and its decoded text, or 0 when
// p does not start with a reference. The rules are x/net/html's (WHATWG):
// numeric references with or without ';', named references, and legacy named
// references without ';' matched by longest prefix.
func htmlEntity(p []byte) (int, []byte) {
	if len(p) < 2 {
		return 0, nil
	}
	i := 1
	if p[1] == '#' {
		i = 2
		if i < len(p) && (p[i] == 'x' || p[i] == 'X') {
			i++
			j := i
			for j < len(p) && isHex(p[j]) {
				j++
			}
			if j == i {
				return 0, nil
			}
			i = j
		} else {
			j := i
			for j < len(p) && '0' <= p[j] && p[j] <= '9' {
				j++
			}
			if j == i {
				return 0, nil
			}
			i = j
		}
		if i < len(p) && p[i] == ';' {
			i++
		}
	} else {
		for i < len(p) && isAlnum(p[i]) {
			i++
		}
		if i == 1 {
			return 0, nil
		}
		if i < len(p) && p[i] == ';' {
			i++
		}
	}
	cand := p[:i]
	if v, ok := commonEntities[string(cand)]; ok {
		return i, v
	}
	out := html.UnescapeString(string(cand))
	if out == string(cand) {
		return 0, nil
	}
	if p[1] == '#' {
		return i, []byte(out)
	}
	// A legacy reference may match a prefix of cand only ("&copyright" is
	// "&copy" + "right"): what follows the reference is left as is, so the
	// reference ends where the common suffix of cand and out begins.
	k := 0
	for k < len(out) && k < len(cand)-1 && out[len(out)-1-k] == cand[len(cand)-1-k] {
		k++
	}
	for k > 0 && !isAlnum(cand[len(cand)-k]) && cand[len(cand)-k] != ';' {
		k--
	}
	n := len(cand) - k
	dec := out[:len(out)-k]
	if n <= 1 || dec == "" || html.UnescapeString(string(cand[:n])) != dec {
		return i, []byte(out)
	}
	return n, []byte(dec)
}

// mdText writes b.src[s:e], the text of a Markdown inline, with backslash
// escapes and entity and numeric character references resolved as CommonMark
// does (references need their ';').
func mdText(b *builder, s, e int) {
	p := b.src
	for s < e {
		j := s
		for j < e && p[j] != '\\' && p[j] != '&' {
			j++
		}
		b.text(s, j)
		if j >= e {
			return
		}
		if p[j] == '\\' {
			if j+1 < e && util.IsPunct(p[j+1]) {
				// The backslash is dropped; the escaped character is a copy.
				b.text(j+1, j+2)
				s = j + 2
				continue
			}
			b.text(j, j+1)
			s = j + 1
			continue
		}
		n, dec := mdEntity(p[j:e])
		if n == 0 {
			b.text(j, j+1)
			s = j + 1
			continue
		}
		b.synthText(dec, j, j+n)
		s = j + n
	}
}

// mdEntity decodes a CommonMark entity or numeric character reference at the
// start of p (p[0] == '&'); it returns 0 when there is none.
func mdEntity(p []byte) (int, []byte) {
	if len(p) < 3 {
		return 0, nil
	}
	if p[1] == '#' {
		i := 2
		hex := false
		if i < len(p) && (p[i] == 'x' || p[i] == 'X') {
			hex = true
			i++
		}
		j := i
		for j < len(p) && (hex && isHex(p[j]) || !hex && '0' <= p[j] && p[j] <= '9') {
			j++
		}
		max := 7
		if hex {
			max = 6
		}
		if j == i || j-i > max || j >= len(p) || p[j] != ';' {
			return 0, nil
		}
		base := 10
		if hex {
			base = 16
		}
		v, _ := strconv.ParseUint(string(p[i:j]), base, 32)
		r := rune(v)
		if r == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return j + 1, utf8.AppendRune(nil, r)
	}
	i := 1
	for i < len(p) && isAlnum(p[i]) {
		i++
	}
	if i == 1 || i >= len(p) || p[i] != ';' {
		return 0, nil
	}
	ent, ok := util.LookUpHTML5EntityByName(string(p[1:i]))
	if !ok {
		return 0, nil
	}
	return i + 1, ent.Characters
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
