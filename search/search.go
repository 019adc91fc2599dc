package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/index/session"
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
	// K is the number of hits wanted (0: [DefaultK]).
	K    int
	Mode Mode // default Hybrid
	// Filter restricts the search to a data source, a document or paths.
	Filter index.Filter
	// PerDocument caps the hits taken from one document (0: no cap), so
	// that one long document cannot fill the whole list.
	PerDocument int
	// Scope is what the search may see: the zero Scope
	// ([session.Public]) sees the data sources and no session's documents.
	// A chunk outside it is never a hit nor a hit's copy, and a filter by
	// a data source or document outside it finds nothing, as one the
	// index does not have.
	Scope session.Scope
}

// ErrInvalidQuery: a [Query] field out of range, named in the error.
var ErrInvalidQuery = errors.New("invalid query")

// Validate returns an error wrapping [ErrInvalidQuery] that names the
// first field of q out of range: a negative K or PerDocument, an unknown
// Mode, or a Filter.Path that is not a pattern.
func (q Query) Validate() error {
	if q.K < 0 {
		return fmt.Errorf("%w: K %d: want 0 (the default, %d) or more", ErrInvalidQuery, q.K, DefaultK)
	}
	if q.PerDocument < 0 {
		return fmt.Errorf("%w: PerDocument %d: want 0 (no cap) or more", ErrInvalidQuery, q.PerDocument)
	}
	if _, err := ParseMode(string(q.Mode)); err != nil {
		return fmt.Errorf("%w: Mode: %v", ErrInvalidQuery, err)
	}
	if err := q.Filter.Validate(); err != nil {
		return fmt.Errorf("%w: Filter.Path: %v", ErrInvalidQuery, err)
	}
	return nil
}

// ErrUnknownSource: a search filtered by a data source the index does not
// have. The error lists the ones it has.
var ErrUnknownSource = errors.New("no such data source")

// Scores are a hit's scores from each retriever; nil where the retriever
// did not rank the chunk among its candidates (or was not asked).
type Scores struct {
	BM25   *float64 `json:"bm25"`
	Vector *float64 `json:"vector"`
}

// DocumentRef identifies a hit's document.
type DocumentRef struct {
	ID    string `json:"id"`
	Path  string `json:"path"` // absolute file path (Kind file) or URL (Kind web)
	Title string `json:"title"`
	// DataSource is the name of the data source (the collection) that
	// holds the document: not where the document is, which is Path.
	DataSource string `json:"data_source"`
	// Format is the file format the document was read as: "markdown",
	// "html" or "text".
	Format string `json:"format"`
	// Kind is where the document came from, as the index recorded it:
	// [index.KindFile] or [index.KindWeb]. It is the [citations.Type] of a
	// reference to it (citations.Type(Kind)).
	Kind index.Kind `json:"kind"`
}

// documentRefJSON is DocumentRef without its methods, for encoding/json.
type documentRefJSON DocumentRef

// MarshalJSON writes the reference with its path escaped by
// [index.EscapePath], as every path in cite's JSON: a file name that is not
// UTF-8 survives (encoding/json would replace its bad bytes with U+FFFD).
func (d DocumentRef) MarshalJSON() ([]byte, error) {
	j := documentRefJSON(d)
	j.Path = index.EscapePath(d.Path)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, unescaping the path.
func (d *DocumentRef) UnmarshalJSON(data []byte) error {
	var j documentRefJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	p, err := index.UnescapePath(j.Path)
	if err != nil {
		return err
	}
	j.Path = p
	*d = DocumentRef(j)
	return nil
}

// Hit is one retrieved chunk. Its JSON form is cite search --json's, an
// interface kept stable (fields may be added, none removed or renamed):
//
//	{"rank","score","scores":{"bm25","vector"},"chunk_id",
//	 "document":{"id","path","title","data_source","format","kind"},
//	 "heading","text","source_span":{"start","end"}}
//
// Spans are [citations.Span]s, so a hit's SourceSpan is a reference's Span
// as it is.
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
	// SourceSpan is the chunk's byte range in the document's file; for a
	// format whose text is extracted (PDF, Word, ...), in that text.
	SourceSpan citations.Span `json:"source_span"`
	// Location is the chunk's page or slide (page, page_end, slide,
	// slide_end in JSON) for documents that have them.
	citations.Location
	// PageStarts are where the pages after the first start inside the
	// chunk (in SourceSpan's coordinates), for a hit that crosses pages.
	PageStarts []citations.PageStart `json:"-"`
	// SectionStarts are where the sections after the first start inside
	// the chunk (in SourceSpan's coordinates), for a hit of an extracted
	// document (a later sheet of a workbook).
	SectionStarts []citations.SectionStart `json:"-"`

	// Copies are the other documents that hold a chunk of the same text,
	// which the search folded into this hit (the copies of a page in each
	// version of a product's docs), best first: those among the chunks
	// ranked above the last hit, so a list may stop short of every copy.
	Copies []DocumentRef `json:"copies,omitempty"`

	Headings []string       `json:"-"` // the heading path
	Span     citations.Span `json:"-"` // byte range in the normalized text
	Ordinal  int            `json:"-"` // position of the chunk in its document
	Rowid    int64          `json:"-"` // the chunk's rowid in the index
}

