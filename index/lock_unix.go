//go:build unix

package index

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting, and reports
// whether it got it.
func tryLock(f *os.File) (bool, error) { return flock(f, syscall.LOCK_EX) }

// tryLockShared takes a shared flock on f without waiting, and reports
// whether it got it: false while a writer holds the lock.
func tryLockShared(f *os.File) (bool, error) { return flock(f, syscall.LOCK_SH) }

func flock(f *os.File, how int) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
