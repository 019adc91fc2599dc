package ranktable

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// byteTable is a table in tiktoken's format of every byte, ranks 0-255.
func byteTable() string {
	var b strings.Builder
	for c := range 256 {
		fmt.Fprintf(&b, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(c)}), c)
	}
	return b.String()
}

// TestBuild builds and opens a small table and looks up each of its
// tokens and strings that are not.
func TestBuild(t *testing.T) {
	src := byteTable()
	extra := []string{"hi", "hello", " world", strings.Repeat("x", 16), strings.Repeat("y", 17), strings.Repeat("z", MaxTokenBytes), "日本語"}
	for i, tok := range extra {
		src += fmt.Sprintf("%s %d\n", base64.StdEncoding.EncodeToString([]byte(tok)), 256+i)
	}
	data, err := Build(strings.NewReader(src + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 256+len(extra) {
		t.Fatalf("%d tokens, want %d", tab.Len(), 256+len(extra))
	}
	for c := range 256 {
		if r, ok := tab.Rank(string([]byte{byte(c)})); !ok || r != c {
			t.Fatalf("byte %#02x: rank %d (found %v)", c, r, ok)
		}
	}
	for i, tok := range extra {
		if r, ok := tab.Rank(tok); !ok || r != 256+i || tab.TokenLen(r) != len(tok) {
			t.Fatalf("%q: rank %d (found %v), length %d", tok, r, ok, tab.TokenLen(r))
		}
	}
	for _, s := range []string{"", "hj", "hell", "hello!", " worle", strings.Repeat("x", 15), strings.Repeat("z", MaxTokenBytes+1), strings.Repeat("y", 18), "日本"} {
		if r, ok := tab.Rank(s); ok {
			t.Fatalf("%q: rank %d, want none", s, r)
		}
	}
	n := 0
	for tok, r := range tab.All() {
		if got, ok := tab.Rank(tok); !ok || got != r || r != n {
			t.Fatalf("All yields %q, rank %d, as its %dth; Rank says %d", tok, r, n, got)
		}
		n++
	}
}

func TestBuildErrors(t *testing.T) {
	valid := byteTable()
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "byte 0x00 is not a token"},
		{"no space", valid + "aGk=256\n", "line 257: no space between token and rank"},
		{"bad base64", valid + "a!k= 256\n", "line 257: token: illegal base64 data"},
		{"empty token", valid + " 256\n", "line 257: token of 0 bytes"},
		{"long token", valid + base64.StdEncoding.EncodeToString(make([]byte, 129)) + " 256\n", "line 257: token of 129 bytes"},
		{"longer token", valid + base64.StdEncoding.EncodeToString(make([]byte, 300)) + " 256\n", "line 257: token of over 128 bytes"},
		{"bad rank", valid + "aGk= 2x\n", `line 257: rank "2x" is not a number`},
		{"negative rank", valid + "aGk= -1\n", `line 257: rank "-1" is not a number`},
		{"huge rank", valid + "aGk= 999999999\n", "line 257: rank 999999999 over 262143"},
		{"rank gap", valid + "aGk= 257\n", "rank 256: want ranks 0 to 257, each once"},
		{"rank twice", valid + "aGk= 3\n", "line 257: rank 3 twice"},
		{"token twice", valid + "aGk= 256\naGk= 257\n", `line 258: token "hi" twice`},
		{"byte missing", strings.Replace(valid, "AA== 0\n", "aGk= 0\n", 1), "byte 0x00 is not a token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(strings.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	data, err := Build(strings.NewReader(byteTable()))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", string(data[:10]), string(data[:len(data)-1]), string(data) + "x"} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open of %d bytes: no error", len(bad))
		}
	}
}
