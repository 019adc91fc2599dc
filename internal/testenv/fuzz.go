package testenv

import (
	"flag"
	"testing"
	"time"
)

// FuzzMinimizeTime is how long a fuzz target that calls [BoundMinimize]
// lets the fuzzer minimize one input.
const FuzzMinimizeTime = 5 * time.Second

// BoundMinimize sets -test.fuzzminimizetime to [FuzzMinimizeTime] unless
// the command line set it; call it in a fuzz target before f.Fuzz. The Go
// fuzzer minimizes every input that finds new code, for up to a minute by
// default, by cutting byte ranges out of it (quadratic in its length) and
// running it again each time: for a reader whose inputs are kilobytes of
// structured file taking a millisecond or more each, that minute is spent
// whole, and `go test -fuzz X -fuzztime 60s` made no other progress.
func BoundMinimize(f *testing.F) {
	fl := flag.Lookup("test.fuzzminimizetime")
	if fl == nil {
		return
	}
	set := false
	flag.Visit(func(v *flag.Flag) { set = set || v == fl })
	if !set {
		if err := fl.Value.Set(FuzzMinimizeTime.String()); err != nil {
			f.Fatal(err)
		}
	}
}
