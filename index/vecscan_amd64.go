package index

import "golang.org/x/sys/cpu"

// useAVX2 reports whether the CPU and the operating system support AVX2
// and FMA (golang.org/x/sys/cpu checks that the OS saves the YMM state).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// axpy8AVX2 adds a*x[i] to y[i] for i < n; n is a multiple of 32.
//
//go:noescape
func axpy8AVX2(y *float32, a float32, x *int8, n int)

// useVPOPCNT reports whether the CPU has AVX-512's quadword popcount on
// 256-bit registers, for [signCounts].
var useVPOPCNT = cpu.X86.HasAVX512VPOPCNTDQ && cpu.X86.HasAVX512VL && useAVX2

// signCountsAVX512 is [signCountsGeneric] in AVX-512; chunks > 0.
//
//go:noescape
func signCountsAVX512(codes *uint64, planes *uint64, chunks, n int, pcs, sums *uint32)
