package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// errEmptyFile is checkFile finding an empty database file where it wants a
// database: damaged, unless a writer is creating it.
var errEmptyFile = errors.New("empty database file")

// repairHint names the way out of a damaged index.
const repairHint = "cite check --repair rebuilds it, keeping the damaged file aside"

// dbError classifies an error of SQLite: a damaged database file becomes
// ErrCorrupt, a write the database refuses ErrReadOnly, a write it found
// no room for ErrFull. Other errors are returned as they are.
func dbError(err error) error {
	if err == nil || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrReadOnly) || errors.Is(err, ErrFull) {
		return err
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
		return fmt.Errorf("%w (%s): %w", ErrCorrupt, repairHint, err)
	case sqlite3.ErrReadonly:
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	case sqlite3.ErrFull:
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

// isCorrupt reports whether err is SQLite finding the database damaged.
func isCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// isBusy reports whether err is SQLite finding the database locked.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// cannotOpenWAL reports whether err is SQLite failing to open or create
// the -wal or -shm file of a read-only connection.
func cannotOpenWAL(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrReadonly
}

// readOnlyError marks an error of the file system refusing a write
// (permission denied, read-only file system) as ErrReadOnly.
func readOnlyError(err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}

// checkFile is the cheap check of a database file that Open makes: that it
// starts with SQLite's header and is as long as the header says, unless a
// write-ahead log holds the rest. An empty file is a new database when
// create is set, or when a write-ahead log holds its first pages; otherwise
// checkFile returns errEmptyFile. It reads 100 bytes;
// [Store.Check] reads every page.
func checkFile(file string, create bool) error {
	f, err := os.Open(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w (%s): %s %s", ErrCorrupt, repairHint, file, fmt.Sprintf(format, args...))
	}
	if size == 0 {
		if wal, err := os.Stat(file + "-wal"); create || err == nil && wal.Size() > 32 {
			return nil
		}
		return errEmptyFile
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return corrupt("is %d bytes, too short for a database", size)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return corrupt("is not a SQLite database")
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return corrupt("has a bad page size %d", pageSize)
	}
	if wal, err := os.Stat(file + "-wal"); err == nil && wal.Size() > 32 {
		// The log may hold pages the file has not received yet.
		return nil
	}
	if size%pageSize != 0 {
		return corrupt("is %d bytes, not a whole number of %d-byte pages (truncated?)", size, pageSize)
	}
	// The page count in the header is valid when the change counter
	// matches the version-valid-for number.
	pages := int64(binary.BigEndian.Uint32(h[28:]))
	if binary.BigEndian.Uint32(h[24:]) == binary.BigEndian.Uint32(h[92:]) && pages*pageSize > size {
		return corrupt("is %d bytes, its header says %d pages of %d (truncated)", size, pages, pageSize)
	}
	return nil
}
