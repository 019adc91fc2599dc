package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/normalize/pdf"
	"github.com/cite-rag/cite/search"
	"golang.org/x/term"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "search", `"QUERY"`, `Search the index. Modes: hybrid (BM25 and vectors, fused; the default), bm25
(full-text ranking) and vector (similarity of the embedder's vectors). The
built-in hash embedder is lexical, not semantic: it matches words and parts
of words (typos, inflections, identifiers), not meanings; index with
--embedder ollama:MODEL or openai:MODEL for semantic search.`, true)
	k := f.Int("k", search.DefaultK, "number of hits")
	mode := f.String("mode", "hybrid", "hybrid, bm25 or vector")
	source := f.once("source", "search only this data source (`NAME`; once)")
	doc := f.once("doc", "search only this document (`PATH|ID`, or the end of one document's path: a file name, a path below the folder indexed; once)")
	pathGlob := f.once("path", "search only documents whose path matches this `GLOB` (* matches across /; once)")
	perDoc := f.Int("per-doc", 0, "at most this many hits from one document (0: no limit)")
	fusion := f.String("fusion", "", "hybrid fusion METHOD:BM25WEIGHT:VECTORWEIGHT (default "+search.DefaultFusion.String()+")")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() == 0 {
		return f.usageError("search: no QUERY given")
	}
	if strings.TrimSpace(strings.Join(f.Args(), " ")) == "" {
		return f.usageError("search: the QUERY is empty")
	}
	m, err := search.ParseMode(*mode)
	if err != nil {
		return f.usageError("--mode: %v", err)
	}
	if *k <= 0 {
		return f.usageError("-k must be at least 1")
	}
	if *perDoc < 0 {
		return f.usageError("--per-doc %d: want 0 (no limit) or more", *perDoc)
	}
	if err := (index.Filter{Path: *pathGlob}).Validate(); err != nil {
		return f.usageError("--path: %s", strings.TrimPrefix(err.Error(), index.ErrInvalidInput.Error()+": "))
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
	if *fusion != "" {
		if s.Fusion, err = search.ParseFusion(*fusion); err != nil {
			return f.usageError("--fusion: %v", err)
		}
	}
	q := search.Query{Text: strings.Join(f.Args(), " "), K: *k, Mode: m, PerDocument: *perDoc}
	if *source != "" {
		q.Filter.Sources = []string{*source}
	}
	if *doc != "" {
		d, byTail, err := findByName(ctx, f.reader(st), *source, *doc, "--doc")
		if err != nil {
			return err
		}
		if byTail {
			fmt.Fprintf(e.stderr, "searching %s, the indexed document whose path ends in %s\n", displayPath(d.Path), cell(*doc))
		}
		q.Filter.Document = d.ID
	}
	if *pathGlob != "" {
		q.Filter.Path = absGlob(*pathGlob)
	}
	res, err := s.Search(ctx, q)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(e.stderr, "cite search: warning:", w)
	}
	if len(res.Hits) == 0 && *pathGlob != "" {
		if n, err := st.CountPathMatches(ctx, q.Filter.Path); err == nil && n == 0 {
			msg := fmt.Sprintf("cite search: no indexed document's path matches %s", index.EscapePath(q.Filter.Path))
			if q.Filter.Path != *pathGlob {
				msg += fmt.Sprintf(" (a relative --path is taken from the working directory; '*/%s' matches below any folder)", strings.TrimPrefix(*pathGlob, "./"))
			}
			fmt.Fprintln(e.stderr, msg)
		}
	}
	if f.json {
		return writeJSON(e.stdout, res)
	}
	color := isTerminal(e.stdout)
	printHits(e.stdout, res.Hits, analysis.QueryTerms(q.Text), color)
	return nil
}

// absGlob makes a relative glob absolute, as documents' paths are stored.
func absGlob(g string) string {
	if filepath.IsAbs(g) || strings.HasPrefix(g, "*") || strings.Contains(g, "://") {
		return g
	}
	if wd, err := os.Getwd(); err == nil {
		return filepath.Join(wd, g)
	}
	return g
}

