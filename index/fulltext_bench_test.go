package index

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/internal/topk"
	"github.com/cite-rag/cite/internal/benchquery"
)

// BenchmarkSearchText compares, in one process on one index, BM25 over the
// postings (SearchText), the same with pruning off (every match scored),
// and the FTS4 + matchinfo MaxScore that SearchText replaced (kept below
// as legacySearchText), on the heading queries of search's
// BenchmarkSearch. It runs on a copy of an index made by that benchmark:
//
//	CITE_FTS_BENCH=/path/to/a/copy/of/cite-bench-100000-v3-hash2048 go test -run '^$' -bench SearchText -benchtime 300x ./index
//
// Opening migrates the copy to this cite's schema. It also reports the
// top-10 agreement of each with legacySearchText (ties aside: a hit of
// equal score counts).
func BenchmarkSearchText(b *testing.B) {
	dir := os.Getenv("CITE_FTS_BENCH")
	if dir == "" {
		b.Skip("CITE_FTS_BENCH names no index")
	}
	ctx := context.Background()
	start := time.Now()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.Logf("open (and migrate) in %v", time.Since(start))
	queries := headingQueries(b, st)
	type impl struct {
		name string
		run  func(q string, k int) ([]Scored, error)
	}
	impls := []impl{
		{"postings", func(q string, k int) ([]Scored, error) { return st.SearchText(ctx, q, Filter{}, k) }},
		{"exhaustive", func(q string, k int) ([]Scored, error) {
			live, err := st.liveTerms(ctx, analysis.QueryTerms(q))
			if err != nil || len(live) == 0 {
				return nil, err
			}
			return st.searchPostings(ctx, live, Filter{}, k, true)
		}},
		{"fts4", func(q string, k int) ([]Scored, error) { return st.legacySearchText(ctx, q, Filter{}, k) }},
	}
	want := map[string][]Scored{}
	for _, q := range queries {
		if want[q], err = st.legacySearchText(ctx, q, Filter{}, 10); err != nil {
			b.Fatal(err)
		}
	}
	for _, im := range impls {
		b.Run(im.name, func(b *testing.B) {
			var lat []time.Duration
			agree, total := 0, 0
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				t0 := time.Now()
				got, err := im.run(q, 10)
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				a, n := agreement(got, want[q])
				agree, total = agree+a, total+n
			}
			benchquery.ReportLatency(b, lat)
			b.ReportMetric(float64(agree)/float64(max(total, 1)), "top10-agreement")
		})
	}
}

// agreement counts the hits of want found in got, a hit whose score ties
// with one of got's counting as found.
func agreement(got, want []Scored) (found, total int) {
	ids := map[int64]bool{}
	scores := map[float64]bool{}
	for _, g := range got {
		ids[g.Chunk] = true
		scores[g.Score] = true
	}
	for _, w := range want {
		if ids[w.Chunk] || scores[w.Score] {
			found++
		}
	}
	return found, len(want)
}

