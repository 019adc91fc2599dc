package normalize

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// frontMatter finds YAML front matter at src[from:]: a first line "---", a
// YAML mapping, and a line "---" or "..." (trailing blanks allowed on both).
// It returns the offset where the Markdown body starts and the mapping's
// top-level title (a scalar), or ok == false when there is no front matter.
// A block that is not closed, or whose first line is not a mapping key (text
// between two thematic breaks), is Markdown, not front matter. Front matter
// that is not valid YAML is still not text: it has no title.
func frontMatter(src []byte, from int) (body int, title []byte, ok bool) {
	p := src[from:]
	n, isDelim := delimLine(p, false)
	if !isDelim {
		return from, nil, false
	}
	for i := n; i < len(p); {
		l, end := delimLine(p[i:], true)
		if end {
			y := p[n:i]
			if !startsWithKey(y) {
				return from, nil, false
			}
			return from + i + l, yamlTitle(y), true
		}
		i += l
	}
	return from, nil, false
}

// delimLine returns the length of the first line of p, newline included, and
// whether it is a front matter delimiter ("---", or "..." when closing).
func delimLine(p []byte, closing bool) (int, bool) {
	n := bytes.IndexByte(p, '\n')
	line := p
	if n < 0 {
		n = len(p)
	} else {
		line = p[:n]
		n++
	}
	line = bytes.TrimRight(line, " \t\r")
	return n, string(line) == "---" || closing && string(line) == "..."
}

// startsWithKey reports whether the first line of y that is not blank or a
// comment is a mapping key ("key:" then a blank or the end of the line), or
// whether y is empty.
func startsWithKey(y []byte) bool {
	for line := range bytes.Lines(y) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		i := bytes.Index(t, []byte(":"))
		for i >= 0 && i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t' {
			j := bytes.Index(t[i+1:], []byte(":"))
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		return i > 0
	}
	return true
}

// yamlTitle returns the scalar value of the top-level key "title" of the
// YAML mapping y, or nil. A title on one line in the forms front matter
// almost always uses (plain, or quoted without escapes) is read directly;
// anything else goes to the YAML parser (go.yaml.in/yaml/v3). Front matter
// without a title line costs no parse at all.
func yamlTitle(y []byte) []byte {
	if v, ok := simpleTitle(y); ok {
		return v
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "title" {
			if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				return []byte(v.Value)
			}
			return nil
		}
	}
	return nil
}

// simpleTitle reads the title of front matter y without a YAML parser when
// that is certain to give what the parser would; ok == false means "ask the
// parser".
func simpleTitle(y []byte) (title []byte, ok bool) {
	if hasOddLineBreak(y) {
		return nil, false
	}
	var line []byte
	rest := y
	for l := range bytes.Lines(y) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			if l[0] == ' ' || l[0] == '\t' {
				return nil, false // an indented mapping: the parser decides
			}
			break
		}
	}
	for len(rest) > 0 {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		switch {
		case l[0] == '\t':
			return nil, false // tabs cannot indent YAML: the parser decides
		case bytes.HasPrefix(l, []byte("title:")):
			if len(l) > 6 && l[6] != ' ' && l[6] != '\t' && l[6] != '\r' && l[6] != '\n' {
				return nil, false // "title:x" is a plain scalar, not the key
			}
			if line != nil {
				return nil, false // a second title: the parser decides
			}
			line = l
			// A continuation line (after blank lines, maybe) would make the
			// value span lines.
			if next := nextContentLine(rest); len(next) > 0 && (next[0] == ' ' || next[0] == '\t') {
				return nil, false
			}
		case bytes.IndexByte([]byte("\"'{[%?!&*-|>@`"), l[0]) >= 0:
			return nil, false // quoted, flow, explicit or decorated keys; not a plain mapping
		case bytes.HasPrefix(l, []byte("title")) && len(bytes.TrimLeft(l[5:], " \t")) > 0 && bytes.TrimLeft(l[5:], " \t")[0] == ':':
			return nil, false // "title :"
		}
	}
	if line == nil {
		return nil, true
	}
	v := bytes.TrimSpace(line[len("title:"):])
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		end := bytes.IndexByte(v[1:], '"')
		if end < 0 || bytes.IndexByte(v, '\\') >= 0 || !onlyComment(v[end+2:]) {
			return nil, false
		}
		return v[1 : end+1], true
	case '\'':
		inner := v[1:]
		end := bytes.IndexByte(inner, '\'')
		if end < 0 || !onlyComment(inner[end+1:]) {
			return nil, false
		}
		return inner[:end], true
	case '[', '{', '|', '>', '&', '*', '!', '%', '@', '`', '#', '-', '?', ':', ',', ']', '}':
		return nil, false
	}
	if i := bytes.Index(v, []byte(" #")); i >= 0 {
		v = bytes.TrimSpace(v[:i])
	}
	if bytes.Contains(v, []byte(": ")) || bytes.HasSuffix(v, []byte(":")) || bytes.ContainsAny(v, "\t\r") {
		return nil, false
	}
	switch string(v) {
	case "~", "null", "Null", "NULL":
		return nil, true
	}
	return v, true
}

// hasOddLineBreak reports whether y holds a line break other than "\n" and
// "\r\n" (YAML also breaks lines at a lone "\r", NEL, LS and PS), or a BOM.
func hasOddLineBreak(y []byte) bool {
	for i, c := range y {
		if c == '\r' && (i+1 == len(y) || y[i+1] != '\n') {
			return true
		}
	}
	return bytes.Contains(y, []byte("\u0085")) || bytes.Contains(y, []byte("\u2028")) ||
		bytes.Contains(y, []byte("\u2029")) || bytes.Contains(y, []byte("\uFEFF"))
}

// nextContentLine returns the first line of p that is not blank.
func nextContentLine(p []byte) []byte {
	for l := range bytes.Lines(p) {
		if len(bytes.TrimSpace(l)) > 0 {
			return l
		}
	}
	return nil
}

// onlyComment reports whether p is blank or a comment.
func onlyComment(p []byte) bool {
	t := bytes.TrimSpace(p)
	return len(t) == 0 || t[0] == '#' && len(t) < len(p)
}
