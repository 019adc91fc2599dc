// Package embed turns texts into vectors for cite's index: the built-in
// hash embedder ([NewHash]) and models served by Ollama or an
// OpenAI-compatible server ([NewOllama], [NewOpenAI]), named by a spec
// string ([New]). It cuts long texts in windows, sends them in batches with
// bounded concurrency, checks and normalizes the vectors.
//
// It sits under index and beside it: the store needs of an embedder only
// its name and dimension. It imports index/analysis (the hash embedder's
// terms) and package provider (the model clients); it is the only home of
// github.com/cespare/xxhash and github.com/sourcegraph/conc.
//
// Usage:
//
//	emb, err := embed.New("hash", embed.Config{})
//	emb, err := embed.New("ollama:nomic-embed-text", embed.Config{Provider: provider.ConfigFromEnv(os.Getenv)})
//	vecs, err := emb.EmbedDocuments(ctx, texts)
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/sourcegraph/conc/pool"

	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/provider"
)

// Func embeds one text as a unit-length vector. It has the shape of
// chromem-go's EmbeddingFunc: chromem.EmbeddingFunc(f) converts it.
type Func func(ctx context.Context, text string) ([]float32, error)

// ErrEmptyText is returned when asked to embed a text that is empty or only
// white space: it has no vector.
var ErrEmptyText = errors.New("empty text")

var errNoEmbedder = errors.New("embed: no embedder (use New)")

// Embedder embeds texts with one model: the built-in hash embedder
// ([NewHash]) or a model served over HTTP ([NewOllama], [NewOpenAI]). [New]
// builds one from a spec string.
//
// Vectors are unit length (chromem-go ranks by dot product and assumes it).
// A text longer than the model accepts ([Embedder.MaxInput]) is never
// truncated: it is embedded as consecutive windows that cover it whole, and
// its vector is the mean of the windows' vectors, weighted by their length,
// scaled back to unit length.
//
// An Embedder is safe for concurrent use.
type Embedder struct {
	name        string
	maxInput    int // runes; 0: no limit
	batchSize   int
	concurrency int
	docPrefix   string
	queryPrefix string
	dim         atomic.Int64
	impl        embedder
}

// embedder is what a model implements: the hash embedder, or a
// *provider.Embedder.
type embedder interface {
	// embed returns one vector per text, in order. The vectors need not be
	// unit length; the Embedder validates and normalizes them.
	embed(ctx context.Context, texts []string) ([][]float32, error)
}

// queryEmbedder is implemented by providers that embed queries differently
// from documents (the hash embedder weighs query terms by idf).
type queryEmbedder interface {
	embedQuery(text string, idf func(term string) float64) []float32
}

// Config configures an embedder of a model provider (Ollama or
// OpenAI-compatible); the zero value selects the defaults. The hash
// embedder ignores it.
type Config struct {
	// Provider says where the servers are, with which key and HTTP client
	// ([provider.ConfigFromEnv] reads them from the environment). Requests
	// are retried on transient failures by its [provider.Transport].
	Provider provider.Config

	// Dimensions asks the model for vectors of this size (OpenAI's
	// text-embedding-3 models and Ollama models that support truncating
	// their output). 0 lets the model choose.
	Dimensions int

	// MaxInput is the longest input, in runes (Unicode code points), sent in
	// one request item, prefix included. Longer texts are embedded in
	// windows. 0 selects a default from the model's context length in
	// tokens times 3 runes per token (512 tokens for models this package
	// does not know).
	MaxInput int

	// BatchSize is the number of inputs per call of the provider (default
	// 16 for Ollama, 32 for OpenAI).
	BatchSize int

	// Concurrency is the number of calls in flight (default 2 for Ollama,
	// 4 for OpenAI).
	Concurrency int

	// DocumentPrefix and QueryPrefix are prepended to documents and
	// queries, for models trained with task prefixes. Each defaults to the
	// known model's prefix when empty (nomic-embed-text: "search_document: "
	// and "search_query: "; mxbai-embed-large and snowflake-arctic-embed: a
	// query instruction). A spec's document_prefix option, even empty,
	// overrides the default.
	DocumentPrefix, QueryPrefix string

	// docPrefixSet records a document_prefix option in the spec, which may
	// set an empty prefix.
	docPrefixSet bool
}

