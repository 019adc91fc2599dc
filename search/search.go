package search

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
)

// Mode chooses the retrievers a search uses.
type Mode string

// Modes.
const (
	Hybrid Mode = "hybrid" // BM25 and vectors, fused (the default)
	BM25   Mode = "bm25"   // full-text ranking only
	Vector Mode = "vector" // vector similarity only
)

// Modes lists the modes in the order cite eval reports them.
var Modes = []Mode{Hybrid, BM25, Vector}

// ParseMode returns the mode named s ("" is [Hybrid]).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case "":
		return Hybrid, nil
	case Hybrid, BM25, Vector:
		return m, nil
	}
	return "", fmt.Errorf("unknown search mode %q (want hybrid, bm25 or vector)", s)
}

// DefaultK is the number of hits a search returns unless told otherwise.
const DefaultK = 10

// Query is one search.
type Query struct {
	Text string
	// K is the number of hits wanted (default [DefaultK]).
	K    int
	Mode Mode // default Hybrid
	// Filter restricts the search to a data source, a document or paths.
	Filter index.Filter
	// PerDocument caps the hits taken from one document (0: no cap), so
	// that one long document cannot fill the whole list.
	PerDocument int
}

// Scores are a hit's scores from each retriever; nil where the retriever
// did not rank the chunk among its candidates (or was not asked).
type Scores struct {
	BM25   *float64 `json:"bm25"`
	Vector *float64 `json:"vector"`
}

// DocumentRef identifies a hit's document.
type DocumentRef struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Title  string `json:"title"`
	Source string `json:"-"` // data source name
	Type   string `json:"-"` // markdown, html, text
}

// Span is a byte range [Start, End).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Hit is one retrieved chunk. Its JSON form is cite search --json's, an
// interface kept stable:
//
//	{"rank","score","scores":{"bm25","vector"},"chunk_id","document":{"id","path","title"},
//	 "heading","text","source_span":{"start","end"}}
type Hit struct {
	Rank     int         `json:"rank"`  // 1-based
	Score    float64     `json:"score"` // the mode's score: fused, BM25 or cosine
	Scores   Scores      `json:"scores"`
	ChunkID  string      `json:"chunk_id"`
	Document DocumentRef `json:"document"`
	// Heading is the heading path the chunk sits under, outermost first,
	// joined by " > ".
	Heading string `json:"heading"`
	Text    string `json:"text"`
	// SourceSpan is the chunk's byte range in the document's file.
	SourceSpan Span `json:"source_span"`

	Headings []string `json:"-"` // the heading path
	Span     Span     `json:"-"` // byte range in the normalized text
	Ordinal  int      `json:"-"` // position of the chunk in its document
	Rowid    int64    `json:"-"` // the chunk's rowid in the index
}

// Result is the outcome of a search.
type Result struct {
	Hits []Hit
	// Warnings tell what the search could not do and how it coped: a
	// hybrid search whose embedder failed falls back to BM25.
	Warnings []string
}

// Searcher runs queries over an index. It is safe for concurrent use.
type Searcher struct {
	store *index.Store
	emb   *embed.Embedder
	// Fusion combines BM25 and vector results in hybrid mode.
	Fusion Fusion
	// Depth is how many candidates each retriever contributes to fusion
	// (default: 3k, at least 30). Deeper lists change SQuAD's numbers by
	// less than 0.001 and cost BM25 time on large indexes.
	Depth int
}

// New returns a Searcher over store. emb embeds queries for vector and
// hybrid searches; it must be the index's embedder (nil: BM25 only).
func New(ctx context.Context, store *index.Store, emb *embed.Embedder) (*Searcher, error) {
	if emb != nil {
		if err := store.CheckEmbedder(ctx, emb); err != nil {
			return nil, err
		}
	}
	return &Searcher{store: store, emb: emb, Fusion: DefaultFusion}, nil
}

// ErrNoEmbedder: a vector search on a Searcher without an embedder.
var ErrNoEmbedder = errors.New("no embedder: the index has no vectors")

// Search runs q and returns its hits, best first.
func (s *Searcher) Search(ctx context.Context, q Query) (*Result, error) {
	mode := q.Mode
	if mode == "" {
		mode = Hybrid
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, err
	}
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	res := &Result{Hits: []Hit{}}
	if strings.TrimSpace(q.Text) == "" {
		return res, nil
	}
	depth := s.depth(k)
	if q.PerDocument > 0 {
		depth = max(depth, 4*k)
	}
	var bm, vec []index.Scored
	var err, bmErr error
	bmDone := make(chan struct{})
	if mode != Vector {
		// BM25 and the vectors run side by side in hybrid mode.
		go func() {
			defer close(bmDone)
			bm, bmErr = s.store.SearchText(ctx, q.Text, q.Filter, depth)
		}()
	} else {
		close(bmDone)
	}
	if mode != BM25 {
		vec, err = s.searchVectors(ctx, q, depth)
	}
	<-bmDone
	if bmErr != nil {
		return nil, bmErr
	}
	if mode != BM25 {
		switch {
		case err == nil:
		case mode == Hybrid && ctx.Err() == nil:
			res.Warnings = append(res.Warnings, fmt.Sprintf("vector search failed, results are BM25 only: %v", err))
			mode, vec = BM25, nil
		default:
			return nil, err
		}
	}
	var ranked []candidate
	switch mode {
	case BM25:
		ranked = single(bm, true)
	case Vector:
		ranked = single(vec, false)
	default:
		ranked = s.Fusion.fuse(bm, vec)
	}
	res.Hits, err = s.hits(ctx, ranked, k, q.PerDocument)
	return res, err
}

