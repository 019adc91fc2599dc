package jsonkeys_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cite-rag/cite/internal/jsonkeys"
)

// TestDuplicate: the first key given twice in one object, at any depth,
// named by its path; the same key in two objects is not twice.
func TestDuplicate(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		empty     bool // the empty key is repeated
	}{
		{`{"":0,"":1}`, "", true},
		{`{"a":{"":0,"":1}}`, "a.", false},
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "a", false},
		{`{"a":{"b":1},"c":{"b":2}}`, "", false},
		{`{"a":{"b":1,"b":2}}`, "a.b", false},
		{`{"a":[{"k":1},{"k":2,"k":3}]}`, "a[1].k", false},
		{`{"a":[[{"x":1,"x":1}]]}`, "a[0][0].x", false},
		{`[{"x":1},{"x":1,"x":2}]`, "[1].x", false},
		{`{"\u0061":1,"a":2}`, "a", false},
		{`{"a":"a","b":"a"}`, "", false},
		{`{"a":1,"b":{"a":2}}`, "", false},
		{`{}`, "", false},
		{`  {"a":1,"a":2}  `, "a", false},
		{`{"a":1,"a"`, "a", false},
		{`{"a":1,`, "", false},
		{`not json`, "", false},
		{``, "", false},
	} {
		if got, ok := jsonkeys.Duplicate([]byte(tc.raw)); got != tc.want || ok != (tc.want != "" || tc.empty) {
			t.Errorf("%s: %q %v, want %q", tc.raw, got, ok, tc.want)
		}
	}
}

// names is a Visitor that refuses the key "bad" in objects under "x" and
// records the keys it sees.
type names struct {
	under bool
	seen  *[]string
}

func (v names) Key(obj, key string) (jsonkeys.Visitor, error) {
	*v.seen = append(*v.seen, obj+"/"+key)
	if v.under && key == "bad" {
		return nil, fmt.Errorf("%s.bad", obj)
	}
	return names{under: v.under || key == "x", seen: v.seen}, nil
}

func (v names) Elem() jsonkeys.Visitor { return v }

func TestWalkVisitor(t *testing.T) {
	for _, tc := range []struct{ raw, err, seen string }{
		{`{"a":1,"x":{"b":[{"c":1}]}}`, "", "/a /x x/b x.b[0]/c"},
		{`{"bad":1,"x":[{"bad":2}]}`, "x[0].bad", "/bad /x x[0]/bad"},
		{`{"x":{"a":1,"a":2,"bad":3}}`, `"x.a" appears twice`, "/x x/a"},
		{`{"x":{"a":`, "EOF", "/x x/a"},
	} {
		var seen []string
		err := jsonkeys.Walk([]byte(tc.raw), names{seen: &seen})
		if msg := fmt.Sprint(err); tc.err == "" && err != nil || tc.err != "" && !strings.Contains(msg, tc.err) {
			t.Errorf("%s: error %v, want %q", tc.raw, err, tc.err)
		}
		if got := strings.Join(seen, " "); got != tc.seen {
			t.Errorf("%s: visited %q, want %q", tc.raw, got, tc.seen)
		}
	}
	var de *jsonkeys.DuplicateError
	if err := jsonkeys.Walk([]byte(`{"a":[{"k":1,"k":1}]}`), nil); !errors.As(err, &de) || de.Path != "a[0].k" {
		t.Errorf("Walk = %v, want a DuplicateError for a[0].k", err)
	}
}

// FuzzDuplicate: on any input Duplicate never panics, and on JSON it
// names a key exactly when some object has fewer keys once decoded by
// encoding/json (which keeps the last of a repeated key) than it has in
// the text. Seeds in testdata/fuzz/FuzzDuplicate.
func FuzzDuplicate(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `{"\u0061":1,"a":2}`, `[]`, `"x"`, `{"a":1} {"a":1,"a":2}`, `{"a":`, `[{"a":{}},{"a":[]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		key, dup := jsonkeys.Duplicate([]byte(raw))
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		inText, decoded := countKeys(raw), countMapKeys(v)
		if dup != (inText != decoded) {
			t.Errorf("%q: Duplicate says %q; %d keys in the text, %d decoded", raw, key, inText, decoded)
		}
	})
}

// countKeys counts the keys of the objects of the JSON value raw, as
// written.
func countKeys(raw string) int {
	dec := json.NewDecoder(strings.NewReader(raw))
	type frame struct{ obj, wantKey bool }
	var stack []frame
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if k := len(stack) - 1; k >= 0 && stack[k].obj && stack[k].wantKey && tok != json.Delim('}') {
			n++
			stack[k].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return n
		}
		if k := len(stack) - 1; stack[k].obj {
			stack[k].wantKey = true
		}
	}
}

// countMapKeys counts the keys of the objects in v, decoded.
func countMapKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += countMapKeys(e)
		}
	case []any:
		for _, e := range v {
			n += countMapKeys(e)
		}
	}
	return n
}

func ExampleDuplicate() {
	fmt.Println(jsonkeys.Duplicate([]byte(`{"query":"bees","filter":{"path":"a","path":"b"}}`)))
	fmt.Println(jsonkeys.Duplicate([]byte(`{"query":"bees","k":5}`)))
	// Output:
	// filter.path true
	//  false
}
