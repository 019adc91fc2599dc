//go:build !linux

package index

import "time"

// fsNow returns the time the system stamps on a file written now.
func fsNow() int64 { return time.Now().UnixNano() }
