package main

import (
	"context"
	"log/slog"

	"github.com/cite-rag/cite/search"
	"github.com/cite-rag/cite/server"
)

func runMCP(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "mcp", "", `Serve cite's search to AI agents over the Model Context Protocol, on
standard input and output: the tools search_data_sources, search_documents,
read_document and list_sources, each passage with its title, exact link
(file:///path#bytes=START-END) and text. cite serve offers the same at /mcp
over streamable HTTP.`, false)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("mcp takes no arguments")
	}
	st, err := f.openIndex(ctx, queryIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := search.Open(ctx, f.reader(st), search.Options{Embedder: e.embedConfig()})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	return server.ServeMCPStdio(ctx, server.MCP(server.Deps{Store: st, Searcher: s}, "dev"), e.stdin(), e.stdout, server.StdioOptions{Logger: log})
}
