// Command genranks writes the chunker's rank table file (see package
// ranktable) from the o200k_base table that tiktoken-go-loader embeds.
// chunk's go:generate runs it; its output is committed, so that building
// cite needs no generation step.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cite-rag/cite/chunk/internal/ranktable"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

func main() {
	enc := flag.String("encoding", "o200k_base", "tiktoken encoding to read")
	out := flag.String("o", "", "file to write")
	flag.Parse()
	if err := run(*enc, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genranks:", err)
		os.Exit(1)
	}
}

func run(enc, out string) error {
	if out == "" {
		return fmt.Errorf("no -o file")
	}
	f, err := assets.Assets.Open(enc + ".tiktoken")
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := ranktable.Build(f)
	if err != nil {
		return fmt.Errorf("%s: %w", enc, err)
	}
	return os.WriteFile(out, data, 0o644)
}
