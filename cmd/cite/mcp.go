package main

import (
	"context"
	"io"

	"github.com/cite-rag/cite/search"
	"github.com/cite-rag/cite/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	st, err := f.openIndex(ctx, queryIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := search.Open(ctx, f.reader(st), search.Options{Embedder: e.embedConfig()})
	if err != nil {
		return err
	}
	return server.MCP(server.Deps{Store: st, Searcher: s}, "dev").Run(ctx, &mcp.IOTransport{Reader: readCloser{e.stdin()}, Writer: writeCloser{e.stdout}})
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
