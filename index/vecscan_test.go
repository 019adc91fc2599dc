package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpy8 checks axpy8 (AVX2 and FMA where the CPU has them) against
// the Go loop on every length up to a few blocks and unaligned starts:
// the same sums within float32 rounding (FMA rounds once where the loop
// rounds twice).
func TestAxpy8(t *testing.T) {
	t.Logf("AVX2: %v", useAVX2)
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		for _, off := range []int{0, 1, 3} {
			x := make([]int8, n+off)
			y := make([]float32, n+off)
			for i := range x {
				x[i] = int8(rng.IntN(255) - 127)
				y[i] = rng.Float32()*200 - 100
			}
			want := append([]float32(nil), y[off:]...)
			a := rng.Float32()*2 - 1
			axpy8Generic(want, a, x[off:])
			got := append([]float32(nil), y[off:]...)
			axpy8(got, a, x[off:])
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*math.Max(1, math.Abs(float64(want[i]))) {
					t.Fatalf("n=%d off=%d: y[%d] = %v, want %v", n, off, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkAxpy8(b *testing.B) {
	y := make([]float32, 2048)
	x := make([]int8, 2048)
	for i := range x {
		x[i] = int8(i)
	}
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		axpy8(y, 0.5, x)
	}
}
