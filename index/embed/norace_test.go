//go:build !race

package embed

// embedRace reports whether the race detector is on; slow measurements
// skip themselves under it.
const embedRace = false