// Result is the outcome of a search. Its JSON form is cite search --json's:
// {"hits": [...], "warnings": [...]}, both always arrays.
type Result struct {
	Hits []Hit `json:"hits"`
	// Warnings tell what the search could not do and how it coped.
	Warnings []Warning `json:"warnings"`
}

// Warning codes.
const (
	// WarnVectorSearchFailed: the query could not be embedded or the
	// vectors searched (a model server down); a hybrid search answered
	// from BM25 alone.
	WarnVectorSearchFailed = "vector_search_failed"
	// WarnMissingVectors: some chunks have no vector (an interrupted
	// cite reindex, an embedder that failed while indexing), so vector
	// search cannot find them; the message gives the count.
	WarnMissingVectors = "missing_vectors"
)

// Warning is something a search could not do, said to the user.
type Warning struct {
	Code    string `json:"code"`    // WarnVectorSearchFailed, WarnMissingVectors
	Message string `json:"message"` // one line for people, with counts
	// Fix is the command that repairs the cause, when there is one.
	Fix string `json:"fix,omitempty"`
}

// String returns the message and the fix.
func (w Warning) String() string {
	if w.Fix == "" {
		return w.Message
	}
	return w.Message + "; " + w.Fix + " fixes it"
}

// Searcher runs queries over an index. It is safe for concurrent use.
type Searcher struct {
	store index.Reader
	emb   *embed.Embedder
	// embErr is why the index's embedder could not be made ([Open]):
	// vector searches fail with it.
	embErr error
	// follow, set by [Open], keeps emb the index's embedder: a cite
	// reindex to another one while the Searcher lives (a cite serve, a
	// cite mcp) changes it, and queries embedded by the old one would be
	// compared with the new one's vectors, silently when both have as many
	// dimensions.
	follow *embed.Follower
	// Fusion combines BM25 and vector results in hybrid mode.
	Fusion Fusion
	// Depth is how many candidates each retriever contributes to fusion
	// (default: 3k, at least 30). Deeper lists change SQuAD's numbers by
	// less than 0.001 and cost BM25 time on large indexes.
	Depth int
}

// New returns a Searcher over store: the embedded index (an
// [*index.Store]) or another [index.Reader], such as a Weaviate collection
// (package index/weaviate). emb embeds queries for vector and hybrid
// searches; it must be the index's embedder (nil: BM25 only).
func New(ctx context.Context, store index.Reader, emb *embed.Embedder) (*Searcher, error) {
	if emb != nil {
		if err := store.CheckEmbedder(ctx, emb); err != nil {
			return nil, err
		}
	}
	return &Searcher{store: store, emb: emb, Fusion: DefaultFusion}, nil
}

// Options configure [Open].
type Options struct {
	// Embedder configures the client of the index's embedder: a model
	// server's address and key. The index records which embedder and
	// model made its vectors; this says how to reach it.
	Embedder embed.Config
}

