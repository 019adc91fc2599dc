package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/cite-rag/cite/index"
)

// Sweep removes the sessions that have expired, with their documents and
// uploaded files, and what no session owns any more: documents of a
// session's data source whose session is gone (an upload that raced a
// deletion, a crash between the two) and folders under [Config.Dir] of no
// session. It returns the number of sessions removed.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	var expired []string
	if cut := s.cutoff(); cut > 0 {
		rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions s WHERE `+lastUsed+` < ?`, cut)
		if err != nil {
			return 0, fmt.Errorf("sweep sessions: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return 0, fmt.Errorf("sweep sessions: %w", err)
			}
			expired = append(expired, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("sweep sessions: %w", err)
		}
	}
	var errs []error
	n := 0
	for _, id := range expired {
		if _, err := s.Delete(ctx, id); err != nil && !errors.Is(err, index.ErrNotFound) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if err := s.sweepOrphans(ctx); err != nil {
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}

// sweepOrphans removes the documents and folders of sessions that are
// gone.
func (s *Store) sweepOrphans(ctx context.Context) error {
	live := map[string]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions`)
	if err != nil {
		return fmt.Errorf("sweep sessions: %w", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("sweep sessions: %w", err)
		}
		live[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sweep sessions: %w", err)
	}
	names, err := s.idx.SourceNames(ctx)
	if err != nil {
		return fmt.Errorf("sweep sessions: %w", err)
	}
	var errs []error
	for _, name := range names {
		if id, ok := strings.CutPrefix(name, sourcePrefix); ok && !live[id] && !s.exists(ctx, id) {
			if _, err := s.remove(ctx, id); err != nil {
				errs = append(errs, fmt.Errorf("sweep documents of gone session %q: %w", trimID(id), err))
			}
		}
	}
	if s.cfg.Dir != "" {
		entries, err := os.ReadDir(s.cfg.Dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		for _, e := range entries {
			if ValidID(e.Name()) && !live[e.Name()] && !s.exists(ctx, e.Name()) {
				if err := os.RemoveAll(s.Folder(e.Name())); err != nil {
					errs = append(errs, err)
				}
			}
		}
		os.Remove(s.cfg.Dir) // when it is left empty
	}
	return errors.Join(errs...)
}

// exists reports whether session id has its row, expired or not: asked
// again just before its documents or folder are removed as orphans, so
// that a session made since the sweep listed the live ones keeps them (a
// session's row is made before its folder and its documents).
func (s *Store) exists(ctx context.Context, id string) bool {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n)
	return err != nil || n > 0
}

// sweeper runs Sweep at once and then every SweepEvery until ctx is done.
func (s *Store) sweeper(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.SweepEvery)
	defer t.Stop()
	for {
		n, err := s.Sweep(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Error("sweep expired sessions", "err", err)
		case n > 0:
			s.log.Info("expired sessions removed", "sessions", n)
		}
		if afterSweep != nil {
			afterSweep()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// afterSweep, when set (by tests), is called after each sweep of the
// sweeper.
var afterSweep func()
