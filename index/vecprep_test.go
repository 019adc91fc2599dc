package index

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/x448/float16"
)

// halfInputs returns vectors of every length up to 40 (the eight-value
// steps and the values left over) and of 2,048, holding random float32s of
// every magnitude, unit-range values, the midpoints between neighbouring
// float16s and the float32s either side of them (ties to even), float16
// subnormals, ±0, ±65504 (the largest float16), 65519 (the largest to
// round to it) and 65520 (to infinity), infinities and NaNs.
func halfInputs() [][]float32 {
	rng := rand.New(rand.NewPCG(11, 12))
	var special []float32
	for h := range 0x7c00 { // every finite float16 magnitude
		lo := float16.Frombits(uint16(h)).Float32()
		hi := float16.Frombits(uint16(h + 1)).Float32()
		mid := float32((float64(lo) + float64(hi)) / 2)
		for _, x := range []float32{lo, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e9)} {
			special = append(special, x, -x)
		}
	}
	special = append(special, 65504, -65504, 65519, -65519, 65520, -65520, 0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-26,
		math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)))
	rng.Shuffle(len(special), func(i, j int) { special[i], special[j] = special[j], special[i] })
	var out [][]float32
	for len(special) > 0 {
		n := min(len(special), 1+rng.IntN(2048))
		out = append(out, special[:n])
		special = special[n:]
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for n := range 41 {
		for k := range 6 {
			v := make([]float32, n)
			for i := range v {
				switch k {
				case 0: // any bits
					v[i] = math.Float32frombits(rng.Uint32())
				case 1: // unit range
					v[i] = float32(rng.NormFloat64()) / 45
				case 2: // float16 subnormals and their neighbours
					v[i] = float32(rng.NormFloat64()) * 0x1p-16
				case 3, 4, 5: // of every magnitude a float16 has
					v[i] = float32(math.Ldexp(rng.Float64(), rng.IntN(44)-26))
					if rng.IntN(2) == 0 {
						v[i] = -v[i]
					}
				}
			}
			if n > 0 && k >= 4 {
				v[rng.IntN(n)] = []float32{inf, -inf, nan, 65520}[rng.IntN(4)]
			}
			out = append(out, v)
		}
	}
	for range 200 {
		v := make([]float32, 2048)
		for i := range v {
			v[i] = float32(rng.NormFloat64()) / 45
		}
		out = append(out, v)
	}
	return out
}

// TestHalfConversions: halfEncode and halfDecode (F16C eight values at a
// time where the CPU has it) give the bits, values and largest magnitudes
// of their Go loops, on every float16 and on the values that decide
// rounding; and every float16 bits decode to the value of its fields.
func TestHalfConversions(t *testing.T) {
	for _, v := range halfInputs() {
		got, want := make([]byte, 2*len(v)), make([]byte, 2*len(v))
		gm, wm := halfEncode(got, v), halfEncodeGo(want, v)
		if gm != wm || !bytes.Equal(got, want) {
			t.Fatalf("encode %v: % x (largest %#x), want % x (%#x)", v[:min(8, len(v))], got[:min(16, len(got))], gm, want[:min(16, len(want))], wm)
		}
		gd, wd := make([]float32, len(v)), make([]float32, len(v))
		gm, wm = halfDecode(gd, want), halfDecodeGo(wd, want)
		if gm != wm || !slices.Equal(bitsOf(gd), bitsOf(wd)) {
			t.Fatalf("decode % x: %v (largest %#x), want %v (%#x)", want[:min(16, len(want))], gd[:min(8, len(gd))], gm, wd[:min(8, len(wd))], wm)
		}
	}
	all := make([]byte, 2<<16)
	for h := range 1 << 16 {
		binary.LittleEndian.PutUint16(all[2*h:], uint16(h))
	}
	dec := make([]float32, 1<<16)
	if m := halfDecode(dec, all); m != 0x7fff {
		t.Errorf("largest magnitude of every float16: %#x", m)
	}
	enc := make([]byte, 2<<16)
	for h, x := range dec {
		want, finite := f16Value(uint16(h))
		if finite && (float64(x) != want || math.Signbit(float64(x)) != (h&0x8000 != 0)) {
			t.Fatalf("%#04x decoded to %v, want %v", h, x, want)
		}
		if !finite && x-x == 0 {
			t.Fatalf("%#04x decoded to %v", h, x)
		}
	}
	halfEncode(enc, dec)
	for h := range 1 << 16 {
		if got := binary.LittleEndian.Uint16(enc[2*h:]); got != uint16(h) && h&0x7c00 != 0x7c00 {
			t.Fatalf("%#04x encoded back to %#04x", h, got)
		}
	}
}

// TestHalfRoundingSweep: halfEncode rounds every float32 that has any of
// the 2¹⁴ patterns of its sign, exponent and leading fraction bits, and
// several patterns of the bits below (the round and sticky bits), as
// x448/float16 does (checked by its authors on all 2³² float32s).
func TestHalfRoundingSweep(t *testing.T) {
	lows := []uint32{0, 1, 0x7ff, 0x800, 0x801, 0xfff, 0x1000, 0x1001, 0x1fff}
	v := make([]float32, 0, 1<<16)
	b := make([]byte, 2<<16)
	for top := range uint32(1 << 19) { // sign, exponent, 10 fraction bits
		for _, low := range lows {
			v = append(v, math.Float32frombits(top<<13|low))
		}
		if len(v) >= 1<<16-len(lows) || top == 1<<19-1 {
			halfEncode(b, v)
			for i, x := range v {
				if got, want := binary.LittleEndian.Uint16(b[2*i:]), float16.Fromfloat32(x).Bits(); got != want && want&0x7c00 != 0x7c00 {
					t.Fatalf("%v (%#08x): %#04x, want %#04x", x, math.Float32bits(x), got, want)
				}
			}
			v = v[:0]
		}
	}
}

