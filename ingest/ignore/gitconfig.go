package ignore

import "strings"

// ExcludesFile returns the value of core.excludesFile in a git config file
// (~/.gitconfig, ~/.config/git/config), the last one set, and whether it is
// set: the name of the user's global excludes file, whose patterns apply
// in every repository, below its .git/info/exclude. The value is as git
// reads it (quotes removed, escapes and continued lines read, comments and
// the spaces around it dropped), not expanded: "~/" is the caller's.
// Includes are not followed: [ExcludesConfig] returns them in their place.
func ExcludesFile(config []byte) (string, bool) {
	value, found := "", false
	for _, e := range ExcludesConfig(config) {
		if !e.Include {
			value, found = e.Value, true
		}
	}
	return value, found
}

// A ConfigEntry is a setting of a git config file that bears on which
// global excludes file git reads: core.excludesFile, or a file included
// where it stands, whose settings count as if written there.
type ConfigEntry struct {
	// Include is set for include.path and includeIf.<condition>.path,
	// whose Value is the file included (not expanded: "~/" and a path
	// relative to the including file's folder are the caller's).
	Include bool
	// Condition is includeIf's subsection, as written ("gitdir:~/work/",
	// "gitdir/i:…", "onbranch:main"); "" for include.path.
	Condition string
	// Value is core.excludesFile's value, or the file included.
	Value string
}

// ExcludesConfig returns the settings of a git config file that bear on
// its global excludes file, in the file's order: core.excludesFile, and
// include.path and includeIf.<condition>.path. Values are read as git
// reads them (quotes removed, escapes and continued lines read, comments
// and the spaces around them dropped).
//
// Only what finding those needs is read: sections, subsections ([includeIf
// "gitdir:~/work/"], with their escapes, and the old [section.sub]) and
// their variables, with git's syntax. A line git would refuse is passed
// over; a value set in another subsection ([core "x"]) or as a bare name
// (no "=") is not one of these.
func ExcludesConfig(config []byte) []ConfigEntry {
	p := configParser{s: string(config)}
	var out []ConfigEntry
	var h header
	for !p.done() {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			h = p.header()
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
			if !ok {
				continue
			}
			key = strings.ToLower(key)
			switch {
			case h.section == "core" && !h.sub && key == "excludesfile":
				out = append(out, ConfigEntry{Value: v})
			case h.section == "include" && !h.sub && key == "path":
				out = append(out, ConfigEntry{Include: true, Value: v})
			case h.section == "includeif" && h.sub && key == "path":
				out = append(out, ConfigEntry{Include: true, Condition: h.subsection, Value: v})
			}
		}
	}
	return out
}

// header is a section header read: its name in lower case ("" for none
// git would take), and its subsection if it has one.
type header struct {
	section    string
	subsection string
	sub        bool
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

// header reads a section header: "[core]", "[includeIf "gitdir:~/w/"]"
// (a subsection in quotes, "\\" escaping the character after it, on one
// line) or the old "[section.sub]" (the subsection in lower case, as git
// reads it). One git would refuse, or not closed on its line, is no
// section's: its variables are nobody's.
func (p *configParser) header() header {
	p.i++ // [
	start := p.i
	for !p.done() {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			p.i++
			continue
		}
		break
	}
	name := strings.ToLower(p.s[start:p.i])
	if name == "" || p.done() {
		p.skipLine()
		return header{}
	}
	if p.s[p.i] == ']' {
		p.i++
		if sec, sub, ok := strings.Cut(name, "."); ok {
			if sec == "" {
				return header{}
			}
			return header{section: sec, subsection: sub, sub: true}
		}
		return header{section: name}
	}
	if strings.Contains(name, ".") {
		p.skipLine()
		return header{}
	}
	p.blanks()
	if p.done() || p.s[p.i] != '"' {
		p.skipLine()
		return header{}
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		switch {
		case c == '\n':
			return header{} // the line is over: not a header
		case c == '"':
			p.i++
			if p.done() || p.s[p.i] != ']' {
				p.skipLine()
				return header{}
			}
			p.i++
			return header{section: name, subsection: b.String(), sub: true}
		case c == '\\':
			p.i++
			if p.done() || p.s[p.i] == '\n' {
				return header{}
			}
			c = p.s[p.i]
		}
		b.WriteByte(c)
		p.i++
	}
	return header{}
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
