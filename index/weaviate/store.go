package weaviate

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/internal/glob"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"
)

// Config says where the collection is and how it is laid out.
type Config struct {
	// Addr is the host:port of a Weaviate node's HTTP API.
	Addr string
	// GRPC is the host:port of the same node's gRPC API (""; none):
	// writes then go over gRPC, vectors as binary rather than JSON text.
	GRPC string
	// Collection names the cite index in Weaviate: it owns the collections
	// NAMEChunk, NAMEDocument and NAMEMeta. Default "Cite".
	Collection string
	// Shards and Replicas lay the collections out when they are created
	// (default 1 and 1); an existing collection keeps its layout.
	Shards, Replicas int
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// Retries is how many times a transient failure (a connection error,
	// 429, 502, 503, 504) is retried, with backoff (default 4).
	Retries int
}

// ParseURL reads a store address:
// weaviate://HOST:PORT[?collection=NAME&shards=N&replicas=N&grpc=PORT].
func ParseURL(s string) (Config, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "weaviate" || u.Host == "" {
		return Config{}, fmt.Errorf("store %q: want weaviate://HOST:PORT[?collection=NAME&shards=N&replicas=N]", s)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return Config{}, fmt.Errorf("store %q: want HOST:PORT, got %q", s, u.Host)
	}
	c := Config{Addr: u.Host, Collection: "Cite", Shards: 1, Replicas: 1}
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "collection":
			c.Collection = v
		case "grpc":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return Config{}, fmt.Errorf("store %q: grpc=%q: want a port", s, v)
			}
			c.GRPC = net.JoinHostPort(u.Hostname(), v)
		case "shards", "replicas":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return Config{}, fmt.Errorf("store %q: %s=%q: want a number from 1 to 64", s, k, v)
			}
			if k == "shards" {
				c.Shards = n
			} else {
				c.Replicas = n
			}
		default:
			return Config{}, fmt.Errorf("store %q: unknown option %q (want collection, shards, replicas or grpc)", s, k)
		}
	}
	if err := checkName(c.Collection); err != nil {
		return Config{}, fmt.Errorf("store %q: %w", s, err)
	}
	return c, nil
}

// checkName accepts a Weaviate class-name prefix: a capital ASCII letter,
// then letters and digits.
func checkName(n string) error {
	if n == "" || len(n) > 64 || n[0] < 'A' || n[0] > 'Z' {
		return fmt.Errorf("collection %q: want a name starting with a capital letter, of letters and digits", n)
	}
	for _, r := range n {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return fmt.Errorf("collection %q: want a name starting with a capital letter, of letters and digits", n)
		}
	}
	return nil
}

// Consistency levels: reads need one replica, so they go on while a node
// is down; writes need a quorum (with two replicas, both), so a write
// acknowledged is on every replica a later read with ONE may ask. A write
// that cannot reach a quorum fails, is reported, and stays pending.
const (
	readConsistency  = "ONE"
	writeConsistency = "QUORUM"
)

// Store is a cite index held in Weaviate. It is a [index.Reader] (search
// reads it) and an [index.Replica] (the local index pushes to it). It is
// safe for concurrent use.
type Store struct {
	cfg                  Config
	c                    *wv.Client
	hc                   *http.Client
	chunk, doc, metaName string

	// cl is the consistency-level argument of reads: "" when the
	// collection is not replicated (Weaviate then does not take one).
	cl string

	version, warning string // the server's, and what to tell the user ([Store.Warning])

	mu        sync.Mutex
	embedder  index.EmbedderInfo // cached once known
	termStats func(ctx context.Context, terms []string) (index.TermStats, error)
	counts    sync.Map // term ("" for all chunks) -> cachedCount
}

var (
	_ index.Reader         = (*Store)(nil)
	_ index.HybridSearcher = (*Store)(nil)
	_ index.Replica        = (*Store)(nil)
)

