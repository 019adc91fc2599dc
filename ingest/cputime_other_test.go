//go:build !unix

package ingest

import "time"

// cpuTime returns 0: the CPU time is read on Unix only.
func cpuTime() time.Duration { return 0 }
