package index

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"strconv"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// walLimit is how large the write-ahead log of a writable store may grow
// before a write transaction waits for the store's checkpointer to fold it
// into the database file. The log restarts from its beginning once it is
// all in the file, so it stays this size as long as the checkpointer keeps
// up; a reader on an old snapshot (cite serve in another process) holds
// it back as SQLite's own checkpoints are held back. SQLite also truncates
// a longer log back to this size when it restarts it
// (journal_size_limit). A variable for tests.
var walLimit int64 = 64 << 20

// writeConnector opens the connections of a writable store. Each turns
// off SQLite's automatic checkpoint, which folds the log into the
// database file during the commit that takes the log past 1,000 pages
// (4 MB): a batch of cite index writes 15 MB of pages, so every batch's
// commit copied them into the file and synced it, on the writer's time.
// The store's [checkpointer] does that work instead, beside the writer.
type writeConnector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

func newWriteConnector(dsn string) *writeConnector {
	return &writeConnector{dsn: dsn, driver: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec("PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = "+strconv.FormatInt(walLimit, 10), nil)
			return err
		},
	}}
}

func (c *writeConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }

func (c *writeConnector) Driver() driver.Driver { return c.driver }

// checkpointer folds the write-ahead log of a writable store into its
// database file after each commit, on a goroutine and a connection of its
// own (a passive checkpoint, which waits for no reader and no writer), so
// that the commit returns once its pages are in the log and the store's
// next transaction is prepared and written while the checkpoint copies
// the last one's. [Store.Close] stops it; closing the last connection
// then folds in what is left and removes the log, as before.
type checkpointer struct {
	s *Store
	// db is the checkpointer's connection, apart from the store's pool:
	// a pool connection it borrowed would be the one the next write
	// transaction takes, without the pages the last one left in its
	// cache.
	db       *sql.DB
	kick     chan struct{} // a commit happened; buffered, one is enough
	stop     chan struct{} // closed by close
	done     chan struct{} // closed when the goroutine returns
	stopOnce sync.Once

	mu      sync.Mutex
	cond    sync.Cond // signalled when a checkpoint ends or the checkpointer stops
	commits int64     // commits so far
	covered int64     // commits the last finished checkpoint began after
	folded  bool      // that checkpoint folded the whole log in
	stopped bool
}

func startCheckpointer(s *Store, dsn string) *checkpointer {
	c := &checkpointer{s: s, db: openWriteDB(dsn), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	c.db.SetMaxOpenConns(1)
	c.cond.L = &c.mu
	go c.run()
	return c
}

func (c *checkpointer) run() {
	defer close(c.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		c.mu.Lock()
		commits := c.commits
		idle := commits == c.covered && c.folded
		c.mu.Unlock()
		folded := true
		if !idle {
			folded = c.s.checkpoint(ctx, c.db)
		}
		c.mu.Lock()
		c.covered, c.folded = commits, folded
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// committed tells the checkpointer that a write transaction committed.
func (c *checkpointer) committed() {
	c.mu.Lock()
	c.commits++
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// bound holds a write transaction about to begin while the log is longer
// than walLimit, until a checkpoint that began after the last commit has
// ended: the transaction then finds the log folded in (unless a reader
// holds it back) and SQLite restarts it from its beginning.
func (c *checkpointer) bound() {
	if walLonger(c.s.file, walLimit) {
		c.wait()
	}
}

// wait waits until a checkpoint that began after the last commit has
// ended, or the checkpointer has stopped.
func (c *checkpointer) wait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.covered < c.commits && !c.stopped {
		c.cond.Wait()
	}
}

// close stops the checkpointer, after the checkpoint under way if any.
// Closing it again does nothing.
func (c *checkpointer) close() {
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.done
	// Not the store's last connection: closing it leaves the log.
	c.db.Close()
	c.mu.Lock()
	c.stopped = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// walLonger reports whether the write-ahead log of the database file is
// longer than n bytes.
func walLonger(file string, n int64) bool {
	fi, err := os.Stat(file + "-wal")
	return err == nil && fi.Size() > n
}

// checkpoint folds what it can of the write-ahead log into the database
// file, and keeps the clean-close record's account of the file: the
// store's connections write the file only here and when the last of them
// closes, so a file that changed since the store's last checkpoint was
// changed by other hands (another process, cite's or not), and the store
// will not record a clean close. It reports whether the whole log is in
// the file now.
func (s *Store) checkpoint(ctx context.Context, db *sql.DB) bool {
	account := !s.readOnly && s.verified
	s.fmu.Lock()
	defer s.fmu.Unlock()
	var before fileStamp
	if account {
		var ok bool
		if before, ok = statFile(s.file); !ok || before != s.stamp {
			s.foreign = true
		}
	}
	// A checkpoint that fails (another process's checkpoint under way)
	// leaves the log to the next one, or to the close.
	var busy, log, done int
	err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done)
	// A checkpoint that failed, or found no frame to fold in, wrote
	// nothing the stamp should take in: a change of the file meanwhile
	// is someone else's.
	if account && err == nil && done > 0 {
		s.stamp, s.stampOK = statFile(s.file)
		if s.stamp != before && !settle(s.stamp.ChangeNs) {
			s.foreign = true
		}
	}
	return err == nil && busy == 0 && log == done
}

var _ driver.Connector = (*writeConnector)(nil)

// openWriteDB opens the database of a writable store with dsn.
func openWriteDB(dsn string) *sql.DB { return sql.OpenDB(newWriteConnector(dsn)) }