// Open connects to Weaviate, reads its version and creates the
// collections on first use. A node that does not answer is an error
// naming its address, and so is a release older than [MinVersion]; a
// release that misranks (before [FixedVersion]) opens with a
// [Store.Warning].
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Collection == "" {
		cfg.Collection = "Cite"
	}
	if err := checkName(cfg.Collection); err != nil {
		return nil, err
	}
	cfg.Shards, cfg.Replicas = max(cfg.Shards, 1), max(cfg.Replicas, 1)
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 4
	}
	hc := &http.Client{Transport: &retrying{base: http.DefaultTransport, retries: cfg.Retries}}
	wcfg := wv.Config{Host: cfg.Addr, Scheme: "http", ConnectionClient: hc, Timeout: cfg.Timeout}
	if cfg.GRPC != "" {
		wcfg.GrpcConfig = &grpc.Config{Host: cfg.GRPC}
	}
	c, err := wv.NewClient(wcfg)
	if err != nil {
		return nil, fmt.Errorf("weaviate at %s: %w", cfg.Addr, err)
	}
	s := &Store{cfg: cfg, c: c, hc: hc, chunk: cfg.Collection + "Chunk", doc: cfg.Collection + "Document", metaName: cfg.Collection + "Meta"}
	if err := s.checkServer(ctx); err != nil {
		return nil, err
	}
	if err := s.ensureSchema(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Name identifies the store: its address and collection.
func (s *Store) Name() string { return "weaviate://" + s.cfg.Addr + "/" + s.cfg.Collection }

// wrap makes an error of Weaviate's name its address and what failed, and
// says when the cluster could not be reached at all.
func (s *Store) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var we *fault.WeaviateClientError
	if errors.As(err, &we) {
		if we.DerivedFromError != nil {
			return fmt.Errorf("weaviate at %s: %s: %w (is the cluster up?)", s.cfg.Addr, what, we.DerivedFromError)
		}
		msg := strings.TrimSpace(we.Msg)
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return fmt.Errorf("weaviate at %s: %s: status %d: %s", s.cfg.Addr, what, we.StatusCode, msg)
	}
	return fmt.Errorf("weaviate at %s: %s: %w", s.cfg.Addr, what, err)
}

func boolp(b bool) *bool { return &b }

// addMissingProperties adds to an existing collection the properties that
// cite's schema has and it lacks (a collection made by an older cite: the
// chunks' page numbers of schema 5, the documents' layout).
func (s *Store) addMissingProperties(ctx context.Context, got, want *models.Class) error {
	have := make(map[string]bool, len(got.Properties))
	for _, p := range got.Properties {
		have[p.Name] = true
	}
	for _, p := range want.Properties {
		if have[p.Name] {
			continue
		}
		if err := s.c.Schema().PropertyCreator().WithClassName(want.Class).WithProperty(p).Do(ctx); err != nil {
			return s.wrap("add property "+p.Name, err)
		}
	}
	return nil
}

