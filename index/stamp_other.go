//go:build !linux && !darwin

package index

// statFile reports that the system offers no stamp of a file that a
// program cannot forge (the time its inode last changed): every writable
// open with [Options.Verify] runs SQLite's quick_check.
func statFile(name string) (fileStamp, bool) { return fileStamp{}, false }
