// Package chromempeer is chromem-go as a peer of cite bench: an in-memory
// collection of cite's vectors (chromem-go keeps them as float32 and
// searches exhaustively on all cores), queried with cite's query vectors.
package chromempeer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	chromem "github.com/philippgille/chromem-go"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/search"
)

// Peer is a chromem-go collection.
type Peer struct {
	col *chromem.Collection
}

var _ bench.Peer = (*Peer)(nil)

// New makes an empty collection, or skips when the vectors (4 bytes a
// dimension, plus their documents) would not fit cfg.MemoryBudget.
func New(ctx context.Context, cfg bench.PeerConfig) (bench.Peer, error) {
	need := int64(cfg.Chunks) * int64(cfg.Dim*4+200)
	if cfg.MemoryBudget > 0 && need > cfg.MemoryBudget {
		return nil, fmt.Errorf("chromem-go: %w: its vectors would take %.1f GB, over the budget of %.1f GB (a third of the memory available)",
			bench.ErrSkip, float64(need)/1e9, float64(cfg.MemoryBudget)/1e9)
	}
	db := chromem.NewDB()
	// The collection is given the vectors; a query without one is an error,
	// never a call to a remote embedding API (chromem-go's default).
	noEmbed := func(context.Context, string) ([]float32, error) {
		return nil, errors.New("chromem-go peer: no embedding function")
	}
	col, err := db.CreateCollection("bench", nil, noEmbed)
	if err != nil {
		return nil, fmt.Errorf("chromem-go: %w", err)
	}
	return &Peer{col: col}, nil
}

// Name is "chromem-go".
func (p *Peer) Name() string { return "chromem-go" }

// Modes: vector only.
func (p *Peer) Modes() []search.Mode { return []search.Mode{search.Vector} }

// Build adds the vectors in batches.
func (p *Peer) Build(ctx context.Context, src *bench.Source) error {
	return src.EachVector(ctx, func(cs []bench.Chunk) error {
		docs := make([]chromem.Document, len(cs))
		for i, c := range cs {
			docs[i] = chromem.Document{ID: c.ID, Embedding: slices.Clone(c.Vector)}
		}
		return p.col.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0))
	})
}

// Open: nothing to open, the collection lives in memory.
func (p *Peer) Open(ctx context.Context) error { return bench.ErrNoOpen }

// Search is chromem-go's QueryEmbedding.
func (p *Peer) Search(ctx context.Context, mode search.Mode, q *bench.Query, k int) (int, error) {
	res, err := p.col.QueryEmbedding(ctx, q.Vector, min(k, p.col.Count()), nil, nil)
	return len(res), err
}

// DiskBytes: -1, in memory only.
func (p *Peer) DiskBytes() int64 { return -1 }

// RSS: chromem-go runs in this process.
func (p *Peer) RSS() int64 { return 0 }

// Close drops the collection.
func (p *Peer) Close() error { p.col = nil; return nil }