// ensureSchema creates the collections that do not exist yet.
func (s *Store) ensureSchema(ctx context.Context) error {
	ft := func(name string) *models.Property { // exact-match text
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: boolp(true), IndexSearchable: boolp(false)}
	}
	plain := func(name, typ string) *models.Property { // stored only
		return &models.Property{Name: name, DataType: []string{typ}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)}
	}
	repl := &models.ReplicationConfig{Factor: int64(s.cfg.Replicas)}
	shard := map[string]any{"desiredCount": s.cfg.Shards}
	noStop := &models.InvertedIndexConfig{Stopwords: &models.StopwordConfig{Preset: "none"}, Bm25: &models.BM25Config{K1: 1.2, B: 0.75}}
	classes := []*models.Class{
		{
			Class: s.chunk, Description: "cite chunks", Vectorizer: "none", VectorIndexType: "hnsw",
			VectorIndexConfig: map[string]any{"distance": "cosine"}, ReplicationConfig: repl, ShardingConfig: shard, InvertedIndexConfig: noStop,
			Properties: []*models.Property{
				ft("chunkId"), ft("key"), ft("docId"), ft("source"), ft("path"),
				// cite's own full-text terms (package index/analysis), so
				// BM25 here ranks the terms cite's embedded index ranks.
				{Name: "terms", DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: boolp(true), IndexSearchable: boolp(true)},
				plain("text", "text"), plain("headings", "text[]"), plain("ordinal", "int"), plain("tokens", "int"),
				plain("spanStart", "int"), plain("spanEnd", "int"), plain("srcStart", "int"), plain("srcEnd", "int"),
				plain("page", "int"), plain("pageEnd", "int"),
			},
		},
		{
			Class: s.doc, Description: "cite documents: the committed version of each", Vectorizer: "none",
			ReplicationConfig: repl, ShardingConfig: shard, InvertedIndexConfig: noStop,
			Properties: []*models.Property{
				ft("docId"), ft("source"), ft("path"), plain("title", "text"), plain("format", "text"), plain("kind", "text"),
				plain("size", "int"), plain("mtime", "text"), ft("hash"), plain("pipeline", "text"), plain("textBytes", "int"),
				plain("chunkCount", "int"), plain("tokens", "int"), plain("indexedAt", "text"), plain("chunkIds", "text[]"),
				plain("layout", "text"),
			},
		},
		{
			Class: s.metaName, Description: "cite index settings", Vectorizer: "none", ReplicationConfig: repl, InvertedIndexConfig: noStop,
			Properties: []*models.Property{plain("embedder", "text"), plain("dim", "int")},
		},
	}
	for _, cl := range classes {
		ok, err := s.c.Schema().ClassExistenceChecker().WithClassName(cl.Class).Do(ctx)
		if err != nil {
			return s.wrap("read schema", err)
		}
		if ok {
			if cl.Class == s.chunk || cl.Class == s.doc {
				got, err := s.c.Schema().ClassGetter().WithClassName(cl.Class).Do(ctx)
				if err != nil {
					return s.wrap("read schema", err)
				}
				if cl.Class == s.chunk && got.ReplicationConfig != nil && got.ReplicationConfig.Factor > 1 {
					s.cl = ",consistencyLevel:" + readConsistency
				}
				if err := s.addMissingProperties(ctx, got, cl); err != nil {
					return err
				}
			}
			continue
		}
		if cl.Class == s.chunk && s.cfg.Replicas > 1 {
			s.cl = ",consistencyLevel:" + readConsistency
		}
		if err := s.c.Schema().ClassCreator().WithClass(cl).Do(ctx); err != nil {
			// Another writer may have created it meanwhile.
			if ok, cerr := s.c.Schema().ClassExistenceChecker().WithClassName(cl.Class).Do(ctx); cerr == nil && ok {
				continue
			}
			return s.wrap("create collection "+cl.Class, err)
		}
	}
	return nil
}