func bitsOf(v []float32) []uint32 {
	b := make([]uint32, len(v))
	for i, x := range v {
		b[i] = math.Float32bits(x)
	}
	return b
}

// TestPrepVector: prepVector stores each vector as encodeVector does and
// quantizes the values stored as quantize (and math.Round,
// quantizeRound) does them.
func TestPrepVector(t *testing.T) {
	for _, v := range halfInputs() {
		if nonFinite(v) >= 0 {
			continue // refused before it is stored
		}
		q := make([]int8, len(v))
		for i := range q {
			q[i] = 99
		}
		b, scale := prepVector(nil, v, q)
		if want := encodeVector(v); !bytes.Equal(b, want) {
			t.Fatalf("%v: stored % x, want % x", v[:min(8, len(v))], b[:min(16, len(b))], want[:min(16, len(want))])
		}
		stored, err := decodeVector(b, len(v), nil)
		if err != nil {
			t.Fatal(err)
		}
		wq := make([]int8, len(v))
		ws := quantizeRound(stored, wq)
		if math.Float32bits(scale) != math.Float32bits(ws) || !slices.Equal(q, wq) {
			t.Fatalf("%v: quantized %v × %v, want %v × %v", v[:min(8, len(v))], q[:min(8, len(q))], scale, wq[:min(8, len(wq))], ws)
		}
		if s := quantize(stored, wq); math.Float32bits(s) != math.Float32bits(ws) || !slices.Equal(q, wq) {
			t.Fatalf("%v: quantize gave %v × %v, want %v × %v", v[:min(8, len(v))], wq[:min(8, len(q))], s, q[:min(8, len(wq))], scale)
		}
	}
}

// BenchmarkPrepVector is the vector part of PrepareChunks for a unit
// vector of 2,048 dimensions (the hash embedder's default): prepVector,
// and the same work by the Go loops alone (what other CPUs do, and what
// cite did before: encode, decode, quantize). Under load, compare the
// CPU time of runs of a fixed count (-benchtime 100000x with
// /usr/bin/time): ns/op is wall time.
func BenchmarkPrepVector(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]float32, 2048)
	for i := range v {
		v[i] = float32(rng.NormFloat64()) / 45
	}
	q := make([]int8, len(v))
	b.Run("prepVector", func(b *testing.B) {
		for b.Loop() {
			prepVector(nil, v, q)
		}
	})
	b.Run("go", func(b *testing.B) {
		r := make([]float32, len(v))
		for b.Loop() {
			h := make([]byte, 2*len(v)+1)
			halfEncodeGo(h, v)
			halfDecodeGo(r, h)
			quantizeRound(r, q)
		}
	})
}

// TestTranspose: transpose (AVX2 eight vectors and 32 values at a time
// where the CPU has it) writes what transposeGo does, and nothing else,
// for dimensions around multiples of 32, blocks of 1 to 64 vectors and
// slots at any offset in a segment.
func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, dim := range []int{1, 7, 31, 32, 33, 64, 95, 96, 100, 768, 2048} {
		for _, n := range []int{1, 7, 8, 9, 16, 23, 64} {
			c := n + rng.IntN(40)
			base := rng.IntN(c - n + 1)
			vs := make([]int8, n*dim)
			for i := range vs {
				vs[i] = int8(rng.Uint32())
			}
			got, want := make([]int8, c*dim), make([]int8, c*dim)
			for i := range got {
				got[i] = int8(rng.Uint32())
				want[i] = got[i]
			}
			transpose(got, c, base, vs, dim)
			transposeGo(want[base:], c, vs, dim, 0, n, 0, dim)
			if !slices.Equal(got, want) {
				t.Fatalf("dim %d, %d vectors at %d of %d: differs", dim, n, base, c)
			}
			for i := range n {
				for j := range dim {
					if got[j*c+base+i] != vs[i*dim+j] {
						t.Fatalf("dim %d, %d vectors: value %d of vector %d is %d, want %d", dim, n, j, i, got[j*c+base+i], vs[i*dim+j])
					}
				}
			}
		}
	}
}

// BenchmarkAppendBlock appends 8,192 vectors of 2,048 dimensions, 64 at a
// time, to a new index ("fresh": segments made and their pages faulted
// in) and to one whose segments exist ("transpose": the writes into the
// columns alone). Under load, compare CPU time of fixed-count runs.
func BenchmarkAppendBlock(b *testing.B) {
	const dim, n, block = 2048, 8192, 64
	rng := rand.New(rand.NewPCG(1, 2))
	vs := make([]int8, block*dim)
	for i := range vs {
		vs[i] = int8(rng.IntN(255) - 127)
	}
	scales := make([]float32, block)
	ids := make([]int64, block)
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			x := newVectorIndex(dim)
			for k := 0; k < n; k += block {
				for i := range ids {
					ids[i] = int64(k + i + 1)
				}
				x.appendBlock(ids, scales, vs)
			}
		}
	})
	b.Run("transpose", func(b *testing.B) {
		x := newVectorIndex(dim)
		for k := 0; k < n; k += block {
			for i := range ids {
				ids[i] = int64(k + i + 1)
			}
			x.appendBlock(ids, scales, vs)
		}
		for b.Loop() {
			x.rowids, x.scales, x.n = x.rowids[:0], x.scales[:0], 0
			clear(x.slots)
			for k := 0; k < n; k += block {
				for i := range ids {
					ids[i] = int64(k + i + 1)
				}
				x.appendBlock(ids, scales, vs)
			}
		}
	})
}
