//go:build !unix

package index

import "os"

// tryLock locks nothing on this system.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