// Open returns a Searcher over st that embeds queries with the embedder
// the index records (the one cite index --embedder chose). An index
// without vectors gives a BM25-only Searcher: hybrid searches answer from
// BM25 with a warning, vector searches fail with [ErrNoEmbedder]. So does
// an embedder this cite cannot make (an unknown spec): Open still
// succeeds, and vector searches fail with the reason.
func Open(ctx context.Context, st index.Reader, opts Options) (*Searcher, error) {
	info, err := st.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	if info.Name == "" {
		return New(ctx, st, nil)
	}
	follow := embed.NewFollower(nil, opts.Embedder)
	emb, err := follow.Embedder(info.Name)
	if err != nil {
		s, nerr := New(ctx, st, nil)
		if nerr != nil {
			return nil, nerr
		}
		s.embErr, s.follow = err, follow
		return s, nil
	}
	s, err := New(ctx, st, emb)
	if err != nil {
		return nil, err
	}
	s.follow = follow
	return s, nil
}

// embedder returns the embedder to embed a query with: the index's, for a
// Searcher made by [Open].
func (s *Searcher) embedder(ctx context.Context) (*embed.Embedder, error) {
	if s.follow == nil {
		return s.emb, s.embErr
	}
	info, err := s.store.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	return s.follow.Embedder(info.Name)
}

// ErrNoEmbedder: a vector search on a Searcher without an embedder.
var ErrNoEmbedder = errors.New("no embedder: the index has no vectors")

