package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/eval/bench/blevepeer"
	"github.com/cite-rag/cite/eval/bench/chromempeer"
	"github.com/cite-rag/cite/eval/bench/fts5peer"
	"github.com/cite-rag/cite/eval/bench/weaviatepeer"
)

func runBench(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "bench", "", `Measure cite at scale against other engines on the same chunks and queries.
For each size, replicate the Markdown corpus with varied text (copy 0 as is;
in each other copy some words swapped or respelled and sentences reordered)
to about that many chunks, index it with cite index, and print: ingest MB/s,
index size per chunk, open time, resident memory after the searches, and the
p50 and p99 latency of each search mode over the corpus's headings. Beside
cite, on the chunks of cite's index and the same queries: bleve (BM25),
SQLite FTS5 (bm25()), chromem-go (vectors) and, when a weaviate-server is
found or given, Weaviate on one node (all modes). With --serve, cite serve
is also started on each index, searched through its HTTP API, and its
resident memory read. Corpora are kept in --work for the next run; indexes
are removed after each size unless --keep, and a kept index built from the
same corpus and embedder that this cite opens without an upgrade is
measured again without rebuilding it (its build figures are the earlier
run's) unless --rebuild.`, true)
	corpus := f.String("corpus", "", "folder of Markdown files (default: ../shared/data/markdown beside the working directory or a folder above it)")
	sizes := f.String("sizes", "10k,100k", "comma-separated sizes in chunks (10k, 100k, 1m, ...)")
	queries := f.Int("queries", 300, "queries asked in each mode")
	spec := f.String("embedder", "hash", "embedder: hash[:DIM], ollama:MODEL or openai:MODEL")
	work := f.String("work", "", "folder for corpora and indexes (default $TMPDIR/cite-bench)")
	wv := f.String("weaviate", "auto", "Weaviate peer: auto (start a weaviate-server if one is found), off, the path of a weaviate-server, or HOST:PORT of a running node")
	keep := f.Bool("keep", false, "keep the indexes, and measure a kept one again instead of rebuilding it where its inputs are the same")
	rebuild := f.Bool("rebuild", false, "build every index anew, even where a kept one would do")
	upgrade := f.Bool("upgrade", false, "with --keep, upgrade a kept index made by an older cite in place and measure it, rather than rebuilding it (its build figures stay the older cite's)")
	serve := f.Bool("serve", true, "also run cite serve on each index: searches through its HTTP API, its resident memory")
	peers := f.String("peers", "bleve,fts5,chromem", "in-process peers to run (comma-separated; none for cite alone)")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("bench takes no arguments")
	}
	ns, err := bench.ParseSizes(*sizes)
	if err != nil {
		return f.usageError("--sizes: %v", err)
	}
	cfg := bench.Config{Corpus: *corpus, Work: *work, Sizes: ns, Queries: *queries, Embedder: *spec, EmbedConfig: e.embedConfig(), Keep: *keep, Rebuild: *rebuild, Upgrade: *upgrade, Log: e.stderr}
	if *serve {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("--serve: %w", err)
		}
		cfg.Serve = []string{exe}
	}
	for _, p := range strings.Split(*peers, ",") {
		switch strings.TrimSpace(p) {
		case "bleve":
			cfg.Peers = append(cfg.Peers, blevepeer.New)
		case "fts5":
			cfg.Peers = append(cfg.Peers, fts5peer.New)
		case "chromem":
			cfg.Peers = append(cfg.Peers, chromempeer.New)
		case "none", "":
		default:
			return f.usageError("--peers: unknown peer %q (want bleve, fts5, chromem or none)", p)
		}
	}
	switch *wv {
	case "off":
	case "auto":
		if bin := weaviatepeer.Binary(); bin != "" {
			cfg.Peers = append(cfg.Peers, weaviatepeer.New(bin, ""))
		} else {
			e.stderr.Write([]byte("cite bench: no weaviate-server found (--weaviate PATH, or CITE_WEAVIATE_SERVER): Weaviate left out\n"))
		}
	default:
		if _, err := os.Stat(*wv); err != nil && !strings.Contains(*wv, ":") {
			return f.usageError("--weaviate %q: neither a weaviate-server file nor HOST:PORT", *wv)
		}
		cfg.Peers = append(cfg.Peers, weaviatepeer.New(*wv, ""))
	}
	// The corpus last: every flag's error is said whether or not it is found.
	if cfg.Corpus == "" {
		dir, ok := bench.FindCorpus()
		if !ok {
			return f.usageError("no --corpus, and no ../shared/data/markdown beside the working directory or above it")
		}
		cfg.Corpus = dir
	}
	rep, err := bench.Run(ctx, cfg)
	if rep != nil && len(rep.Sizes) > 0 || err == nil {
		if f.json {
			if werr := bench.WriteJSON(e.stdout, rep); werr != nil && err == nil {
				err = werr
			}
		} else if werr := bench.WriteTable(e.stdout, rep); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}
