package index

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// cleanFile records, beside the database, that the last process to write
// the index checked it and closed it cleanly, and the database file as that
// process left it ([fileStamp]). A writable open removes it before it
// opens the database, and [Options.Verify] skips SQLite's quick_check only
// when it finds the record matching the file: no process wrote the file
// since the record was made, by any means (write, truncation, a copy over
// it, a rename onto it, a change of its times), and no write-ahead log is
// left to fold in. A process that was killed, or that opened the index
// without checking it, leaves no record; so does a process that saw the
// file change under it by other hands than its own commits ([Store.wrote]).
const cleanFile = "index.clean"

// cleanVersion is the format of cleanFile; a record of another is ignored.
const cleanVersion = 1

// cleanRecord is the content of cleanFile.
type cleanRecord struct {
	Version int       `json:"version"`
	File    fileStamp `json:"file"`
}

// fileStamp identifies a file's content as the file system can vouch for
// it without reading it: its identity (device and inode), size and
// modification time, and the time its inode last changed, which every
// write, truncation and change of times (even one setting the
// modification time back) moves to the present, and which no program can
// set.
type fileStamp struct {
	Dev      uint64 `json:"dev"`
	Ino      uint64 `json:"ino"`
	Size     int64  `json:"size"`
	ModNs    int64  `json:"mtime_ns"`
	ChangeNs int64  `json:"ctime_ns"`
}

// readClean returns the clean-close record of the index in dir, if there
// is one the system can check ([statFile]).
func readClean(dir string) (fileStamp, bool) {
	b, err := os.ReadFile(filepath.Join(dir, cleanFile))
	if err != nil {
		return fileStamp{}, false
	}
	var r cleanRecord
	if json.Unmarshal(b, &r) != nil || r.Version != cleanVersion {
		return fileStamp{}, false
	}
	return r.File, true
}

// removeClean removes the clean-close record of the index in dir. It
// reports whether there is none now.
func removeClean(dir string) bool {
	err := os.Remove(filepath.Join(dir, cleanFile))
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

// writeClean records that the database file of the index in dir, stamped
// st, was closed cleanly after a check. A record cut short (a crash while
// it is written) does not parse, and does not count.
func writeClean(dir string, st fileStamp) error {
	b, err := json.Marshal(cleanRecord{Version: cleanVersion, File: st})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, cleanFile), append(b, '\n'), 0o644)
}

// cleanMatches reports whether the database file matches the clean-close
// record st and has no write-ahead log to fold in (none, or an empty one:
// a reader that may not delete it leaves one behind).
func cleanMatches(file string, rec fileStamp) bool {
	cur, ok := statFile(file)
	if !ok || cur != rec {
		return false
	}
	return walEmpty(file)
}

// walEmpty reports whether the database file has no write-ahead log
// holding pages, or none that can be read.
func walEmpty(file string) bool {
	wal, err := os.Stat(file + "-wal")
	return errors.Is(err, fs.ErrNotExist) || err == nil && wal.Size() == 0
}

// settle waits until a write to a file would stamp it with a later inode
// change time than changeNs, the stamp of the file as the store just left
// it, so that no write after it goes unseen for falling in the same tick
// of the clock. It reports false if the clock does not get there within
// 100 ms (it was set back): the stamp cannot vouch for the file.
func settle(changeNs int64) bool {
	for range 100 {
		if fsNow() > changeNs {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}
