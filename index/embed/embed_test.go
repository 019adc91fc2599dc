package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cite-rag/cite/provider"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeDim is the dimension of the fake providers' vectors.
const fakeDim = 8

// fakeVector is what the fake providers return for an input: a bag of its
// words hashed in fakeDim dimensions (not normalized, so that the embedder
// has to), plus a constant so that it is never zero.
func fakeVector(input string) []float32 {
	v := make([]float32, fakeDim)
	v[0] = 0.5
	for _, w := range strings.Fields(input) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%fakeDim] += 1
	}
	return v
}

// fakeReply lets a test script a provider's answer to request n (0-based):
// a status other than 0 or 200 is sent with header and body; a zero status
// lets the fake answer normally, or with vectors if set.
type fakeReply struct {
	status  int
	header  map[string]string
	body    string
	vectors [][]float32 // replaces the normal answer when set
	hangup  bool        // close the connection without answering
}

// fakeProvider is an httptest server speaking Ollama's or OpenAI's
// embedding API.
type fakeProvider struct {
	t        *testing.T
	provider string // "ollama" or "openai"
	srv      *httptest.Server
	script   func(n int) fakeReply // nil: always answer normally

	mu       sync.Mutex
	requests []fakeRequest
	inFlight int
	maxIn    int
}

type fakeRequest struct {
	path, auth string
	model      string
	input      []string
	truncate   *bool
	dimensions int
}

