package citations_test

import (
	"flag"
	"testing"

	"github.com/cite-rag/cite/citations/citetest"
)

var _ = flag.Bool("update", false, "rewrite the goldens in ../testdata/citations")

// TestScenarios runs the shared citation fixtures in testdata/citations.
func TestScenarios(t *testing.T) {
	citetest.Run(t, "../testdata/citations")
}
