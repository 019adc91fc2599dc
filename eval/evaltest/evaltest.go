// Package evaltest finds the shared data the quality tests and benchmarks
// read.
//
// Deprecated: use internal/testenv; this forwarder goes once no test
// imports it.
package evaltest

import (
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// SharedData is [testenv.SharedData].
//
// Deprecated: use [testenv.SharedData].
func SharedData(tb testing.TB, sub string) string {
	tb.Helper()
	return testenv.SharedData(tb, sub)
}
