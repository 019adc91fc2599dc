//go:build race

package eval

// race reports whether the race detector is on; slow measurements skip
// themselves under it.
const race = true
