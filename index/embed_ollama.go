package index

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// defaultOllamaHost is where Ollama listens unless OLLAMA_HOST says
// otherwise.
const defaultOllamaHost = "http://127.0.0.1:11434"

// ollamaEmbedder calls Ollama's embedding API, POST /api/embed.
type ollamaEmbedder struct {
	api        *httpAPI
	model      string
	dimensions int
}

var _ embedder = (*ollamaEmbedder)(nil)

// ollamaRequest is the body of POST /api/embed.
type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// Truncate false makes Ollama refuse an input longer than the model's
	// context instead of silently cutting it.
	Truncate   bool `json:"truncate"`
	Dimensions int  `json:"dimensions,omitempty"`
}

// ollamaResponse is the part of the answer of POST /api/embed we use.
type ollamaResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

// NewOllamaEmbedder returns an embedder for a model served by Ollama at
// cfg.BaseURL (OLLAMA_HOST's syntax; default http://127.0.0.1:11434). It
// reads no environment variable: [NewEmbedder] does. The model's name
// drops a ":latest" tag, which Ollama implies.
func NewOllamaEmbedder(model string, cfg EmbedderConfig) (*Embedder, error) {
	model = strings.TrimSuffix(strings.TrimSpace(model), ":latest")
	if model == "" {
		return nil, fmt.Errorf("ollama embedder: missing model name")
	}
	base, err := ollamaHost(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("ollama embedder: %w", err)
	}
	endpoint := base.JoinPath("api", "embed")
	if strings.HasSuffix(strings.TrimSuffix(base.Path, "/"), "/api") {
		endpoint = base.JoinPath("embed")
	}
	cfg.APIKey = "" // Ollama takes no key
	info := knownModel(model)
	e, err := newProviderEmbedder("ollama", model, info, cfg, 16, 2)
	if err != nil {
		return nil, err
	}
	api := newHTTPAPI("ollama", model, endpoint.String(), cfg)
	api.maxInput = e.maxInput
	e.impl = &ollamaEmbedder{api: api, model: model, dimensions: cfg.Dimensions}
	return e, nil
}

func (o *ollamaEmbedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := o.api.post(ctx, ollamaRequest{Model: o.model, Input: texts, Dimensions: o.dimensions})
	if err != nil {
		return nil, err
	}
	var r ollamaResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, o.api.fail(0, http.StatusOK, "", fmt.Errorf("invalid response: %w", err))
	}
	return r.Embeddings, nil
}

// ollamaHost parses an address the way Ollama reads OLLAMA_HOST: the
// scheme defaults to http, the host to 127.0.0.1, the port to 11434 (80 or
// 443 with an explicit http or https scheme), and a path is kept (for a
// reverse proxy).
func ollamaHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
	if s == "" {
		s = defaultOllamaHost
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("host %q: unsupported scheme %q", s, scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("host %q: invalid port %q", s, port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: "/" + path}, nil
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
func newProviderEmbedder(provider, model string, info modelInfo, cfg EmbedderConfig, batch, conc int) (*Embedder, error) {
	if cfg.Dimensions < 0 || cfg.MaxInput < 0 || cfg.BatchSize < 0 || cfg.Concurrency < 0 || cfg.MaxAttempts < 0 {
		return nil, fmt.Errorf("%s embedder: negative setting in %+v", provider, redactedConfig(cfg))
	}
	docPrefix, queryPrefix := cfg.DocumentPrefix, cfg.QueryPrefix
	if docPrefix == "" && !cfg.docPrefixSet {
		docPrefix = info.docPrefix
	}
	if queryPrefix == "" {
		queryPrefix = info.queryPrefix
	}
	e := &Embedder{
		name:        providerName(provider, model, cfg.Dimensions, docPrefix, info.docPrefix),
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
		return nil, fmt.Errorf("%s embedder: max input %d runes leaves less than %d for the text after the %d-rune prefix", provider, e.maxInput, minWindow, longest)
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

// redactedConfig is cfg without its API key, for messages.
func redactedConfig(cfg EmbedderConfig) EmbedderConfig {
	if cfg.APIKey != "" {
		cfg.APIKey = "[redacted]"
	}
	cfg.HTTPClient = nil
	return cfg
}