// Search runs q and returns its hits, best first. A query without a word
// (empty, only punctuation or symbols) has no hits: there is nothing to
// look for, and an embedder would still make a vector of it and find
// arbitrary chunks. A query that fails [Query.Validate] is an error, and so
// is a filter by a data source or document the index does not have
// ([ErrUnknownSource], [index.ErrNotFound]).
func (s *Searcher) Search(ctx context.Context, q Query) (*Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	mode, _ := ParseMode(string(q.Mode))
	k := q.K
	if k == 0 {
		k = DefaultK
	}
	res := &Result{Hits: []Hit{}, Warnings: []Warning{}}
	if len(analysis.QueryTerms(q.Text)) == 0 {
		return res, s.checkFilter(ctx, q.Scope, q.Filter)
	}
	filter, err := s.narrow(ctx, q.Scope, q.Filter)
	if err != nil {
		return nil, err
	}
	if filter.Sources != nil && len(filter.Sources) == 0 {
		// The scope sees none of the sources asked, or none at all.
		return res, s.checkFilter(ctx, q.Scope, q.Filter)
	}
	depth := s.depth(k)
	if q.PerDocument > 0 {
		depth = max(depth, 4*k)
	}
	if h, ok := s.store.(index.HybridSearcher); ok && mode == Hybrid && s.Fusion.Method == "backend" {
		return s.searchHybrid(ctx, h, q, filter, k, depth, res)
	}
	var bm, vec []index.Scored
	var missing *Warning
	var bmErr error
	bmDone := make(chan struct{})
	if mode != Vector {
		// BM25 and the vectors run side by side in hybrid mode.
		go func() {
			defer close(bmDone)
			bm, bmErr = s.store.SearchText(ctx, q.Text, filter, depth)
		}()
	} else {
		close(bmDone)
	}
	if mode != BM25 {
		vec, missing, err = s.searchVectors(ctx, q.Text, filter, depth)
	}
	<-bmDone
	if bmErr != nil {
		return nil, bmErr
	}
	if mode != BM25 {
		switch {
		case err == nil:
		case mode == Hybrid && ctx.Err() == nil:
			res.Warnings = append(res.Warnings, Warning{Code: WarnVectorSearchFailed, Message: fmt.Sprintf("vector search failed, results are BM25 only: %v", err)})
			mode, vec = BM25, nil
		default:
			return nil, err
		}
	}
	if missing != nil {
		res.Warnings = append(res.Warnings, *missing)
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
	return s.finish(ctx, res, ranked, k, q)
}

// finish reads the hits of the ranked candidates into res. A search that
// found nothing checks its filter, so that a filter by a data source or
// document the index does not have is an error.
func (s *Searcher) finish(ctx context.Context, res *Result, ranked []candidate, k int, q Query) (*Result, error) {
	var err error
	if res.Hits, err = s.hits(ctx, ranked, k, q.PerDocument, q.Scope, q.Filter.Sources); err != nil {
		return nil, err
	}
	if err := s.pageStarts(ctx, res.Hits); err != nil {
		return nil, err
	}
	if len(res.Hits) == 0 {
		if err := s.checkFilter(ctx, q.Scope, q.Filter); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// searchHybrid runs a hybrid search that the index fuses itself.
func (s *Searcher) searchHybrid(ctx context.Context, h index.HybridSearcher, q Query, filter index.Filter, k, depth int, res *Result) (*Result, error) {
	qv, _, _, err := s.queryVector(ctx, q.Text)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		res.Warnings = append(res.Warnings, Warning{Code: WarnVectorSearchFailed, Message: fmt.Sprintf("vector search failed, results are BM25 only: %v", err)})
		qv = nil
	}
	w := 0.0
	if qv != nil && s.Fusion.BM25Weight+s.Fusion.VectorWeight > 0 {
		w = s.Fusion.VectorWeight / (s.Fusion.BM25Weight + s.Fusion.VectorWeight)
	}
	rs, err := h.SearchHybrid(ctx, q.Text, qv, w, filter, depth)
	if err != nil {
		return nil, err
	}
	ranked := make([]candidate, len(rs))
	for i, r := range rs {
		ranked[i] = candidate{rowid: r.Chunk, score: r.Score}
	}
	return s.finish(ctx, res, ranked, k, q)
}

// queryVector embeds a query (nil when it has nothing to embed), with the
// term statistics that weighted it and the embedder that made it.
func (s *Searcher) queryVector(ctx context.Context, text string) ([]float32, index.TermStats, *embed.Embedder, error) {
	emb, err := s.embedder(ctx)
	if err != nil {
		return nil, index.TermStats{}, nil, err
	}
	if emb == nil {
		return nil, index.TermStats{}, nil, ErrNoEmbedder
	}
	ts, err := s.store.TermStats(ctx, analysis.QueryTerms(text))
	if err != nil {
		return nil, ts, nil, err
	}
	qv, err := emb.EmbedQuery(ctx, text, ts.IDF)
	if errors.Is(err, embed.ErrEmptyText) {
		return nil, ts, emb, nil
	}
	return qv, ts, emb, err
}

// narrow returns the filter a search runs with: f without its data
// sources when they are all the index has (a filter that admits every
// chunk costs nothing, while one by source reads the rowids of the
// sources' chunks), and, when f names none, the sources sc sees if there
// are others (an empty list when it sees none). A source added after the
// check cannot leak into the results: hits keeps only chunks of f's
// sources, and of sc.
func (s *Searcher) narrow(ctx context.Context, sc session.Scope, f index.Filter) (index.Filter, error) {
	names, err := s.store.SourceNames(ctx)
	if err != nil {
		return f, err
	}
	want := f.Sources
	if len(want) == 0 {
		want = nil
		for _, n := range names {
			if sc.Sees(n) {
				want = append(want, n)
			}
		}
		if len(want) == 0 {
			want = []string{}
		}
	} else {
		// A source the scope does not see finds nothing, as one the
		// index does not have.
		want = slices.DeleteFunc(slices.Clone(want), func(n string) bool { return !sc.Sees(n) })
	}
	for _, n := range names {
		if !slices.Contains(want, n) {
			f.Sources = want
			return f, nil
		}
	}
	f.Sources = nil
	return f, nil
}

// CheckSources returns an error wrapping [ErrUnknownSource], naming the
// data sources sc sees in store, if one of sources is none of them: the
// one message of every listing and search by a data source.
func CheckSources(ctx context.Context, store session.SourceNamer, sc session.Scope, sources ...string) error {
	if len(sources) == 0 {
		return nil
	}
	names, err := sc.SourceNames(ctx, store)
	if err != nil {
		return err
	}
	for _, src := range sources {
		switch {
		case slices.Contains(names, src):
		case len(names) == 0:
			return fmt.Errorf("data source %q: %w (the index has none yet)", src, ErrUnknownSource)
		default:
			return fmt.Errorf("data source %q: %w (the index has %s)", src, ErrUnknownSource, strings.Join(names, ", "))
		}
	}
	return nil
}

// checkFilter returns an error if f names a data source or a document the
// index does not have, or sc does not see. Search calls it only when it
// found nothing, so a search that finds something costs no look-up.
func (s *Searcher) checkFilter(ctx context.Context, sc session.Scope, f index.Filter) error {
	if err := CheckSources(ctx, s.store, sc, f.Sources...); err != nil {
		return err
	}
	if f.Document != "" {
		source := ""
		if len(f.Sources) == 1 {
			source = f.Sources[0]
		}
		if _, err := sc.Document(ctx, s.store, source, f.Document); err != nil {
			return err
		}
	}
	return nil
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
	f, err := s.narrow(ctx, q.Scope, q.Filter)
	if err != nil || f.Sources != nil && len(f.Sources) == 0 {
		return nil, nil, err
	}
	if q.Mode != Vector {
		if bm, err = s.store.SearchText(ctx, q.Text, f, depth); err != nil {
			return nil, nil, err
		}
	}
	if q.Mode != BM25 {
		if vec, _, err = s.searchVectors(ctx, q.Text, f, depth); err != nil {
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

// searchVectors embeds the query and searches the vectors. It returns a
// warning when some chunks of the index have no vector.
func (s *Searcher) searchVectors(ctx context.Context, text string, f index.Filter, depth int) ([]index.Scored, *Warning, error) {
	qv, ts, emb, err := s.queryVector(ctx, text)
	if err != nil || qv == nil {
		return nil, nil, err
	}
	rs, err := s.store.SearchVectors(ctx, qv, f, depth)
	if err != nil {
		return nil, nil, err
	}
	// The vectors are in memory now, and the chunk count is a row of the
	// term statistics just read: the check costs nothing.
	n, _, err := s.store.VectorStats(ctx)
	if err != nil {
		return nil, nil, err
	}
	warn := missingVectors(ts.Chunks, n)
	floor := emb.NoiseFloor()
	for i, r := range rs {
		if r.Score < floor {
			return rs[:i], warn, nil
		}
	}
	return rs, warn, nil
}

// missingVectors returns the warning for an index of chunks chunks of which
// vectors have a vector, or nil when none is missing.
func missingVectors(chunks, vectors int) *Warning {
	missing := chunks - vectors
	if missing <= 0 {
		return nil
	}
	return &Warning{
		Code: WarnMissingVectors,
		Message: fmt.Sprintf("%d of %d chunks (%.0f%%) have no vector, so vector search cannot find them and ranks from the other %d only",
			missing, chunks, 100*float64(missing)/float64(chunks), vectors),
		Fix: "cite check --repair",
	}
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
// taking at most perDoc per document, only chunks sc sees, and only
// chunks of sources when that is not empty. A chunk whose text an earlier
// hit has is no hit of its own: its document joins that hit's Copies.
func (s *Searcher) hits(ctx context.Context, ranked []candidate, k, perDoc int, sc session.Scope, sources []string) ([]Hit, error) {
	out := []Hit{}
	perDocCount := map[string]int{}
	byText := map[string]int{} // hit text -> position in out
	folded := false
	for len(ranked) > 0 && len(out) < k {
		// Read a batch: just what is missing without a cap or a copy seen;
		// twice that once a copy was folded (a search that folds one
		// typically needs 3–10 more chunks, each read costing about as
		// much as a fifth of a batch); more with a cap, which can skip
		// many.
		n := k - len(out)
		switch {
		case perDoc > 0:
			n = max(n*2, 32)
		case folded:
			n *= 2
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
			if !sc.Sees(r.Document.Source) || len(sources) > 0 && !slices.Contains(sources, r.Document.Source) {
				continue // outside the scope, or a source added after narrow
			}
			h := hitOf(r)
			if i, ok := byText[h.Text]; ok {
				if out[i].Document.ID != h.Document.ID && !slices.ContainsFunc(out[i].Copies, func(d DocumentRef) bool { return d.ID == h.Document.ID }) {
					out[i].Copies = append(out[i].Copies, h.Document)
				}
				folded = true
				continue
			}
			if perDoc > 0 {
				if perDocCount[r.DocumentID] >= perDoc {
					continue
				}
				perDocCount[r.DocumentID]++
			}
			byText[h.Text] = len(out)
			h.Rank, h.Score, h.Scores = len(out)+1, c.score, Scores{BM25: c.bm25, Vector: c.vector}
			out = append(out, h)
			if len(out) == k {
				break
			}
		}
	}
	return out, nil
}

// Extracted reports whether a document of the given format (index
// Document.Type) has its text extracted from a binary file (PDF, Word,
// OpenDocument, EPUB, PowerPoint, a web page saved as one file, a picture
// read by OCR), so that its spans are ranges of that text, not of the
// file: any format but the text formats cite reads as they are (Markdown,
// HTML, text).
func Extracted(format string) bool {
	switch format {
	case "markdown", "html", "text", "":
		return false
	}
	return true
}

// HasSlides reports whether a document of the given format (index
// Document.Type) has slides rather than pages.
func HasSlides(format string) bool { return format == "pptx" || format == "odp" }

// hitOf makes a hit of a stored chunk, without rank or scores.
func hitOf(r index.ChunkRecord) Hit {
	d := r.Document
	return Hit{
		ChunkID:    r.ID,
		Document:   DocumentRef{ID: d.ID, Path: d.Path, Title: d.Title, DataSource: d.Source, Format: d.Type, Kind: d.Kind},
		Heading:    strings.Join(r.Headings, " > "),
		Text:       r.Text,
		SourceSpan: citations.Span{Start: r.SourceStart, End: r.SourceEnd},
		Location:   citations.PagesOf(r.Page, r.PageEnd, HasSlides(d.Type)),
		Headings:   r.Headings,
		Span:       citations.Span{Start: r.Start, End: r.End},
		Ordinal:    r.Ordinal,
		Rowid:      r.Rowid,
	}
}

// Chunk returns the chunk with the given id (a hit's ChunkID, a citation's
// reference id) as a Hit with Rank 0 and no scores: to show the passage a
// citation names, or to give a model a chunk it asks for by id. A chunk the
// index does not have (any more), or of a session's document (outside
// [session.Public]), is an error wrapping [index.ErrNotFound].
func (s *Searcher) Chunk(ctx context.Context, id string) (Hit, error) {
	r, err := s.store.ChunkByID(ctx, id)
	if err != nil {
		return Hit{}, err
	}
	if !session.Public.Sees(r.Document.Source) {
		return Hit{}, fmt.Errorf("chunk %s: %w", id, index.ErrNotFound)
	}
	h := []Hit{hitOf(r)}
	if err := s.pageStarts(ctx, h); err != nil {
		return Hit{}, err
	}
	return h[0], nil
}

// layoutReader is a store that keeps documents' layouts (the embedded
// index does; a Weaviate cluster does not, and its hits keep their
// chunks' page ranges only).
type layoutReader interface {
	Layout(ctx context.Context, documentID string) (index.Layout, error)
}

// pageStarts fills in the PageStarts of the hits that cross pages, and the
// SectionStarts of the hits of extracted documents, reading each document's
// layout once.
func (s *Searcher) pageStarts(ctx context.Context, hits []Hit) error {
	lr, ok := s.store.(layoutReader)
	if !ok {
		return nil
	}
	layouts := map[string]index.Layout{}
	for i := range hits {
		h := &hits[i]
		first, last := h.Page, h.PageEnd
		if h.Slide > 0 {
			first, last = h.Slide, h.SlideEnd
		}
		crosses := last > first
		if !crosses && !Extracted(h.Document.Format) {
			continue
		}
		l, seen := layouts[h.Document.ID]
		if !seen {
			var err error
			if l, err = lr.Layout(ctx, h.Document.ID); err != nil {
				return err
			}
			layouts[h.Document.ID] = l
		}
		if crosses {
			h.PageStarts = PageStartsIn(l.Pages, first, last)
		}
		if Extracted(h.Document.Format) {
			h.SectionStarts = SectionStartsIn(l.Sections, h.SourceSpan.Start, h.SourceSpan.End)
		}
	}
	return nil
}

// SectionStartsIn returns the starts of the sections of an extracted
// document that start inside the passage [start, end) of its text, after
// its first byte.
func SectionStartsIn(sections []index.Section, start, end int) []citations.SectionStart {
	var out []citations.SectionStart
	for _, s := range sections {
		if s.Offset > start && s.Offset < end {
			out = append(out, citations.SectionStart{Offset: s.Offset, Heading: strings.Join(s.Heading, " > ")})
		}
	}
	return out
}

// PageStartsIn returns the starts of pages first+1..last among a document's
// pages: where a passage on pages first to last crosses onto each.
func PageStartsIn(pages []index.Page, first, last int) []citations.PageStart {
	var out []citations.PageStart
	for _, p := range pages {
		if p.Number > first && p.Number <= last {
			out = append(out, citations.PageStart{Number: p.Number, Offset: p.Offset})
		}
	}
	return out
}
