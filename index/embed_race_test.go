//go:build race

package index

// embedRace reports whether the race detector is on; slow measurements
// skip themselves under it.
const embedRace = true
