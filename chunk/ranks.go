package chunk

import (
	_ "embed"
	"fmt"

	"github.com/cite-rag/cite/chunk/internal/ranktable"
)

//go:generate go run ./internal/ranktable/genranks -encoding o200k_base -o o200k_base.ranks

// o200kRanks is the o200k_base rank table as package ranktable lays it
// out, generated from the table tiktoken-go-loader embeds (the line above;
// TestRanksGenerated checks it is up to date). It is read in place: the
// tokenizer builds nothing from it, and only the pages its lookups touch
// are ever read from the binary.
//
//go:embed o200k_base.ranks
var o200kRanks string

// loadRanks returns the o200k_base rank table. Ranks are 0 to n-1, each
// once, for n distinct tokens of at most maxTokenBytes bytes, among them
// every single byte; the table is the one tiktoken-go loads
// (TestLoadRanks).
//
// That is all the Tokenizer needs of tiktoken: it pre-tokenizes and
// byte-pair encodes on its own, and never decodes or meets special tokens.
func loadRanks() (ranktable.Table, error) {
	t, err := ranktable.Open(o200kRanks)
	if err != nil {
		return ranktable.Table{}, fmt.Errorf("load %s: %w", Encoding, err)
	}
	return t, nil
}
