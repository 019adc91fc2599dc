// Package fts5peer is SQLite's FTS5 with its bm25() ranking as a peer of
// cite bench: a table of cite's full-text terms of each chunk (tokenized
// on spaces by FTS5's ascii tokenizer, which sees exactly cite's terms),
// queried with the query's terms joined by OR.
//
// It uses github.com/ncruces/go-sqlite3, SQLite translated to Go, whose
// FTS5 is a Go package ([fts5.Register]) and needs neither cgo nor a
// build tag; mattn/go-sqlite3, cite's driver, compiles FTS5 in only with
// -tags sqlite_fts5, which cite's commands do not use. The translation
// runs slower than SQLite compiled from C, so the figures are an upper
// bound of FTS5's cost. Only this package imports ncruces/go-sqlite3, and
// it does not register a database/sql driver (cite's is named sqlite3 too).
package fts5peer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/search"
)

// Peer is an FTS5 table in a database of its own.
type Peer struct {
	path     string
	db       *sqlite3.Conn
	query    *sqlite3.Stmt
	reopened bool
}

var (
	_ bench.Peer     = (*Peer)(nil)
	_ bench.Reopener = (*Peer)(nil)
)

// New makes an empty database with the FTS5 table in cfg.Dir, or with
// cfg.Reopen opens the one an earlier run built there.
func New(ctx context.Context, cfg bench.PeerConfig) (bench.Peer, error) {
	p := &Peer{path: filepath.Join(cfg.Dir, "fts5.db")}
	if cfg.Reopen {
		if _, err := os.Stat(p.path); err != nil {
			return nil, fmt.Errorf("fts5: %w", err)
		}
		if err := p.open(); err != nil {
			return nil, err
		}
		if err := p.db.Exec(`SELECT count(*) FROM chunks WHERE 0`); err != nil {
			p.db.Close()
			return nil, fmt.Errorf("fts5: %w", err)
		}
		p.reopened = true
		return p, nil
	}
	if err := p.open(); err != nil {
		return nil, err
	}
	if err := p.db.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
		CREATE VIRTUAL TABLE chunks USING fts5(terms, tokenize='ascii', detail=full)`); err != nil {
		p.db.Close()
		return nil, fmt.Errorf("fts5: %w", err)
	}
	return p, nil
}

func (p *Peer) open() error {
	db, err := sqlite3.Open(p.path)
	if err != nil {
		return fmt.Errorf("fts5: %w", err)
	}
	if err := fts5.Register(db); err != nil {
		db.Close()
		return fmt.Errorf("fts5: %w", err)
	}
	p.db = db
	return nil
}

// Name is "SQLite FTS5" and SQLite's version.
func (p *Peer) Name() string {
	st, _, err := p.db.Prepare(`SELECT sqlite_version()`)
	if err != nil {
		return "SQLite FTS5"
	}
	defer st.Close()
	if st.Step() {
		return "SQLite FTS5 " + st.ColumnText(0)
	}
	return "SQLite FTS5"
}

// Reopened reports whether New opened an earlier run's database.
func (p *Peer) Reopened() bool { return p.reopened }

// Modes: BM25 only.
func (p *Peer) Modes() []search.Mode { return []search.Mode{search.BM25} }

// Build inserts the chunks' terms, a transaction per batch, and merges
// the table's segments at the end.
func (p *Peer) Build(ctx context.Context, src *bench.Source) error {
	ins, _, err := p.db.Prepare(`INSERT INTO chunks (rowid, terms) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	err = src.EachText(ctx, func(cs []bench.Chunk) error {
		if err := p.db.Exec(`BEGIN`); err != nil {
			return err
		}
		for _, c := range cs {
			ins.BindInt64(1, c.Key)
			ins.BindText(2, c.Terms)
			if err := ins.Exec(); err != nil {
				p.db.Exec(`ROLLBACK`)
				return err
			}
		}
		return p.db.Exec(`COMMIT`)
	})
	if err != nil {
		return err
	}
	return p.db.Exec(`INSERT INTO chunks(chunks) VALUES('optimize'); PRAGMA wal_checkpoint(TRUNCATE)`)
}

// Open closes the database and opens it again, preparing the query.
func (p *Peer) Open(ctx context.Context) error {
	if err := p.db.Close(); err != nil {
		return err
	}
	if err := p.open(); err != nil {
		return err
	}
	st, _, err := p.db.Prepare(`SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT ?`)
	if err != nil {
		return err
	}
	p.query = st
	return nil
}

// Search ranks the chunks matching any of the query's terms by bm25().
func (p *Peer) Search(ctx context.Context, mode search.Mode, q *bench.Query, k int) (int, error) {
	terms := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	st := p.query
	defer st.Reset()
	st.BindText(1, strings.Join(terms, " OR "))
	st.BindInt(2, k)
	n := 0
	for st.Step() {
		n++
	}
	return n, st.Err()
}

// DiskBytes is the size of the database (and its WAL).
func (p *Peer) DiskBytes() int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(p.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// RSS: SQLite runs in this process.
func (p *Peer) RSS() int64 { return 0 }

// Close closes the database.
func (p *Peer) Close() error {
	if p.query != nil {
		p.query.Close()
	}
	return p.db.Close()
}
