package index

import "golang.org/x/sys/cpu"

// useF16C reports whether the CPU converts float16s (F16C) besides AVX2.
var useF16C = useAVX2 && cpu.X86.HasF16C

// halfEncodeF16C writes the float16 bits of src[i] to dst[2i:2i+2]
// (little-endian), rounded to nearest, ties to even, for i < n, and
// returns the largest of their magnitudes' bits (0x7c00 and above: an
// infinity or NaN); n is a multiple of 8.
//
//go:noescape
func halfEncodeF16C(dst *byte, src *float32, n int) (maxAbs uint16)

// halfDecodeF16C writes the float32 of the float16 at src[2i:2i+2] to
// dst[i] for i < n and returns the largest of their magnitudes' bits; n
// is a multiple of 8.
//
//go:noescape
func halfDecodeF16C(dst *float32, src *byte, n int) (maxAbs uint16)

// quantizeHalfAVX2 writes round(x*127/m) to dst[i], half away from zero,
// x the float16 at src[2i:2i+2], for i < n; n is a multiple of 8 and
// every |x| <= m.
//
//go:noescape
func quantizeHalfAVX2(dst *int8, src *byte, n int, m float64)

// quantizeFloatAVX2 is [quantizeHalfAVX2] of float32 values.
//
//go:noescape
func quantizeFloatAVX2(dst *int8, src *float32, n int, m float64)

// maxAbsBitsAVX2 returns the largest of the bits of the magnitudes of
// src[:n]; n is a multiple of 8.
//
//go:noescape
func maxAbsBitsAVX2(src *float32, n int) uint32

// transposeAVX2 writes src[r*dim+k] to dst[k*stride+r] for r < rows and
// k < cols: vectors of int8 values, one after the other, into rows of the
// columns of a segment, a band of 32 columns at a time (each column's
// bytes written together). rows is a multiple of 8, cols of 32.
//
//go:noescape
func transposeAVX2(dst *int8, stride int, src *int8, dim, rows, cols int)
