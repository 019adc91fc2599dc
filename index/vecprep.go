package index

import (
	"encoding/binary"
	"math"

	"github.com/x448/float16"
)

// The conversions between float32 and the stored float16 values, and the
// quantization of the values stored, run on every chunk's vector as it is
// indexed: with F16C and AVX2 (vecprep_amd64.s) eight values at a time,
// the few left over (and every value on other CPUs) in Go. Both give the
// same bits (TestHalfConversions, TestQuantizeHalf).

// halfEncode writes the float16 bits of each value of v to b, two bytes a
// value, little-endian, rounded to nearest, ties to even, and returns the
// largest bits of their magnitudes: 0x7c00 or more when one of v does not
// fit a float16 (|x| ≥ 65520, NaN or infinite).
func halfEncode(b []byte, v []float32) uint16 {
	if n := len(v) &^ 7; useF16C && n > 0 {
		return max(halfEncodeF16C(&b[0], &v[0], n), halfEncodeGo(b[2*n:], v[n:]))
	}
	return halfEncodeGo(b, v)
}

func halfEncodeGo(b []byte, v []float32) uint16 {
	var m uint16
	for i, x := range v {
		h := float16.Fromfloat32(x).Bits()
		binary.LittleEndian.PutUint16(b[2*i:], h)
		m = max(m, h&0x7fff)
	}
	return m
}

// halfDecode writes the values of the float16s of b, two bytes each,
// little-endian, to dst, and returns the largest bits of their magnitudes
// (0x7c00 or more when one of them is infinite or NaN).
func halfDecode(dst []float32, b []byte) uint16 {
	if n := len(dst) &^ 7; useF16C && n > 0 {
		return max(halfDecodeF16C(&dst[0], &b[0], n), halfDecodeGo(dst[n:], b[2*n:]))
	}
	return halfDecodeGo(dst, b)
}

func halfDecodeGo(dst []float32, b []byte) uint16 {
	var m uint16
	for i := range dst {
		h := binary.LittleEndian.Uint16(b[2*i:])
		dst[i] = float16.Frombits(h).Float32()
		m = max(m, h&0x7fff)
	}
	return m
}

// prepVector returns v as stored ([encodeVector]), in dst when it has the
// capacity (else in new memory), and quantizes the values a reader decodes
// from it into q ([quantize] of [storedVector]'s values), returning their
// scale: the work of storing a vector that needs no database, in one pass
// and with no float32 copy.
func prepVector(dst []byte, v []float32, q []int8) (b []byte, scale float32) {
	if !useF16C {
		b, r := storedVector(v, nil)
		return b, quantize(r, q)
	}
	if n := 2*len(v) + 1; cap(dst) >= n {
		b = dst[:n]
	} else {
		b = make([]byte, n)
	}
	m := halfEncode(b, v)
	if m >= 0x7c00 {
		return encodeFloat32(v), quantize(v, q)
	}
	b[2*len(v)] = vecFloat16
	return b, quantizeHalf(q, b[:2*len(v)], m)
}

// quantizeHalf is [quantize] of the float16 values of h, two bytes each,
// the largest of whose magnitudes has bits m (below 0x7c00: finite).
func quantizeHalf(q []int8, h []byte, m uint16) float32 {
	q = q[:len(h)/2]
	mf := float64(float16.Frombits(m).Float32())
	if mf == 0 {
		clear(q)
		return 0
	}
	i := 0
	if n := len(q) &^ 7; useF16C && n > 0 {
		quantizeHalfAVX2(&q[0], &h[0], n, mf)
		i = n
	}
	quantizeHalfGo(q[i:], h[2*i:], mf)
	return float32(mf / 127)
}

// quantizeHalfGo writes the float16 values of h quantized by mf, the
// largest magnitude among them, to q, as [quantize] does.
func quantizeHalfGo(q []int8, h []byte, mf float64) {
	for i := range q {
		f := float16.Frombits(binary.LittleEndian.Uint16(h[2*i:])).Float32()
		q[i] = int8(math.Round(float64(f) * 127 / mf))
	}
}
