package index

import (
	"time"

	"golang.org/x/sys/unix"
)

// fsNow returns the time the kernel stamps on a file written now: the
// coarse clock, which moves once a tick (a few milliseconds).
func fsNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return time.Now().UnixNano()
	}
	return ts.Nano()
}