func newFakeProvider(t *testing.T, provider string) *fakeProvider {
	f := &fakeProvider{t: t, provider: provider}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// url is the base URL to configure the embedder with.
func (f *fakeProvider) url() string {
	if f.provider == "openai" {
		return f.srv.URL + "/v1"
	}
	return f.srv.URL
}

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model      string          `json:"model"`
		RawInput   json.RawMessage `json:"input"`
		Input      []string        `json:"-"`
		Truncate   *bool           `json:"truncate"`
		Dimensions int             `json:"dimensions"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
		return
	}
	// OpenAI takes a list of inputs; Ollama a list or one string (which
	// langchaingo's client sends).
	var one string
	if json.Unmarshal(req.RawInput, &one) == nil {
		req.Input = []string{one}
	} else if err := json.Unmarshal(req.RawInput, &req.Input); err != nil {
		http.Error(w, `{"error":"bad input"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, fakeRequest{
		path: r.URL.Path, auth: r.Header.Get("Authorization"),
		model: req.Model, input: req.Input, truncate: req.Truncate, dimensions: req.Dimensions,
	})
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	wantPath := "/api/embed"
	if f.provider == "openai" {
		wantPath = "/v1/embeddings"
	}
	if r.Method != http.MethodPost || r.URL.Path != wantPath {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	var reply fakeReply
	if f.script != nil {
		reply = f.script(n)
	}
	if reply.hangup {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	if reply.status != 0 && reply.status != http.StatusOK {
		for k, v := range reply.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(reply.status)
		io.WriteString(w, reply.body)
		return
	}
	if reply.body != "" {
		io.WriteString(w, reply.body)
		return
	}
	vecs := reply.vectors
	if vecs == nil {
		for _, in := range req.Input {
			vecs = append(vecs, fakeVector(in))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.provider == "ollama" {
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[i] = item{"embedding", i, v}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1},
	})
}

func (f *fakeProvider) sent() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// quickRetries returns an HTTP client whose transport makes up to
// attempts tries, waiting a millisecond between them.
func quickRetries(attempts int) *http.Client {
	return &http.Client{Transport: &provider.Transport{
		MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Millisecond,
	}}
}

// providerConfig points a provider configuration at the fake.
func (f *fakeProvider) config(cfg provider.Config) provider.Config {
	if f.provider == "ollama" {
		cfg.OllamaHost = f.url()
	} else {
		cfg.OpenAIBaseURL = f.url()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = quickRetries(5)
	}
	return cfg
}

// newFakeEmbedder returns an embedder of the fake provider's kind; its
// retries wait a millisecond.
func newFakeEmbedder(t *testing.T, f *fakeProvider, model string, cfg Config) *Embedder {
	t.Helper()
	cfg.Provider = f.config(cfg.Provider)
	var e *Embedder
	var err error
	if f.provider == "ollama" {
		e, err = NewOllama(model, cfg)
	} else {
		e, err = NewOpenAI(model, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var fakeProviders = []string{"ollama", "openai"}

func TestProviderEmbed(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, p)
			e := newFakeEmbedder(t, f, "m1", Config{Provider: provider.Config{OpenAIAPIKey: "sk-test"}})
			if e.Dim() != 0 {
				t.Errorf("Dim before any call = %d, want 0", e.Dim())
			}
			texts := []string{"alpha beta", "gamma", "delta epsilon zeta"}
			vs := embedDocs(t, e, texts...)
			reqs := f.sent()
			var inputs []string
			for _, r := range reqs {
				inputs = append(inputs, r.input...)
				if r.model != "m1" {
					t.Errorf("request for model %q, want m1", r.model)
				}
			}
			// OpenAI: one request; Ollama: one per text (langchaingo's
			// client embeds a text per request).
			if want := map[string]int{"openai": 1, "ollama": 3}[p]; len(reqs) != want || !slices.Equal(inputs, texts) {
				t.Fatalf("requests = %+v, want %d with inputs %q", reqs, want, texts)
			}
			switch p {
			case "ollama":
				for _, r := range reqs {
					if r.truncate == nil || *r.truncate {
						t.Error("ollama request must set truncate false (no silent truncation)")
					}
					if r.auth != "" {
						t.Errorf("ollama got Authorization %q", r.auth)
					}
				}
			case "openai":
				if reqs[0].auth != "Bearer sk-test" {
					t.Errorf("Authorization = %q", reqs[0].auth)
				}
			}
			if e.Dim() != fakeDim {
				t.Errorf("Dim = %d, want %d", e.Dim(), fakeDim)
			}
			for i, v := range vs {
				want := normalized(fakeVector(texts[i]))
				if !slices.Equal(v, want) {
					t.Errorf("vector %d = %v, want %v", i, v, want)
				}
				if n := math.Sqrt(embedDot(v, v)); math.Abs(n-1) > 1e-6 {
					t.Errorf("vector %d has norm %v", i, n)
				}
			}
			if d, err := e.ProbeDim(t.Context()); err != nil || d != fakeDim {
				t.Errorf("ProbeDim = %d, %v", d, err)
			}
			q, err := e.EmbedQuery(t.Context(), "gamma", func(string) float64 { panic("providers ignore idf") })
			if err != nil || !slices.Equal(q, vs[1]) {
				t.Errorf("EmbedQuery = %v, %v; want the document vector (no prefix for this model)", q, err)
			}
			fv, err := e.Func()(t.Context(), "alpha beta")
			if err != nil || !slices.Equal(fv, vs[0]) {
				t.Errorf("Func = %v, %v", fv, err)
			}
		})
	}
}

func TestProviderBatching(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, p)
			e := newFakeEmbedder(t, f, "m", Config{BatchSize: 3, Concurrency: 2})
			var texts []string
			for i := range 10 {
				texts = append(texts, fmt.Sprintf("text number %d", i))
			}
			vs := embedDocs(t, e, texts...)
			reqs := f.sent()
			var sizes []int
			var inputs []string
			for _, r := range reqs {
				sizes = append(sizes, len(r.input))
				inputs = append(inputs, r.input...)
			}
			slices.Sort(sizes)
			slices.Sort(inputs)
			want := slices.Sorted(slices.Values(texts))
			wantSizes := []int{1, 3, 3, 3}
			if p == "ollama" {
				wantSizes = slices.Repeat([]int{1}, 10) // a request per text
			}
			if !slices.Equal(sizes, wantSizes) || !slices.Equal(inputs, want) {
				t.Errorf("requests of %v inputs with inputs %q; want %v covering every text once", sizes, inputs, wantSizes)
			}
			for i, v := range vs {
				if !slices.Equal(v, normalized(fakeVector(texts[i]))) {
					t.Errorf("vector %d is not text %d's", i, i)
				}
			}
			if f.maxIn > 2 {
				t.Errorf("%d requests in flight, want at most 2", f.maxIn)
			}
		})
	}
}

