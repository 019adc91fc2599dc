package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/internal/tables"
	_ "github.com/mattn/go-sqlite3" // the SQLite driver; this package is its only user
)

// DefaultDir is the index folder used when none is given, relative to the
// working directory.
const DefaultDir = ".cite"

// dbFile is the SQLite database inside the index folder.
const dbFile = "index.db"

// Exists reports whether the folder dir holds an index (its database
// file), without opening it.
func Exists(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, dbFile))
	return err == nil && fi.Mode().IsRegular()
}

// DefaultSource is the data source documents go to when none is named.
const DefaultSource = "default"

//go:embed migrations/*.sql
var migrations embed.FS

// Errors callers branch on.
var (
	ErrNoIndex      = errors.New("no index")
	ErrNotFound     = errors.New("not found")
	ErrAmbiguous    = errors.New("ambiguous")
	ErrNewerSchema  = errors.New("index was written by a newer version of cite")
	ErrInvalidInput = errors.New("invalid input")
	// ErrReadOnly is the error of a write to an index opened with
	// [Options.ReadOnly], and of opening for writing an index the process
	// may not write (another user's folder, a read-only mount).
	ErrReadOnly = errors.New("index is read-only")
	// ErrCorrupt is the error of reading or writing an index whose database
	// file is damaged. cite check --repair ([Recover]) rebuilds it.
	ErrCorrupt = errors.New("index is damaged")
	// ErrFull is the error of a write that found no room: the disk (or
	// the quota) holding the index, or SQLite's temporary files, is
	// full. Every write after it would fail the same way.
	ErrFull = errors.New("the disk is full")
)

// Options configure [Open].
type Options struct {
	// Create makes the folder and database when they do not exist. Without
	// it, opening a folder with no index fails with ErrNoIndex.
	Create bool

	// ReadOnly opens the index for reading only: nothing in the folder is
	// written, so an index the process may not write (another user's, a
	// read-only mount) can be searched. Writes fail with ErrReadOnly. An
	// index that needs a schema upgrade or a rebuild of its full-text terms
	// cannot be opened read-only until a writable open has done it.
	ReadOnly bool

	// Verify runs SQLite's quick_check before anything else and fails with
	// ErrCorrupt if the database is damaged, so that a damaged index is not
	// written into. It reads every page: about 0.25 s for an index of 240
	// MB whose pages the system has cached, a minute or more for one of 8
	// GB. It is skipped when the last process to write the index verified
	// it too, closed it cleanly and recorded the database file as it left
	// it, and the file is unchanged since (clean.go): a writable store
	// opened with Verify makes that record when it is closed, unless the
	// file changed under it by other hands than its own commits, or
	// another process still has the index open for writing.
	// [Store.QuickChecked] says whether the check ran.
	Verify bool

	// Checking, when set, is called as Verify's quick_check starts, with
	// the size of the database file in bytes, and the function it returns
	// (if not nil) when the check ends: a command can say why its start
	// waits, which on a large index after an unclean close is a minute or
	// more.
	Checking func(size int64) (done func())
}

// Store is an index on disk: one SQLite database in WAL mode holding data
// sources, documents and chunks. It is safe for concurrent use; writes are
// serialized by SQLite.
type Store struct {
	db       *sql.DB
	dir      string
	file     string // the database file
	readOnly bool

	vmu       sync.Mutex   // guards the fields below (not the index itself)
	vectors   *vectorIndex // loaded by the first vector search; nil until then
	cachedGen int64        // generation of the vector cache on disk, if known
	releases  []func()     // unmap vector caches

	replica Replica // receives every committed change ([Store.SetReplica]); nil: none

	ckpt *checkpointer // folds the log into the file; nil in a read-only store

	fts ftsCache // the full-text segments in memory

	// The clean-close record (clean.go).
	verified     bool       // opened with Options.Verify: the database was sound
	quickChecked bool       // Open ran SQLite's quick_check
	fmu          sync.Mutex // guards the fields below
	stamp        fileStamp  // the database file as this process last left it
	stampOK      bool       // stamp is known
	foreign      bool       // the file changed by other hands than this process's commits
}

// Open opens the index in dir, migrating its schema forward if it was
// written by an older cite. Opening for writing (the default) fails with
// ErrReadOnly if the folder or database may not be written, and with
// ErrCorrupt if the database file is visibly damaged (a cheap check of its
// header and size; [Store.Check] reads every page).
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if opts.Create && opts.ReadOnly {
		return nil, fmt.Errorf("open index %s: %w: Create and ReadOnly together", dir, ErrInvalidInput)
	}
	file := filepath.Join(dir, dbFile)
	if _, err := os.Stat(file); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open index %s: %w", dir, err)
		}
		if !opts.Create {
			return nil, fmt.Errorf("open index %s: %w (run cite index PATH to create one)", dir, ErrNoIndex)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create index %s: %w", dir, readOnlyError(err))
		}
	}
	if !opts.ReadOnly {
		if err := checkWritable(dir, file); err != nil {
			return nil, fmt.Errorf("open index %s: %w", dir, err)
		}
	}
	err := checkFile(file, opts.Create)
	for wait := time.Millisecond; errors.Is(err, errEmptyFile) && wait < time.Second && ctx.Err() == nil; wait *= 2 {
		// An empty file and no log: SQLite has just made the file of a
		// new index, or a writer closing one has just moved its log into
		// it, between checkFile's looks at the two. Either is done in
		// moments: look again a while.
		time.Sleep(wait)
		err = checkFile(file, opts.Create)
	}
	if err != nil {
		if errors.Is(err, errEmptyFile) {
			if opts.ReadOnly && writerActive(dir) {
				// SQLite has made the file and not yet written to it.
				return nil, fmt.Errorf("open index %s: %w (a cite index is creating it: try again when it is done)", dir, ErrNoIndex)
			}
			err = fmt.Errorf("%w (%s): %s is empty (0 bytes): no index was ever written to it, or it was emptied", ErrCorrupt, repairHint, file)
		}
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	// A clean-close record matching the file stands for the quick_check
	// the process that made it ran. A writable open removes it before it
	// opens the database: a process killed from here on leaves none.
	var clean bool
	if rec, ok := readClean(dir); ok && opts.Verify {
		clean = cleanMatches(file, rec)
	}
	if !opts.ReadOnly && !removeClean(dir) {
		clean = false
	}
	s, err := openFile(ctx, dir, file, opts, clean)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	if !opts.ReadOnly {
		removeStaleTemps(dir)
	}
	return s, nil
}