// depth returns the number of candidates each retriever contributes when k
// hits are wanted.
func (s *Searcher) depth(k int) int {
	if s.Depth > 0 {
		return max(s.Depth, k)
	}
	return max(3*k, 30)
}

// Candidates returns each retriever's ranking for q, best first, at most
// depth chunks each, before fusion: the BM25 ranking unless q.Mode is
// Vector, the vector ranking unless it is BM25. cite eval uses it to
// measure several fusions on the same rankings.
func (s *Searcher) Candidates(ctx context.Context, q Query, depth int) (bm, vec []index.Scored, err error) {
	if q.Mode != Vector {
		if bm, err = s.store.SearchText(ctx, q.Text, q.Filter, depth); err != nil {
			return nil, nil, err
		}
	}
	if q.Mode != BM25 {
		if vec, err = s.searchVectors(ctx, q, depth); err != nil {
			return nil, nil, err
		}
	}
	return bm, vec, nil
}

// Rank fuses two rankings as a hybrid search does, best first.
func (f Fusion) Rank(bm, vec []index.Scored) []index.Scored {
	cs := f.fuse(bm, vec)
	out := make([]index.Scored, len(cs))
	for i, c := range cs {
		out[i] = index.Scored{Chunk: c.rowid, Score: c.score}
	}
	return out
}

// searchVectors embeds the query and searches the vectors.
func (s *Searcher) searchVectors(ctx context.Context, q Query, depth int) ([]index.Scored, error) {
	if s.emb == nil {
		return nil, ErrNoEmbedder
	}
	terms := analysis.QueryTerms(q.Text)
	ts, err := s.store.TermStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	qv, err := s.emb.EmbedQuery(ctx, q.Text, ts.IDF)
	if errors.Is(err, embed.ErrEmptyText) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rs, err := s.store.SearchVectors(ctx, qv, q.Filter, depth)
	if err != nil {
		return nil, err
	}
	floor := s.emb.NoiseFloor()
	for i, r := range rs {
		if r.Score < floor {
			return rs[:i], nil
		}
	}
	return rs, nil
}

// candidate is a chunk on its way to becoming a hit.
type candidate struct {
	rowid        int64
	score        float64
	bm25, vector *float64
}

// single turns one retriever's results into candidates.
func single(rs []index.Scored, isBM25 bool) []candidate {
	out := make([]candidate, len(rs))
	for i, r := range rs {
		sc := r.Score
		out[i] = candidate{rowid: r.Chunk, score: sc}
		if isBM25 {
			out[i].bm25 = &sc
		} else {
			out[i].vector = &sc
		}
	}
	return out
}

// hits reads the chunks of the best candidates and makes hits of them,
// taking at most perDoc per document.
func (s *Searcher) hits(ctx context.Context, ranked []candidate, k, perDoc int) ([]Hit, error) {
	out := []Hit{}
	perDocCount := map[string]int{}
	for len(ranked) > 0 && len(out) < k {
		// Read a batch: just what is missing without a cap, more with one.
		n := k - len(out)
		if perDoc > 0 {
			n = max(n*2, 32)
		}
		batch := ranked[:min(n, len(ranked))]
		ranked = ranked[len(batch):]
		rowids := make([]int64, len(batch))
		for i, c := range batch {
			rowids[i] = c.rowid
		}
		recs, err := s.store.ChunksByRowid(ctx, rowids)
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			r, ok := recs[c.rowid]
			if !ok {
				continue // deleted since it was ranked
			}
			if perDoc > 0 {
				if perDocCount[r.DocumentID] >= perDoc {
					continue
				}
				perDocCount[r.DocumentID]++
			}
			out = append(out, Hit{
				Rank:       len(out) + 1,
				Score:      c.score,
				Scores:     Scores{BM25: c.bm25, Vector: c.vector},
				ChunkID:    r.ID,
				Document:   DocumentRef{ID: r.Document.ID, Path: r.Document.Path, Title: r.Document.Title, Source: r.Document.Source, Type: r.Document.Type},
				Heading:    strings.Join(r.Headings, " > "),
				Text:       r.Text,
				SourceSpan: Span{r.SourceStart, r.SourceEnd},
				Headings:   r.Headings,
				Span:       Span{r.Start, r.End},
				Ordinal:    r.Ordinal,
				Rowid:      r.Rowid,
			})
			if len(out) == k {
				break
			}
		}
	}
	return out, nil
}
