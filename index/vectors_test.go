package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// f16Value is the reference value of the float16 of bits h, from its
// fields (IEEE 754 binary16: 1 sign bit, 5 exponent bits of bias 15, 10
// fraction bits), and whether it is finite.
func f16Value(h uint16) (float64, bool) {
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	if exp == 0x1f {
		return 0, false
	}
	v := math.Ldexp(frac, -24) // subnormal: 0.frac × 2⁻¹⁴
	if exp > 0 {
		v = math.Ldexp(1024+frac, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v, true
}

// f16Table is every finite float16, ascending by value (-0 left out: it
// ties with +0 and rounds like it, but to its sign).
type f16Entry struct {
	v    float64
	bits uint16
}

func f16Table() []f16Entry {
	var t []f16Entry
	for h := range 1 << 16 {
		if v, ok := f16Value(uint16(h)); ok && h != 0x8000 {
			t = append(t, f16Entry{v, uint16(h)})
		}
	}
	slices.SortFunc(t, func(a, b f16Entry) int { return cmp.Compare(a.v, b.v) })
	return t
}

// f16Round is the reference rounding of x to float16: the nearest finite
// float16, ties to the one with an even last bit; ok false when x rounds
// to infinity (|x| ≥ 65520: the midpoint between 65504 and 2¹⁶, which
// ties to the even 2¹⁶) or is not finite.
func f16Round(t []f16Entry, x float32) (bits uint16, ok bool) {
	xf := float64(x)
	if math.IsNaN(xf) || math.Abs(xf) >= 65520 {
		return 0, false
	}
	i := sort.Search(len(t), func(i int) bool { return t[i].v >= xf })
	best := t[min(i, len(t)-1)]
	if i > 0 {
		lo := t[i-1]
		switch dl, dh := xf-lo.v, best.v-xf; {
		case i == len(t) || dl < dh:
			best = lo
		case dl == dh && lo.bits&1 == 0:
			best = lo
		}
	}
	if best.v == 0 && math.Signbit(xf) {
		return 0x8000, true
	}
	return best.bits, true
}

// f16Blob is a stored float16 vector of the given bits.
func f16Blob(bits ...uint16) []byte {
	b := make([]byte, 2*len(bits)+1)
	for i, h := range bits {
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	b[2*len(bits)] = vecFloat16
	return b
}

// TestFloat16Exhaustive: each of the 65,536 float16s decodes to its
// value, a finite one encodes back to its own bits, and NaN and the
// infinities are refused.
func TestFloat16Exhaustive(t *testing.T) {
	for h := range 1 << 16 {
		want, finite := f16Value(uint16(h))
		got, err := decodeVector(f16Blob(uint16(h)), 1, nil)
		if !finite {
			if err == nil || !strings.Contains(err.Error(), "not a number") {
				t.Fatalf("%#04x: decoded %v, %v; want not a number", h, got, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%#04x: %v", h, err)
		}
		if float64(got[0]) != want || math.Signbit(float64(got[0])) != (h&0x8000 != 0) {
			t.Fatalf("%#04x: decoded %v, want %v", h, got[0], want)
		}
		if b := encodeVector(got); !bytes.Equal(b, f16Blob(uint16(h))) {
			t.Fatalf("%#04x (%v): encoded % x", h, got[0], b)
		}
	}
}

// TestFloat16Rounding: float32s round to the nearest float16, ties to
// even, as the reference does, on the values that decide rounding (every
// midpoint between neighbouring float16s, and the float32s either side of
// it), on random float32s of every magnitude, and on random unit-range
// values; the ones that would round to infinity are stored as float32.
func TestFloat16Rounding(t *testing.T) {
	table := f16Table()
	var xs []float32
	for i := 1; i < len(table); i++ {
		mid := float32((table[i-1].v + table[i].v) / 2) // exact: 12 bits
		xs = append(xs, mid, math.Nextafter32(mid, -1e9), math.Nextafter32(mid, 1e9), float32(table[i].v))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 65504, 65519.996, 65520, -65520, 1e6, math.MaxFloat32, 1e-9, -1e-9, 0x1p-25, -0x1p-25, 0x1.000002p-25)
	rng := rand.New(rand.NewPCG(16, 32))
	for range 1_000_000 {
		xs = append(xs, math.Float32frombits(rng.Uint32()), float32(rng.NormFloat64()/45))
	}
	for _, x := range xs {
		if x-x != 0 {
			continue // NaN, ±Inf: refused before they are stored
		}
		want, ok := f16Round(table, x)
		b := encodeVector([]float32{x})
		if !ok {
			if len(b) != 4 || math.Float32frombits(binary.LittleEndian.Uint32(b)) != x {
				t.Fatalf("%v (%#08x) rounds to infinity: stored % x, want float32", x, math.Float32bits(x), b)
			}
			continue
		}
		if !bytes.Equal(b, f16Blob(want)) {
			t.Fatalf("%v (%#08x): stored % x, want %#04x", x, math.Float32bits(x), b, want)
		}
	}
}

// TestVectorEncoding: what each vector is stored as, and what each blob
// decodes to or why it is refused, in both formats.
func TestVectorEncoding(t *testing.T) {
	f32 := func(v ...float32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	encodes := []struct {
		name string
		v    []float32
		want []byte
	}{
		{"empty", []float32{}, []byte{vecFloat16}},
		{"unit values", []float32{1, -0.5, 0.25, 0}, f16Blob(0x3c00, 0xb800, 0x3400, 0)},
		{"rounded to nearest", []float32{0.1, 1.0 / 3}, f16Blob(0x2e66, 0x3555)},
		{"tie to even", []float32{1 + 0x1p-11, 1 + 3*0x1p-11}, f16Blob(0x3c00, 0x3c02)},
		{"subnormal", []float32{0x1p-24, -0x1p-20, 0x1p-26}, f16Blob(0x0001, 0x8010, 0)},
		{"largest finite", []float32{65504, 65519}, f16Blob(0x7bff, 0x7bff)},
		{"too large: float32", []float32{0.5, 65520}, f32(0.5, 65520)},
		{"far too large: float32", []float32{-1e30, 1}, f32(-1e30, 1)},
		{"NaN: float32, refused when read", []float32{nan}, f32(nan)},
		{"Inf: float32, refused when read", []float32{1, inf}, f32(1, inf)},
	}
	for _, c := range encodes {
		if got := encodeVector(c.v); !bytes.Equal(got, c.want) {
			t.Errorf("encode %s %v: % x, want % x", c.name, c.v, got, c.want)
		}
	}

	decodes := []struct {
		name string
		b    []byte
		dim  int
		want []float32
		err  string
	}{
		{"float16", f16Blob(0x3c00, 0xb800, 0x0001), 3, []float32{1, -0.5, 0x1p-24}, ""},
		{"float32 (older cite)", f32(0.1, -0.7, 3e-7), 3, []float32{0.1, -0.7, 3e-7}, ""},
		{"float32 too large for float16", f32(1e30, 0), 2, []float32{1e30, 0}, ""},
		{"no dimensions", []byte{}, 0, []float32{}, ""},
		{"float16 NaN", f16Blob(0x3c00, 0x7e00), 2, nil, "value 1 is NaN, not a number"},
		{"float16 -Inf", f16Blob(0xfc00), 1, nil, "value 0 is -Inf, not a number"},
		{"float32 NaN", f32(1, nan), 2, nil, "value 1 is NaN, not a number"},
		{"float32 +Inf", f32(inf), 1, nil, "value 0 is +Inf, not a number"},
		{"float16 of other dimensions", f16Blob(1, 2), 3, nil, "vector of 5 bytes, want 7 (float16) or 12 (float32) for 3 dimensions"},
		{"float32 of other dimensions", f32(1, 2), 3, nil, "vector of 8 bytes, want 7 (float16) or 12 (float32) for 3 dimensions"},
		{"float16 without its format byte", f16Blob(1, 2)[:4], 2, nil, "vector of 4 bytes, want 5 (float16) or 8 (float32) for 2 dimensions"},
		{"float16 of twice the dimensions", f16Blob(1, 2, 3, 4), 2, nil, "vector of 9 bytes, want 5"},
		{"unknown format byte", append(f16Blob(1, 2)[:4], 0x11), 2, nil, "ends in format byte 0x11, want 0x10"},
		{"empty for dimensions", nil, 2, nil, "vector of 0 bytes"},
	}
	for _, c := range decodes {
		got, err := decodeVector(c.b, c.dim, nil)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("decode %s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("decode %s: %v, %v; want error %q", c.name, got, err, c.err)
		case c.err == "" && !slices.Equal(got, c.want):
			t.Errorf("decode %s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestStoredVector: the values storedVector (and RoundVector) give are
// those a reader decodes from its bytes, within float16's rounding of the
// vector.
func TestStoredVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 16))
	for _, dim := range []int{1, 7, 768, 2048} {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		for _, scale := range []float32{1e-3, 1, 1e5} {
			w := make([]float32, dim)
			for i := range v {
				w[i] = v[i] * scale
			}
			b, r := storedVector(w, nil)
			d, err := decodeVector(b, dim, nil)
			if err != nil || !slices.Equal(d, r) || !slices.Equal(RoundVector(w), r) {
				t.Fatalf("dim %d scale %v: decoded %v, %v, storedVector said %v", dim, scale, d[:min(3, dim)], err, r[:min(3, dim)])
			}
			for i := range w {
				if e := math.Abs(float64(r[i] - w[i])); e > math.Abs(float64(w[i]))*0x1p-11 && e > 0x1p-25 {
					t.Fatalf("dim %d scale %v: value %d %v stored as %v", dim, scale, i, w[i], r[i])
				}
			}
		}
	}
}

// FuzzDecodeVector: any blob of a vectors row decodes, or is refused,
// without panicking; a decoded vector is finite, of dim values, and
// stored again it reads back as the values it was stored from (float16)
// or as their float16 rounding (float32).
func FuzzDecodeVector(f *testing.F) {
	f.Add(f16Blob(0x3c00, 0xb800, 1), uint8(3))
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xbf}, uint8(2))
	f.Add(f16Blob(0x7c00), uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, dim uint8) {
		v, err := decodeVector(b, int(dim), nil)
		if err != nil {
			return
		}
		if len(v) != int(dim) {
			t.Fatalf("%d values, want %d", len(v), dim)
		}
		if i := nonFinite(v); i >= 0 {
			t.Fatalf("value %d is %v", i, v[i])
		}
		again, r := storedVector(v, nil)
		if len(b) == 2*int(dim)+1 && !bytes.Equal(again, b) {
			t.Fatalf("float16 % x stored again as % x", b, again)
		}
		w, err := decodeVector(again, int(dim), nil)
		if err != nil || !slices.Equal(w, r) {
			t.Fatalf("stored again: %v, %v, want %v", w, err, r)
		}
	})
}

// storedFloats returns the vectors of st as the database holds them, by
// chunk rowid, and how many blobs each length has.
func storedFloats(t *testing.T, st *Store, dim int) (map[int64][]float32, map[int]int) {
	t.Helper()
	rows, err := st.db.QueryContext(t.Context(), `SELECT chunk, vec FROM vectors`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	floats, lengths := map[int64][]float32{}, map[int]int{}
	for rows.Next() {
		var r int64
		var b []byte
		if err := rows.Scan(&r, &b); err != nil {
			t.Fatal(err)
		}
		v, err := decodeVector(b, dim, nil)
		if err != nil {
			t.Fatalf("vector of chunk %d: %v", r, err)
		}
		floats[r] = v
		lengths[len(b)]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return floats, lengths
}

// TestFloat32VectorsOfOlderCite: an index whose vectors an older cite
// wrote (float32, 4*dim bytes) is opened, searched, checked and repaired
// by this one. Its vectors are read as they are (the scores are those of
// the float32 vectors); vectors written beside them are float16; the
// vector cache made of both matches the database; a damaged vector of
// either format is found and removed; re-embedding (cite reindex) stores
// every vector as float16.
func TestFloat32VectorsOfOlderCite(t *testing.T) {
	ctx := t.Context()
	dir, st, e := createWithEmbedder(t, "hash:64")
	putTexts(t, st, e, "/a.txt", "honeybee colony and its queen ", "workers dance the waggle dance ", "wax comb of hexagonal cells")
	putTexts(t, st, e, "/b.txt", "drones mate with the queen ", "nectar becomes honey in the comb")
	// The vectors as older cite wrote them: the embedder's float32
	// values, little-endian, 4*dim bytes.
	old := map[int64][]float32{}
	{
		rows, err := st.db.QueryContext(ctx, `SELECT rowid, text FROM chunks`)
		if err != nil {
			t.Fatal(err)
		}
		texts := map[int64]string{}
		for rows.Next() {
			var r int64
			var text string
			if err := rows.Scan(&r, &text); err != nil {
				t.Fatal(err)
			}
			texts[r] = text
		}
		rows.Close()
		for r, text := range texts {
			old[r] = embedDocs(t, e, text)[0]
			if _, err := st.db.ExecContext(ctx, `UPDATE vectors SET vec = ? WHERE chunk = ?`, encodeFloat32(old[r]), r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.db.ExecContext(ctx, `UPDATE meta SET value = value + 1 WHERE key = 'vectors_gen'`); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	reopen := func() {
		t.Helper()
		var err error
		if st, err = Open(ctx, dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	reopen()
	defer func() { st.Close() }()

	search := func(when string, floats map[int64][]float32) {
		t.Helper()
		for _, q := range []string{"queen", "honey comb", "waggle dance", "royal jelly larvae"} {
			qv := embedDocs(t, e, q)[0]
			got, err := st.SearchVectors(ctx, qv, Filter{}, 3)
			if err != nil {
				t.Fatalf("%s: search %q: %v", when, q, err)
			}
			if want := exactSearch(floats, qv, 3); !slices.Equal(got, want) {
				t.Errorf("%s: search %q: %v, want %v", when, q, got, want)
			}
		}
	}
	check := func(when string, wantVectors int) Report {
		t.Helper()
		rep, err := st.Check(ctx)
		if err != nil {
			t.Fatalf("%s: check: %v", when, err)
		}
		if rep.Vectors != wantVectors {
			t.Errorf("%s: check counted %d vectors, want %d", when, rep.Vectors, wantVectors)
		}
		return rep
	}
	formats := func(when string, want map[int]int) {
		t.Helper()
		if _, got := storedFloats(t, st, 64); !maps.Equal(got, want) {
			t.Errorf("%s: blobs by length %v, want %v", when, got, want)
		}
	}

	// Opened and searched: the float32 vectors' own scores.
	search("older index", old)
	if rep := check("older index", 5); !rep.OK() {
		t.Errorf("older index: %+v", rep.Problems)
	}
	formats("older index", map[int]int{256: 5})

	// Written beside them: float16.
	putTexts(t, st, e, "/c.txt", "royal jelly feeds the larvae")
	formats("written beside", map[int]int{256: 5, 129: 1})
	mixed, _ := storedFloats(t, st, 64)
	search("mixed index", mixed)
	if err := st.SaveVectorCache(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	reopen()
	search("mixed index reopened", mixed)
	if rep := check("mixed index", 6); !rep.OK() || rep.BadVectorCache != 0 {
		t.Errorf("mixed index: %+v", rep.Problems)
	}

	// Repaired: one damaged vector of each format goes.
	var oldRow, newRow int64
	if err := st.db.QueryRowContext(ctx, `SELECT (SELECT min(chunk) FROM vectors WHERE length(vec) = 256), (SELECT chunk FROM vectors WHERE length(vec) = 129)`).Scan(&oldRow, &newRow); err != nil {
		t.Fatal(err)
	}
	nan := encodeVector(mixed[newRow])
	binary.LittleEndian.PutUint16(nan[2*7:], 0x7e00)
	if _, err := st.db.ExecContext(ctx, `UPDATE vectors SET vec = CAST(substr(vec, 1, 100) AS BLOB) WHERE chunk = ?; UPDATE vectors SET vec = ? WHERE chunk = ?`, oldRow, nan, newRow); err != nil {
		t.Fatal(err)
	}
	if rep := check("damaged", 6); rep.BadVectors != 2 {
		t.Errorf("damaged: %d bad vectors, want 2: %+v", rep.BadVectors, rep.Problems)
	}
	did, err := st.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(did), "removed 2 vectors") {
		t.Errorf("repair did %q", did)
	}
	if rep := check("repaired", 4); rep.MissingVectors != 2 || rep.BadVectors != 0 {
		t.Errorf("repaired: %+v", rep.Problems)
	}
	formats("repaired", map[int]int{256: 4})

	// Re-embedded, as cite reindex does: every vector float16.
	if err := st.ResetVectors(ctx, e); err != nil {
		t.Fatal(err)
	}
	missing, err := st.MissingVectors(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	vs := map[string][]float32{}
	for _, c := range missing {
		vs[c.ID] = embedDocs(t, e, c.Text)[0]
	}
	if n, err := st.PutVectors(ctx, vs); err != nil || n != 6 {
		t.Fatalf("re-embedded %d vectors: %v", n, err)
	}
	formats("re-embedded", map[int]int{129: 6})
	if rep := check("re-embedded", 6); !rep.OK() {
		t.Errorf("re-embedded: %+v", rep.Problems)
	}
	all, _ := storedFloats(t, st, 64)
	search("re-embedded", all)
}

// TestPrepareChunksVectors: PrepareChunks stores each vector as
// encodeVector does and quantizes the values stored, for vectors stored as
// float16 and as float32 (too large) in one batch, and leaves the chunks'
// vectors as they were.
func TestPrepareChunksVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	var chunks []Chunk
	var orig [][]float32
	for i := range 6 {
		v := make([]float32, 32)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			if i%3 == 1 {
				v[j] *= 1e5 // float32
			}
		}
		chunks = append(chunks, Chunk{Vector: v})
		orig = append(orig, slices.Clone(v))
	}
	PrepareChunks(chunks)
	for i, c := range chunks {
		if !slices.Equal(c.Vector, orig[i]) {
			t.Fatalf("chunk %d: vector changed", i)
		}
		p := c.prep
		if want := encodeVector(orig[i]); !bytes.Equal(p.vec, want) {
			t.Errorf("chunk %d: stored % x, want % x", i, p.vec[:8], want[:8])
		}
		if (len(p.vec) == 4*32) != (i%3 == 1) {
			t.Errorf("chunk %d: stored in %d bytes", i, len(p.vec))
		}
		stored, err := decodeVector(p.vec, 32, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := make([]int8, 32)
		if scale := quantize(stored, q); scale != p.scale || !slices.Equal(q, p.q) {
			t.Errorf("chunk %d: quantized %v × %v, want %v × %v", i, p.q, p.scale, q, scale)
		}
	}
}
