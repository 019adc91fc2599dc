package normalize

import (
	"bytes"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"

	"go.yaml.in/yaml/v3"
)

// parserTitle is what the YAML parser says the title of mapping y is, and
// whether y is a valid mapping at all.
func parserTitle(y []byte) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil, false
	}
	if doc.Kind == 0 {
		return nil, true
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k, v := m.Content[i], m.Content[i+1]; k.Value == "title" {
			if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				return []byte(v.Value), true
			}
			return nil, true
		}
	}
	return nil, true
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		body  string // "" when there is no front matter
		title string
	}{
		{"plain", "---\ntitle: Hello World\n---\nbody", "body", "Hello World"},
		{"double quoted", "---\ntitle: \"Hello: World\" # c\n---\nbody", "body", "Hello: World"},
		{"single quoted", "---\ntitle: 'It''s'\n---\nbody", "body", "It's"},
		{"escape", "---\ntitle: \"Tab\\there\"\n---\nbody", "body", "Tab\there"},
		{"block scalar", "---\ntitle: >-\n  Folded\n  title\n---\nbody", "body", "Folded title"},
		{"continuation", "---\ntitle: Two\n  lines\n---\nbody", "body", "Two lines"},
		{"comment", "---\ntitle: Value # comment\n---\nbody", "body", "Value"},
		{"null", "---\ntitle: ~\n---\nbody", "body", ""},
		{"number", "---\ntitle: 2024\n---\nbody", "body", "2024"},
		{"no title", "---\ndescription: x\n---\nbody", "body", ""},
		{"nested title is not top level", "---\nmeta:\n  title: inner\n---\nbody", "body", ""},
		{"dots close", "---\ntitle: Dots\n...\nbody", "body", "Dots"},
		{"CRLF", "---\r\ntitle: CRLF\r\n---\r\nbody", "body", "CRLF"},
		{"empty", "---\n---\nbody", "body", ""},
		{"invalid YAML is still front matter", "---\ntitle: [unclosed\n---\nbody", "body", ""},
		{"unclosed", "---\ntitle: x\nbody", "", ""},
		{"not a mapping", "---\nSome text\n---\nbody", "", ""},
		{"not at start", "\n---\ntitle: x\n---\n", "", ""},
		{"title without space", "---\nother: y\ntitle:x\n---\nbody", "body", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, title, ok := frontMatter([]byte(tt.src), 0)
			if ok != (tt.body != "") {
				t.Fatalf("front matter found = %v, want %v", ok, tt.body != "")
			}
			if ok && tt.src[body:] != tt.body {
				t.Errorf("body = %q, want %q", tt.src[body:], tt.body)
			}
			if string(title) != tt.title {
				t.Errorf("title = %q, want %q", title, tt.title)
			}
		})
	}
}

// TestSimpleTitleAgreesWithParser checks the shortcut against the YAML parser
// on the front matter of the Markdown corpus.
func TestSimpleTitleAgreesWithParser(t *testing.T) {
	files := loadCorpus(t, testenv.SharedData(t, "markdown"), ".md")
	simple := 0
	for _, f := range files {
		src := bytes.TrimPrefix(f.src, utf8BOM)
		n, _ := delimLine(src, false)
		if n >= len(src) || !bytes.HasPrefix(src, []byte("---")) {
			continue
		}
		end := bytes.Index(src[n:], []byte("\n---"))
		if end < 0 {
			continue
		}
		y := src[n : n+end+1]
		if got, ok := simpleTitle(y); ok {
			simple++
			want, valid := parserTitle(y)
			if valid && !bytes.Equal(got, want) {
				t.Errorf("%s: shortcut title %q, parser %q", f.name, got, want)
			}
		}
	}
	t.Logf("%d front matters read without the parser", simple)
}

// FuzzSimpleTitle checks that whenever the shortcut answers and the YAML
// parser accepts the mapping, they agree.
func FuzzSimpleTitle(f *testing.F) {
	for _, s := range []string{"title: x\n", "title: \"a\"\nb: c\n", "title: 'x'\n", "a: b\ntitle: c # d\n", "title: a\n  b\n", "title:\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, y []byte) {
		got, ok := simpleTitle(y)
		if !ok {
			return
		}
		want, valid := parserTitle(y)
		if valid && !bytes.Equal(got, want) {
			t.Errorf("shortcut %q, parser %q for %q", got, want, y)
		}
	})
}
