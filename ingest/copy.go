package ingest

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/cite-rag/cite/index"
)

// copyFrom stores the job's file, whose bytes hash to hash, as a copy of a
// document the index already has from the same bytes and the same
// settings (a file renamed, moved or copied), if there is one: that
// document's chunks (text, spans, pages, headings, token counts), layout
// and, when they are the embedder's of this run, vectors, instead of
// reading, normalizing (and for a scanned PDF, OCR), chunking and
// embedding the file again. The vectors of a local embedder (the hash
// embedder) are made again, as they cost less to make than to read. It reports whether it did; then the job is
// ready to be analyzed (its full-text terms, made from the chunks' text
// as for any document) and written, in one transaction, by the writer.
//
// The same settings are those [Indexer.pipelineOf] names (chunk size and
// overlap, the tokenizer, the reader's OCR mode and whether tesseract is
// installed), and the same format by name ([formatClass]: bytes named .md
// are Markdown, named .txt are text). Chunks do not depend on the data
// source: a copy may come from another source, and becomes new rows of
// its own source. What a document's path gives is the file's own: its
// path, size and modification time, and its title when the title was its
// file name. With Options.Force nothing is copied.
func (ix *Indexer) copyFrom(ctx context.Context, j *job, hash string, info fs.FileInfo) bool {
	if ix.opts.Force || ctx.Err() != nil || !j.stored.has(hash) {
		return false
	}
	name := j.file.Name
	class := formatClass(name)
	self := index.DocumentID(ix.opts.Source, j.path)
	e := ix.opts.Embedder
	accept := func(d index.Document) bool {
		return d.ID != self && d.Kind == index.KindFile && d.Pipeline == ix.pipelineOf(d.Type) && formatClass(d.Path) == class &&
			!ix.readAsText(d.Type, d.Path) // a saved page read as text before is no copy to take
	}
	// A local embedder's vectors are made again with the chunks' terms,
	// in one pass over their text, in less time than they are read back.
	cp, err := ix.store.FindCopy(ctx, hash, ix.opts.Source, accept, e != nil && !e.Local())
	if err != nil || cp == nil {
		// Not found, or not readable (cite check names what is
		// damaged): the file is indexed from its content.
		return false
	}
	// Vectors of another embedder never go with the copy: its chunks are
	// embedded as any new chunks are.
	if e == nil || cp.Embedder.Name != e.Name() || (e.Dim() != 0 && cp.Embedder.Dim != e.Dim()) {
		for i := range cp.Chunks {
			cp.Chunks[i].Vector = nil
		}
	}
	from := cp.From
	title := from.Title
	if title == index.EscapePath(path.Base(from.Path)) {
		// The document had no title of its own (nor a heading, nor a
		// first line standing for one): its file name, as titleOf gives.
		title = index.EscapePath(path.Base(name))
	}
	j.chunk = cp.Chunks
	for _, c := range j.chunk {
		if c.Vector != nil {
			j.copiedVectors++
		}
	}
	j.doc = &index.Document{
		Source: ix.opts.Source, Path: j.path, Title: title, Type: from.Type, Kind: index.KindFile,
		Size: j.read, ModTime: info.ModTime(), Hash: hash, Pipeline: from.Pipeline,
		TextBytes: from.TextBytes, Tokens: from.Tokens, Layout: from.Layout,
	}
	if from.Layout != nil {
		j.notes = from.Layout.Notes // what the reader noted, when it read the bytes
	}
	j.from = from.Path
	j.out = Added
	if j.prev != nil {
		j.out = Updated
	}
	if err := ix.hold(ctx, j); err != nil {
		j.out, j.err = Failed, err
		return true
	}
	ix.analyze(ctx, j)
	return true
}

// formatClass is what a file's name says of how its bytes are read: the
// format its extension names (.md and .markdown are Markdown, .htm and
// .html HTML), else its extension itself, which decides whether a file
// the readers do not claim is skipped (.pdf) or detected by content. Two
// files of the same bytes and class are read alike.
func formatClass(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if f, ok := formatByExt[ext]; ok {
		return "format:" + f.String()
	}
	return "ext:" + ext
}

// contentSet is the content hashes of the documents stored, those of the
// index when a run starts and those the run writes, safe for concurrent
// use. A nil set holds nothing.
type contentSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (c *contentSet) has(hash string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[hash]
}

func (c *contentSet) add(hash string) {
	if c == nil || hash == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[hash] = true
}