// New returns the embedder that spec names:
//
//	hash                     the built-in hash embedder, default settings
//	hash:2048                ... with 2048 dimensions
//	hash:2048?ngrams=3-5&words=0.5
//	ollama:MODEL             a model served by Ollama (cfg.Provider.OllamaHost)
//	openai:MODEL             a model of an OpenAI-compatible API
//	                         (cfg.Provider.OpenAIBaseURL, OpenAIAPIKey)
//
// A provider spec may carry the options that change its vectors, as in
// [Embedder.Name]: "openai:text-embedding-3-small?dimensions=512",
// "ollama:MODEL?document_prefix=...". New(e.Name(), cfg) rebuilds an
// equivalent embedder, so the name an index records is enough to query it.
//
// cfg configures providers; New reads no environment variable. The hash
// embedder ignores cfg.
func New(spec string, cfg Config) (*Embedder, error) {
	base, rawOpts, _ := strings.Cut(spec, "?")
	kind, model, _ := strings.Cut(base, ":")
	opts, err := url.ParseQuery(rawOpts)
	if err != nil {
		return nil, fmt.Errorf("embedder %q: options: %w", spec, err)
	}
	switch kind {
	case "hash":
		hc, err := parseHashSpec(model, opts)
		if err != nil {
			return nil, fmt.Errorf("embedder %q: %w", spec, err)
		}
		return NewHash(hc)
	case "ollama", "openai":
		if model == "" {
			return nil, fmt.Errorf("embedder %q: missing model name (%s:MODEL)", spec, kind)
		}
		if err := applySpecOptions(&cfg, opts); err != nil {
			return nil, fmt.Errorf("embedder %q: %w", spec, err)
		}
		if kind == "ollama" {
			return NewOllama(model, cfg)
		}
		return NewOpenAI(model, cfg)
	}
	return nil, fmt.Errorf("embedder %q: unknown provider %q (want hash, ollama or openai)", spec, kind)
}

// applySpecOptions merges the options of a provider spec into cfg.
func applySpecOptions(cfg *Config, opts url.Values) error {
	for k, v := range opts {
		if len(v) != 1 {
			return fmt.Errorf("option %s given %d times", k, len(v))
		}
		switch k {
		case "dimensions":
			n, err := strconv.Atoi(v[0])
			if err != nil || n <= 0 {
				return fmt.Errorf("option dimensions=%q: want a positive integer", v[0])
			}
			if cfg.Dimensions != 0 && cfg.Dimensions != n {
				return fmt.Errorf("option dimensions=%d conflicts with configured %d", n, cfg.Dimensions)
			}
			cfg.Dimensions = n
		case "document_prefix":
			if cfg.DocumentPrefix != "" && cfg.DocumentPrefix != v[0] {
				return fmt.Errorf("option document_prefix=%q conflicts with configured %q", v[0], cfg.DocumentPrefix)
			}
			cfg.DocumentPrefix = v[0]
			cfg.docPrefixSet = true
		default:
			return fmt.Errorf("unknown option %q (want dimensions or document_prefix)", k)
		}
	}
	return nil
}

// providerName returns the canonical name of a provider's model: the
// options that change its document vectors are part of it.
func providerName(kind, model string, dimensions int, docPrefix, defaultDocPrefix string) string {
	v := url.Values{}
	if dimensions > 0 {
		v.Set("dimensions", strconv.Itoa(dimensions))
	}
	if docPrefix != defaultDocPrefix {
		v.Set("document_prefix", docPrefix)
	}
	name := kind + ":" + model
	if len(v) > 0 {
		name += "?" + v.Encode()
	}
	return name
}

// Name returns the canonical spec of the embedder ("hash:1024",
// "ollama:nomic-embed-text", "openai:text-embedding-3-small?dimensions=512"):
// two embedders with the same name give the same vectors. An index records
// it with [Embedder.Dim] to refuse vectors of another embedder.
func (e *Embedder) Name() string { return e.name }

// Dim returns the dimension of the vectors, or 0 while it is unknown: a
// model provider's dimension is learned from its first response (or set
// ahead by [Config.Dimensions]); [Embedder.ProbeDim] asks for it.
// Every later vector must have the same dimension.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// NoiseFloor returns the similarity below which a match means nothing: for
// the hash embedder, three standard deviations of the cosine that hash
// collisions alone give two texts with no feature in common (about
// 1/sqrt(dim)); for models, 0 (their similarities have no such floor).
// Search drops vector matches below it, so that a query sharing nothing
// with the index finds nothing rather than noise.
func (e *Embedder) NoiseFloor() float64 {
	if h, ok := e.impl.(*hashEmbedder); ok {
		return 3 / math.Sqrt(float64(h.dim))
	}
	return 0
}

// MaxInput returns the longest text, in runes, that the model embeds in one
// piece (prefix included), or 0 for no limit. Longer texts are embedded in
// windows.
func (e *Embedder) MaxInput() int { return e.maxInput }

