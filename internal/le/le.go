// Package le reads little-endian words from the start of strings and byte
// slices without converting them: what hash keys of short terms and pieces
// are made of.
package le

// Uint64 returns s[0:8] as a little-endian word; s holds at least 8 bytes.
func Uint64[T ~string | ~[]byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Uint32 returns s[0:4] as a little-endian word; s holds at least 4 bytes.
func Uint32[T ~string | ~[]byte](s T) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
