// Package eval measures retrieval on a question-answering set: it indexes
// the set's articles, asks every question in each search mode, and reports
// Recall@1/5/20, MRR@10, nDCG@10 and query latency. A retrieved chunk hits
// a question when its byte range in the article file overlaps the byte
// range of the question's gold passage; or, judged by text (for the set
// written in other formats, whose spans are of their extracted text), when
// it is from the gold passage's article and shares a run of its words.
//
// The set is a folder in the layout of the shared SQuAD half:
//
//	articles/*.md          the documents
//	questions.jsonl        {"id", "question", "passage_id", "answers", ...}
//	passage_spans.jsonl    {"passage_id", "doc", "byte_start", "byte_end"},
//	                       doc relative to the folder
//
// eval sits above ingest and search, and is imported by cmd/cite only.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/search"
)

// Question is one question with where its answer lies.
type Question struct {
	ID        string `json:"id"`
	Text      string `json:"question"`
	PassageID string `json:"passage_id"`
	// Answers are the gold answers, as written in the passage (optional;
	// [RunAnswers] judges by them).
	Answers []string `json:"answers"`
	Doc     string   `json:"-"` // absolute path of the gold passage's file
	Start   int      `json:"-"` // gold passage's byte range in Doc
	End     int      `json:"-"`
}

// Set is a loaded question-answering set.
type Set struct {
	Dir       string
	Articles  string // folder of the documents
	Questions []Question
}