// ProbeDim returns the dimension of the vectors, embedding a short text to
// learn it if it is not known yet.
func (e *Embedder) ProbeDim(ctx context.Context) (int, error) {
	if d := e.Dim(); d > 0 {
		return d, nil
	}
	if _, err := e.EmbedDocuments(ctx, []string{"dimension probe"}); err != nil {
		return 0, err
	}
	return e.Dim(), nil
}

// Func returns a [Func] that embeds its text as a document, for
// chromem-go. It is never nil, so chromem-go never falls back to its default
// (remote OpenAI) embedder; on a nil Embedder it returns an error.
//
// Queries need [Embedder.EmbedQuery] (query prefix, idf weighting) and
// chromem-go's QueryEmbedding, not this function.
func (e *Embedder) Func() Func {
	return func(ctx context.Context, text string) ([]float32, error) {
		vs, err := e.EmbedDocuments(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return vs[0], nil
	}
}

// EmbedDocuments embeds texts as documents and returns their unit vectors
// in order. Providers receive batches of [Config.BatchSize] inputs,
// with at most [Config.Concurrency] requests in flight; the first
// error cancels the others and is returned. An empty text is an error
// ([ErrEmptyText]).
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if e == nil || e.impl == nil {
		return nil, errNoEmbedder
	}
	for i, t := range texts {
		if isBlank(t) {
			return nil, fmt.Errorf("embed text %d: %w", i, ErrEmptyText)
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	if _, ok := e.impl.(*hashEmbedder); ok {
		return e.embedLocal(ctx, texts)
	}
	return e.embedWindows(ctx, texts, e.docPrefix)
}

// Local reports whether the embedder makes its vectors on this machine
// from the text alone (the hash embedder), which takes less time than
// reading stored vectors back; a model's vectors (a request to a server,
// and for a hosted model money) are worth keeping.
func (e *Embedder) Local() bool {
	_, ok := e.impl.(*hashEmbedder)
	return ok
}

// EmbedDocumentTerms embeds text as a document, as [Embedder.EmbedDocuments]
// does, when the embedder reads texts as analysis terms (the hash
// embedder), and calls each with every term of [analysis.Terms](text) in
// order as it goes: a caller that needs the terms too (the full-text
// index) has them without analyzing the text again. For the other
// embedders (models) ok is false and nothing is done: they embed with
// EmbedDocuments. The vector is written to dst[:dimensions] when dst has
// the capacity (what dst held is not read: a caller may hand back the
// memory of a vector it is done with), else to new memory. It is safe for
// concurrent use.
func (e *Embedder) EmbedDocumentTerms(dst []float32, text string, each func(*analysis.Term)) (v []float32, ok bool, err error) {
	if e == nil {
		return nil, false, errNoEmbedder
	}
	h, ok := e.impl.(*hashEmbedder)
	if !ok {
		return nil, false, nil
	}
	if isBlank(text) {
		return nil, true, fmt.Errorf("embed text: %w", ErrEmptyText)
	}
	return h.docVector(dst, text, each), true, nil
}

// EmbedQuery embeds a search query and returns its unit vector.
//
// The hash embedder weighs each query term by idf(term) (terms as
// [analysis.AnalyzeQuery] returns them; a character n-gram gets the weight of the
// word it comes from). idf should grow as a term gets rarer in the indexed
// documents: [analysis.IDF] over the full-text index's document frequencies is what
// the defaults were measured with. A nil idf weighs all terms alike;
// non-positive weights drop terms. Model providers ignore idf and prepend
// the model's query prefix.
func (e *Embedder) EmbedQuery(ctx context.Context, text string, idf func(term string) float64) ([]float32, error) {
	if e == nil || e.impl == nil {
		return nil, errNoEmbedder
	}
	if isBlank(text) {
		return nil, fmt.Errorf("embed query: %w", ErrEmptyText)
	}
	if q, ok := e.impl.(queryEmbedder); ok {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return q.embedQuery(text, idf), nil
	}
	vs, err := e.embedWindows(ctx, []string{text}, e.queryPrefix)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// embedLocal runs a CPU-bound embedder over texts on all cores.
func (e *Embedder) embedLocal(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), (len(texts)+7)/8)
	if workers <= 1 {
		for i, t := range texts {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			vs, err := e.impl.embed(ctx, []string{t})
			if err != nil {
				return nil, err
			}
			out[i] = vs[0]
		}
		return out, nil
	}
	var next atomic.Int64
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	for range workers {
		p.Go(func(ctx context.Context) error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				vs, err := e.impl.embed(ctx, texts[i:i+1])
				if err != nil {
					return err
				}
				out[i] = vs[0]
			}
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// embedWindows embeds texts with a model provider: each text, prefixed,
// is cut in windows of at most e.maxInput runes, windows are sent in
// batches, and each text's vector is the length-weighted mean of its
// windows' unit vectors, normalized.
func (e *Embedder) embedWindows(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	var inputs []string
	var owner []int
	var weight []float64
	limit := 0
	if e.maxInput > 0 {
		limit = max(e.maxInput-utf8.RuneCountInString(prefix), 1)
	}
	for i, t := range texts {
		for _, w := range splitWindows(t, limit) {
			inputs = append(inputs, prefix+w)
			owner = append(owner, i)
			weight = append(weight, float64(utf8.RuneCountInString(w)))
		}
	}
	vecs := make([][]float32, len(inputs))
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(e.concurrency)
	for b := 0; b < len(inputs); b += e.batchSize {
		end := min(b+e.batchSize, len(inputs))
		p.Go(func(ctx context.Context) error {
			vs, err := e.impl.embed(ctx, inputs[b:end])
			if errors.Is(err, provider.ErrInputTooLong) {
				return fmt.Errorf("%w: lower the embedder's max input (now %d runes)", err, e.maxInput)
			}
			if err != nil {
				return err
			}
			if err := e.checkVectors(vs, end-b); err != nil {
				return err
			}
			copy(vecs[b:end], vs)
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	sums := make([]float64, e.Dim())
	for k := 0; k < len(inputs); {
		i := owner[k]
		j := k + 1
		for j < len(inputs) && owner[j] == i {
			j++
		}
		if j-k == 1 {
			out[i] = normalized(vecs[k])
			k = j
			continue
		}
		clear(sums)
		for ; k < j; k++ {
			n := l2norm32(vecs[k])
			for d, x := range vecs[k] {
				sums[d] += weight[k] * float64(x) / n
			}
		}
		out[i] = normalized64(sums)
	}
	return out, nil
}

// checkVectors validates a provider's answer to a batch of n inputs and
// learns the dimension from the first valid answer.
func (e *Embedder) checkVectors(vs [][]float32, n int) error {
	if len(vs) != n {
		return e.invalid(fmt.Errorf("%d embeddings for %d inputs", len(vs), n))
	}
	for i, v := range vs {
		if len(v) == 0 {
			return e.invalid(fmt.Errorf("embedding %d is empty", i))
		}
		if len(v) != len(vs[0]) {
			return e.invalid(fmt.Errorf("embedding %d has dimension %d, want %d", i, len(v), len(vs[0])))
		}
		var sum float64
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return e.invalid(fmt.Errorf("embedding %d has %v at index %d", i, x, j))
			}
			sum += float64(x) * float64(x)
		}
		if sum == 0 {
			return e.invalid(fmt.Errorf("embedding %d is all zeros", i))
		}
	}
	if n > 0 && !e.dim.CompareAndSwap(0, int64(len(vs[0]))) {
		if d := e.Dim(); len(vs[0]) != d {
			return e.invalid(fmt.Errorf("embeddings have dimension %d, want %d", len(vs[0]), d))
		}
	}
	return nil
}

func (e *Embedder) invalid(err error) error {
	kind, model, _ := strings.Cut(e.name, ":")
	model, _, _ = strings.Cut(model, "?")
	return &provider.Error{Op: "embed", Provider: kind, Model: model, Err: fmt.Errorf("invalid response: %w", err)}
}

// splitWindows cuts text in consecutive pieces of at most limit runes that
// cover it whole, cutting after white space where there is some in the last
// half of a window. limit 0 means no limit.
func splitWindows(text string, limit int) []string {
	if limit <= 0 || utf8.RuneCountInString(text) <= limit {
		return []string{text}
	}
	var out []string
	for text != "" {
		// Byte offset after limit runes.
		end, n := 0, 0
		for end < len(text) && n < limit {
			_, size := utf8.DecodeRuneInString(text[end:])
			end += size
			n++
		}
		if end < len(text) {
			// Back up to just after the last space in the last half.
			cut := -1
			back, k := end, 0
			for back > 0 && k < limit/2 {
				r, size := utf8.DecodeLastRuneInString(text[:back])
				if unicode.IsSpace(r) {
					cut = back
					break
				}
				back -= size
				k++
			}
			if cut > 0 {
				end = cut
			}
		}
		out = append(out, text[:end])
		text = text[end:]
	}
	return out
}

func l2norm32(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// normalized returns v scaled to unit length (a copy).
func normalized(v []float32) []float32 {
	n := l2norm32(v)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// normalized64 returns v scaled to unit length, as float32.
func normalized64(v []float64) []float32 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	n := math.Sqrt(s)
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}
