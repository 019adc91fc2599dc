// Package benchquery is what the search benchmarks share: the queries they
// ask (search's BenchmarkSearch and index's BenchmarkSearchText, which runs
// on a copy of the former's index and must ask the same, and cite bench's
// eval/bench), and how they report latency. It is for benchmarks only.
package benchquery

import (
	"slices"
	"time"

	"github.com/cite-rag/cite/index/analysis"
)

// Max is how many queries a [Picker] picks unless its Limit says otherwise.
const Max = 300

// Picker picks the benchmark queries from an index's chunks, given in
// index order (documents as Store.Documents lists them, each one's chunks
// in order): the innermost heading of every 50th chunk ("Example 4: Delete
// files in subfolders recursively"), distinct and with query terms, up to
// Limit or [Max]. The zero value is ready to use.
type Picker struct {
	// Queries are the queries picked so far.
	Queries []string

	// Limit is how many queries to pick; 0 means [Max].
	Limit int

	n    int // chunks seen
	seen map[string]bool
}

// Add considers the next chunk, by its headings (outermost first). It
// returns false once the queries are all picked.
func (p *Picker) Add(headings []string) bool {
	limit := p.Limit
	if limit <= 0 {
		limit = Max
	}
	if len(p.Queries) >= limit {
		return false
	}
	p.n++
	if p.n%50 != 0 || len(headings) == 0 {
		return true
	}
	h := headings[len(headings)-1]
	if !p.seen[h] && len(analysis.QueryTerms(h)) > 0 {
		if p.seen == nil {
			p.seen = map[string]bool{}
		}
		p.seen[h] = true
		p.Queries = append(p.Queries, h)
	}
	return len(p.Queries) < limit
}

// Reporter is what [ReportLatency] reports to: a *testing.B.
type Reporter interface {
	ReportMetric(n float64, unit string)
}

// ReportLatency reports the p50 and p99 of the recorded latencies in
// milliseconds (p50-ms, p99-ms), in place of ns/op. It sorts lat.
func ReportLatency(b Reporter, lat []time.Duration) {
	slices.Sort(lat)
	at := func(p float64) float64 {
		return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
