package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/eval"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/search"
)

func runEval(ctx context.Context, e *env, args []string) error {
	f := newFlags(e, "eval", "--qa DIR", `Measure retrieval on a question-answering set (the layout of
../shared/data/squad: articles/*.md, questions.jsonl, passage_spans.jsonl):
index its articles, ask every question in each mode, and print Recall@1/5/20,
MRR@10, nDCG@10 and query latency. A hit is a chunk whose byte range in its
file overlaps the gold passage's. The index is a temporary one unless
--index is given.

With --answers, answer every question instead with the extractive model
(the offline default of cite ask) from the top -k hybrid hits, and print
the share of answers whose first cited passage, and first cited sentence,
contains a gold answer, beside the top hit's share, and the number of
answers that break the citation contract.`, true)
	qa := f.String("qa", "", "the question-answering set's folder (required)")
	spec := f.String("embedder", "hash", "embedder: hash[:DIM], ollama:MODEL or openai:MODEL")
	limit := f.Int("limit", 0, "ask only the first N questions")
	fusions := f.String("fusion", "", "comma-separated hybrid fusions to compare, METHOD:BM25WEIGHT:VECTORWEIGHT")
	tune := f.Bool("tune", false, "compare a grid of fusions (max, minmax and rrf over weights 0.1 to 0.9)")
	size := f.Int("chunk-size", chunk.DefaultSize, "maximum tokens per chunk")
	overlap := f.Int("chunk-overlap", chunk.DefaultOverlap, "tokens shared by consecutive chunks (0 for none)")
	answers := f.Bool("answers", false, "measure extractive answers instead of retrieval")
	k := f.Int("k", eval.DefaultAnswerK, "with --answers: passages per answer")
	if err := f.parse(args); err != nil {
		return err
	}
	if *qa == "" || f.NArg() > 0 {
		return f.usageError("eval needs --qa DIR and no arguments")
	}
	if flagSet(f, "k") && !*answers {
		return f.usageError("-k is the passages per answer of --answers; retrieval is judged at 1, 5, 10 and 20")
	}
	if *k < 1 {
		return f.usageError("-k %d: want 1 or more passages per answer", *k)
	}
	set, err := eval.Load(*qa)
	if err != nil {
		return err
	}
	var extra []search.Fusion
	if *fusions != "" {
		for _, s := range strings.Split(*fusions, ",") {
			fu, err := search.ParseFusion(strings.TrimSpace(s))
			if err != nil {
				return f.usageError("--fusion: %v", err)
			}
			extra = append(extra, fu)
		}
	}
	if *tune {
		extra = append(extra, fusionGrid()...)
	}
	emb, err := e.embedder(*spec)
	if err != nil {
		return f.usageError("--embedder: %v", err)
	}
	if *overlap == 0 {
		*overlap = -1 // chunk.Options: -1 means none, 0 the default
	}
	sp, err := chunk.New(chunk.Options{Size: *size, Overlap: *overlap})
	if err != nil {
		return f.usageError("%v", err)
	}
	dir := f.index
	if !flagSet(f, "index") {
		tmp, err := os.MkdirTemp("", "cite-eval-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := onlyArticles(ctx, st, set); err != nil {
		return fmt.Errorf("--index %s: %w", dir, err)
	}
	stats, err := set.Index(ctx, st, emb, sp)
	if err != nil {
		return err
	}
	s, err := search.New(ctx, st, emb)
	if err != nil {
		return err
	}
	asked := len(set.Questions)
	if *limit > 0 && *limit < asked {
		asked = *limit
	}
	if !f.json {
		fmt.Fprintf(e.stdout, "%s: %d articles, %d chunks (%s), %d questions\n\n", *qa, stats.Seen, countChunks(ctx, st), emb.Name(), asked)
	}
	if *answers {
		return evalAnswers(ctx, e, f, set, st, s, *k, *limit)
	}
	ms, err := eval.Run(ctx, set, st, s, eval.Options{Fusions: extra, Limit: *limit, Progress: func(done, total int) {
		if isTerminal(e.stderr) && done%100 == 0 {
			fmt.Fprintf(e.stderr, "\r%d/%d questions", done, total)
		}
	}})
	if isTerminal(e.stderr) {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(e.stdout, map[string]any{"embedder": emb.Name(), "chunks": countChunks(ctx, st), "results": ms})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "MODE\tRECALL@1\tRECALL@5\tRECALL@20\tMRR@10\tNDCG@10\tP50\tP99\t")
	for _, m := range ms {
		lat := "\t"
		if m.P50 > 0 {
			lat = fmt.Sprintf("%.2fms\t%.2fms", float64(m.P50.Microseconds())/1000, float64(m.P99.Microseconds())/1000)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t\n", m.Name, m.Recall1, m.Recall5, m.Recall20, m.MRR10, m.NDCG10, lat)
	}
	return tw.Flush()
}

// onlyArticles returns an error if st holds documents other than set's
// articles: cite eval would add the articles to another index (a user's),
// and judge retrieval over both.
func onlyArticles(ctx context.Context, st *index.Store, set *eval.Set) error {
	docs, err := st.Documents(ctx, "")
	if err != nil {
		return err
	}
	var other []index.Document
	for _, d := range docs {
		if rel, err := filepath.Rel(set.Articles, d.Path); err != nil || !filepath.IsLocal(rel) {
			other = append(other, d)
		}
	}
	if len(other) == 0 {
		return nil
	}
	return fmt.Errorf("the index holds %s that %s not the set's articles (%s): cite eval indexes the set into an index of its own; give a new folder, or none for a temporary one",
		nof(len(other), "document"), map[bool]string{true: "is", false: "are"}[len(other) == 1], other[0].Path)
}

// evalAnswers runs cite eval --answers.
func evalAnswers(ctx context.Context, e *env, f *flags, set *eval.Set, st *index.Store, s *search.Searcher, k, limit int) error {
	model := answer.NewExtractive(answer.ExtractiveOptions{TermStats: st.TermStats})
	m, err := eval.RunAnswers(ctx, set, s, model, eval.AnswerOptions{K: k, Limit: limit, Progress: func(done, total int) {
		if isTerminal(e.stderr) && done%100 == 0 {
			fmt.Fprintf(e.stderr, "\r%d/%d questions", done, total)
		}
	}})
	if isTerminal(e.stderr) {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(e.stdout, m)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "MODEL\tK\tANSWERED\tTOP HIT\tANY HIT\tFIRST PASSAGE\tFIRST SENTENCE\tVIOLATIONS\tUNLOCATED\tP50\tP99\t")
	fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%.2fms\t%.2fms\t\n", m.Model, m.K, m.Answered, m.TopHit, m.AnyHit,
		m.FirstPassage, m.FirstSentence, m.Violations, m.Unlocated, float64(m.P50.Microseconds())/1000, float64(m.P99.Microseconds())/1000)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, ex := range m.Examples {
		fmt.Fprintln(e.stdout, "violation:", shown(ex))
	}
	return nil
}

// fusionGrid returns the fusions cite eval --tune compares.
func fusionGrid() []search.Fusion {
	var out []search.Fusion
	for _, method := range []string{"max", "minmax"} {
		for w := 1; w <= 9; w++ {
			out = append(out, search.Fusion{Method: method, BM25Weight: float64(10-w) / 10, VectorWeight: float64(w) / 10})
		}
	}
	for _, w := range []float64{1, 0.5, 0.25} {
		out = append(out, search.Fusion{Method: "rrf", BM25Weight: 1, VectorWeight: w})
	}
	return out
}

func countChunks(ctx context.Context, st *index.Store) int {
	srcs, err := st.Sources(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, s := range srcs {
		n += s.Chunks
	}
	return n
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(f *flags, name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}