// TestProviderRetry: transient failures are retried (the delays are
// provider's tests' business).
func TestProviderRetry(t *testing.T) {
	replies := []fakeReply{
		{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"error":"slow down"}`},
		{status: 503},
		{hangup: true},
	}
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, p)
			f.script = func(n int) fakeReply {
				if n < len(replies) {
					return replies[n]
				}
				return fakeReply{}
			}
			e := newFakeEmbedder(t, f, "m", Config{})
			vs := embedDocs(t, e, "hello world")
			if !slices.Equal(vs[0], normalized(fakeVector("hello world"))) {
				t.Error("wrong vector after retries")
			}
			if got := len(f.sent()); got != len(replies)+1 {
				t.Errorf("%d requests, want %d", got, len(replies)+1)
			}
		})
	}
}

func TestProviderFailure(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakeReply
		attempts int
		status   int
		want     []string // in the error text
	}{
		{"persistent 503", fakeReply{status: 503, body: `{"error":"model is loading"}`}, 3, 503, []string{"503", "model is loading", "3 attempts"}},
		{"400 is not retried", fakeReply{status: 400, body: `{"error":{"message":"bad input","type":"invalid_request_error"}}`}, 1, 400, []string{"400", "bad input"}},
		{"context length", fakeReply{status: 400, body: `{"error":"the input length exceeds the context length"}`}, 1, 400, []string{"max input"}},
		{"401", fakeReply{status: 401, body: "unauthorized"}, 1, 401, []string{"401", "API key"}},
		{"model not found", fakeReply{status: 404, body: `{"error":"model \"m\" not found, try pulling it first"}`}, 1, 404, []string{"404", "not found"}},
		{"transport", fakeReply{hangup: true}, 3, 0, []string{"3 attempts", "EOF"}},
	}
	for _, p := range fakeProviders {
		for _, tt := range tests {
			t.Run(p+"/"+tt.name, func(t *testing.T) {
				f := newFakeProvider(t, p)
				f.script = func(int) fakeReply { return tt.reply }
				e := newFakeEmbedder(t, f, "m", Config{Provider: provider.Config{HTTPClient: quickRetries(3)}})
				_, err := e.EmbedDocuments(t.Context(), []string{"x"})
				var ee *provider.Error
				if !errors.As(err, &ee) {
					t.Fatalf("err = %v, want a *provider.Error", err)
				}
				if ee.Provider != p || ee.Model != "m" || ee.StatusCode != tt.status || ee.Attempts != tt.attempts {
					t.Errorf("error %+v: want provider %s, model m, status %d, %d attempts", ee, p, tt.status, tt.attempts)
				}
				if got := len(f.sent()); got != tt.attempts {
					t.Errorf("%d requests, want %d", got, tt.attempts)
				}
				msg := err.Error()
				for _, w := range append([]string{p, "model m"}, tt.want...) {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not mention %q", msg, w)
					}
				}
			})
		}
	}
}

// TestProviderCancel: cancelling the context stops the retries at once.
func TestProviderCancel(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			f := newFakeProvider(t, p)
			f.script = func(int) fakeReply {
				cancel()
				return fakeReply{status: 500}
			}
			// Only cancellation can end the wait.
			slow := &http.Client{Transport: &provider.Transport{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour}}
			e := newFakeEmbedder(t, f, "m", Config{Provider: provider.Config{HTTPClient: slow}})
			_, err := e.EmbedDocuments(ctx, []string{"x"})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n := len(f.sent()); n != 1 {
				t.Errorf("%d requests after cancel, want 1", n)
			}
		})
	}
}

func TestProviderInvalidResponses(t *testing.T) {
	tests := []struct {
		name          string
		fakeProviders []string
		inputs        int
		reply         func(n int) fakeReply
		want          string
	}{
		{"count mismatch", []string{"openai"}, 2, func(int) fakeReply { return fakeReply{vectors: [][]float32{{1, 2}}} }, "invalid response: error embedding batch: unexpected length"},
		{"count mismatch", []string{"ollama"}, 1, func(int) fakeReply { return fakeReply{vectors: [][]float32{{1, 2}, {1, 2}}} }, "invalid response: error embedding batch: not all input got embedded"},
		{"inconsistent dimensions", []string{"openai"}, 2, func(int) fakeReply { return fakeReply{vectors: [][]float32{{1, 2}, {1, 2, 3}}} }, "dimension 3, want 2"},
		{"inconsistent dimensions", []string{"ollama"}, 2, func(n int) fakeReply {
			return fakeReply{vectors: [][]float32{slices.Repeat([]float32{1}, 2+n)}}
		}, "dimension 3, want 2"},
		{"dimension changes between calls", fakeProviders, 2, func(n int) fakeReply {
			return fakeReply{vectors: [][]float32{slices.Repeat([]float32{1}, 2+n)}}
		}, "dimension 3, want 2"},
		{"empty vector", fakeProviders, 1, func(int) fakeReply { return fakeReply{vectors: [][]float32{{}}} }, "empty"},
		{"zero vector", fakeProviders, 1, func(int) fakeReply { return fakeReply{vectors: [][]float32{{0, 0}}} }, "all zeros"},
		{"not JSON", fakeProviders, 1, func(int) fakeReply { return fakeReply{body: "<html>oops</html>"} }, "invalid response"},
	}
	for _, tt := range tests {
		for _, p := range tt.fakeProviders {
			t.Run(p+"/"+tt.name, func(t *testing.T) {
				f := newFakeProvider(t, p)
				f.script = tt.reply
				e := newFakeEmbedder(t, f, "m", Config{BatchSize: 2, Concurrency: 1})
				var texts []string
				for i := range tt.inputs {
					texts = append(texts, fmt.Sprint("t", i))
				}
				if tt.name == "dimension changes between calls" {
					texts = []string{"a", "b"}
					e.batchSize = 1
				}
				_, err := e.EmbedDocuments(t.Context(), texts)
				var ee *provider.Error
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want a *provider.Error mentioning %q", err, tt.want)
				}
				if len(f.sent()) > 2 {
					t.Errorf("%d requests: an invalid response must not be retried", len(f.sent()))
				}
			})
		}
	}
}

// TestProviderDimensions: a requested dimension is sent, known ahead, and
// part of the name.
func TestProviderDimensions(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, p)
			e := newFakeEmbedder(t, f, "m", Config{Dimensions: fakeDim})
			if e.Dim() != fakeDim || e.Name() != p+":m?dimensions=8" {
				t.Errorf("Dim %d, Name %q", e.Dim(), e.Name())
			}
			embedDocs(t, e, "x")
			if r := f.sent(); r[0].dimensions != fakeDim {
				t.Errorf("request dimensions = %d", r[0].dimensions)
			}
			// The server ignoring the requested dimension is an error.
			e2 := newFakeEmbedder(t, f, "m", Config{Dimensions: 16})
			if _, err := e2.EmbedDocuments(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "dimension 8, want 16") {
				t.Errorf("err = %v, want a dimension mismatch", err)
			}
		})
	}
}

// TestProviderKeyRedaction: the API key never appears in an error, even
// when the server echoes it.
func TestProviderKeyRedaction(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	echo := func(n int) fakeReply { return fakeReply{} }
	f := newFakeProvider(t, "openai")
	f.script = func(n int) fakeReply { return echo(n) }
	replies := []fakeReply{
		{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`},
		{status: 500, body: "key was Bearer " + key},
		{status: 400, body: key + strings.Repeat(" padding", 100) + key},
		{status: 200, body: `{"data":"` + key + `"}`},
	}
	for i, r := range replies {
		echo = func(int) fakeReply { return r }
		e := newFakeEmbedder(t, f, "m", Config{Provider: provider.Config{OpenAIAPIKey: key, HTTPClient: quickRetries(2)}})
		_, err := e.EmbedDocuments(t.Context(), []string{"x"})
		if err == nil {
			t.Fatalf("reply %d: no error", i)
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, key) {
				t.Errorf("reply %d: error shows the key: %s", i, s)
			}
		}
	}
	if got := f.sent()[0].auth; got != "Bearer "+key {
		t.Errorf("Authorization = %q", got)
	}
	// A transport error to an address holding the key.
	e, err := NewOpenAI("m", Config{Provider: provider.Config{OpenAIBaseURL: "http://user:" + key + "@127.0.0.1:1/v1", OpenAIAPIKey: key, HTTPClient: quickRetries(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.EmbedDocuments(t.Context(), []string{"x"}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("transport error %v: want an error without the key", err)
	}
	// Configuration errors too.
	if _, err := NewOpenAI("m", Config{Provider: provider.Config{OpenAIAPIKey: key}, BatchSize: -1}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("config error %v: want an error without the key", err)
	}
}

// TestProviderWindows: a text longer than MaxInput is sent whole, in
// windows, and its last sentence changes its vector.
func TestProviderWindows(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, p)
			const maxInput = 60
			e := newFakeEmbedder(t, f, "m", Config{MaxInput: maxInput, DocumentPrefix: "doc: ", QueryPrefix: "q: "})
			body := strings.Repeat("The pipeline passes objects between cmdlets. ", 8)
			texts := []string{body + "It ends with zebras.", body + "It ends with giraffes."}
			vs := embedDocs(t, e, texts...)
			if slices.Equal(vs[0], vs[1]) {
				t.Fatal("texts that differ in their last sentence have the same vector")
			}
			var got []string
			for _, r := range f.sent() {
				for _, in := range r.input {
					if n := utf8.RuneCountInString(in); n > maxInput {
						t.Errorf("input of %d runes, over MaxInput %d: %q", n, maxInput, in)
					}
					if !strings.HasPrefix(in, "doc: ") {
						t.Errorf("input %q lacks the document prefix", in)
					}
					got = append(got, strings.TrimPrefix(in, "doc: "))
				}
			}
			// Windows come in order (one batch here): they rebuild both texts.
			joined := strings.Join(got, "")
			if joined != texts[0]+texts[1] {
				t.Errorf("windows do not cover the texts:\n%q", got)
			}
			// The vector is the length-weighted mean of the windows'.
			sum := make([]float64, fakeDim)
			for _, w := range splitWindows(texts[0], maxInput-len("doc: ")) {
				v := normalized(fakeVector("doc: " + w))
				for i, x := range v {
					sum[i] += float64(utf8.RuneCountInString(w)) * float64(x)
				}
			}
			want := normalized64(sum)
			for i := range want {
				if math.Abs(float64(want[i]-vs[0][i])) > 1e-6 {
					t.Fatalf("vector = %v, want the weighted mean %v", vs[0], want)
				}
			}
			// Queries take the query prefix.
			if _, err := e.EmbedQuery(t.Context(), "zebras", nil); err != nil {
				t.Fatal(err)
			}
			reqs := f.sent()
			if last := reqs[len(reqs)-1].input; !slices.Equal(last, []string{"q: zebras"}) {
				t.Errorf("query input = %q", last)
			}
		})
	}
}

