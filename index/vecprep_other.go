//go:build !amd64

package index

const useF16C = false

func halfEncodeF16C(dst *byte, src *float32, n int) uint16 { panic("unreachable") }

func halfDecodeF16C(dst *float32, src *byte, n int) uint16 { panic("unreachable") }

func quantizeHalfAVX2(dst *int8, src *byte, n int, m float64) { panic("unreachable") }

func quantizeFloatAVX2(dst *int8, src *float32, n int, m float64) { panic("unreachable") }

func maxAbsBitsAVX2(src *float32, n int) uint32 { panic("unreachable") }

func transposeAVX2(dst *int8, stride int, src *int8, dim, rows, cols int) { panic("unreachable") }