// Load reads a set from dir.
func Load(dir string) (*Set, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	s := &Set{Dir: abs, Articles: filepath.Join(abs, "articles")}
	if fi, err := os.Stat(s.Articles); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("qa set %s: no articles/ folder", dir)
	}
	type span struct {
		PassageID string `json:"passage_id"`
		Doc       string `json:"doc"`
		Start     int    `json:"byte_start"`
		End       int    `json:"byte_end"`
	}
	spans := map[string]span{}
	lines := map[string]int{}
	sizes := map[string]int64{}
	err = readJSONL(filepath.Join(abs, "passage_spans.jsonl"), func(line int, raw []byte) error {
		var sp span
		if err := json.Unmarshal(raw, &sp); err != nil {
			return err
		}
		if sp.PassageID == "" || sp.Doc == "" || sp.Start < 0 || sp.End <= sp.Start {
			return errors.New("want passage_id, doc and 0 <= byte_start < byte_end")
		}
		if at, dup := lines[sp.PassageID]; dup {
			return fmt.Errorf("passage %q is given twice (line %d too)", sp.PassageID, at)
		}
		if !filepath.IsLocal(filepath.FromSlash(sp.Doc)) {
			return fmt.Errorf("doc %q: want a path inside the set's folder, such as articles/NAME", sp.Doc)
		}
		size, ok := sizes[sp.Doc]
		if !ok {
			fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(sp.Doc)))
			if err != nil || !fi.Mode().IsRegular() {
				return fmt.Errorf("doc %q: no such file in %s", sp.Doc, dir)
			}
			size = fi.Size()
			sizes[sp.Doc] = size
		}
		if int64(sp.End) > size {
			return fmt.Errorf("passage %q: byte_end %d is past the end of %s (%d bytes)", sp.PassageID, sp.End, sp.Doc, size)
		}
		spans[sp.PassageID], lines[sp.PassageID] = sp, line
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readJSONL(filepath.Join(abs, "questions.jsonl"), func(line int, raw []byte) error {
		var q Question
		if err := json.Unmarshal(raw, &q); err != nil {
			return err
		}
		if q.ID == "" || strings.TrimSpace(q.Text) == "" {
			return errors.New("want id and question")
		}
		sp, ok := spans[q.PassageID]
		if !ok {
			return fmt.Errorf("question %s: passage %q has no span in passage_spans.jsonl", q.ID, q.PassageID)
		}
		q.Doc, q.Start, q.End = filepath.Join(abs, filepath.FromSlash(sp.Doc)), sp.Start, sp.End
		s.Questions = append(s.Questions, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(s.Questions) == 0 {
		return nil, fmt.Errorf("qa set %s: no questions", dir)
	}
	return s, nil
}

func readJSONL(path string, fn func(line int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// Index brings the index in store up to date with the set's articles.
// sp cuts the articles (nil: chunk.New's defaults).
func (s *Set) Index(ctx context.Context, store *index.Store, emb *embed.Embedder, sp *chunk.Splitter) (ingest.Stats, error) {
	ix, err := ingest.New(ctx, store, ingest.Options{Embedder: emb, Splitter: sp})
	if err != nil {
		return ingest.Stats{}, err
	}
	return ix.Index(ctx, s.Articles)
}

// Metrics are the retrieval quality and speed of one configuration.
type Metrics struct {
	Name      string        `json:"name"` // mode, or mode and fusion
	Questions int           `json:"questions"`
	Recall1   float64       `json:"recall_at_1"`
	Recall5   float64       `json:"recall_at_5"`
	Recall20  float64       `json:"recall_at_20"`
	MRR10     float64       `json:"mrr_at_10"`
	NDCG10    float64       `json:"ndcg_at_10"`
	P50       time.Duration `json:"p50_ns,omitempty"`
	P99       time.Duration `json:"p99_ns,omitempty"`
}

// Depth is how deep each ranking is judged: Recall@20 needs 20.
const Depth = 20

// judge holds what is known of the index's chunks for judging hits.
type judge struct {
	store *index.Store
	text  *textJudge          // judging by text, or nil: by span
	spans map[int64]chunkSpan // by rowid
	ideal map[string]int      // question id -> chunks overlapping its passage
}

type chunkSpan struct {
	path       string
	start, end int
	text       string
}

// right reports whether a chunk of the document at path, its span in the
// document's file and its text, is right for q.
func (j *judge) right(q Question, path string, start, end int, text string) (bool, error) {
	if j.text != nil {
		return j.text.right(q, path, text)
	}
	return path == q.Doc && start < q.End && q.Start < end, nil
}

func newJudge(ctx context.Context, store *index.Store, qs []Question, byText bool) (*judge, error) {
	j := &judge{store: store, spans: map[int64]chunkSpan{}, ideal: map[string]int{}}
	if byText {
		j.text = newTextJudge()
	}
	docs, err := store.Documents(ctx, "")
	if err != nil {
		return nil, err
	}
	byPath := map[string][]index.Chunk{}
	for _, d := range docs {
		cs, err := store.Chunks(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		key := d.Path
		if byText {
			key = Article(d.Path)
		}
		byPath[key] = append(byPath[key], cs...)
	}
	for _, q := range qs {
		n := 0
		key := q.Doc
		if byText {
			key = Article(q.Doc)
		}
		for _, c := range byPath[key] {
			ok, err := j.right(q, q.Doc, c.SourceStart, c.SourceEnd, c.Text)
			if err != nil {
				return nil, err
			}
			if ok {
				n++
			}
		}
		if n == 0 && len(byPath[key]) == 0 {
			// Not a passage out of step with its document: the document
			// itself is missing.
			return nil, fmt.Errorf("question %s: its document %s is not in the index (missing from the set's articles, skipped when indexed, or the index is not built from this set)", q.ID, q.Doc)
		}
		if n == 0 {
			if byText {
				return nil, fmt.Errorf("question %s: no indexed chunk of article %s shares %d words in a row with its passage: is the index built from this set?", q.ID, Article(q.Doc), ShingleWords)
			}
			return nil, fmt.Errorf("question %s: no indexed chunk overlaps its passage (%s bytes %d-%d): is the index built from this set?", q.ID, q.Doc, q.Start, q.End)
		}
		j.ideal[q.ID] = n
	}
	return j, nil
}

// relevant returns, for each ranked chunk, whether it overlaps q's passage.
func (j *judge) relevant(ctx context.Context, q Question, ranked []int64) ([]bool, error) {
	var unknown []int64
	for _, r := range ranked {
		if _, ok := j.spans[r]; !ok {
			unknown = append(unknown, r)
		}
	}
	if len(unknown) > 0 {
		recs, err := j.store.ChunksByRowid(ctx, unknown)
		if err != nil {
			return nil, err
		}
		for r, c := range recs {
			j.spans[r] = chunkSpan{c.Document.Path, c.SourceStart, c.SourceEnd, c.Text}
		}
	}
	rel := make([]bool, len(ranked))
	for i, r := range ranked {
		c := j.spans[r]
		ok, err := j.right(q, c.path, c.start, c.end, c.text)
		if err != nil {
			return nil, err
		}
		rel[i] = ok
	}
	return rel, nil
}

// tally accumulates metrics over questions.
type tally struct {
	n                      int
	r1, r5, r20, mrr, ndcg float64
	latencies              []time.Duration
}

func (t *tally) add(rel []bool, ideal int) {
	t.n++
	first := -1
	for i, ok := range rel {
		if ok {
			first = i
			break
		}
	}
	if first >= 0 {
		if first < 1 {
			t.r1++
		}
		if first < 5 {
			t.r5++
		}
		if first < 20 {
			t.r20++
		}
		if first < 10 {
			t.mrr += 1 / float64(first+1)
		}
	}
	var dcg, idcg float64
	for i := 0; i < 10 && i < len(rel); i++ {
		if rel[i] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < 10 && i < ideal; i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		t.ndcg += dcg / idcg
	}
}

func (t *tally) metrics(name string) Metrics {
	n := float64(max(t.n, 1))
	m := Metrics{Name: name, Questions: t.n, Recall1: t.r1 / n, Recall5: t.r5 / n, Recall20: t.r20 / n, MRR10: t.mrr / n, NDCG10: t.ndcg / n}
	if len(t.latencies) > 0 {
		slices.Sort(t.latencies)
		m.P50 = percentile(t.latencies, 0.50)
		m.P99 = percentile(t.latencies, 0.99)
	}
	return m
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Options configure [Run].
type Options struct {
	// Modes to measure (default all); hybrid uses the searcher's fusion.
	Modes []search.Mode
	// Fusions are extra hybrid configurations measured on the same BM25 and
	// vector rankings (for choosing weights).
	Fusions []search.Fusion
	// Limit caps the questions asked (0: all).
	Limit int
	// ByText judges hits by their text instead of their byte spans: a hit
	// is right when its document holds the gold passage's article (the
	// same file name but for the extension, in any format) and it shares
	// a run of [ShingleWords] words with the passage. It is how a set
	// written in other formats (PDF, Word, ...), whose spans are of their
	// extracted text, is compared with the Markdown originals, which must
	// then be judged by text too.
	ByText bool
	// Hits, if set, is called with each question's hits in each mode.
	Hits func(q Question, mode search.Mode, hits []search.Hit)
	// Progress, if set, is called after each question.
	Progress func(done, total int)
}

// Run asks every question of the set with s, whose index must hold the
// set's articles (store is the local index that lists them, s may search
// it or a replica of it), and returns one Metrics per mode, then per extra fusion.
// Latency is measured per mode over whole searches (search.Searcher.Search,
// hits read from the index included).
func Run(ctx context.Context, set *Set, store *index.Store, s *search.Searcher, opts Options) ([]Metrics, error) {
	modes := opts.Modes
	if len(modes) == 0 {
		modes = search.Modes
	}
	qs := set.Questions
	if opts.Limit > 0 && opts.Limit < len(qs) {
		qs = qs[:opts.Limit]
	}
	j, err := newJudge(ctx, store, qs, opts.ByText)
	if err != nil {
		return nil, err
	}
	tallies := make([]tally, len(modes)+len(opts.Fusions))
	for qi, q := range qs {
		for mi, mode := range modes {
			start := time.Now()
			res, err := s.Search(ctx, search.Query{Text: q.Text, K: Depth, Mode: mode})
			elapsed := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("question %s (%s): %w", q.ID, mode, err)
			}
			// A hit carries its document and span: judged as it is, so
			// that a searcher over another store (Weaviate) is judged the
			// same way.
			rel := make([]bool, len(res.Hits))
			for i, h := range res.Hits {
				if rel[i], err = j.right(q, h.Document.Path, h.SourceSpan.Start, h.SourceSpan.End, h.Text); err != nil {
					return nil, err
				}
			}
			if opts.Hits != nil {
				opts.Hits(q, mode, res.Hits)
			}
			tallies[mi].add(rel, j.ideal[q.ID])
			tallies[mi].latencies = append(tallies[mi].latencies, elapsed)
		}
		if len(opts.Fusions) > 0 {
			bm, vec, err := s.Candidates(ctx, search.Query{Text: q.Text, Mode: search.Hybrid}, 3*Depth)
			if err != nil {
				return nil, fmt.Errorf("question %s: %w", q.ID, err)
			}
			for fi, f := range opts.Fusions {
				fused := f.Rank(bm, vec)
				ranked := make([]int64, min(len(fused), Depth))
				for i := range ranked {
					ranked[i] = fused[i].Chunk
				}
				rel, err := j.relevant(ctx, q, ranked)
				if err != nil {
					return nil, err
				}
				tallies[len(modes)+fi].add(rel, j.ideal[q.ID])
			}
		}
		if opts.Progress != nil {
			opts.Progress(qi+1, len(qs))
		}
	}
	out := make([]Metrics, 0, len(tallies))
	for mi, mode := range modes {
		name := string(mode)
		if mode == search.Hybrid {
			name += " " + s.Fusion.String()
		}
		out = append(out, tallies[mi].metrics(name))
	}
	for fi, f := range opts.Fusions {
		out = append(out, tallies[len(modes)+fi].metrics("hybrid "+f.String()))
	}
	return out, nil
}
