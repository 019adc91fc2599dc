package embed

import (
	"fmt"
	"sync"
)

// Follower keeps the embedder an index records: a process that outlives a
// cite reindex (cite serve, cite index --watch, cite mcp) asks it for the
// embedder of the name the index records now, and gets a new one when the
// name has changed. It is safe for concurrent use.
type Follower struct {
	config Config
	mu     sync.Mutex
	name   string // the name emb or err is for; "" none
	emb    *Embedder
	err    error // why name's embedder could not be made
}

// NewFollower returns a Follower that makes embedders with cfg (as [New]
// does), starting with e (nil: none yet).
func NewFollower(e *Embedder, cfg Config) *Follower {
	f := &Follower{config: cfg, emb: e}
	if e != nil {
		f.name = e.Name()
	}
	return f
}

// Embedder returns the embedder named name, the index's as
// index.Store.Embedder reads it: the one made before while the name stays
// the same, else a new one. It is nil for "" (an index without vectors).
// An error says why the embedder cannot be made (an unknown spec), each
// time it is asked for until the name changes.
func (f *Follower) Embedder(name string) (*Embedder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if name != f.name {
		f.name, f.emb, f.err = name, nil, nil
		if name != "" {
			if f.emb, f.err = New(name, f.config); f.err != nil {
				f.emb, f.err = nil, fmt.Errorf("the index's embedder: %w", f.err)
			}
		}
	}
	return f.emb, f.err
}
