package index

import (
	"context"
	"database/sql"
)

// rowInserter runs a statement that writes many rows at once, max rows a
// statement: database/sql and the driver cost about as much per statement
// (arguments converted, a result made, the statement stepped and reset) as
// SQLite's insert of a row, so rows written one a statement cost about
// twice what they need. The statement of max rows is prepared once; the
// last, shorter one is run as it is.
type rowInserter struct {
	ctx   context.Context
	tx    *sql.Tx
	query func(rows int) string // the statement of that many rows
	cols  int                   // arguments a row
	max   int                   // rows a statement
	full  *sql.Stmt             // the statement of max rows, once prepared
	args  []any                 // the rows not yet written, cols each
}

// add adds a row, writing the rows added so far when they are max.
func (r *rowInserter) add(row ...any) error {
	r.args = append(r.args, row...)
	if len(r.args) == r.cols*r.max {
		return r.flush()
	}
	return nil
}

// pending returns the number of rows added and not yet written.
func (r *rowInserter) pending() int { return len(r.args) / r.cols }

// flush writes the rows added since the last flush.
func (r *rowInserter) flush() error {
	n := r.pending()
	if n == 0 {
		return nil
	}
	var err error
	if n == r.max {
		if r.full == nil {
			if r.full, err = r.tx.PrepareContext(r.ctx, r.query(n)); err != nil {
				return err
			}
		}
		_, err = r.full.ExecContext(r.ctx, r.args...)
	} else {
		_, err = r.tx.ExecContext(r.ctx, r.query(n), r.args...)
	}
	clear(r.args) // hold no text
	r.args = r.args[:0]
	return err
}

// close closes the prepared statement.
func (r *rowInserter) close() {
	if r.full != nil {
		r.full.Close()
	}
}
