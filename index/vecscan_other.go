//go:build !amd64

package index

const useAVX2 = false

func axpy8AVX2(y *float32, a float32, x *int8, n int) { panic("unreachable") }

const useVPOPCNT = false

func signCountsAVX512(codes *uint64, planes *uint64, chunks, n int, pcs, sums *uint32) {
	panic("unreachable")
}
