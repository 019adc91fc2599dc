// Package blevepeer is bleve v2 (scorch, BM25) as a peer of cite bench:
// it indexes cite's full-text terms of each chunk, split on spaces, and
// answers a query's terms as a disjunction (any term matches), ranked by
// bleve's BM25. It is the only package of cite that imports bleve.
package blevepeer

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/search"
)

// Peer is a bleve index of the collection's terms.
type Peer struct {
	path     string
	idx      bleve.Index
	reopened bool
}

var (
	_ bench.Peer     = (*Peer)(nil)
	_ bench.Reopener = (*Peer)(nil)
)

// New makes an empty bleve index in cfg.Dir, or with cfg.Reopen opens
// the one an earlier run built there.
func New(ctx context.Context, cfg bench.PeerConfig) (bench.Peer, error) {
	if cfg.Reopen {
		p := &Peer{path: filepath.Join(cfg.Dir, "bleve"), reopened: true}
		idx, err := bleve.Open(p.path)
		if err != nil {
			return nil, fmt.Errorf("bleve: %w", err)
		}
		p.idx = idx
		return p, nil
	}
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	if err := im.AddCustomAnalyzer("terms", map[string]any{"type": custom.Name, "tokenizer": whitespace.Name}); err != nil {
		return nil, err
	}
	f := mapping.NewTextFieldMapping()
	f.Analyzer = "terms"
	f.Store = false
	f.IncludeInAll = false
	f.IncludeTermVectors = false
	f.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("t", f)
	im.DefaultMapping = dm
	im.DefaultAnalyzer = "terms"
	p := &Peer{path: filepath.Join(cfg.Dir, "bleve")}
	idx, err := bleve.New(p.path, im)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	p.idx = idx
	return p, nil
}

// Name is "bleve" and its version.
func (p *Peer) Name() string { return "bleve " + version() }

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/blevesearch/bleve/v2" {
				return d.Version
			}
		}
	}
	return "v2"
}

// Reopened reports whether New opened an earlier run's index.
func (p *Peer) Reopened() bool { return p.reopened }

// Modes: BM25 only.
func (p *Peer) Modes() []search.Mode { return []search.Mode{search.BM25} }

type doc struct {
	T string `json:"t"`
}

// Build indexes the chunks' terms in batches.
func (p *Peer) Build(ctx context.Context, src *bench.Source) error {
	return src.EachText(ctx, func(cs []bench.Chunk) error {
		b := p.idx.NewBatch()
		for _, c := range cs {
			if err := b.Index(strconv.FormatInt(c.Key, 36), doc{T: c.Terms}); err != nil {
				return err
			}
		}
		return p.idx.Batch(b)
	})
}

// Open closes the index and opens it again.
func (p *Peer) Open(ctx context.Context) error {
	if err := p.idx.Close(); err != nil {
		return err
	}
	idx, err := bleve.Open(p.path)
	if err != nil {
		return err
	}
	p.idx = idx
	// The first search reads the segments' dictionaries: part of opening.
	_, err = p.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(query.NewMatchNoneQuery(), 1, 0, false))
	return err
}

// Search runs the query's terms as a disjunction.
func (p *Peer) Search(ctx context.Context, mode search.Mode, q *bench.Query, k int) (int, error) {
	qs := make([]query.Query, len(q.Terms))
	for i, t := range q.Terms {
		tq := query.NewTermQuery(t)
		tq.SetField("t")
		qs[i] = tq
	}
	req := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), k, 0, false)
	res, err := p.idx.SearchInContext(ctx, req)
	if err != nil {
		return 0, err
	}
	return len(res.Hits), nil
}

// DiskBytes is the size of the index folder.
func (p *Peer) DiskBytes() int64 { return bench.DirSize(p.path) }

// RSS: bleve runs in this process.
func (p *Peer) RSS() int64 { return 0 }

// Close closes the index.
func (p *Peer) Close() error { return p.idx.Close() }
