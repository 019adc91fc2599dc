package chunk

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// loadRanks reads the o200k_base rank table that tiktoken-go-loader embeds
// (a line per token: its bytes in base64, a space, its rank) into what the
// Tokenizer uses: a map from token bytes to rank, made at its final size,
// and each token's length by rank. The tokens' bytes share one string, so
// that the table is a few allocations, not one per token. Ranks must be 0
// to n-1, each once, for n distinct tokens of at most maxTokenBytes bytes,
// among them every single byte; the table is then the one tiktoken-go
// loads (TestLoadRanks).
//
// That is all the Tokenizer needs of tiktoken: it pre-tokenizes and
// byte-pair encodes on its own, and never decodes or meets special tokens.
// tiktoken-go's GetEncoding builds far more from the same file (decoder
// maps, every token sorted, the regexp), several times slower.
func loadRanks() (map[string]int, []uint16, error) {
	file := Encoding + ".tiktoken"
	f, err := assets.Assets.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", file, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", file, err)
	}
	ranks, lengths, err := parseRanks(f, int(info.Size()))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", file, err)
	}
	return ranks, lengths, nil
}

// parseRanks parses a rank table in tiktoken's format of size bytes, for
// [loadRanks]. It reads it through a small buffer and decodes the tokens
// into one string, so that the file is never copied whole.
func parseRanks(r io.Reader, size int) (map[string]int, []uint16, error) {
	var all strings.Builder                       // the tokens, end to end
	all.Grow(base64.StdEncoding.DecodedLen(size)) // more than they need
	n := size/16 + 1                              // lines are 14 to 180 bytes, typically 18
	ends := make([]uint32, 0, n)                  // token k is all[ends[k-1]:ends[k]]
	ranks := make([]int32, 0, n)
	sc := bufio.NewScanner(r)
	var tok [(maxTokenBytes + 2) / 3 * 3]byte
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(text) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(text, []byte{' '})
		if !ok {
			return nil, nil, fmt.Errorf("line %d: no space between token and rank", line)
		}
		if base64.StdEncoding.DecodedLen(len(b64)) > len(tok) {
			return nil, nil, fmt.Errorf("line %d: token of over %d bytes", line, maxTokenBytes)
		}
		m, err := base64.StdEncoding.Decode(tok[:], b64)
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("line %d: token: %w", line, err)
		case m == 0 || m > maxTokenBytes:
			return nil, nil, fmt.Errorf("line %d: token of %d bytes", line, m)
		}
		rank, ok := parseRank(num)
		if !ok {
			return nil, nil, fmt.Errorf("line %d: rank %q is not a number", line, num)
		}
		all.Write(tok[:m])
		ends = append(ends, uint32(all.Len()))
		ranks = append(ranks, rank)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	toks := all.String()
	table := make(map[string]int, len(ends))
	lengths := make([]uint16, len(ends))
	start := uint32(0)
	for k, end := range ends {
		r := ranks[k]
		if int(r) >= len(lengths) || lengths[r] != 0 {
			return nil, nil, fmt.Errorf("rank %d: want ranks 0 to %d, each once", r, len(ends)-1)
		}
		lengths[r] = uint16(end - start)
		table[toks[start:end]] = int(r)
		start = end
	}
	if len(table) != len(ends) {
		return nil, nil, fmt.Errorf("%d tokens, %d distinct", len(ends), len(table))
	}
	for b := range 256 {
		if _, ok := table[string([]byte{byte(b)})]; !ok {
			return nil, nil, fmt.Errorf("byte %#02x is not a token", b)
		}
	}
	return table, lengths, nil
}

// parseRank parses a rank: decimal digits, below 1<<30.
func parseRank(b []byte) (int32, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	r := int32(0)
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		r = r*10 + int32(c-'0')
	}
	return r, true
}
