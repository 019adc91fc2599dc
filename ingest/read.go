package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// A file rewritten while it is read would give bytes of two versions, a
// file that never existed. readStable reads a file and makes sure what it
// read is one version: the open file's size and modification time are the
// same before and after the read, the bytes read are as many as its size,
// and, when the modification time is so recent that a rewrite within the
// file system's timestamp granularity could leave it unchanged, a second
// read hashes the same. A file that keeps changing is given up after
// readAttempts reads.

const (
	// readAttempts is how many times a changing file is read before it is
	// skipped.
	readAttempts = 3
	// racyWindow is how recent a modification time must be for the file to
	// be read twice: coarser than any file system's timestamps that cite
	// runs on (FAT's are 2 seconds).
	racyWindow = 2 * time.Second
)

// errChanging reports a file that changed during every read.
var errChanging = errors.New("changed while being read")

// readRetryDelay is the pause before reading a changing file again, times
// the attempt; tests set it to zero.
var readRetryDelay = 50 * time.Millisecond

// readStable reads the named file of fsys, refusing more than limit bytes,
// and returns its bytes and the file's information that goes with them. It
// fails with errChanging if the file changed during each of readAttempts
// reads. The bytes are read into buf, reset first, whose memory is reused
// ([readBuffer]): they are valid until buf is used again.
func readStable(ctx context.Context, fsys fs.FS, name string, limit int64, buf *bytes.Buffer) ([]byte, fs.FileInfo, error) {
	for attempt := 1; ; attempt++ {
		start := time.Now()
		data, info, err := readOnce(fsys, name, limit, buf)
		if err == nil && info.ModTime().After(start.Add(-racyWindow)) {
			// Recently modified: a rewrite in the same timestamp tick
			// would not show in the stat. Read again and compare.
			var again []byte
			if again, _, err = readOnce(fsys, name, limit, new(bytes.Buffer)); err == nil && sha256.Sum256(again) != sha256.Sum256(data) {
				err = errChanging
			}
		}
		if !errors.Is(err, errChanging) {
			return data, info, err
		}
		if attempt == readAttempts {
			return nil, nil, fmt.Errorf("%w (%d attempts)", errChanging, readAttempts)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * readRetryDelay):
		}
	}
}

// readOnce reads the file once into buf, reset first, checking that its
// size and modification time did not change during the read.
func readOnce(fsys fs.FS, name string, limit int64, buf *bytes.Buffer) ([]byte, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	buf.Reset()
	if n := before.Size(); n > 0 && n <= limit {
		// Room for the file and for the read that finds its end: with
		// less, bytes.Buffer doubles, holding twice the file.
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := io.Copy(buf, io.LimitReader(f, limit+1)); err != nil {
		return nil, nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("grew past the size limit (%s) while being read", FormatSize(limit))
	}
	after, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if before.Size() != after.Size() || !before.ModTime().Equal(after.ModTime()) || int64(len(data)) != after.Size() {
		return nil, nil, errChanging
	}
	return data, after, nil
}

// readBuffer is a worker's buffer for the files it reads, used again for
// each: a file read into memory that held the last one costs no new
// allocation, and on a machine where a page of memory touched for the first
// time is dear (20-45 us of CPU on a virtual machine), none of those either.
type readBuffer struct {
	buf bytes.Buffer
	// lent says the bytes last read were handed to what may keep them (a
	// Reader, which may read on after its time is up): they must not be
	// overwritten.
	lent bool
}

// keptRead is the most a readBuffer keeps between files: the memory of a
// larger file is left to the collector.
const keptRead = 1 << 20

// next returns the buffer to read the next file into: the last one's
// memory, unless it was lent or is larger than keptRead.
func (r *readBuffer) next() *bytes.Buffer {
	if r.lent || r.buf.Cap() > keptRead {
		r.buf, r.lent = bytes.Buffer{}, false
	}
	return &r.buf
}
