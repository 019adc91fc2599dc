// Command testsummary reads the events of go test -json on its standard
// input and writes what go test without -json would (each package's
// result line, the output of failed tests, build errors), then every test
// that skipped with its skip message: "ok 0.9s" no longer hides a skipped
// suite. It exits 1 when a test or a build failed, 0 otherwise. CI runs
//
//	go test -json ./... | go run ./internal/cmd/testsummary
//
// Lines that are not events (what go test writes outside them) are copied
// as they are.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	// FailedBuild names the package whose build failed, on a package's
	// fail event.
	FailedBuild string
}

// skip is a test that skipped.
type skip struct {
	pkg, test, reason string
}

// summarize copies the results of the go test -json stream r to w, then
// lists the skipped tests. failed reports whether a test or a build
// failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	out := bufio.NewWriter(w)
	defer out.Flush()
	type key struct{ pkg, test string }
	logs := map[key][]string{} // output of running tests
	var order []key            // running tests, in the order they started
	var skips []skip
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "build-output":
			out.WriteString(ev.Output)
		case "build-fail":
			failed = true
		case "output":
			if ev.Test == "" {
				if ev.Output != "PASS\n" && ev.Output != "FAIL\n" {
					out.WriteString(ev.Output)
				}
				continue
			}
			if _, ok := logs[k]; !ok {
				order = append(order, k)
			}
			logs[k] = append(logs[k], ev.Output)
		case "pass":
			delete(logs, k)
		case "skip":
			if ev.Test != "" {
				skips = append(skips, skip{shortPackage(ev.Package), ev.Test, skipReason(logs[k])})
				delete(logs, k)
			}
		case "fail":
			failed = true
			if ev.Test != "" {
				writeLog(out, logs[k])
				delete(logs, k)
				continue
			}
			// The package ended (a panic, a timeout): the output of the
			// tests it did not finish shows what they were doing.
			for _, t := range order {
				if t.pkg == ev.Package {
					writeLog(out, logs[t])
					delete(logs, t)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return true, fmt.Errorf("read go test -json: %w", err)
	}
	if len(skips) == 0 {
		fmt.Fprintln(out, "\nNo test skipped.")
		return failed, nil
	}
	fmt.Fprintf(out, "\n%d skipped:\n", len(skips))
	for _, s := range skips {
		fmt.Fprintf(out, "  %s %s: %s\n", s.pkg, s.test, s.reason)
	}
	return failed, nil
}

// writeLog writes a failed test's output as go test without -json does:
// without the lines that say a test runs, pauses or continues.
func writeLog(w io.Writer, lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			io.WriteString(w, l)
		}
	}
}

// skipReason returns the message a test skipped with: the last entry it
// logged ("file_test.go:12: message", with its continuation lines).
func skipReason(lines []string) string {
	var entry []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "=== "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "        ") && len(entry) > 0:
			entry = append(entry, strings.TrimSpace(l))
		case strings.TrimSpace(l) != "":
			entry = []string{strings.TrimSpace(l)}
		}
	}
	if len(entry) == 0 {
		return "(no message)"
	}
	return strings.Join(entry, " ")
}

// shortPackage returns the import path without this module's path.
func shortPackage(p string) string {
	if s, ok := strings.CutPrefix(p, "github.com/cite-rag/cite/"); ok {
		return s
	}
	return p
}
