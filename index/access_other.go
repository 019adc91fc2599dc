//go:build !unix

package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkWritable returns ErrReadOnly if the process may not write the index
// database file.
func checkWritable(dir, file string) error {
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%w: %w", ErrReadOnly, err)
		}
		return err
	}
	return f.Close()
}
