package embed

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cite-rag/cite/provider"
)

// NewOllama returns an embedder for a model served by Ollama at
// cfg.Provider.OllamaHost (default http://127.0.0.1:11434). The model's
// name drops a ":latest" tag, which Ollama implies.
func NewOllama(model string, cfg Config) (*Embedder, error) {
	model = strings.TrimSuffix(strings.TrimSpace(model), ":latest")
	if model == "" {
		return nil, fmt.Errorf("ollama embedder: missing model name")
	}
	e, err := newProviderEmbedder("ollama", model, knownModel(model), cfg, 16, 2)
	if err != nil {
		return nil, err
	}
	p, err := provider.NewOllamaEmbedder(cfg.Provider, model, cfg.Dimensions)
	if err != nil {
		return nil, err
	}
	e.impl = remote{p}
	return e, nil
}

// NewOpenAI returns an embedder for a model of an OpenAI-compatible API at
// cfg.Provider.OpenAIBaseURL (default https://api.openai.com/v1),
// authenticated by cfg.Provider.OpenAIAPIKey if set.
func NewOpenAI(model string, cfg Config) (*Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, fmt.Errorf("openai embedder: missing model name")
	}
	e, err := newProviderEmbedder("openai", model, knownModel(model), cfg, 32, 4)
	if err != nil {
		return nil, err
	}
	p, err := provider.NewOpenAIEmbedder(cfg.Provider, model, cfg.Dimensions)
	if err != nil {
		return nil, err
	}
	e.impl = remote{p}
	return e, nil
}

// remote is a model provider's embedder.
type remote struct{ p *provider.Embedder }

var _ embedder = remote{}

func (r remote) embed(ctx context.Context, texts []string) ([][]float32, error) {
	return r.p.EmbedDocuments(ctx, texts)
}

// modelInfo is what this package knows of a model.
type modelInfo struct {
	contextTokens int    // longest input, in tokens
	docPrefix     string // prepended to documents
	queryPrefix   string // prepended to queries
}

const (
	// runesPerToken converts a context length in tokens to a conservative
	// [Embedder.MaxInput] in runes: English prose runs about 4 runes per
	// token, code and other scripts fewer.
	runesPerToken = 3
	// defaultContextTokens is assumed for models not in knownModels.
	defaultContextTokens = 512
	retrievalQuery       = "Represent this sentence for searching relevant passages: "
	// minWindow is the least number of runes of text a window must hold.
	minWindow = 16
)

// knownModels lists the context length and task prefixes of common
// embedding models, by name without tag or namespace.
var knownModels = map[string]modelInfo{
	"nomic-embed-text":                     {2048, "search_document: ", "search_query: "},
	"nomic-embed-text-v2-moe":              {512, "search_document: ", "search_query: "},
	"mxbai-embed-large":                    {512, "", retrievalQuery},
	"snowflake-arctic-embed":               {512, "", retrievalQuery},
	"snowflake-arctic-embed2":              {8192, "", "query: "},
	"all-minilm":                           {256, "", ""},
	"bge-m3":                               {8192, "", ""},
	"bge-large":                            {512, "", ""},
	"granite-embedding":                    {512, "", ""},
	"paraphrase-multilingual":              {128, "", ""},
	"embeddinggemma":                       {2048, "title: none | text: ", "task: search result | query: "},
	"text-embedding-3-small":               {8191, "", ""},
	"text-embedding-3-large":               {8191, "", ""},
	"text-embedding-ada-002":               {8191, "", ""},
	"text-embedding-nomic-embed-text-v1.5": {2048, "search_document: ", "search_query: "},
}

// knownModel returns what is known of model ("namespace/name:tag").
func knownModel(model string) modelInfo {
	name, _, _ := strings.Cut(model, ":")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if info, ok := knownModels[strings.ToLower(name)]; ok {
		return info
	}
	return modelInfo{contextTokens: defaultContextTokens}
}

// newProviderEmbedder fills the parts of an Embedder common to model
// providers; the caller sets impl.
func newProviderEmbedder(kind, model string, info modelInfo, cfg Config, batch, conc int) (*Embedder, error) {
	if cfg.Dimensions < 0 || cfg.MaxInput < 0 || cfg.BatchSize < 0 || cfg.Concurrency < 0 {
		return nil, fmt.Errorf("%s embedder: negative setting: dimensions %d, max input %d, batch size %d, concurrency %d",
			kind, cfg.Dimensions, cfg.MaxInput, cfg.BatchSize, cfg.Concurrency)
	}
	docPrefix, queryPrefix := cfg.DocumentPrefix, cfg.QueryPrefix
	if docPrefix == "" && !cfg.docPrefixSet {
		docPrefix = info.docPrefix
	}
	if queryPrefix == "" {
		queryPrefix = info.queryPrefix
	}
	e := &Embedder{
		name:        providerName(kind, model, cfg.Dimensions, docPrefix, info.docPrefix),
		maxInput:    cfg.MaxInput,
		batchSize:   cfg.BatchSize,
		concurrency: cfg.Concurrency,
		docPrefix:   docPrefix,
		queryPrefix: queryPrefix,
	}
	if e.maxInput == 0 {
		e.maxInput = info.contextTokens * runesPerToken
	}
	longest := max(utf8.RuneCountInString(docPrefix), utf8.RuneCountInString(queryPrefix))
	if e.maxInput < longest+minWindow {
		return nil, fmt.Errorf("%s embedder: max input %d runes leaves less than %d for the text after the %d-rune prefix", kind, e.maxInput, minWindow, longest)
	}
	if e.batchSize == 0 {
		e.batchSize = batch
	}
	if e.concurrency == 0 {
		e.concurrency = conc
	}
	if cfg.Dimensions > 0 {
		e.dim.Store(int64(cfg.Dimensions))
	}
	return e, nil
}
