package answer

import (
	"strings"
	"testing"

	"github.com/cite-rag/cite/internal/jsonkeys"
)

// TestArgumentErrors: a tool call's arguments that break its schema get an
// error naming the argument and the rule in words, which the model reads
// to call again (and the trace shows), not the validator's paths and
// fractions ("validating /properties/k: maximum: 99/1 is greater than
// 20.000000").
func TestArgumentErrors(t *testing.T) {
	defs, err := LoadDefs(mustSub(builtinDefs, "tools"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewToolbox(defs, builtinFuncs())
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := tb.Get("search_data_sources")
	for _, tc := range []struct{ args, want string }{
		{`{"query":"x","k":99}`, "invalid arguments: k: 99 is more than the maximum, 20"},
		{`{"query":"x","k":0}`, "invalid arguments: k: 0 is less than the minimum, 1"},
		{`{"query":"x","k":2.5}`, "invalid arguments: k: 2.5 is a number, want an integer"},
		{`{"query":5}`, "invalid arguments: query: 5 is an integer, want a string"},
		{`{"query":"x","bogus":1}`, `invalid arguments: unknown arguments ["bogus"]`},
		{`{}`, `invalid arguments: missing required arguments ["query"]`},
		{`{"query":"x","sources":"a"}`, "invalid arguments: sources: a is a string, want an array"},
		{`{"query":"x","sources":[1]}`, "invalid arguments: sources[]: 1 is an integer, want a string"},
		// A null, an object and a long value are named by their type,
		// never "<invalid reflect.Value>" nor a Go map's printing.
		{`{"query":null}`, "invalid arguments: query: null, want a string"},
		{`{"query":{"a":1}}`, "invalid arguments: query: an object, want a string"},
		{`{"query":"x","sources":[null]}`, "invalid arguments: sources[]: null, want a string"},
		{`{"query":true}`, "invalid arguments: query: true is a boolean, want a string"},
		{`{"query":"x","sources":"` + strings.Repeat("é", 30) + `"}`, "invalid arguments: sources: " + strings.Repeat("é", 20) + "… is a string, want an array"},
		// A key given twice is refused, naming it (encoding/json keeps
		// the last, and the model would never learn the first was dropped);
		// an escaped spelling is the same key, a nested one is named by
		// its path.
		{`{"query":"wal","query":"checkpoint"}`, `the arguments give "query" twice; give each argument once`},
		{`{"query":"x","k":3,"k":5}`, `the arguments give "k" twice; give each argument once`},
		{`{"query":"x","q\u0075ery":"y"}`, `the arguments give "query" twice; give each argument once`},
		{`{"query":"x","sources":["a","a"]}`, ""},
		{`{"query":"x"}`, ""},
	} {
		_, err := spec.parseArgs(tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// FuzzParseArgs: whatever a model sends as a tool's arguments is refused
// with an error or accepted as an object the schema validates, never
// with a key given twice, and never panics. Seeds in
// testdata/fuzz/FuzzParseArgs.
func FuzzParseArgs(f *testing.F) {
	defs, err := LoadDefs(mustSub(builtinDefs, "tools"))
	if err != nil {
		f.Fatal(err)
	}
	tb, err := NewToolbox(defs, builtinFuncs())
	if err != nil {
		f.Fatal(err)
	}
	spec, _ := tb.Get("search_data_sources")
	for _, s := range []string{`{"query":"x"}`, `{"query":"x","query":"y"}`, `{"query":"x","":1,"":2}`, `{"query":"x","k":3}`, ``, `null`, `[]`, `{"query":"x"} {}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := spec.parseArgs(raw)
		if err != nil {
			if args != nil {
				t.Errorf("%q: arguments %v with error %v", raw, args, err)
			}
			return
		}
		if args == nil {
			t.Fatalf("%q: no arguments and no error", raw)
		}
		if key, dup := jsonkeys.Duplicate([]byte(raw)); dup {
			t.Errorf("%q: accepted with %q twice", raw, key)
		}
		if _, ok := args["query"].(string); !ok {
			t.Errorf("%q: accepted without a string query: %v", raw, args)
		}
	})
}
