package chunk

import (
	"bytes"
	"encoding/base64"
	"fmt"

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
	data, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", file, err)
	}
	ranks, lengths, err := parseRanks(data)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", file, err)
	}
	return ranks, lengths, nil
}

// parseRanks parses a rank table in tiktoken's format, for [loadRanks].
func parseRanks(data []byte) (map[string]int, []uint16, error) {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data))) // more than the tokens' bytes
	ends := make([]uint32, 0, n)                                     // token k is buf[ends[k-1]:ends[k]]
	ranks := make([]int32, 0, n)
	for line := 1; len(data) > 0; line++ {
		var text []byte
		text, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(text) == 0 {
			continue
		}
		tok, num, ok := bytes.Cut(text, []byte{' '})
		m, err := base64.StdEncoding.Decode(buf[len(buf):cap(buf)], tok)
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("line %d: no space between token and rank", line)
		case err != nil:
			return nil, nil, fmt.Errorf("line %d: token: %w", line, err)
		case m == 0 || m > maxTokenBytes:
			return nil, nil, fmt.Errorf("line %d: token of %d bytes", line, m)
		}
		rank, ok := parseRank(num)
		if !ok {
			return nil, nil, fmt.Errorf("line %d: rank %q is not a number", line, num)
		}
		buf = buf[:len(buf)+m]
		ends = append(ends, uint32(len(buf)))
		ranks = append(ranks, rank)
	}
	all := string(buf)
	table := make(map[string]int, len(ends))
	lengths := make([]uint16, len(ends))
	start := uint32(0)
	for k, end := range ends {
		r := ranks[k]
		if int(r) >= len(lengths) || lengths[r] != 0 {
			return nil, nil, fmt.Errorf("rank %d: want ranks 0 to %d, each once", r, len(ends)-1)
		}
		lengths[r] = uint16(end - start)
		table[all[start:end]] = int(r)
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