// isTerminalFile reports whether r is a terminal.
func isTerminalFile(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printHits writes hits as a readable list: rank, score, title, path,
// heading, and a snippet with the query's words highlighted on a terminal.
func printHits(w io.Writer, hits []search.Hit, terms []string, color bool) {
	if len(hits) == 0 {
		fmt.Fprintln(w, "no hits")
		return
	}
	bold, dim, reset := "", "", ""
	if color {
		bold, dim, reset = "\x1b[1m", "\x1b[2m", "\x1b[0m"
	}
	for _, h := range hits {
		fmt.Fprintf(w, "%s%d. %s%s  %s(%.3f", bold, h.Rank, cell(h.Document.Title), reset, dim, h.Score)
		if h.Scores.BM25 != nil {
			fmt.Fprintf(w, " bm25 %.2f", *h.Scores.BM25)
		}
		if h.Scores.Vector != nil {
			fmt.Fprintf(w, " vector %.3f", *h.Scores.Vector)
		}
		if loc := h.Location.String(); loc != "" {
			fmt.Fprintf(w, ")%s\n   %s %s", reset, displayPath(h.Document.Path), loc)
		} else if search.Extracted(h.Document.Format) {
			// Its span is of the text extracted (a picture's, a
			// spreadsheet's), not bytes of the file.
			fmt.Fprintf(w, ")%s\n   %s", reset, displayPath(h.Document.Path))
		} else {
			fmt.Fprintf(w, ")%s\n   %s bytes %d-%d", reset, displayPath(h.Document.Path), h.SourceSpan.Start, h.SourceSpan.End)
		}
		if h.Heading != "" {
			fmt.Fprintf(w, "  § %s", cell(h.Heading))
		}
		if len(h.Copies) > 0 {
			fmt.Fprintf(w, "\n   %salso in %s", dim, displayPath(h.Copies[0].Path))
			if n := len(h.Copies) - 1; n > 0 {
				fmt.Fprintf(w, " and %d more", n)
			}
			fmt.Fprint(w, reset)
		}
		fmt.Fprintf(w, "\n   %s\n\n", snippet(h.Text, terms, 240, color))
	}
}

// snippet returns about n bytes of text around its first query term, on
// one line and [shown], with the terms' words highlighted when color is
// set.
func snippet(text string, terms []string, n int, color bool) string {
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	toks := analysis.AnalyzeTokens(text)
	var marks []analysis.Token
	for _, t := range toks {
		if want[t.Term] {
			marks = append(marks, t)
		}
	}
	start := 0
	if len(marks) > 0 && marks[0].Start > n/3 {
		start = marks[0].Start - n/3
	}
	end := min(len(text), start+n)
	// Move the window's ends to character and word boundaries.
	for start > 0 && start < len(text) && !isWordStart(text, start) {
		start++
	}
	for end < len(text) && end > start && !isWordStart(text, end) {
		end--
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, m := range marks {
		if m.Start < pos || m.End > end {
			continue
		}
		b.WriteString(cell(text[pos:m.Start]))
		if color {
			b.WriteString("\x1b[1;33m" + cell(text[m.Start:m.End]) + "\x1b[0m")
		} else {
			b.WriteString(cell(text[m.Start:m.End]))
		}
		pos = m.End
	}
	b.WriteString(cell(text[pos:end]))
	if end < len(text) {
		b.WriteString("…")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// isWordStart reports whether i is a character boundary at a space or
// right after one.
func isWordStart(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return true
	}
	if s[i]&0xC0 == 0x80 { // inside a UTF-8 character
		return false
	}
	return s[i] == ' ' || s[i] == '\n' || s[i-1] == ' ' || s[i-1] == '\n'
}

func runCheck(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "check", "", `Check the index: SQLite's integrity, every document's chunk sequence, and
that every chunk has its full-text terms and a vector of the index's
embedder, with no vector or full-text row left over. With --repair, fix what
it finds: add missing terms, remove orphaned rows, make missing vectors, and
mark damaged documents for re-indexing. Exit status 1 if problems remain.`, true)
	repair := f.Bool("repair", false, "fix the problems found")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("check takes no arguments")
	}
	checkAccess := readIndex
	if *repair {
		checkAccess = repairIndex
		// A repair writes, and a rebuild replaces the database file: no
		// cite index may run meanwhile.
		if err := f.needIndex(ctx); err != nil {
			return err
		}
		unlock, err := lockIndex(ctx, e, f.index)
		if err != nil {
			return err
		}
		defer unlock()
	} else {
		// The tables a running cite index changes in turn would not
		// agree: check between two writers' runs.
		unlock, err := index.LockReader(ctx, f.index, func() {
			fmt.Fprintf(e.stderr, "waiting for a cite index to finish with %s ...\n", f.index)
		})
		if err != nil {
			return err
		}
		defer unlock()
	}
	st, err := f.openIndex(ctx, checkAccess)
	var did []string
	if *repair {
		// A damaged database file is rebuilt first, from what is readable.
		var corrupt bool
		switch {
		case errors.Is(err, index.ErrCorrupt):
			corrupt = true
		case err == nil:
			rep, cerr := st.Check(ctx)
			if cerr != nil {
				st.Close()
				return cerr
			}
			if corrupt = rep.Corrupt; corrupt {
				st.Close()
			}
		}
		if corrupt {
			if did, err = recoverIndex(ctx, f); err != nil {
				return err
			}
			st, err = f.openIndex(ctx, writeIndex)
		}
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if *repair {
		more, err := st.Repair(ctx)
		if err != nil {
			return err
		}
		did = append(did, more...)
		// Documents whose chunks were damaged, or lost with the rows of a
		// damaged file, are read again from their files.
		reread, err := rereadDocuments(ctx, e, st)
		did = append(did, reread...)
		if err != nil {
			return err
		}
		info, err := st.Embedder(ctx)
		if err != nil {
			return err
		}
		if err := badEmbedderName(info); err != nil {
			if err := st.ForgetEmbedder(ctx); err != nil {
				return err
			}
			did = append(did, fmt.Sprintf("removed the damaged embedder settings and all vectors: %v (cite index makes them again with the embedder it is given)", err))
			info = index.EmbedderInfo{}
		}
		if info.Name != "" {
			emb, err := e.embedder(info.Name)
			if err != nil {
				return err
			}
			n, err := ingest.FillVectors(ctx, st, emb, nil)
			if n > 0 {
				did = append(did, fmt.Sprintf("made %d missing vectors with %s", n, info.Name))
			}
			if err != nil {
				return err
			}
		}
	}
	rep, err := st.Check(ctx)
	if err != nil {
		return err
	}
	if err := badEmbedderName(rep.Embedder); err != nil {
		rep.Problems = append(rep.Problems, index.Problem{Problem: fmt.Sprintf("the index's embedder is damaged: %v (cite check --repair removes it and the vectors; cite index makes them again)", err)})
	}
	if f.json {
		if rep.Problems == nil {
			rep.Problems = []index.Problem{}
		}
		if did == nil {
			did = []string{}
		}
		if err := writeJSON(e.stdout, map[string]any{"report": rep, "repaired": did}); err != nil {
			return err
		}
	} else {
		for _, d := range did {
			fmt.Fprintln(e.stdout, "repaired:", d)
		}
		emb := "no embedder"
		if rep.Embedder.Name != "" {
			emb = fmt.Sprintf("%s, %d dimensions", rep.Embedder.Name, rep.Embedder.Dim)
		}
		if rep.Corrupt {
			// The counts were not computed: not zeros.
			fmt.Fprintln(e.stdout, "the database file is damaged: documents, chunks and vectors not counted")
		} else {
			fmt.Fprintf(e.stdout, "%s, %s, %s (%s)\n", nof(rep.Documents, "document"), nof(rep.Chunks, "chunk"), nof(rep.Vectors, "vector"), emb)
		}
		for _, p := range rep.Problems {
			where := ""
			if p.Path != "" {
				where = displayPath(p.Path) + ": "
			}
			fmt.Fprintf(e.stdout, "problem: %s%s\n", where, cell(p.Problem))
		}
		if rep.OK() {
			fmt.Fprintln(e.stdout, "ok")
		}
	}
	if !rep.OK() {
		return errors.New(nof(len(rep.Problems), "problem"))
	}
	return nil
}

// badEmbedderName returns an error if the embedder an index records is
// one no cite makes: the name was an embedder's when it was recorded, so
// it is damaged. It makes the embedder without configuration, which
// depends on the name alone.
func badEmbedderName(info index.EmbedderInfo) error {
	if info.Name == "" {
		return nil
	}
	_, err := embed.New(info.Name, embed.Config{})
	return err
}

// recoverIndex rebuilds a damaged index ([index.Recover]) and returns what
// it did, one line each.
func recoverIndex(ctx context.Context, f *flags) ([]string, error) {
	rec, err := index.Recover(ctx, f.index)
	if err != nil {
		return nil, err
	}
	if rec.Unreadable {
		return []string{
			fmt.Sprintf("the database file was damaged: kept it as %s and made a new, empty index", displayPath(rec.Damaged)),
			"nothing could be recovered: the file is not a database, or its first page, which lists the tables, is damaged (cite index PATH reads the files again)",
		}, nil
	}
	did := []string{
		fmt.Sprintf("the database file was damaged: kept it as %s and rebuilt the index from what was readable", displayPath(rec.Damaged)),
		fmt.Sprintf("recovered %s whole, %s, %s", nof(rec.Documents-len(rec.Reindex), "document"), nof(rec.Chunks, "chunk"), nof(rec.Vectors, "vector")),
	}
	if rec.LostRows > 0 || rec.Skipped > 0 {
		did = append(did, fmt.Sprintf("lost %d unreadable rows and %d damaged ranges of rows", rec.LostRows, rec.Skipped))
	}
	if rec.Restored > 0 {
		did = append(did, fmt.Sprintf("found the paths of %d more documents whose records were unreadable in the index of paths: they are read again from their files", rec.Restored))
	}
	if rec.LostDocuments > 0 {
		did = append(did, fmt.Sprintf("lost %d documents whose records were unreadable (cite index their folders again to add them back)", rec.LostDocuments))
	}
	if rec.DocumentsDamaged {
		did = append(did, "some pages of document records were unreadable: documents found nowhere else may be lost, how many is unknown (cite index their folders again to add them back)")
	}
	if rec.MetaLost {
		did = append(did, "lost the index's settings: its vectors were dropped (cite index makes them with the embedder it is given)")
	}
	return did, nil
}

// pipelineName matches a pipeline as ingest names it:
// "v3/o200k_base/500/50", with the reader's version after it.
var pipelineName = regexp.MustCompile(`^v[0-9]+/[^/]+/[0-9]+/[0-9]+(/|$)`)

// rereadDocuments indexes again, from their files, the documents a
// recovery kept without their chunks (their hash is blank), with the chunk
// settings they were indexed with; those whose files are gone are removed.
func rereadDocuments(ctx context.Context, e *env, st *index.Store) ([]string, error) {
	docs, err := st.Documents(ctx, "")
	if err != nil {
		return nil, err
	}
	type group struct {
		source, pipeline string
		whole            bool // a web page read whole (cite index --keep-boilerplate)
	}
	paths := map[group][]string{}
	var did []string
	var errs []error
	gone := 0
	// A document whose record lost its pipeline (a damaged value, or a
	// record restored from its path alone) is read as the intact ones of
	// its source were: with their chunk settings, and a web page as their
	// web pages were read, whole or by its content.
	known, knownPage := map[string]string{}, map[string]string{}
	for _, d := range docs {
		if d.Hash == "" || !pipelineName.MatchString(d.Pipeline) {
			continue
		}
		if _, ok := known[d.Source]; !ok {
			known[d.Source] = d.Pipeline
		}
		if _, ok := knownPage[d.Source]; !ok && (strings.Contains(d.Pipeline, "/html:") || strings.Contains(d.Pipeline, "/mhtml:")) {
			knownPage[d.Source] = d.Pipeline
		}
	}
	for _, d := range docs {
		if d.Hash != "" || d.Chunks != 0 {
			continue
		}
		if !pipelineName.MatchString(d.Pipeline) {
			d.Pipeline = cmp.Or(knownPage[d.Source], known[d.Source])
		}
		if _, err := os.Stat(d.Path); err != nil {
			if _, err := st.DeleteDocument(ctx, d.ID); err != nil {
				errs = append(errs, err)
			}
			gone++
			continue
		}
		// By source and chunking; a reader's version after them (a PDF's
		// "/pdf:ocr=auto") is the reader's of this run.
		pipeline := d.Pipeline
		if parts := strings.SplitN(pipeline, "/", 5); len(parts) == 5 {
			pipeline = strings.Join(parts[:4], "/")
		}
		g := group{d.Source, pipeline, strings.HasSuffix(d.Pipeline, "/html:whole") || strings.HasSuffix(d.Pipeline, "/mhtml:whole")}
		paths[g] = append(paths[g], d.Path)
	}
	if gone > 0 {
		did = append(did, fmt.Sprintf("could not restore %d documents whose chunks were lost: their files are gone (removed them)", gone))
	}
	if len(paths) == 0 {
		return did, errors.Join(errs...)
	}
	info, err := st.Embedder(ctx)
	if err != nil {
		return did, err
	}
	var emb *embed.Embedder
	if info.Name != "" {
		// Without one (its settings were lost), the next cite index
		// makes the vectors with the embedder it is given.
		if emb, err = e.embedder(info.Name); err != nil {
			return did, err
		}
	}
	for g, ps := range paths {
		opts := chunk.Options{}
		var v, size, overlap int
		var enc string
		if n, _ := fmt.Sscanf(strings.ReplaceAll(g.pipeline, "/", " "), "v%d %s %d %d", &v, &enc, &size, &overlap); n == 4 {
			opts = chunk.Options{Size: size, Overlap: overlap}
			if overlap == 0 {
				opts.Overlap = -1 // chunk.Options: -1 means none
			}
		}
		sp, err := chunk.New(opts)
		if err != nil {
			sp, _ = chunk.New(chunk.Options{})
		}
		readers := documentReaders(&pdf.Reader{Uninterruptible: true})
		if g.whole {
			readers = wholePages(readers)
		}
		ix, err := ingest.New(ctx, st, ingest.Options{Source: g.source, Splitter: sp, Embedder: emb, Readers: readers, KeepBoilerplate: g.whole})
		if err != nil {
			return did, err
		}
		stats, err := ix.Index(ctx, ps...)
		did = append(did, fmt.Sprintf("re-read %d of %d documents of source %s whose chunks were lost", stats.Updated+stats.Added, len(ps), g.source))
		if err != nil {
			errs = append(errs, err)
		}
	}
	return did, errors.Join(errs...)
}

func runReindex(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "reindex", "", `Re-embed every chunk of the index with another embedder, without re-reading
or re-chunking files: hash[:DIM], ollama:MODEL (OLLAMA_HOST) or openai:MODEL
(OPENAI_BASE_URL, OPENAI_API_KEY). The old vectors are dropped first; if the
run stops, cite index or cite check --repair finishes it.`, false)
	spec := f.String("embedder", "", "the new embedder (required)")
	if err := f.parse(args); err != nil {
		return err
	}
	if *spec == "" || f.NArg() > 0 {
		return f.usageError("reindex needs --embedder SPEC and no arguments")
	}
	emb, err := e.embedder(*spec)
	if err != nil {
		return f.usageError("--embedder: %v", err)
	}
	if err := f.needIndex(ctx); err != nil {
		return err
	}
	unlock, err := lockIndex(ctx, e, f.index)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := f.openIndex(ctx, writeIndex)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.ResetVectors(ctx, emb); err != nil {
		return err
	}
	total, err := st.CountMissingVectors(ctx)
	if err != nil {
		return err
	}
	n, err := ingest.FillVectors(ctx, st, emb, func(done int) {
		if isTerminal(e.stderr) {
			fmt.Fprintf(e.stderr, "\r%d/%d chunks embedded", done, total)
		}
	})
	if isTerminal(e.stderr) {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}
	fmt.Fprintf(e.stdout, "%d of %d chunks embedded with %s\n", n, total, emb.Name())
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("%w (cite index or cite check --repair embeds the rest)", err)
	}
	return nil
}