func TestProviderNames(t *testing.T) {
	tests := []struct {
		spec string
		cfg  Config
		name string
		max  int
	}{
		{"ollama:nomic-embed-text", Config{}, "ollama:nomic-embed-text", 2048 * 3},
		{"ollama:nomic-embed-text:latest", Config{}, "ollama:nomic-embed-text", 2048 * 3},
		{"ollama:nomic-embed-text:v1.5", Config{}, "ollama:nomic-embed-text:v1.5", 2048 * 3},
		{"ollama:mxbai-embed-large", Config{MaxInput: 1000}, "ollama:mxbai-embed-large", 1000},
		{"ollama:some/unknown-model", Config{}, "ollama:some/unknown-model", 512 * 3},
		{"ollama:nomic-embed-text?document_prefix=passage%3A+", Config{}, "ollama:nomic-embed-text?document_prefix=passage%3A+", 2048 * 3},
		{"ollama:nomic-embed-text", Config{DocumentPrefix: "search_document: ", QueryPrefix: "search_query: "}, "ollama:nomic-embed-text", 2048 * 3},
		{"ollama:nomic-embed-text?document_prefix=", Config{}, "ollama:nomic-embed-text?document_prefix=", 2048 * 3},
		{"ollama:all-minilm", Config{DocumentPrefix: "passage: "}, "ollama:all-minilm?document_prefix=passage%3A+", 256 * 3},
		{"openai:text-embedding-3-small", Config{}, "openai:text-embedding-3-small", 8191 * 3},
		{"openai:text-embedding-3-small?dimensions=256", Config{}, "openai:text-embedding-3-small?dimensions=256", 8191 * 3},
		{"openai:text-embedding-3-large", Config{Dimensions: 1024}, "openai:text-embedding-3-large?dimensions=1024", 8191 * 3},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			nowhere := provider.Config{OpenAIBaseURL: "http://127.0.0.1:1", OllamaHost: "127.0.0.1:1"}
			tt.cfg.Provider = nowhere
			e, err := New(tt.spec, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != tt.name || e.MaxInput() != tt.max {
				t.Errorf("name %q, max input %d; want %q, %d", e.Name(), e.MaxInput(), tt.name, tt.max)
			}
			again, err := New(e.Name(), Config{Provider: nowhere})
			if err != nil || again.Name() != e.Name() || again.docPrefix != e.docPrefix {
				t.Errorf("New(%q) = %v, %v: does not rebuild the embedder", e.Name(), again, err)
			}
		})
	}
	if _, err := New("openai:m?dimensions=5", Config{Dimensions: 6}); err == nil {
		t.Error("conflicting dimensions accepted")
	}
}

