package ignore

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Result is what the patterns of a [List] say of a path.
type Result int

// Results of [List.Match].
const (
	NoMatch  Result = iota // no pattern matches
	Ignored                // the last pattern to match ignores it
	Included               // the last pattern to match is a "!" pattern
)

func (r Result) String() string {
	switch r {
	case Ignored:
		return "ignored"
	case Included:
		return "included"
	}
	return "no match"
}

// ErrBinary is the error of an ignore file that holds NUL bytes: not a text
// file, so none of it is read.
var ErrBinary = errors.New("not a text file (it holds NUL bytes): left out")

// LineError is a line of an ignore file that is not a valid pattern.
type LineError struct {
	Line int    // 1-based
	Text string // the line
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %q: %v: left out", e.Line, e.Text, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// List is the patterns of one ignore file.
type List struct {
	dir  []string // the folder of the file, by elements
	pats []pat
}

type pat struct {
	p    gitignore.Pattern
	name bool // no "/" but a trailing one: matched against the last element
	// elems is how many elements of a path a pattern with a "/" and no
	// "**" matches, one each; -1 for one with "**". gitignore's match of
	// such a pattern also says yes to the paths below one it matches
	// ("/build" to build/out.md), which is right for a walk, that never
	// enters an ignored folder, but not for a folder named though its
	// parent's rules ignore it, whose own entries the rules judge.
	elems int
}

// Parse reads the lines of an ignore file that lies in folder dir
// (slash-separated, relative to the paths it will be asked about; "" for
// their root). Lines that are not patterns are left out and returned as
// *LineError, in order; the patterns of the other lines stand.
func Parse(data []byte, dir string) (*List, []error) {
	l := &List{}
	if dir = strings.Trim(path.Clean("/"+dir), "/"); dir != "" {
		l.dir = strings.Split(dir, "/")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return l, []error{ErrBinary}
	}
	var errs []error
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		line = strings.TrimRight(line, "\r\n")
		p := pattern(line)
		if p == "" {
			continue
		}
		if err := check(p); err != nil {
			errs = append(errs, &LineError{Line: n, Text: line, Err: err})
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(p, "!"), "/")
		// "dir/**" as "dir/**/*": what is inside dir, not dir itself.
		if strings.HasSuffix(p, "/**") && len(body) > 3 {
			p += "/*"
		}
		pt := pat{p: gitignore.ParsePattern(p, l.dir), name: !strings.Contains(body, "/"), elems: -1}
		if b := strings.TrimSuffix(strings.TrimPrefix(p, "!"), "/"); !strings.Contains(b, "**") {
			pt.elems = 0
			for e := range strings.SplitSeq(b, "/") {
				if e != "" { // gitignore skips empty elements ("/a", "a//b")
					pt.elems++
				}
			}
		}
		l.pats = append(l.pats, pt)
	}
	return l, errs
}

// pattern returns the pattern of a line, "" for none (blank, a comment).
// Trailing spaces are dropped unless escaped, as git does.
func pattern(line string) string {
	if strings.HasPrefix(line, "#") {
		return ""
	}
	t := strings.TrimRight(line, " ")
	if strings.HasSuffix(t, `\`) && len(t) < len(line) && !strings.HasSuffix(t, `\\`) {
		t += " " // "a\ " keeps its escaped space
	}
	if t == "!" || t == "/" || t == "!/" {
		return "" // matches nothing
	}
	return t
}

// check reports whether each element of a pattern is a valid glob.
func check(p string) error {
	p = strings.TrimPrefix(p, "!")
	for e := range strings.SplitSeq(p, "/") {
		if _, err := path.Match(e, ""); err != nil {
			return err
		}
		if strings.HasSuffix(e, `\`) && !strings.HasSuffix(e, `\\`) {
			return errors.New("ends in an unfinished escape")
		}
	}
	return nil
}

// Len returns how many patterns the list holds.
func (l *List) Len() int { return len(l.pats) }

// Match says what the list's patterns make of path (slash-separated,
// relative to the root given to [Parse]; isDir says it is a folder): the
// last pattern that matches decides.
func (l *List) Match(p string, isDir bool) Result {
	if l == nil || len(l.pats) == 0 {
		return NoMatch
	}
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return NoMatch
	}
	elems := strings.Split(p, "/")
	if len(elems) <= len(l.dir) {
		return NoMatch
	}
	for i, d := range l.dir {
		if elems[i] != d {
			return NoMatch
		}
	}
	last := append(append(make([]string, 0, len(l.dir)+1), l.dir...), elems[len(elems)-1])
	for i := len(l.pats) - 1; i >= 0; i-- {
		pt := l.pats[i]
		in := elems
		if pt.name {
			in = last
		} else if pt.elems >= 0 && pt.elems != len(elems)-len(l.dir) {
			continue // it could only match a folder above p
		}
		switch pt.p.Match(in, isDir) {
		case gitignore.Exclude:
			return Ignored
		case gitignore.Include:
			return Included
		}
	}
	return NoMatch
}

// Kind is the kind of an ignore file, in increasing precedence.
type Kind int

// Kinds of ignore files.
const (
	GlobalExclude Kind = iota // git's global excludes file (core.excludesFile, ~/.config/git/ignore)
	InfoExclude               // a repository's .git/info/exclude
	GitIgnore                 // .gitignore
	IgnoreFile                // .ignore (ripgrep's, fd's)
	numKinds
)

// Rules are the ignore files in force in a folder. The zero value, and
// nil, ignore nothing. Rules are never changed: [Rules.Add] makes new ones,
// so a folder's rules can be shared by its subfolders.
type Rules struct {
	lists [numKinds][]*List // each kind's, the deepest folder's last
}

// Add returns the rules with list added as the deepest of its kind.
// Empty lists add nothing.
func (r *Rules) Add(k Kind, l *List) *Rules {
	if l == nil || len(l.pats) == 0 {
		return r
	}
	n := &Rules{}
	if r != nil {
		*n = *r
	}
	n.lists[k] = append(n.lists[k][:len(n.lists[k]):len(n.lists[k])], l)
	return n
}

// Ignored reports whether the rules ignore path (slash-separated, relative
// to the root of the lists' folders; isDir says it is a folder). The
// kinds are asked in turn, .ignore files first, each from its deepest
// file up, and the first that matches decides. Only path itself is
// judged: a file in an ignored folder is the walk's to leave out.
func (r *Rules) Ignored(p string, isDir bool) bool {
	if r == nil {
		return false
	}
	for k := numKinds - 1; k >= 0; k-- {
		ls := r.lists[k]
		for i := len(ls) - 1; i >= 0; i-- {
			switch ls[i].Match(p, isDir) {
			case Ignored:
				return true
			case Included:
				return false
			}
		}
	}
	return false
}