// openFile opens the database file of the index in dir. clean says a
// clean-close record matches the file: Verify needs no quick_check.
func openFile(ctx context.Context, dir, file string, opts Options, clean bool) (*Store, error) {
	s := &Store{dir: dir, file: file, readOnly: opts.ReadOnly, verified: opts.Verify}
	var err error
	if opts.ReadOnly {
		s.db, err = openReadOnly(ctx, file)
	} else {
		s.db, err = openReadWrite(ctx, file)
	}
	if err != nil {
		return nil, dbError(err)
	}
	if opts.Verify && !clean {
		s.quickChecked = true
		var done func()
		if opts.Checking != nil {
			var size int64
			if fi, err := os.Stat(file); err == nil {
				size = fi.Size()
			}
			done = opts.Checking(size)
		}
		err := s.quickCheck(ctx)
		if done != nil {
			done()
		}
		if err != nil {
			s.db.Close()
			return nil, err
		}
	}
	if s.verified && !s.readOnly {
		// The file as checked: from here on, only the store's commits
		// may change it (Store.wrote), a schema upgrade's among them.
		s.stamp, s.stampOK = statFile(file)
	}
	// A new database turning to WAL mode, or a log being recovered, is
	// busy without SQLite waiting on busy_timeout: try again a while.
	// A reader opening an index another process is creating waits for
	// its schema likewise.
	for start, wait := time.Now(), time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err = s.migrate(ctx)
		if !isBusy(err) && !errors.Is(err, errCreating) || time.Since(start) > 10*time.Second {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	if errors.Is(err, errCreating) {
		err = fmt.Errorf("%w (%s holds no tables yet: a cite index may be creating it; run cite index PATH to create one)", ErrNoIndex, file)
	}
	if err != nil {
		s.db.Close()
		return nil, dbError(err)
	}
	if opts.ReadOnly {
		err = s.checkAnalyzerReadOnly(ctx)
	} else {
		err = s.checkAnalyzer(ctx)
	}
	if err != nil {
		s.db.Close()
		return nil, dbError(err)
	}
	if !opts.ReadOnly {
		s.ckpt = startCheckpointer(s, writeDSN(file))
		// Fold in what the migration and the opens wrote.
		s.ckpt.committed()
	}
	return s, nil
}

// quickCheck runs SQLite's quick_check: ErrCorrupt if it finds damage.
func (s *Store) quickCheck(ctx context.Context) error {
	msgs, err := s.integrity(ctx, "quick_check")
	if err != nil {
		return err
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w (%s): %s", ErrCorrupt, repairHint, strings.Join(msgs, "; "))
	}
	return nil
}

// integrity runs SQLite's integrity_check or quick_check pragma and returns
// up to 10 of the problems it finds, none if the database is sound.
func (s *Store) integrity(ctx context.Context, pragma string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "PRAGMA "+pragma+"(10)")
	if isCorrupt(err) {
		return []string{err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		if m != "ok" {
			msgs = append(msgs, m)
		}
	}
	if err := rows.Err(); isCorrupt(err) {
		return append(msgs, err.Error()), nil
	} else if err != nil {
		return nil, err
	}
	return msgs, nil
}

// dsn returns the SQLite URI of a database file with the given parameters.
func dsn(file, params string) string {
	// A path's '?', '#' and '%' would end or escape the file name.
	file = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(file)
	return "file:" + file + "?" + params
}

// readParams are the connection settings that make searches cheaper: each
// connection keeps its last 32 statements prepared (a search runs the same
// dozen statements each time; preparing them was 13% of the SQLite time
// of BM25 searches at 100k chunks).
const readParams = "_stmt_cache_size=32"

// writeDSN is the SQLite URI of a database file opened for writing.
func writeDSN(file string) string {
	return dsn(file, "_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=on&_busy_timeout=10000&_txlock=immediate&"+readParams)
}

// pageSize is the size in bytes of the pages of the databases cite
// creates (a variable for tests). With SQLite's default of 4 KB, which
// indexes made by older cite keep, a 2,048-dimension vector (4,097 bytes
// as stored) does not fit in a page: 489 bytes of it stay in the table's
// page and the rest takes an overflow page of its own; in 16 KB pages
// three fit whole. cite index of the shared Markdown corpus spent 0.2-0.5 s
// more of system time writing and folding in the log (bench-ingest, 4
// rounds of 4, 8, 16, 32 and 64 KB in turn: 16 KB and up alike); searches
// of 100,000 chunks read as fast from 16 KB pages (BM25, vector and hybrid
// queries alternating between the two indexes in one process).
var pageSize = 16384

// openReadWrite opens a database for reading and writing, creating the
// file if it does not exist.
func openReadWrite(ctx context.Context, file string) (*sql.DB, error) {
	if err := create(ctx, file); err != nil {
		return nil, err
	}
	// WAL: readers never block the writer; synchronous=NORMAL is durable
	// against process crashes (a power cut may lose the last commits, never
	// corrupt). _txlock=immediate takes the write lock at BEGIN, so two
	// writers queue on busy_timeout instead of failing to upgrade.
	// Its connections leave checkpoints to the store's checkpointer.
	db := openWriteDB(writeDSN(file))
	db.SetMaxOpenConns(4)
	return db, nil
}

// create makes the database file, if it does not exist or is empty, with
// pages of pageSize bytes. The page size of a database is fixed when its
// first page is written, which turning it to WAL mode does: the store's
// connections do that as they open (writeDSN), so the file is made first,
// on a connection of its own that sets the size before the mode. Of
// several processes creating an index at once, one writes the first page
// and the others find it written; a log beside an empty file is another
// process's creation or close under way, left to it.
func create(ctx context.Context, file string) error {
	if fi, err := os.Stat(file); err == nil && fi.Size() > 0 || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil // made; or an error the open reports
	}
	if _, err := os.Stat(file + "-wal"); err == nil {
		return nil
	}
	db, err := sql.Open("sqlite3", dsn(file, "_busy_timeout=10000"))
	if err != nil {
		return err
	}
	defer db.Close()
	// Turning to WAL mode may be busy without SQLite waiting on
	// busy_timeout: try again a while.
	for start, wait := time.Now(), time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		_, err = db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d; PRAGMA journal_mode = WAL", pageSize))
		if !isBusy(err) || time.Since(start) > 10*time.Second {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// openReadOnly opens a database for reading only. A WAL database needs its
// -wal and -shm files to be read, and SQLite creates them if they are
// missing (a clean close removes them); in a folder it may not write it
// cannot, and then opens the file as immutable, which reads the database
// file alone, as the last writer left it. No writer can be running then:
// it would have made the files.
func openReadOnly(ctx context.Context, file string) (*sql.DB, error) {
	const params = "mode=ro&_foreign_keys=on&_busy_timeout=10000&_txlock=deferred&" + readParams
	db, err := sql.Open("sqlite3", dsn(file, params))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	err = ping(ctx, db)
	if err == nil {
		return db, nil
	}
	db.Close()
	if !cannotOpenWAL(err) {
		return nil, err
	}
	if _, statErr := os.Stat(file + "-wal"); statErr == nil {
		// A log we may not share: reading the file alone would miss its
		// commits.
		return nil, fmt.Errorf("%w: %w; its write-ahead log %s-wal holds commits this process cannot read without write access (any cite command run where the index is writable folds them in)", ErrReadOnly, err, file)
	}
	db, err = sql.Open("sqlite3", dsn(file, params+"&immutable=1"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := ping(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// ping reads the schema, which opens the WAL of a WAL database.
func ping(ctx context.Context, db *sql.DB) error {
	var n int
	return db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n)
}

// Close closes the database and releases the vectors held in memory. A
// store opened for writing with [Options.Verify] records that it closed
// the index cleanly (see Options.Verify), so that the next open need not
// check it again.
func (s *Store) Close() error {
	s.vmu.Lock()
	s.vectors = nil
	for _, r := range s.releases {
		r()
	}
	s.releases = nil
	s.vmu.Unlock()
	if s.ckpt != nil {
		s.ckpt.close()
	}
	clean := s.closingClean()
	err := s.db.Close()
	if err == nil && clean {
		// Closing the last connection folds the log into the file and
		// deletes it; a log left holds another process's writes to come.
		if st, ok := statFile(s.file); ok && walEmpty(s.file) && settle(st.ChangeNs) {
			// Without the record the next open checks the file, as
			// after a crash: nothing is lost by failing to write it.
			writeClean(s.dir, st)
		}
	}
	return err
}

// closingClean reports whether the store, closing, may record a clean
// close: it was opened for writing with Options.Verify, and the database
// file is as its own last commit left it.
func (s *Store) closingClean() bool {
	if s.readOnly || !s.verified {
		return false
	}
	s.fmu.Lock()
	defer s.fmu.Unlock()
	st, ok := statFile(s.file)
	return ok && s.stampOK && !s.foreign && st == s.stamp
}

// wrote runs commit, the end of one of the store's write transactions,
// and hands the log it wrote to the checkpointer. A commit writes the log
// only, never the database file: the store's connections write the file
// only in a checkpoint ([Store.checkpoint]), which keeps the clean-close
// record's account of it, or when the last of them closes.
func (s *Store) wrote(commit func() error) error {
	err := commit()
	if s.ckpt != nil {
		s.ckpt.committed()
	}
	return err
}

// QuickChecked reports whether [Open] ran SQLite's quick_check:
// [Options.Verify] was set and no record of a clean close matched the
// database file.
func (s *Store) QuickChecked() bool { return s.quickChecked }

// Dir returns the index folder.
func (s *Store) Dir() string { return s.dir }

// ReadOnly reports whether the store was opened with [Options.ReadOnly].
func (s *Store) ReadOnly() bool { return s.readOnly }

// migrate applies the migrations the database has not seen, in one
// transaction, and records the schema version in user_version. The version
// is read again under the write lock, so that of several processes opening
// a new index at once one migrates and the others find it done.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	version, err := s.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(names) {
		return fmt.Errorf("%w: schema %d, this cite knows up to %d; upgrade cite", ErrNewerSchema, version, len(names))
	}
	if version == len(names) {
		return nil
	}
	if s.readOnly {
		// Look again, at the version and the tables in one snapshot: a
		// creator may have committed the schema since.
		var tables int
		if err := s.db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)`).Scan(&version, &tables); err != nil {
			return err
		}
		switch {
		case version == len(names):
			return nil
		case version == 0 && tables == 0:
			// A new database: its creator has not committed its schema yet.
			return errCreating
		}
		return fmt.Errorf("%w: its schema %d needs an upgrade to %d, which writes; open it once where it is writable (cite index)", ErrReadOnly, version, len(names))
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > len(names) {
			return fmt.Errorf("%w: schema %d, this cite knows up to %d; upgrade cite", ErrNewerSchema, version, len(names))
		}
		for i := version; i < len(names); i++ {
			stmts, err := migrations.ReadFile(names[i])
			if err == nil {
				_, err = tx.ExecContext(ctx, withoutComments(string(stmts)))
			}
			if after := afterMigration[i+1]; err == nil && after != nil {
				err = after(ctx, tx)
			}
			if err != nil {
				return fmt.Errorf("migrate schema to %d (%s): %w", i+1, path.Base(names[i]), err)
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(names)))
		return err
	})
}

// errCreating is migrate, for a reader, finding a database with no schema
// at all: one another process is creating.
var errCreating = errors.New("database without a schema")

// withoutComments returns SQL statements without their "--" comments and
// runs of whitespace outside quotes, which
// SQLite would otherwise keep in the schema's CREATE statements: the schema
// then fits on the database's first page, where cite check --repair reads
// it even when the rest of the file is damaged or cut short.
func withoutComments(sql string) string {
	out := make([]byte, 0, len(sql))
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i+1 < len(sql) && sql[i+1] != '\n' {
				i++
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			// A run of whitespace becomes one newline if it holds one,
			// else one space.
			if c != '\n' {
				c = ' '
			}
			if n := len(out); n > 0 && (out[n-1] == ' ' || out[n-1] == '\n') {
				if c == '\n' {
					out[n-1] = '\n'
				}
				continue
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// afterMigration holds the steps of a migration that SQL cannot do, run in
// its transaction after its statements.
var afterMigration = map[int]func(context.Context, *sql.Tx) error{
	// Schema 2 added full-text search: index the chunks already stored.
	2: func(ctx context.Context, tx *sql.Tx) error { return rebuildFullText(ctx, tx) },
	// Schema 6 added the postings: write them for the chunks stored.
	6: rebuildPostings,
}

// checkAnalyzerReadOnly refuses an index whose full-text terms were made
// by another version of [Analyze]: searching it needs them rebuilt, which
// writes ([Store.checkAnalyzer]).
func (s *Store) checkAnalyzerReadOnly(ctx context.Context) error {
	v, err := getMeta(ctx, s.db, metaAnalyzer)
	if err != nil {
		return err
	}
	if v != strconv.Itoa(analysis.Version) {
		return fmt.Errorf("%w: its full-text terms need rebuilding for this cite (analyzer %s, now %d), which writes; open it once where it is writable (cite index or cite check --repair)", ErrReadOnly, v, analysis.Version)
	}
	return nil
}

// SchemaVersion returns the schema version of the open index.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// inTx runs fn in a write transaction, committing if it returns nil. In a
// read-only store it fails with ErrReadOnly.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if s.ckpt != nil {
		s.ckpt.bound()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dbError(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return dbError(err)
	}
	return dbError(s.wrote(tx.Commit))
}

// Tables hands the index's database to a package under index that keeps
// tables of its own in it (package index/session keeps cite serve's
// sessions in the tables schema 4 made): the database, for reads, and a
// function that runs a write transaction as the store's own writes do
// (ErrReadOnly in a read-only store, SQLite's errors mapped to ErrCorrupt
// and ErrReadOnly). Only packages under index can name the key.
func (s *Store) Tables(tables.Key) (*sql.DB, func(context.Context, func(*sql.Tx) error) error) {
	return s.db, s.inTx
}

// Source is a named collection of documents.
type Source struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	Documents int       `json:"documents"`
	Chunks    int       `json:"chunks"`
	Tokens    int64     `json:"tokens"`
	Bytes     int64     `json:"bytes"`
}

// Document is an indexed file.
type Document struct {
	ID        string    `json:"id"`
	Source    string    `json:"data_source"` // data source (collection) name
	Path      string    `json:"path"`
	Title     string    `json:"title"`
	Type      string    `json:"format"` // file format: markdown, html, text
	Kind      Kind      `json:"kind"`   // where it came from; PutDocument records "" as KindFile
	Size      int64     `json:"size"`
	ModTime   time.Time `json:"mtime"`
	Hash      string    `json:"hash"`
	Pipeline  string    `json:"pipeline"`
	TextBytes int       `json:"text_bytes"`
	Chunks    int       `json:"chunks"`
	Tokens    int       `json:"tokens"`
	IndexedAt time.Time `json:"indexed_at"`

	// Layout is what a document whose text was extracted (PDF, Word, ...)
	// adds to it; nil for others. [Store.PutDocument] writes it;
	// [Store.Layout] reads it back (listings do not).
	Layout *Layout `json:"-"`
}

// Layout is what an extracted document's text does not say by itself:
// where its pages (or slides) start, and what its reader noted (running
// headers and footers it left out of the text, pages it could not read).
type Layout struct {
	Pages    []Page    `json:"pages,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Sections []Section `json:"sections,omitempty"`
}

// Section is where a section (a heading) starts in an extracted document's
// text, and its heading path there, as its chunks have theirs: a passage
// that starts in one section and runs into the next (a workbook's later
// sheet) can name the section a part of it is in.
type Section struct {
	Offset  int      `json:"offset"`
	Heading []string `json:"heading"`
}

// Page is where a page (or slide) starts in a document's text.
type Page struct {
	Number int `json:"number"`
	Offset int `json:"offset"`
}

// Chunk is a stored chunk: the chunker's window plus its identity and its
// span in the source file.
type Chunk struct {
	chunk.Chunk
	ID          string `json:"id"`
	DocumentID  string `json:"document_id"`
	SourceStart int    `json:"source_start"` // byte span in the source file
	SourceEnd   int    `json:"source_end"`
	// Page and PageEnd are the first and last pages (slides, for a
	// presentation) the chunk's text is on, for documents that have pages;
	// 0 otherwise.
	Page    int `json:"page,omitempty"`
	PageEnd int `json:"page_end,omitempty"`

	// Terms are the chunk's full-text terms, [analysis.Analyze] of its text joined
	// by spaces. [Store.PutDocument] computes them when empty; callers that
	// prepare chunks in parallel fill them in to keep that work off the
	// single writer.
	Terms string `json:"-"`

	// Vector is the chunk's embedding, of the index's embedder
	// ([Store.Embedder]), or nil. [Store.PutDocument] stores it; a chunk
	// stored without one has no vector until [Store.PutVectors] gives it
	// one. It is not read back by [Store.Chunks]. Once [PrepareChunks] has
	// prepared it, [Chunk.ReleaseVector] hands its memory back.
	Vector []float32 `json:"-"`

	prep    *chunkPrep  // made by PrepareChunks
	counted *TermCounts // given by SetTermCounts, taken by PrepareChunks
	// idOf is what AssignIDs last made ID of: a chunk whose document,
	// text, repeat and ID are still those keeps its ID without hashing
	// its text again (ingest's workers assign the ids, and the writer
	// assigns them again).
	idOf chunkIDOf
}

// chunkIDOf is what a chunk's id was made of ([ChunkID]), and the id.
type chunkIDOf struct {
	doc, text string
	repeat    int
	id        string
}

// chunkPrep is the part of a chunk's write that needs no database, done
// ahead by [PrepareChunks].
type chunkPrep struct {
	terms    string      // the Terms it was made from
	headings string      // Headings as JSON
	counts   []termCount // the distinct terms of Terms, with their frequencies
	length   uint32      // the number of terms
	// vector is the Vector it was made from; nil once released
	// ([Chunk.ReleaseVector]): what is stored of it is below.
	vector []float32
	vec    []byte  // vector encoded ([encodeVector]); nil without a vector
	q      []int8  // vector as stored, quantized, for the in-memory vectors
	scale  float32 // of q
	// bad is the index of the vector's first value that is not a
	// number or infinite ([nonFinite]), -1 if none; badValue is that value.
	bad      int
	badValue float32
	// mem holds the memory of counts, vec and q, handed back once the
	// chunk is stored ([Chunk.spendPrep]), which spends the preparation.
	mem   *prepMemory
	spent bool
}

// prepMemory is memory for a chunk's preparation, used again: the term
// counts, the vector as stored and the quantized vector, which storing
// the chunk copies (into the database, the new segment of postings and the
// in-memory vectors) and no longer needs once the transaction is
// committed. A chunk of the corpus takes about 10 KB of it at 2,048
// dimensions, which would be new memory for every chunk.
type prepMemory struct {
	counts []termCount
	vec    []byte
	q      []int8
}

// prepMemories holds the memory of the preparations spent.
var prepMemories = sync.Pool{New: func() any { return new(prepMemory) }}

// spendPrep hands back the memory of c's preparation once c is stored: a
// copy of c that still points to it prepares itself again.
func (c *Chunk) spendPrep() {
	p := c.prep
	if p == nil {
		return
	}
	c.prep = nil
	if p.spent {
		return
	}
	p.spent = true
	if m := p.mem; m != nil {
		// The counts' terms are substrings of the chunk's Terms (or the
		// analysis' own strings): they would keep them from the
		// collector.
		clear(p.counts)
		m.counts = p.counts[:0]
		if p.vec != nil {
			m.vec = p.vec[:0]
		}
		if p.q != nil {
			m.q = p.q[:0]
		}
		prepMemories.Put(m)
	}
	p.mem, p.counts, p.vec, p.q, p.vector = nil, nil, nil, nil, nil
}

// PrepareChunks does the work of storing chunks that needs no database:
// their full-text terms (when Terms is empty and no counts were given
// with [Chunk.SetTermCounts]), the distinct terms counted in document
// frequencies, the headings, and the vector as stored and
// quantized for the in-memory vectors. Callers
// that prepare documents in parallel (ingest's workers) call it once
// Terms and Vector are final, to keep that work off the single writer;
// [Store.PutDocuments] does what was not done, or no longer matches. Once
// a chunk is stored, its preparation is spent: storing it again prepares
// it again.
func PrepareChunks(chunks []Chunk) {
	for i := range chunks {
		c := &chunks[i]
		m := prepMemories.Get().(*prepMemory)
		counts, n, counted := c.takeCounts(m.counts)
		if !counted && c.Terms == "" {
			c.Terms = analysis.JoinedTerms(c.Text)
		}
		p := &chunkPrep{terms: c.Terms, headings: headingsJSON(c.Headings), vector: c.Vector, bad: -1, mem: m}
		if counted {
			p.counts, p.length = counts, n
		} else {
			p.counts, p.length = termCounts(m.counts, c.Terms)
		}
		if v := c.Vector; v != nil {
			if cap(m.q) < len(v) {
				m.q = make([]int8, len(v))
			}
			p.q = m.q[:len(v)]
			p.vec, p.scale = prepVector(m.vec, v, p.q)
			// A vector stored as float16 has only finite values: only
			// one stored as float32 may have others.
			if len(p.vec) == 4*len(v) {
				if p.bad = nonFinite(v); p.bad >= 0 {
					p.badValue = v[p.bad]
				}
			}
		}
		c.prep = p
	}
}

// ReleaseVector returns the chunk's Vector and sets it to nil, once
// [PrepareChunks] has prepared it: the chunk is then stored with the
// vector as prepared, which needs nothing more of Vector's memory, and the
// caller may use that memory again (for the next vector, say). A chunk
// whose Terms change afterwards is prepared again when it is stored, and
// then has no vector. ReleaseVector returns nil, and changes nothing, when
// the chunk has no vector prepared from its Vector.
func (c *Chunk) ReleaseVector() []float32 {
	p := c.prep
	if p == nil || p.spent || p.vector == nil || p.terms != c.Terms || !sameVector(p.vector, c.Vector) {
		return nil
	}
	v := c.Vector
	c.Vector, p.vector = nil, nil
	return v
}

// prepared returns what PrepareChunks made of c, made again (and kept in
// c) if missing, spent, or if c's Terms or Vector changed since (a Vector
// released stays unchanged while it is nil).
func (c *Chunk) prepared() *chunkPrep {
	if p := c.prep; p != nil && !p.spent && p.terms == c.Terms && sameVector(p.vector, c.Vector) {
		return p
	}
	one := []Chunk{*c}
	PrepareChunks(one)
	c.prep = one[0].prep
	return c.prep
}

// sameVector reports whether a and b are the same slice.
func sameVector(a, b []float32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// headingsJSON encodes a chunk's headings as stored: a JSON array.
func headingsJSON(h []string) string {
	if h == nil {
		return "[]"
	}
	b, err := json.Marshal(h)
	if err != nil {
		panic(err) // a []string always encodes
	}
	return string(b)
}

// DocumentID returns the id of the document at path in the named source: a
// hash of both, so it is stable across edits of the file.
func DocumentID(source, path string) string {
	h := sha256.New()
	h.Write([]byte(source))
	h.Write([]byte{0})
	h.Write([]byte(path))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ChunkID returns the id of a chunk of a document: a hash of the document
// id and the chunk's text (and, for a text that repeats within the
// document, which repetition it is). It does not depend on insertion order
// or on the chunk's position, so editing one part of a file leaves the ids
// of the other chunks unchanged.
func ChunkID(documentID, text string, repeat int) string {
	bp := idBuffers.Get().(*[]byte)
	defer putIDBuffer(bp)
	return chunkID(bp, documentID, text, repeat)
}

// chunkID is [ChunkID] with *buf, whose memory it reuses, to hash: the
// hashed bytes are laid out in it and summed at once, with no copy of
// text per call (a hash.Hash's Write takes a []byte, and converting text
// to one copies it).
func chunkID(buf *[]byte, documentID, text string, repeat int) string {
	b := append((*buf)[:0], documentID...)
	b = append(b, 0)
	b = append(b, text...)
	b = binary.BigEndian.AppendUint64(b, uint64(repeat))
	*buf = b
	sum := sha256.Sum256(b)
	var id [24]byte
	hex.Encode(id[:], sum[:12])
	return string(id[:])
}

// idBuffers are the buffers of [chunkID].
var idBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putIDBuffer gives a buffer of chunkID back, unless an unusually long
// chunk made it large: that memory is left to the collector.
func putIDBuffer(bp *[]byte) {
	if cap(*bp) <= 64<<10 {
		idBuffers.Put(bp)
	}
}

// Changes reports what [Store.PutDocument] did to a document's chunks.
type Changes struct {
	Added   []string // ids of chunks that were not stored before
	Removed []string // ids of chunks that are gone
	Kept    int      // chunks whose text was already stored
	Vectors int      // vectors stored
}

// AssignIDs fills in the id of a document and the ids and document id of
// its chunks, as [Store.PutDocument] will: callers use it to learn which
// chunks the index already has ([Store.VectorIDs]) before embedding.
func AssignIDs(doc *Document, chunks []Chunk) {
	doc.ID = DocumentID(doc.Source, doc.Path)
	bp := idBuffers.Get().(*[]byte)
	defer putIDBuffer(bp)
	repeats := make(map[string]int)
	for i := range chunks {
		c := &chunks[i]
		c.DocumentID = doc.ID
		of := chunkIDOf{doc.ID, c.Text, repeats[c.Text], c.ID}
		if c.idOf != of || c.ID == "" {
			c.ID = chunkID(bp, doc.ID, c.Text, of.repeat)
			of.id = c.ID
			c.idOf = of
		}
		repeats[c.Text]++
	}
}

// PutDocument stores a document and replaces its chunks, atomically: one
// transaction, so that a crash leaves either the old version or the new one.
// It fills in doc.ID and the chunks' ID and DocumentID. Chunks whose text
// is unchanged keep their rows (and vectors).
func (s *Store) PutDocument(ctx context.Context, doc *Document, chunks []Chunk) (Changes, error) {
	chs, err := s.PutDocuments(ctx, []DocumentChunks{{doc, chunks}})
	if err != nil {
		return Changes{}, err
	}
	return chs[0], nil
}

// DocumentChunks is a document with its chunks, for [Store.PutDocuments].
type DocumentChunks struct {
	Doc    *Document
	Chunks []Chunk
}

// PutDocuments stores several documents as [Store.PutDocument] does, in one
// transaction: all of them or none. Writing documents in batches spares the
// full-text index a commit each (about a third of indexing time). If one
// document fails, none is stored and the error names it.
func (s *Store) PutDocuments(ctx context.Context, batch []DocumentChunks) ([]Changes, error) {
	for _, b := range batch {
		if b.Doc.Source == "" || b.Doc.Path == "" {
			return nil, fmt.Errorf("put document: %w: source and path are required", ErrInvalidInput)
		}
		AssignIDs(b.Doc, b.Chunks)
		b.Doc.Chunks = len(b.Chunks)
	}
	chs := make([]Changes, len(batch))
	var vecs []vectorRow // added to the in-memory vectors after commit
	var gone []int64     // rowids of removed chunks
	var gen int64        // vectors generation after the commit, if changed
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		vecs, gone, gen = vecs[:0], gone[:0], 0
		delta := map[string]int{} // document frequencies
		seg := &newSegment{}      // the postings of the chunks added
		// A batch dirties thousands of pages (a 2,048-dimension vector
		// takes two and a bit). With SQLite's default cache of 2 MB it
		// spills them to the log during the transaction, writes the ones
		// it changes again once more, and at commit reads back every
		// frame since the first rewritten one to sum them again.
		if _, err := tx.ExecContext(ctx, writeCacheSize); err != nil {
			return err
		}
		dim, err := vectorDim(ctx, tx)
		if err != nil {
			return err
		}
		st, err := preparePut(ctx, tx)
		if err != nil {
			return err
		}
		defer st.close()
		// The rows are written without ctx: go-sqlite3 runs each statement
		// of a cancellable context on a goroutine of its own, a cost per
		// row. Cancelling still stops the transaction between statements
		// (database/sql rolls it back, and the next one fails), and it is
		// checked between documents.
		rowCtx := context.WithoutCancel(ctx)
		for i, b := range batch {
			if err := ctx.Err(); err != nil {
				return err
			}
			chs[i] = Changes{}
			v0 := len(vecs)
			if err := s.putDocument(rowCtx, tx, st, b.Doc, b.Chunks, dim, delta, seg, &chs[i], &vecs, &gone); err != nil {
				return fmt.Errorf("put document %s: %w", b.Doc.Path, err)
			}
			chs[i].Vectors = len(vecs) - v0
		}
		seg.addDF(delta)
		if err := addTermDF(rowCtx, tx, delta); err != nil {
			return err
		}
		if err := flushSegment(rowCtx, tx, seg); err != nil {
			return err
		}
		ids := make([]string, len(batch))
		for i, b := range batch {
			ids[i] = b.Doc.ID
		}
		if err := markPending(ctx, tx, ids); err != nil {
			return err
		}
		if len(vecs) > 0 || len(gone) > 0 {
			gen, err = bumpVectorsGen(ctx, tx)
		}
		return err
	})
	if err != nil {
		if len(batch) == 1 && !strings.HasPrefix(err.Error(), "put document ") {
			err = fmt.Errorf("put document %s: %w", batch[0].Doc.Path, err)
		}
		return nil, err
	}
	if gen > 0 {
		s.vectorsChanged(gen, gone, vecs)
	}
	// Stored: what was prepared is in the database, the segment and the
	// in-memory vectors.
	for _, b := range batch {
		for i := range b.Chunks {
			b.Chunks[i].spendPrep()
		}
	}
	if s.replica != nil {
		ids := make([]string, len(batch))
		for i, b := range batch {
			ids[i] = b.Doc.ID
		}
		if _, err := s.push(ctx, ids); err != nil {
			return chs, err
		}
	}
	return chs, nil
}

// writeCacheSize sets the page cache of a connection that writes
// documents: 16 MB (SQLite's default is 2 MB). The connection keeps it.
const writeCacheSize = "PRAGMA cache_size = -16384"

// putStmts are the statements of a PutDocuments transaction, prepared
// once for all its documents.
type putStmts struct {
	sources      map[string]int64 // source ids by name
	upsertDoc    *sql.Stmt
	oldChunks    *sql.Stmt
	insertVector *sql.Stmt
	insert       *sql.Stmt
	update       *sql.Stmt
	deleteChunk  *sql.Stmt
	preps        []*chunkPrep // a document's, reused
}

func preparePut(ctx context.Context, tx *sql.Tx) (*putStmts, error) {
	st := &putStmts{sources: map[string]int64{}}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&st.upsertDoc, `
		INSERT INTO documents (id, source_id, path, title, type, kind, size, mtime, hash, pipeline, text_bytes, chunks, tokens, indexed_at, layout)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			title = excluded.title, type = excluded.type, kind = excluded.kind, size = excluded.size, mtime = excluded.mtime,
			hash = excluded.hash, pipeline = excluded.pipeline, text_bytes = excluded.text_bytes,
			chunks = excluded.chunks, tokens = excluded.tokens, indexed_at = excluded.indexed_at, layout = excluded.layout`},
		{&st.oldChunks, `SELECT id, rowid FROM chunks WHERE document_id = ?`},
		{&st.insertVector, `INSERT OR REPLACE INTO vectors (chunk, vec) VALUES (?, ?)`},
		{&st.insert, `
		INSERT INTO chunks (id, document_id, ordinal, text, tokens, start_byte, end_byte, src_start, src_end, headings, page, page_end)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&st.update, `
		UPDATE chunks SET ordinal = ?, tokens = ?, start_byte = ?, end_byte = ?, src_start = ?, src_end = ?, headings = ?, page = ?, page_end = ?
		WHERE id = ?`},
		{&st.deleteChunk, `DELETE FROM chunks WHERE rowid = ?`},
	} {
		var err error
		if *p.stmt, err = tx.PrepareContext(ctx, p.query); err != nil {
			st.close()
			return nil, err
		}
	}
	return st, nil
}

func (st *putStmts) close() {
	for _, s := range []*sql.Stmt{st.upsertDoc, st.oldChunks, st.insertVector, st.insert, st.update, st.deleteChunk} {
		if s != nil {
			s.Close()
		}
	}
}

// putDocument writes one document of a PutDocuments transaction.
func (s *Store) putDocument(ctx context.Context, tx *sql.Tx, st *putStmts, doc *Document, chunks []Chunk, dim int, delta map[string]int, seg *newSegment, ch *Changes, vecsOut *[]vectorRow, goneOut *[]int64) error {
	vecs, gone := *vecsOut, *goneOut
	defer func() { *vecsOut, *goneOut = vecs, gone }()
	sourceID, ok := st.sources[doc.Source]
	if !ok {
		var err error
		if sourceID, err = ensureSource(ctx, tx, doc.Source); err != nil {
			return err
		}
		st.sources[doc.Source] = sourceID
	}
	// The chunks as prepared: their vectors as stored, which need no
	// more of Vector (it may have been released).
	preps := st.preps[:0]
	for i := range chunks {
		c := &chunks[i]
		p := c.prepared()
		if p.q != nil && len(p.q) != dim {
			return fmt.Errorf("%w: chunk %d has a vector of %d dimensions, the index's embedder makes %d", ErrInvalidInput, c.Ordinal, len(p.q), dim)
		}
		if p.bad >= 0 {
			name, _ := getMeta(ctx, tx, metaEmbedder)
			return fmt.Errorf("%w: the vector of chunk %d from embedder %s has value %d %v, not a number", ErrInvalidInput, c.Ordinal, name, p.bad, p.badValue)
		}
		preps = append(preps, p)
	}
	st.preps = preps
	if doc.Kind == "" {
		doc.Kind = KindFile
	}
	if err := doc.Kind.check(); err != nil {
		return err
	}
	_, err := st.upsertDoc.ExecContext(ctx,
		doc.ID, sourceID, doc.Path, doc.Title, doc.Type, doc.Kind, doc.Size, doc.ModTime.UnixNano(), doc.Hash,
		doc.Pipeline, doc.TextBytes, doc.Chunks, doc.Tokens, doc.IndexedAt.UnixNano(), layoutJSON(doc.Layout))
	if err != nil {
		return fmt.Errorf("write document: %w", err)
	}
	old := make(map[string]int64) // chunk id -> rowid
	rows, err := st.oldChunks.QueryContext(ctx, doc.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var rowid int64
		if err := rows.Scan(&id, &rowid); err != nil {
			rows.Close()
			return err
		}
		old[id] = rowid
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for i := range chunks {
		c, p := &chunks[i], preps[i]
		rowid, kept := old[c.ID]
		var err error
		if kept {
			delete(old, c.ID)
			ch.Kept++
			_, err = st.update.ExecContext(ctx, c.Ordinal, c.Tokens, c.Start, c.End, c.SourceStart, c.SourceEnd, p.headings, c.Page, c.PageEnd, c.ID)
		} else {
			ch.Added = append(ch.Added, c.ID)
			var res sql.Result
			res, err = st.insert.ExecContext(ctx, c.ID, c.DocumentID, c.Ordinal, c.Text, c.Tokens, c.Start, c.End, c.SourceStart, c.SourceEnd, p.headings, c.Page, c.PageEnd)
			if err == nil {
				rowid, err = res.LastInsertId()
			}
			if err == nil {
				// Its document frequencies: seg.addDF.
				seg.addCounted(rowid, p.counts, p.length)
			}
		}
		if err == nil && p.q != nil {
			_, err = st.insertVector.ExecContext(ctx, rowid, p.vec)
			vecs = append(vecs, vectorRow{rowid: rowid, q: p.q, scale: p.scale})
		}
		if err != nil {
			return fmt.Errorf("write chunk %d: %w", c.Ordinal, err)
		}
	}
	var removed []int64
	for _, rowid := range old {
		removed = append(removed, rowid)
	}
	if err := removedTerms(ctx, tx, removed, delta); err != nil {
		return err
	}
	gone = append(gone, removed...)
	for id, rowid := range old {
		seg.remove(rowid)
		// The trigger chunks_delete leaves a tombstone in the postings;
		// the foreign key removes its vector.
		if _, err := st.deleteChunk.ExecContext(ctx, rowid); err != nil {
			return err
		}
		ch.Removed = append(ch.Removed, id)
	}
	slices.Sort(ch.Removed)
	return nil
}

func ensureSource(ctx context.Context, tx *sql.Tx, name string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sources WHERE name = ?`, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sources (name, created_at) VALUES (?, ?)`, name, time.Now().UnixNano())
	if err != nil {
		return 0, fmt.Errorf("create source %q: %w", name, err)
	}
	return res.LastInsertId()
}

// Touch records a new size and modification time for a document whose
// content is unchanged, so that the next run can skip it without reading.
func (s *Store) Touch(ctx context.Context, id string, size int64, mtime time.Time) error {
	if s.readOnly {
		return fmt.Errorf("touch document %s: %w", id, ErrReadOnly)
	}
	err := s.wrote(func() error {
		_, err := s.db.ExecContext(ctx, `UPDATE documents SET size = ?, mtime = ? WHERE id = ?`, size, mtime.UnixNano(), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("touch document %s: %w", id, dbError(err))
	}
	return nil
}

// DeleteDocument removes a document and its chunks. It returns the ids of
// the removed chunks.
func (s *Store) DeleteDocument(ctx context.Context, id string) ([]string, error) {
	removed, err := s.DeleteDocuments(ctx, []string{id})
	switch {
	case removed == nil:
		return nil, err
	case removed[0] == nil && err == nil:
		return nil, fmt.Errorf("delete document %s: %w", id, ErrNotFound)
	}
	return removed[0], err // err: the replica's, the document removed here
}

// DeleteDocuments removes documents and their chunks, as [Store.DeleteDocument]
// does one, in one transaction: all of them or none. It returns the ids of
// each document's removed chunks, nil for a document that is not in the
// index (no error). A transaction costs a commit, about 4 ms on disk, so
// that removing a folder's thousands of documents one at a time took
// seconds (cite index --prune of the corpus's 3,088 files, 10.8–12.2 s).
func (s *Store) DeleteDocuments(ctx context.Context, ids []string) ([][]string, error) {
	removed := make([][]string, len(ids))
	var gone []int64
	var found []string
	var gen int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		clear(removed)
		gone, found, gen = gone[:0], found[:0], 0
		sel, err := tx.PrepareContext(ctx, `SELECT id, rowid FROM chunks WHERE document_id = ? ORDER BY id`)
		if err != nil {
			return err
		}
		defer sel.Close()
		del, err := tx.PrepareContext(ctx, `DELETE FROM documents WHERE id = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		delta := map[string]int{}
		for i, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			rows, err := sel.QueryContext(ctx, id)
			if err != nil {
				return err
			}
			chunks := []string{}
			var rowids []int64
			for rows.Next() {
				var cid string
				var rowid int64
				if err := rows.Scan(&cid, &rowid); err != nil {
					rows.Close()
					return err
				}
				chunks = append(chunks, cid)
				rowids = append(rowids, rowid)
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if err := removedTerms(ctx, tx, rowids, delta); err != nil {
				return err
			}
			// Chunks and their vectors go with the document (foreign
			// keys; the trigger chunks_delete leaves tombstones in the
			// postings).
			res, err := del.ExecContext(ctx, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue // not in the index, nor its chunks (foreign key)
			}
			removed[i] = chunks
			gone = append(gone, rowids...)
			found = append(found, id)
		}
		if len(found) == 0 {
			return errNothingDeleted // changes nothing: rolled back
		}
		if err := addTermDF(ctx, tx, delta); err != nil {
			return err
		}
		if err := maintainSegments(ctx, tx, false); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sources WHERE NOT EXISTS (SELECT 1 FROM documents WHERE source_id = sources.id)`)
		if err == nil {
			err = markPending(ctx, tx, found)
		}
		if err == nil && len(gone) > 0 {
			gen, err = bumpVectorsGen(ctx, tx)
		}
		return err
	})
	switch {
	case errors.Is(err, errNothingDeleted):
		return removed, nil
	case err != nil && len(ids) == 1:
		return nil, fmt.Errorf("delete document %s: %w", ids[0], err)
	case err != nil:
		return nil, fmt.Errorf("delete %d documents: %w", len(ids), err)
	}
	if gen > 0 {
		s.vectorsChanged(gen, gone, nil)
	}
	if _, err := s.push(ctx, found); err != nil {
		return removed, err
	}
	return removed, nil
}

// errNothingDeleted rolls back a DeleteDocuments that found none of its
// documents.
var errNothingDeleted = errors.New("no document to delete")

const documentColumns = `d.id, s.name, d.path, d.title, d.type, d.kind, d.size, d.mtime, d.hash, d.pipeline, d.text_bytes, d.chunks, d.tokens, d.indexed_at`

func unixNano(n int64) time.Time { return time.Unix(0, n) }

func scanDocument(row interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var mtime, indexed int64
	err := row.Scan(&d.ID, &d.Source, &d.Path, &d.Title, &d.Type, &d.Kind, &d.Size, &mtime, &d.Hash, &d.Pipeline, &d.TextBytes, &d.Chunks, &d.Tokens, &indexed)
	d.ModTime = time.Unix(0, mtime)
	d.IndexedAt = time.Unix(0, indexed)
	return d, err
}

// Documents returns the documents of a source ("" for all sources), by path.
func (s *Store) Documents(ctx context.Context, source string) ([]Document, error) {
	q := `SELECT ` + documentColumns + ` FROM documents d JOIN sources s ON s.id = d.source_id`
	var args []any
	if source != "" {
		q += ` WHERE s.name = ?`
		args = append(args, source)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY s.name, d.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var docs []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		docs = append(docs, d)
	}
	return docs, rows.Err()
}

// CountPathMatches returns how many documents' paths match glob, in the
// syntax of [Filter.Path].
func (s *Store) CountPathMatches(ctx context.Context, glob string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE path GLOB ?`, glob).Scan(&n); err != nil {
		return 0, fmt.Errorf("match documents' paths: %w", dbError(err))
	}
	return n, nil
}

// DocumentsEndingIn returns up to limit documents (of source, "" for every
// source) whose path ends in tail after a path separator: those a user may
// have meant by a file name or a path relative to the folder indexed.
func (s *Store) DocumentsEndingIn(ctx context.Context, source, tail string, limit int) ([]Document, error) {
	tail = strings.TrimLeft(filepath.Clean(tail), `/\`)
	if tail == "" || tail == "." || strings.HasPrefix(tail, "..") {
		return nil, nil
	}
	q := `SELECT ` + documentColumns + ` FROM documents d JOIN sources s ON s.id = d.source_id
		WHERE length(d.path) > length(?1) AND substr(d.path, -length(?1) - 1) IN ('/' || ?1, '\' || ?1)`
	args := []any{tail}
	if source != "" {
		q += ` AND s.name = ?2`
		args = append(args, source)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY s.name, d.path LIMIT `+strconv.Itoa(limit), args...)
	if err != nil {
		return nil, fmt.Errorf("find documents ending in %s: %w", tail, err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("find documents ending in %s: %w", tail, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Document finds a document by id, by id prefix (at least 4 characters), or
// by path. A path found in several sources is ErrAmbiguous unless source
// names one.
func (s *Store) Document(ctx context.Context, source, ref string) (Document, error) {
	q := `SELECT ` + documentColumns + ` FROM documents d JOIN sources s ON s.id = d.source_id WHERE (d.path = ? OR d.id = ?`
	args := []any{ref, ref}
	if len(ref) >= 4 && len(ref) < 16 && isHex(ref) {
		q += ` OR substr(d.id, 1, ?) = ?`
		args = append(args, len(ref), ref)
	}
	q += `)`
	if source != "" {
		q += ` AND s.name = ?`
		args = append(args, source)
	}
	rows, err := s.db.QueryContext(ctx, q+` LIMIT 10`, args...)
	if err != nil {
		return Document{}, fmt.Errorf("find document %s: %w", ref, err)
	}
	defer rows.Close()
	var found []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return Document{}, fmt.Errorf("find document %s: %w", ref, err)
		}
		found = append(found, d)
	}
	if err := rows.Err(); err != nil {
		return Document{}, fmt.Errorf("find document %s: %w", ref, err)
	}
	switch len(found) {
	case 0:
		return Document{}, fmt.Errorf("document %s: %w", ref, ErrNotFound)
	case 1:
		return found[0], nil
	}
	var which []string
	for _, d := range found {
		which = append(which, d.ID+" ("+d.Source+": "+d.Path+")")
	}
	return Document{}, fmt.Errorf("document %s: %w: matches %s", ref, ErrAmbiguous, strings.Join(which, ", "))
}

// layoutJSON is the layout column's value for l: ” when l is empty.
func layoutJSON(l *Layout) string {
	if l == nil || (len(l.Pages) == 0 && len(l.Notes) == 0 && len(l.Sections) == 0) {
		return ""
	}
	b, err := json.Marshal(l)
	if err != nil {
		return ""
	}
	return string(b)
}

// Layout returns the layout of a document (see [Document.Layout]): empty for
// a document without one. A document the index does not have is an error
// wrapping [ErrNotFound].
func (s *Store) Layout(ctx context.Context, documentID string) (Layout, error) {
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT layout FROM documents WHERE id = ?`, documentID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return Layout{}, fmt.Errorf("layout of %s: %w", documentID, ErrNotFound)
	}
	if err != nil {
		return Layout{}, fmt.Errorf("layout of %s: %w", documentID, dbError(err))
	}
	var l Layout
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			return Layout{}, fmt.Errorf("layout of %s: %w", documentID, err)
		}
	}
	return l, nil
}

// Chunks returns the chunks of a document in order.
func (s *Store) Chunks(ctx context.Context, documentID string) ([]Chunk, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, document_id, ordinal, text, tokens, start_byte, end_byte, src_start, src_end, headings, page, page_end
		FROM chunks WHERE document_id = ? ORDER BY ordinal`, documentID)
	if err != nil {
		return nil, fmt.Errorf("read chunks of %s: %w", documentID, err)
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		var c Chunk
		var headings string
		if err := rows.Scan(&c.ID, &c.DocumentID, &c.Ordinal, &c.Text, &c.Tokens, &c.Start, &c.End, &c.SourceStart, &c.SourceEnd, &headings, &c.Page, &c.PageEnd); err != nil {
			return nil, fmt.Errorf("read chunks of %s: %w", documentID, err)
		}
		if err := json.Unmarshal([]byte(headings), &c.Headings); err != nil {
			return nil, fmt.Errorf("read chunks of %s: headings of chunk %d: %w", documentID, c.Ordinal, err)
		}
		if len(c.Headings) == 0 {
			c.Headings = nil
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Text rebuilds a document's normalized text from its chunks, which cover
// it entirely.
func Text(chunks []Chunk) string {
	var b strings.Builder
	end := 0
	for _, c := range chunks {
		if c.End <= end {
			continue
		}
		b.WriteString(c.Text[max(end-c.Start, 0):])
		end = c.End
	}
	return b.String()
}

// Sources returns the data sources with their totals, by name.
func (s *Store) Sources(ctx context.Context) ([]Source, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT s.name, s.created_at, count(d.id), coalesce(sum(d.chunks), 0), coalesce(sum(d.tokens), 0), coalesce(sum(d.size), 0)
		FROM sources s LEFT JOIN documents d ON d.source_id = s.id
		GROUP BY s.id ORDER BY s.name`)
	if err != nil {
		return nil, fmt.Errorf("list sources: %w", err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		var src Source
		var created int64
		if err := rows.Scan(&src.Name, &created, &src.Documents, &src.Chunks, &src.Tokens, &src.Bytes); err != nil {
			return nil, fmt.Errorf("list sources: %w", err)
		}
		src.CreatedAt = time.Unix(0, created)
		out = append(out, src)
	}
	return out, rows.Err()
}

// SourceNames returns the names of the index's data sources, sorted: a
// cheaper [Store.Sources] for when the counts are not needed.
func (s *Store) SourceNames(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sources ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list sources: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("list sources: %w", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// snapshot returns a connection in a read transaction, so that several
// queries see one state of the index, and the function that ends it. The
// read-write pool begins its transactions IMMEDIATE (go-sqlite3 ignores
// sql.TxOptions.ReadOnly), which takes the write lock: a search in one
// would wait for every writer and every other search, and fail with
// "database is locked" after busy_timeout. A plain BEGIN is deferred: in
// WAL mode its first read fixes the snapshot and it never blocks a writer
// or waits for one.
func (s *Store) snapshot(ctx context.Context) (*sql.Conn, func(), error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
			// Never hand a connection still in a transaction back to
			// the pool: discard it.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, nil
}