// TestProviderPrefixes: nomic-embed-text gets its task prefixes.
func TestProviderPrefixes(t *testing.T) {
	f := newFakeProvider(t, "ollama")
	e := newFakeEmbedder(t, f, "nomic-embed-text", Config{})
	embedDocs(t, e, "a document")
	if _, err := e.EmbedQuery(t.Context(), "a query", nil); err != nil {
		t.Fatal(err)
	}
	reqs := f.sent()
	if reqs[0].input[0] != "search_document: a document" || reqs[1].input[0] != "search_query: a query" {
		t.Errorf("inputs %q, %q", reqs[0].input, reqs[1].input)
	}
}

// TestNewProviderConfig: New reaches the servers of cfg.Provider, as
// provider.ConfigFromEnv reads them (OLLAMA_HOST without a scheme, as
// Ollama accepts it), and reads no environment variable itself.
func TestNewProviderConfig(t *testing.T) {
	ol := newFakeProvider(t, "ollama")
	oa := newFakeProvider(t, "openai")
	t.Setenv("OPENAI_API_KEY", "sk-ignored")
	env := map[string]string{
		"OLLAMA_HOST":     strings.TrimPrefix(ol.srv.URL, "http://"),
		"OPENAI_BASE_URL": oa.url(),
		"OPENAI_API_KEY":  "sk-env",
	}
	cfg := Config{Provider: provider.ConfigFromEnv(func(k string) string { return env[k] })}
	for _, spec := range []string{"ollama:m", "openai:m"} {
		e, err := New(spec, cfg)
		if err != nil {
			t.Fatal(err)
		}
		embedDocs(t, e, "x")
	}
	if len(ol.sent()) != 1 || len(oa.sent()) != 1 || oa.sent()[0].auth != "Bearer sk-env" {
		t.Errorf("ollama got %d requests, openai %+v", len(ol.sent()), oa.sent())
	}
	// A base URL ending in /api (chromem-go's form) is not doubled.
	e, err := NewOllama("m", Config{Provider: provider.Config{OllamaHost: ol.srv.URL + "/api"}})
	if err != nil {
		t.Fatal(err)
	}
	embedDocs(t, e, "x")
}

