// Package ranktable is the chunker's o200k_base rank table in a form that
// needs no building: a file made once from tiktoken's table ([Build], run
// by go generate in chunk) and embedded in the binary, which a [Table]
// reads in place. Opening it costs nothing; a lookup hashes the bytes
// once and reads one pilot, one slot and the token's bytes.
//
// The file holds, little-endian, after a header of four uint32 (tokens n,
// buckets b, slots m, bytes of tokens):
//
//   - pilots, b uint16: the displacement of each bucket of keys;
//   - slots, m uint64: an empty slot is 0, else the token's byte offset
//     (24 bits), its length (8), its rank (18) and a tag of its hash (14);
//   - lengths, n bytes: each token's length, by rank;
//   - the tokens' bytes, end to end in rank order.
//
// The slots are a minimal-perfect-hash-like table (PTHash's scheme): a
// key's hash picks its bucket, the bucket's pilot its slot, and the
// pilots are chosen so that no two tokens share a slot. A string that is
// not a token lands on some slot too; the tag, the length and then the
// bytes tell it apart.
package ranktable

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/bits"
	"slices"

	"github.com/cite-rag/cite/internal/le"
)

// MaxTokenBytes is the length of the longest token a table may hold.
const MaxTokenBytes = 128

const (
	headerBytes = 16
	offBits     = 24
	lenBits     = 8
	rankBits    = 18
	tagBits     = 14
	maxRank     = 1<<rankBits - 1
	maxOff      = 1<<offBits - 1
)

// Table is a rank table read in place. The zero Table is empty.
type Table struct {
	pilots string // b uint16
	slots  string // m uint64
	lens   string // n bytes
	toks   string
	nb, ns uint64
}

// Open returns the table data holds, made by [Build]. data must stay
// unchanged while the table is in use; Open does not copy it.
func Open(data string) (Table, error) {
	if len(data) < headerBytes {
		return Table{}, errors.New("rank table: short header")
	}
	n, b, m, size := le.Uint32(data), le.Uint32(data[4:]), le.Uint32(data[8:]), le.Uint32(data[12:])
	want := uint64(headerBytes) + 2*uint64(b) + 8*uint64(m) + uint64(n) + uint64(size)
	if uint64(len(data)) != want || b == 0 || m == 0 {
		return Table{}, fmt.Errorf("rank table: %d bytes, header says %d", len(data), want)
	}
	p := data[headerBytes:]
	t := Table{nb: uint64(b), ns: uint64(m)}
	t.pilots, p = p[:2*b], p[2*b:]
	t.slots, p = p[:8*m], p[8*m:]
	t.lens, t.toks = p[:n], p[n:]
	return t, nil
}

// Len returns the number of tokens.
func (t *Table) Len() int { return len(t.lens) }

// TokenLen returns the length in bytes of the token of rank r.
func (t *Table) TokenLen(r int) int { return int(t.lens[r]) }

// All yields each token and its rank, in rank order.
func (t *Table) All() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		off := 0
		for r := range len(t.lens) {
			n := int(t.lens[r])
			if !yield(t.toks[off:off+n], r) {
				return
			}
			off += n
		}
	}
}

// Rank returns the rank of the token s, or false if s is not a token.
func (t *Table) Rank(s string) (int, bool) {
	if len(s) == 0 || len(s) > MaxTokenBytes || t.ns == 0 {
		return 0, false
	}
	h := hash(s)
	v := le.Uint64(t.slots[8*t.slot(h):])
	off, n := v&maxOff, int(v>>offBits&(1<<lenBits-1))
	if v>>(64-tagBits) != h>>(64-tagBits) || n != len(s) || t.toks[off:off+uint64(n)] != s {
		return 0, false
	}
	return int(v >> (offBits + lenBits) & maxRank), true
}

// slot returns the slot of a key of hash h.
func (t *Table) slot(h uint64) uint64 {
	b, _ := bits.Mul64(h<<tagBits, t.nb) // the bits below the tag's
	p := uint64(t.pilots[2*b]) | uint64(t.pilots[2*b+1])<<8
	return position(h, p, t.ns)
}

// position returns the slot of a key of hash h in a bucket of pilot p,
// among m slots.
func position(h, p, m uint64) uint64 {
	x := h ^ (p+1)*0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	s, _ := bits.Mul64(x^x>>32, m)
	return s
}

