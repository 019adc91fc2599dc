//go:build unix

package index

import (
	"fmt"
	"os"
	"syscall"
)

// checkWritable returns ErrReadOnly if the process may not write the index
// folder or its database file: another user's, or on a read-only mount
// (even root gets EROFS there).
func checkWritable(dir, file string) error {
	const wOK = 2 // W_OK
	for _, p := range []string{dir, file} {
		if err := syscall.Access(p, wOK); err != nil && !os.IsNotExist(err) {
			return readOnlyError(fmt.Errorf("%s: %w (reading it works: cite search, docs, show, check)", p, err))
		}
	}
	return nil
}
