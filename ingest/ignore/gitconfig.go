package ignore

import "strings"

// ExcludesFile returns the value of core.excludesFile in a git config file
// (~/.gitconfig, ~/.config/git/config), the last one set, and whether it is
// set: the name of the user's global excludes file, whose patterns apply
// in every repository, below its .git/info/exclude. The value is as git
// reads it (quotes removed, escapes and continued lines read, comments and
// the spaces around it dropped), not expanded: "~/" is the caller's.
//
// Only what finding that value needs is read: sections and their
// variables, with git's syntax. A line git would refuse is passed over;
// include and includeIf are not followed; a value set in a subsection
// ([core "x"]) or as a bare name (no "=") is not core.excludesFile's.
func ExcludesFile(config []byte) (string, bool) {
	p := configParser{s: string(config)}
	value, found := "", false
	section := ""
	for !p.done() {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			section = p.header()
		default:
			key := p.name()
			if key == "" {
				p.skipLine()
				continue
			}
			p.blanks()
			if p.done() || p.s[p.i] != '=' {
				if !p.done() && p.s[p.i] != '\n' && p.s[p.i] != '#' && p.s[p.i] != ';' {
					p.skipLine() // not a variable
				}
				continue // a bare name: a boolean
			}
			p.i++
			v, ok := p.value()
			if ok && section == "core" && strings.EqualFold(key, "excludesfile") {
				value, found = v, true
			}
		}
	}
	return value, found
}

// configParser reads a git config file's text from position i.
type configParser struct {
	s string
	i int
}

func (p *configParser) done() bool { return p.i >= len(p.s) }

func (p *configParser) skipLine() {
	for !p.done() && p.s[p.i] != '\n' {
		p.i++
	}
}

func (p *configParser) blanks() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

// header reads a section header, "[core]", and returns its name in lower
// case: "" for one that is not a section's alone (a subsection, [core
// "x"] or the old [core.x]) or that is not closed on its line.
func (p *configParser) header() string {
	end := strings.IndexAny(p.s[p.i:], "]\n")
	if end < 0 || p.s[p.i+end] != ']' {
		p.skipLine()
		return ""
	}
	h := p.s[p.i+1 : p.i+end]
	p.i += end + 1
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return "" // a subsection, or not a name
		}
	}
	return strings.ToLower(h)
}

// name reads a variable's name: a letter, then letters, digits and "-".
func (p *configParser) name() string {
	start := p.i
	for !p.done() {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && (c >= '0' && c <= '9' || c == '-') {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// value reads a variable's value after its "=", to the end of its line (or
// of its last continued line); ok is false for one git would refuse (a
// quote not closed, an unknown escape), whose line is passed over.
func (p *configParser) value() (string, bool) {
	p.blanks()
	var b strings.Builder
	quoted := false
	trailing := 0 // unquoted blanks at the end of b, dropped at the end
	for !p.done() {
		c := p.s[p.i]
		switch {
		case c == '\n':
			if quoted {
				p.skipLine()
				return "", false
			}
			return b.String()[:b.Len()-trailing], true
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String()[:b.Len()-trailing], true
		case c == '"':
			quoted = !quoted
			trailing = 0
			p.i++
			continue
		case c == '\\':
			p.i++
			if p.done() {
				return "", false
			}
			switch e := p.s[p.i]; e {
			case '\n':
				// a continued line
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(e)
			default:
				p.skipLine()
				return "", false
			}
			trailing = 0
			p.i++
			continue
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			trailing++
		default:
			trailing = 0
		}
		b.WriteByte(c)
		p.i++
	}
	if quoted {
		return "", false
	}
	return b.String()[:b.Len()-trailing], true
}
