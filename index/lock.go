package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockFile is the writer lock inside the index folder.
const lockFile = "index.lock"

// lockPoll is how often a waiting writer tries the lock again.
const lockPoll = 100 * time.Millisecond

// LockWriter takes the index's writer lock, an advisory lock on the file
// index.lock in dir (created, with dir, if missing), and returns the
// function that releases it. Commands that bring the index up to date hold
// it for their whole run, so that a second one, started while the first is
// at work, waits and then finds the files the first indexed unchanged,
// instead of doing all the work again. Readers (search, docs) do not take
// it. While another process holds the lock, LockWriter calls waiting once,
// if it is not nil, and tries again every 100 ms until it gets the lock or
// ctx is done.
//
// The lock is flock(2) on Unix systems and is released when the process
// exits, however it exits. On other systems LockWriter locks nothing.
func LockWriter(ctx context.Context, dir string, waiting func()) (unlock func() error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock index %s: %w", dir, err)
	}
	name := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if werr := checkWritable(dir, name); werr != nil {
			return nil, werr // the index is read-only: say so, as Open does
		}
		return nil, fmt.Errorf("lock index %s: %w", dir, err)
	}
	unlock, err = waitLock(ctx, f, tryLock, waiting)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("lock index %s: %w", dir, err)
	}
	return unlock, err
}

// waitLock takes a lock of f with try, polling until it has it or ctx is
// done, calling waiting (if set) once if it has to wait. f is closed unless
// the lock is taken; unlock releases the lock and closes f.
func waitLock(ctx context.Context, f *os.File, try func(*os.File) (bool, error), waiting func()) (unlock func() error, err error) {
	for {
		ok, err := try(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() error {
				err := unlockFile(f)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				return err
			}, nil
		}
		if waiting != nil {
			waiting()
			waiting = nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// LockReader waits until no process holds the writer lock of the index in
// dir ([LockWriter]) and holds a shared lock, which writers wait for, until
// unlock: for a reader that must see the index between two writers' runs
// (cite check, which compares tables a running cite index changes in
// turn). It calls waiting, if set, once if it has to wait. It creates
// nothing: an index without a lock file has had no writer to wait for, and
// a read-only index folder can be read-locked.
func LockReader(ctx context.Context, dir string, waiting func()) (unlock func() error, err error) {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return func() error { return nil }, nil
	}
	unlock, err = waitLock(ctx, f, tryLockShared, waiting)
	if err != nil && ctx.Err() == nil {
		return func() error { return nil }, nil // no locks here: read as before
	}
	return unlock, err
}

// writerActive reports whether a process holds the writer lock of the index
// in dir ([LockWriter]). It takes a shared lock for an instant, so a writer
// starting at that instant waits one poll.
func writerActive(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLockShared(f)
	if err != nil {
		return false
	}
	if ok {
		unlockFile(f)
	}
	return !ok
}
