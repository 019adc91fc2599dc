package answer

import (
	"strings"
	"testing"
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
