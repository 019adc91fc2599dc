//go:build !linux

package index

// wholeSegment returns n zeroed bytes for a whole segment of the in-memory
// vectors.
func wholeSegment(n int) []int8 { return make([]int8, n) }
