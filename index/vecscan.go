package index

// axpy8 adds a*x to y; len(x) >= len(y). It is the inner loop of the
// quantized scan ([vectorIndex.shortlist]): one query value times one
// column of int8 values, into the scores of a segment's vectors. On amd64
// with AVX2 and FMA it runs 32 values an instruction group
// (vecscan_amd64.s); elsewhere, and for the tail, [axpy8Generic].
func axpy8(y []float32, a float32, x []int8) {
	x = x[:len(y)]
	if n := len(y) &^ 31; useAVX2 && n > 0 {
		axpy8AVX2(&y[0], a, &x[0], n)
		y, x = y[n:], x[n:]
	}
	axpy8Generic(y, a, x)
}

// axpy8Generic is axpy8 in Go.
func axpy8Generic(y []float32, a float32, x []int8) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * float32(x[i])
		y[i+1] += a * float32(x[i+1])
		y[i+2] += a * float32(x[i+2])
		y[i+3] += a * float32(x[i+3])
	}
	for ; i < len(y); i++ {
		y[i] += a * float32(x[i])
	}
}
