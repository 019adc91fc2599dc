package session

// SetAfterSweep sets the function the sweeper calls after each sweep.
func SetAfterSweep(f func()) { afterSweep = f }
