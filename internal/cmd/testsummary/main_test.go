package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestSummarize runs the summary over recorded go test -json streams
// (testdata/*.jsonl, real runs of go1.26: events.jsonl over a module with
// passing, skipped and failing tests and subtests, a build failure and a
// package without tests; passing.jsonl its passing part after a line that
// is no event; panic.jsonl a test that panics) and compares it with
// testdata/*.golden.
func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failed bool
	}{
		{"events", true},
		{"passing", false},
		{"panic", true}, // a test panics: its output and the trace show
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.Open(filepath.Join("testdata", tc.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var out strings.Builder
			failed, err := summarize(in, &out)
			if err != nil {
				t.Fatal(err)
			}
			if failed != tc.failed {
				t.Errorf("failed = %v, want %v", failed, tc.failed)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(want) {
				t.Errorf("got\n%s\nwant\n%s", out.String(), want)
			}
		})
	}
}

func TestSkipReason(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"=== RUN   TestX\n", "    x_test.go:3: looking\n", "    x_test.go:4: absent\n", "--- SKIP: TestX (0.00s)\n"}, "x_test.go:4: absent"},
		{[]string{"=== RUN   TestX\n", "    x_test.go:4: first line\n", "        second line\n", "--- SKIP: TestX (0.00s)\n"}, "x_test.go:4: first line second line"},
		{[]string{"=== RUN   TestX\n", "--- SKIP: TestX (0.00s)\n"}, "(no message)"},
		{nil, "(no message)"},
	} {
		if got := skipReason(tc.lines); got != tc.want {
			t.Errorf("skipReason(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}