// objectID is the deterministic object id of a chunk or document: a
// name-based (SHA-1, version 5) UUID of the class and cite's id, so a
// re-run writes the same objects.
func objectID(class, id string) string {
	h := sha1.Sum([]byte("cite:" + class + ":" + id))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// chunkKey is the int64 a search ranks a chunk by ([index.Scored]'s Chunk):
// the first 52 bits of its id. It is stored as decimal text: GraphQL's Int
// has 32 bits.
func chunkKey(id string) int64 {
	if len(id) < 13 {
		return 0
	}
	n, err := strconv.ParseInt(id[:13], 16, 64)
	if err != nil {
		return 0
	}
	return n
}

// gql runs a GraphQL query and returns its data.
func (s *Store) gql(ctx context.Context, what, q string) (map[string]models.JSONObject, error) {
	res, err := s.c.GraphQL().Raw().WithQuery(q).Do(ctx)
	if err != nil {
		return nil, s.wrap(what, err)
	}
	if len(res.Errors) > 0 {
		var msgs []string
		for _, e := range res.Errors {
			msgs = append(msgs, e.Message)
		}
		return nil, fmt.Errorf("weaviate at %s: %s: %s", s.cfg.Addr, what, strings.Join(msgs, "; "))
	}
	return res.Data, nil
}

// getList returns the objects of class in a Get answer.
func getList(data map[string]models.JSONObject, class string) []map[string]any {
	get, _ := data["Get"].(map[string]any)
	list, _ := get[class].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, o := range list {
		if m, ok := o.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(m map[string]any, k string) string { v, _ := m[k].(string); return v }

func num(m map[string]any, k string) int64 {
	switch v := m[k].(type) {
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

func strs(m map[string]any, k string) []string {
	list, _ := m[k].([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if v, ok := x.(string); ok {
			out = append(out, v)
		}
	}
	return out
}

func additional(m map[string]any, k string) float64 {
	a, _ := m["_additional"].(map[string]any)
	switch v := a[k].(type) {
	case float64:
		return v
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}

// lit is a GraphQL string literal.
func lit(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func lits(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = lit(s)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// whereOf is f as a GraphQL where clause ("" for none), and the glob a
// result's path must still match when f's Path has a character set, which
// Weaviate's Like does not know.
func whereOf(f index.Filter) (string, string) {
	var conds []string
	if len(f.Sources) > 0 {
		conds = append(conds, `{path:["source"],operator:ContainsAny,valueText:`+lits(f.Sources)+`}`)
	}
	if f.Document != "" {
		conds = append(conds, `{path:["docId"],operator:Equal,valueText:`+lit(f.Document)+`}`)
	}
	post := ""
	if f.Path != "" {
		like, exact := likeOf(f.Path)
		if !exact {
			post = f.Path
		}
		conds = append(conds, `{path:["path"],operator:Like,valueText:`+lit(like)+`}`)
	}
	switch len(conds) {
	case 0:
		return "", ""
	case 1:
		return "where:" + conds[0], post
	}
	return `where:{operator:And,operands:[` + strings.Join(conds, ",") + `]}`, post
}

// likeOf turns a GLOB pattern into Weaviate's Like (* and ?), a set
// [...] becoming ?; exact says the two match the same paths.
func likeOf(glob string) (string, bool) {
	var b strings.Builder
	exact := true
	for i := 0; i < len(glob); i++ {
		if glob[i] == '[' {
			// As SQLite reads a set: a "^" first negates it, and a "]"
			// first (after any "^") is a member, not its end.
			j := i + 1
			if j < len(glob) && glob[j] == '^' {
				j++
			}
			if j < len(glob) && glob[j] == ']' {
				j++
			}
			if end := strings.IndexByte(glob[j:], ']'); end >= 0 {
				b.WriteByte('?')
				i = j + end
				exact = false
				continue
			}
		}
		b.WriteByte(glob[i])
	}
	return b.String(), exact
}

// search runs one Get over the chunks with the given search argument and
// returns them ranked, scored by score.
func (s *Store) search(ctx context.Context, what, arg string, f index.Filter, k int, score func(map[string]any) float64) ([]index.Scored, error) {
	if k <= 0 {
		return nil, nil
	}
	where, post := whereOf(f)
	limit := k
	if post != "" {
		limit = 4 * k
	}
	args := []string{fmt.Sprintf("limit:%d", limit) + s.cl, arg}
	if where != "" {
		args = append(args, where)
	}
	q := fmt.Sprintf(`{Get{%s(%s){key path _additional{score distance}}}}`, s.chunk, strings.Join(args, ","))
	data, err := s.gql(ctx, what, q)
	if err != nil {
		return nil, err
	}
	var match *glob.Pattern
	if post != "" {
		match = glob.Compile(post)
	}
	var out []index.Scored
	for _, o := range getList(data, s.chunk) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if match != nil && !match.Match(str(o, "path")) {
			continue
		}
		key, _ := strconv.ParseInt(str(o, "key"), 10, 64)
		out = append(out, index.Scored{Chunk: key, Score: score(o)})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// SearchText ranks chunks by Weaviate's BM25 over cite's full-text terms
// of the query ([analysis.QueryTerms]), in the chunks' "terms" property.
func (s *Store) SearchText(ctx context.Context, query string, f index.Filter, k int) ([]index.Scored, error) {
	terms := analysis.QueryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	arg := fmt.Sprintf(`bm25:{query:%s,properties:["terms"]}`, lit(strings.Join(terms, " ")))
	return s.search(ctx, "BM25 search", arg, f, k, func(o map[string]any) float64 { return additional(o, "score") })
}

func vectorLit(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// SearchVectors ranks chunks by cosine similarity (1 - Weaviate's cosine
// distance) over HNSW.
func (s *Store) SearchVectors(ctx context.Context, q []float32, f index.Filter, k int) ([]index.Scored, error) {
	arg := "nearVector:{vector:" + vectorLit(q) + "}"
	return s.search(ctx, "vector search", arg, f, k, func(o map[string]any) float64 { return 1 - additional(o, "distance") })
}

// SearchHybrid is Weaviate's hybrid search: BM25 over cite's terms and
// the vector q, fused by relative score (each ranking's scores scaled to
// [0, 1]) with the vector ranking weighted vectorWeight (Weaviate's alpha).
func (s *Store) SearchHybrid(ctx context.Context, query string, q []float32, vectorWeight float64, f index.Filter, k int) ([]index.Scored, error) {
	terms := analysis.QueryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	arg := fmt.Sprintf(`hybrid:{query:%s,properties:["terms"],alpha:%g,fusionType:relativeScoreFusion`, lit(strings.Join(terms, " ")), vectorWeight)
	if q != nil {
		arg += ",vector:" + vectorLit(q)
	}
	arg += "}"
	return s.search(ctx, "hybrid search", arg, f, k, func(o map[string]any) float64 { return additional(o, "score") })
}

// SetTermStats makes TermStats answer from fn: the local index, which
// holds the same chunks and keeps their document frequencies in a table.
// cite sets it where the index folder is at hand (the writer's machine);
// elsewhere TermStats counts in Weaviate.
func (s *Store) SetTermStats(fn func(ctx context.Context, terms []string) (index.TermStats, error)) {
	s.mu.Lock()
	s.termStats = fn
	s.mu.Unlock()
}

// termTTL is how long a document frequency counted in Weaviate is reused.
const termTTL = 30 * time.Second

type cachedCount struct {
	n  int
	at time.Time
}

// TermStats counts the chunks, and those holding each term. Without
// [Store.SetTermStats] it asks Weaviate, one aggregate per term, at most
// eight at once, and reuses each count for 30 seconds: an aggregate over a
// common term reads every object that has it (170 ms for a term in 16,000
// chunks), and the query embedding needs only an estimate.
func (s *Store) TermStats(ctx context.Context, terms []string) (index.TermStats, error) {
	s.mu.Lock()
	fn := s.termStats
	s.mu.Unlock()
	if fn != nil {
		return fn(ctx, terms)
	}
	keys := append([]string{""}, terms...) // "": the chunk count
	counts := make([]int, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, t := range keys {
		if c, ok := s.counts.Load(t); ok && time.Since(c.(cachedCount).at) < termTTL {
			counts[i] = c.(cachedCount).n
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			where := ""
			if t != "" {
				where = `(where:{path:["terms"],operator:Equal,valueText:` + lit(t) + `})`
			}
			data, err := s.gql(ctx, "term statistics", fmt.Sprintf(`{Aggregate{%s%s{meta{count}}}}`, s.chunk, where))
			if err != nil {
				errs[i] = err
				return
			}
			agg, _ := data["Aggregate"].(map[string]any)
			list, _ := agg[s.chunk].([]any)
			if len(list) > 0 {
				m, _ := list[0].(map[string]any)
				meta, _ := m["meta"].(map[string]any)
				counts[i] = int(num(meta, "count"))
			}
			s.counts.Store(t, cachedCount{counts[i], time.Now()})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return index.TermStats{}, err
	}
	ts := index.TermStats{Chunks: counts[0], DF: map[string]int{}}
	for i, t := range terms {
		ts.DF[t] = counts[i+1]
	}
	return ts, nil
}

// VectorStats gives the number of chunks (each pushed with its vector when
// it has one) and the embedder's dimension.
func (s *Store) VectorStats(ctx context.Context) (int, int, error) {
	ts, err := s.TermStats(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	info, err := s.Embedder(ctx)
	return ts.Chunks, info.Dim, err
}

const chunkFields = `chunkId key docId text headings ordinal tokens spanStart spanEnd srcStart srcEnd page pageEnd`
const docFields = `docId source path title format kind size mtime hash pipeline textBytes chunkCount tokens indexedAt chunkIds`

// ChunksByRowid reads ranked chunks by key. A chunk whose document's
// committed version does not list it (an old version's, or a new one's not
// yet committed) is left out, as is a chunk gone since.
func (s *Store) ChunksByRowid(ctx context.Context, keys []int64) (map[int64]index.ChunkRecord, error) {
	out := map[int64]index.ChunkRecord{}
	if len(keys) == 0 {
		return out, nil
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = strconv.FormatInt(k, 10)
	}
	where := `where:{path:["key"],operator:ContainsAny,valueText:` + lits(ks) + `}`
	recs, err := s.chunkRecords(ctx, where, 2*len(keys))
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		out[chunkKey(r.ID)] = r
	}
	return out, nil
}

// ChunkByID reads one chunk of a committed document version.
func (s *Store) ChunkByID(ctx context.Context, id string) (index.ChunkRecord, error) {
	recs, err := s.chunkRecords(ctx, `where:{path:["chunkId"],operator:Equal,valueText:`+lit(id)+`}`, 2)
	if err != nil {
		return index.ChunkRecord{}, err
	}
	if len(recs) == 0 {
		return index.ChunkRecord{}, fmt.Errorf("chunk %s: %w", id, index.ErrNotFound)
	}
	return recs[0], nil
}

// chunkRecords reads the chunks matching where with their documents,
// keeping those their document's committed version lists.
func (s *Store) chunkRecords(ctx context.Context, where string, limit int) ([]index.ChunkRecord, error) {
	q := fmt.Sprintf(`{Get{%s(limit:%d%s,%s){%s}}}`, s.chunk, limit, s.cl, where, chunkFields)
	data, err := s.gql(ctx, "read chunks", q)
	if err != nil {
		return nil, err
	}
	objs := getList(data, s.chunk)
	var docIDs []string
	for _, o := range objs {
		if d := str(o, "docId"); !slices.Contains(docIDs, d) {
			docIDs = append(docIDs, d)
		}
	}
	docs, err := s.documents(ctx, `where:{path:["docId"],operator:ContainsAny,valueText:`+lits(docIDs)+`}`, len(docIDs))
	if err != nil {
		return nil, err
	}
	var out []index.ChunkRecord
	for _, o := range objs {
		dl, ok := docs[str(o, "docId")]
		if !ok || !slices.Contains(dl.chunkIDs, str(o, "chunkId")) {
			continue // not of a committed version
		}
		r := index.ChunkRecord{Rowid: chunkKey(str(o, "chunkId")), Document: dl.Document}
		r.ID, r.DocumentID, r.Text = str(o, "chunkId"), dl.ID, str(o, "text")
		r.Headings = strs(o, "headings")
		if len(r.Headings) == 0 {
			r.Headings = nil
		}
		r.Ordinal, r.Tokens = int(num(o, "ordinal")), int(num(o, "tokens"))
		r.Start, r.End = int(num(o, "spanStart")), int(num(o, "spanEnd"))
		r.SourceStart, r.SourceEnd = int(num(o, "srcStart")), int(num(o, "srcEnd"))
		r.Page, r.PageEnd = int(num(o, "page")), int(num(o, "pageEnd"))
		out = append(out, r)
	}
	return out, nil
}

// listedDocument is a committed document version with its chunk ids.
type listedDocument struct {
	index.Document
	chunkIDs []string
}

func (s *Store) documents(ctx context.Context, where string, limit int) (map[string]listedDocument, error) {
	out := map[string]listedDocument{}
	if limit == 0 {
		return out, nil
	}
	q := fmt.Sprintf(`{Get{%s(limit:%d%s,%s){%s}}}`, s.doc, limit, s.cl, where, docFields)
	data, err := s.gql(ctx, "read documents", q)
	if err != nil {
		return nil, err
	}
	for _, o := range getList(data, s.doc) {
		d := docOf(o)
		out[d.ID] = listedDocument{d, strs(o, "chunkIds")}
	}
	return out, nil
}

func docOf(o map[string]any) index.Document {
	d := index.Document{
		ID: str(o, "docId"), Source: str(o, "source"), Path: str(o, "path"), Title: str(o, "title"),
		Type: str(o, "format"), Kind: index.Kind(str(o, "kind")), Size: num(o, "size"), Hash: str(o, "hash"),
		Pipeline: str(o, "pipeline"), TextBytes: int(num(o, "textBytes")), Chunks: int(num(o, "chunkCount")), Tokens: int(num(o, "tokens")),
	}
	d.ModTime, _ = time.Parse(time.RFC3339Nano, str(o, "mtime"))
	d.IndexedAt, _ = time.Parse(time.RFC3339Nano, str(o, "indexedAt"))
	return d
}

// Layout returns the layout of a document (where the pages or slides of
// an extracted document start in its text, its reader's notes), as the
// embedded index's [index.Store.Layout]: empty for a document without one,
// or pushed by a cite older than the "layout" property (until it is
// indexed again with --force). A document the collection does not have
// is an error wrapping [index.ErrNotFound].
func (s *Store) Layout(ctx context.Context, documentID string) (index.Layout, error) {
	q := fmt.Sprintf(`{Get{%s(limit:2%s,where:{path:["docId"],operator:Equal,valueText:%s}){layout}}}`, s.doc, s.cl, lit(documentID))
	data, err := s.gql(ctx, "read layout", q)
	if err != nil {
		return index.Layout{}, err
	}
	objs := getList(data, s.doc)
	if len(objs) == 0 {
		return index.Layout{}, fmt.Errorf("layout of %s: %w", documentID, index.ErrNotFound)
	}
	var l index.Layout
	if raw := str(objs[0], "layout"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			return index.Layout{}, fmt.Errorf("weaviate at %s: layout of %s: %w", s.cfg.Addr, documentID, err)
		}
	}
	return l, nil
}

// SourceNames lists the data sources of the committed documents, sorted.
func (s *Store) SourceNames(ctx context.Context) ([]string, error) {
	q := fmt.Sprintf(`{Aggregate{%s(groupBy:["source"]){groupedBy{value}}}}`, s.doc)
	data, err := s.gql(ctx, "list data sources", q)
	if err != nil {
		return nil, err
	}
	agg, _ := data["Aggregate"].(map[string]any)
	list, _ := agg[s.doc].([]any)
	names := []string{}
	for _, g := range list {
		m, _ := g.(map[string]any)
		gb, _ := m["groupedBy"].(map[string]any)
		if v := str(gb, "value"); v != "" {
			names = append(names, v)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// Document finds a document by id or path (an id prefix, which the
// embedded index also takes, is not supported here).
func (s *Store) Document(ctx context.Context, source, ref string) (index.Document, error) {
	where := `where:{operator:Or,operands:[{path:["docId"],operator:Equal,valueText:` + lit(ref) + `},{path:["path"],operator:Equal,valueText:` + lit(ref) + `}]}`
	if source != "" {
		where = `where:{operator:And,operands:[{path:["source"],operator:Equal,valueText:` + lit(source) + `},{operator:Or,operands:[{path:["docId"],operator:Equal,valueText:` + lit(ref) + `},{path:["path"],operator:Equal,valueText:` + lit(ref) + `}]}]}`
	}
	docs, err := s.documents(ctx, where, 10)
	if err != nil {
		return index.Document{}, err
	}
	switch len(docs) {
	case 0:
		return index.Document{}, fmt.Errorf("document %s: %w", ref, index.ErrNotFound)
	case 1:
		for _, d := range docs {
			return d.Document, nil
		}
	}
	var which []string
	for _, d := range docs {
		which = append(which, d.ID+" ("+d.Source+": "+d.Path+")")
	}
	slices.Sort(which)
	return index.Document{}, fmt.Errorf("document %s: %w: matches %s", ref, index.ErrAmbiguous, strings.Join(which, ", "))
}

// Embedder is the embedder recorded with the collection.
func (s *Store) Embedder(ctx context.Context) (index.EmbedderInfo, error) {
	s.mu.Lock()
	cached := s.embedder
	s.mu.Unlock()
	if cached.Name != "" {
		return cached, nil
	}
	q := fmt.Sprintf(`{Get{%s(limit:1%s){embedder dim}}}`, s.metaName, s.cl)
	data, err := s.gql(ctx, "read settings", q)
	if err != nil {
		return index.EmbedderInfo{}, err
	}
	var info index.EmbedderInfo
	if list := getList(data, s.metaName); len(list) > 0 {
		info = index.EmbedderInfo{Name: str(list[0], "embedder"), Dim: int(num(list[0], "dim"))}
	}
	if info.Name != "" {
		s.mu.Lock()
		s.embedder = info
		s.mu.Unlock()
	}
	return info, nil
}

// CheckEmbedder fails unless e made the collection's vectors.
func (s *Store) CheckEmbedder(ctx context.Context, e index.Embedder) error {
	cur, err := s.Embedder(ctx)
	if err != nil {
		return err
	}
	return index.CheckEmbedderInfo(cur, e)
}
