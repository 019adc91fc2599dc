//go:build !unix

package index

import "os"

// mapFile reads a file into memory (no mmap on this system).
func mapFile(name string) ([]byte, func(), error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
