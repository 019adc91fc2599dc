package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// quantizeRound is quantize as it was first written, with math.Round: the
// bytes of the vector caches and of cite check's comparisons.
func quantizeRound(v []float32, dst []int8) float32 {
	var m float64
	for _, f := range v {
		m = max(m, math.Abs(float64(f)))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	for j, f := range v {
		dst[j] = int8(max(-127, min(127, math.Round(float64(f)*127/m))))
	}
	return float32(m / 127)
}

// TestQuantizeMatchesRound: quantize gives the bytes and the scale of
// quantizeRound, on unit vectors, on values that fall on halves, on
// signed zeros, infinities and NaNs.
func TestQuantizeMatchesRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	tests := [][]float32{
		nil,
		{0, 0, 0},
		{float32(math.Copysign(0, -1)), 0},
		{127, 2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 126.5, -126.5, 0.49999997, -0.49999997},
		{-127, 63.5, 64.5, -63.5, 3},
		{1, inf, -2},
		{-inf, 1},
		{1, nan, 3},
		{nan},
		{math.MaxFloat32, -math.MaxFloat32, 1},
		{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32 * 3},
		{1e-30, 3e-31, -7e-31},
	}
	for range 2000 {
		v := make([]float32, 1+rng.IntN(300))
		scale := float32(math.Pow(10, float64(rng.IntN(20)-10)))
		for i := range v {
			switch rng.IntN(4) {
			case 0:
				v[i] = 0
			case 1: // a half, once scaled to the largest
				v[i] = float32(rng.IntN(255)-127) + 0.5
			default:
				v[i] = float32(rng.NormFloat64())
			}
			v[i] *= scale
		}
		tests = append(tests, v)
	}
	// Largest m, the others m/127 times halves and their neighbours:
	// quotients on and next to a half (m = 7.458945 and 3.7294726 make
	// 63.5, where multiplying by 1/m makes 63.49999999999999).
	for range 200 {
		m := float32(rng.Float64()*10 + 0.01)
		v := []float32{m}
		for k := -127; k < 127; k++ {
			f := float32((float64(k) + 0.5) * float64(m) / 127)
			v = append(v, f, math.Nextafter32(f, 0), math.Nextafter32(f, 2*f))
		}
		tests = append(tests, v)
	}
	for _, v := range tests {
		got, want := make([]int8, len(v)), make([]int8, len(v))
		for i := range got {
			got[i], want[i] = 99, -99 // both must write every byte
		}
		gs, ws := quantize(v, got), quantizeRound(v, want)
		if math.Float32bits(gs) != math.Float32bits(ws) {
			t.Fatalf("%v: scale %v, want %v", v, gs, ws)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v: value %d is %d, want %d", v, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkQuantize quantizes a unit vector of 2,048 dimensions, the hash
// embedder's default.
func BenchmarkQuantize(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]float32, 2048)
	for i := range v {
		v[i] = float32(rng.NormFloat64()) / 45
	}
	dst := make([]int8, len(v))
	for _, impl := range []struct {
		name string
		fn   func([]float32, []int8) float32
	}{{"quantize", quantize}, {"math.Round", quantizeRound}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.fn(v, dst)
			}
		})
	}
}
