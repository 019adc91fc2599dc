//go:build !race

package testenv

// Race reports whether the race detector is on: slow measurements and
// quality checks skip themselves under it (CI runs them in its race-free
// step).
const Race = false