// headingQueries returns the queries search's BenchmarkSearch asks (see
// [benchquery.Picker]).
func headingQueries(b *testing.B, st *Store) []string {
	ctx := context.Background()
	docs, err := st.Documents(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	var p benchquery.Picker
	for _, d := range docs {
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cs {
			if !p.Add(c.Headings) {
				return p.Queries
			}
		}
	}
	return p.Queries
}

// legacySearchText is SearchText as it was before the postings (FTS4 and
// matchinfo, MaxScore by term, re-reading candidates' terms), kept for
// BenchmarkSearchText's comparison.
func (s *Store) legacySearchText(ctx context.Context, query string, f Filter, k int) ([]Scored, error) {
	terms := analysis.QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	ts, err := s.TermStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	var live []string
	for _, t := range terms {
		if ts.DF[t] > 0 {
			live = append(live, t)
		}
	}
	if len(live) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(live, func(a, b string) int { return ts.DF[a] - ts.DF[b] })
	return s.searchMaxScore(ctx, live, ts, f, k)
}

// searchMaxScore ranks by BM25 term at a time, rarest term first (terms
// is sorted by document frequency), as MaxScore does: a chunk first seen
// when scanning term i has none of the terms before it, so it scores at
// most its score for term i plus the upper bounds, idf*(k1+1), of the
// terms after i. Chunks are scored exactly (reading their terms) only
// while that bound can beat the k-th best so far, and the scan stops at
// the first term whose unseen chunks cannot beat it at all: common terms,
// whose matches are most of the index, are then never read.
func (s *Store) searchMaxScore(ctx context.Context, terms []string, ts TermStats, f Filter, k int) ([]Scored, error) {
	idf := idfs(terms, ts)
	// after[i]: the most terms i+1.. can add to a chunk's score.
	after := make([]float64, len(terms)+1)
	for i := len(terms) - 1; i >= 0; i-- {
		after[i] = after[i+1] + idf[i]*(bm25K1+1)
	}
	after = after[1:]
	pos := map[string]int{}
	for i, t := range terms {
		pos[t] = i
	}
	type cand struct {
		docid   int64
		partial float64
	}
	top := topk.New(k, scoredFirst)
	seen := map[int64]bool{}
	beats := func(bound float64) bool { return !top.Full() || bound >= top.Worst().Score }
	tf := make([]int, len(terms))
	for i := range terms {
		// A chunk not seen yet has none of terms 0..i-1.
		if !beats(idf[i]*(bm25K1+1) + after[i]) {
			break
		}
		var cands []cand
		var avgdl float64
		err := s.scanMatches(ctx, terms[i:i+1], f, func(docid int64, one []int, dl, a float64) {
			if !seen[docid] {
				avgdl = a
				cands = append(cands, cand{docid, bm25(idf[i:i+1], one, dl, a)})
			}
		})
		if err != nil {
			return nil, err
		}
		slices.SortFunc(cands, func(a, b cand) int { return bestFirst(a.partial, b.partial, a.docid, b.docid) })
		for _, c := range cands {
			seen[c.docid] = true
		}
		// Score the candidates that can still make the top k, best
		// bound first; the others never can (the k-th best only rises).
		const batch = 64
		for j := 0; j < len(cands); j += batch {
			group := cands[j:min(j+batch, len(cands))]
			if !beats(group[0].partial + after[i]) {
				break
			}
			var texts map[int64]string
			if after[i] > 0 {
				ids := make([]int64, len(group))
				for n, c := range group {
					ids[n] = c.docid
				}
				var err error
				if texts, err = s.chunkTerms(ctx, ids); err != nil {
					return nil, err
				}
			}
			for _, c := range group {
				if !beats(c.partial + after[i]) {
					break
				}
				score := c.partial // the last term: nothing else to add
				if after[i] > 0 {
					dl := countQueryTerms(texts[c.docid], terms, pos, tf)
					score = bm25(idf, tf, float64(dl), avgdl)
				}
				top.Push(Scored{Chunk: c.docid, Score: score})
			}
		}
	}
	return top.Sorted(), nil
}

// countQueryTerms sets tf[i] to the occurrences of terms[i] in an analyzed
// text (terms joined by single spaces) and returns the text's length in
// terms. pos maps each term to its index.
func countQueryTerms(text string, terms []string, pos map[string]int, tf []int) int {
	clear(tf)
	if text == "" {
		return 0
	}
	dl := strings.Count(text, " ") + 1
	if len(terms) > 8 {
		for _, t := range strings.Fields(text) {
			if p, ok := pos[t]; ok {
				tf[p]++
			}
		}
		return dl
	}
	// Few terms: search for each, which is faster than splitting the text.
	for i, t := range terms {
		for from := 0; ; {
			at := strings.Index(text[from:], t)
			if at < 0 {
				break
			}
			at += from
			end := at + len(t)
			if (at == 0 || text[at-1] == ' ') && (end == len(text) || text[end] == ' ') {
				tf[i]++
			}
			from = at + 1
		}
	}
	return dl
}
