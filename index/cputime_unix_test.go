//go:build unix

package index

import (
	"syscall"
	"time"
)

// cpuTime returns the process's CPU time, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