func TestSplitWindows(t *testing.T) {
	tests := []struct {
		text  string
		limit int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"no limit at all", 0, []string{"no limit at all"}},
		{"aaaa bbbb cccc", 8, []string{"aaaa ", "bbbb ", "cccc"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"ééééé ééé", 4, []string{"éééé", "é éé", "é"}},
		{"one two three four", 9, []string{"one two ", "three ", "four"}},
	}
	for _, tt := range tests {
		if got := splitWindows(tt.text, tt.limit); !slices.Equal(got, tt.want) {
			t.Errorf("splitWindows(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
		}
	}
}

func FuzzSplitWindows(f *testing.F) {
	f.Add("The pipeline passes objects. It ends with zebras.", 7)
	f.Add("東京都に住んでいます", 3)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit <= 0 || limit > 1000 || !utf8.ValidString(text) {
			return
		}
		ws := splitWindows(text, limit)
		if strings.Join(ws, "") != text {
			t.Fatalf("windows %q do not rebuild %q", ws, text)
		}
		for _, w := range ws {
			if n := utf8.RuneCountInString(w); n > limit || (n == 0 && text != "") {
				t.Fatalf("window %q has %d runes, limit %d", w, n, limit)
			}
		}
	})
}

func TestCheckVectors(t *testing.T) {
	e, err := NewOpenAI("m", Config{})
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, vs := range [][][]float32{{{1, nan}}, {{inf, 1}}, {{0, 0}}, {{}}, {{1}, {1, 2}}} {
		if err := e.checkVectors(vs, len(vs)); err == nil {
			t.Errorf("checkVectors(%v) accepted", vs)
		}
	}
	if e.Dim() != 0 {
		t.Errorf("invalid answers set the dimension to %d", e.Dim())
	}
	if err := e.checkVectors([][]float32{{3, 4}}, 1); err != nil || e.Dim() != 2 {
		t.Errorf("checkVectors of a valid vector: %v, dim %d", err, e.Dim())
	}
	if err := e.checkVectors([][]float32{{3, 4, 5}}, 1); err == nil {
		t.Error("a change of dimension was accepted")
	}
	if _, err := NewOpenAI("m", Config{MaxInput: 20, QueryPrefix: "a long query instruction: "}); err == nil {
		t.Error("a max input shorter than the prefix was accepted")
	}
}
