//go:build !unix

package index

import "os"

// tryLock locks nothing on this system.
func tryLock(*os.File) (bool, error) { return true, nil }

// tryLockShared locks nothing on this system.
func tryLockShared(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