// hash hashes a token's bytes (1 to MaxTokenBytes of them). It is part of
// the file format: changing it needs the table generated again.
func hash(s string) uint64 {
	const k0, k1, k2 = 0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3
	n := len(s)
	var a, b uint64
	switch {
	case n >= 8:
		a, b = le.Uint64(s), le.Uint64(s[n-8:])
		for i := 8; i < n-8; i += 8 {
			a = mum(a^k2, le.Uint64(s[i:])^k1) ^ b
		}
	case n >= 4:
		a = uint64(le.Uint32(s)) | uint64(le.Uint32(s[n-4:]))<<32
	default:
		a = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	return mum(a^k0, b^k1^uint64(n)*k2)
}

// mum folds the 128-bit product of a and b.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// Build makes the table file from a rank table in tiktoken's format (a
// line per token: its bytes in base64, a space, its rank). Ranks must be
// 0 to n-1, each once, for n distinct tokens of at most MaxTokenBytes
// bytes, among them every single byte. The file depends only on the
// tokens and their ranks.
func Build(r io.Reader) ([]byte, error) {
	toks, err := parse(r)
	if err != nil {
		return nil, err
	}
	return build(toks)
}

// parse reads a table in tiktoken's format into its tokens by rank.
func parse(r io.Reader) ([]string, error) {
	var toks []string
	seen := make(map[string]bool)
	sc := bufio.NewScanner(r)
	var tok [(MaxTokenBytes + 2) / 3 * 3]byte
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(text) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(text, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("line %d: no space between token and rank", line)
		}
		if base64.StdEncoding.DecodedLen(len(b64)) > len(tok) {
			return nil, fmt.Errorf("line %d: token of over %d bytes", line, MaxTokenBytes)
		}
		m, err := base64.StdEncoding.Decode(tok[:], b64)
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d: token: %w", line, err)
		case m == 0 || m > MaxTokenBytes:
			return nil, fmt.Errorf("line %d: token of %d bytes", line, m)
		}
		rank, ok := parseRank(num)
		if !ok {
			return nil, fmt.Errorf("line %d: rank %q is not a number", line, num)
		}
		if rank > maxRank {
			return nil, fmt.Errorf("line %d: rank %d over %d", line, rank, maxRank)
		}
		s := string(tok[:m])
		if seen[s] {
			return nil, fmt.Errorf("line %d: token %q twice", line, s)
		}
		seen[s] = true
		if rank >= len(toks) {
			toks = append(toks, make([]string, rank+1-len(toks))...)
		}
		if toks[rank] != "" {
			return nil, fmt.Errorf("line %d: rank %d twice", line, rank)
		}
		toks[rank] = s
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if r := slices.Index(toks, ""); r >= 0 {
		return nil, fmt.Errorf("rank %d: want ranks 0 to %d, each once", r, len(toks)-1)
	}
	for b := range 256 {
		if !seen[string([]byte{byte(b)})] {
			return nil, fmt.Errorf("byte %#02x is not a token", b)
		}
	}
	return toks, nil
}

// parseRank parses a rank: decimal digits, below 1e9.
func parseRank(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	r := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		r = r*10 + int(c-'0')
	}
	return r, true
}

// build lays out the table of toks, the tokens by rank.
func build(toks []string) ([]byte, error) {
	n := uint64(len(toks))
	nb := max(n/4, 1)    // about 4 keys a bucket
	ns := max(n+n/50, 1) // 2% of the slots stay empty
	var size uint64
	for _, tok := range toks {
		size += uint64(len(tok))
	}
	if size > maxOff {
		return nil, fmt.Errorf("%d bytes of tokens, over %d", size, maxOff)
	}
	// Group the keys by bucket, and place the largest buckets first.
	hashes := make([]uint64, n)
	buckets := make([][]uint32, nb)
	for r, tok := range toks {
		h := hash(tok)
		hashes[r] = h
		b, _ := bits.Mul64(h<<tagBits, nb)
		buckets[b] = append(buckets[b], uint32(r))
	}
	order := make([]uint32, nb)
	for b := range order {
		order[b] = uint32(b)
	}
	slices.SortStableFunc(order, func(x, y uint32) int { return len(buckets[y]) - len(buckets[x]) })
	pilots := make([]uint16, nb)
	taken := make([]bool, ns)
	pos := make([]uint64, 0, 16)
	for _, b := range order {
		keys := buckets[b]
		if len(keys) == 0 {
			break
		}
		p := uint64(0)
	search:
		for ; ; p++ {
			if p > 0xFFFF {
				return nil, fmt.Errorf("bucket %d of %d keys: no pilot places them", b, len(keys))
			}
			pos = pos[:0]
			for _, r := range keys {
				s := position(hashes[r], p, ns)
				if taken[s] || slices.Contains(pos, s) {
					continue search
				}
				pos = append(pos, s)
			}
			break
		}
		pilots[b] = uint16(p)
		for _, s := range pos {
			taken[s] = true
		}
	}
	out := make([]byte, headerBytes, headerBytes+2*nb+8*ns+n+size)
	out = binary.LittleEndian.AppendUint32(out[:0], uint32(n))
	out = binary.LittleEndian.AppendUint32(out, uint32(nb))
	out = binary.LittleEndian.AppendUint32(out, uint32(ns))
	out = binary.LittleEndian.AppendUint32(out, uint32(size))
	for _, p := range pilots {
		out = binary.LittleEndian.AppendUint16(out, p)
	}
	slots := make([]uint64, ns)
	off := uint64(0)
	for r, tok := range toks {
		h := hashes[r]
		b, _ := bits.Mul64(h<<tagBits, nb)
		s := position(h, uint64(pilots[b]), ns)
		slots[s] = off | uint64(len(tok))<<offBits | uint64(r)<<(offBits+lenBits) | h>>(64-tagBits)<<(64-tagBits)
		off += uint64(len(tok))
	}
	for _, v := range slots {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	for _, tok := range toks {
		out = append(out, byte(len(tok)))
	}
	for _, tok := range toks {
		out = append(out, tok...)
	}
	return out, nil
}
