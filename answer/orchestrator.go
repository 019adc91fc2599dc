package answer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cite-rag/cite/answer/extractive"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// Request is one question to answer.
type Request struct {
	Question string
	// History is the conversation before the question: user and assistant
	// messages, oldest first.
	History []provider.Message
	// Sources are the data sources to search, by name.
	Sources []string
	// Documents are the ids of the documents attached to the session:
	// they are searched too, and turn on the document tools.
	Documents []string
	// Scope is what the request's searches see: the zero Scope
	// ([session.Public]) sees the data sources only; a question of a cite
	// serve session sees that session's documents too.
	Scope session.Scope
	// Tools selects selectable tools by name (current_datetime, ...).
	Tools []string
	// K is the number of passages retrieved before the model call (0:
	// [DefaultK]).
	K int
	// AllowOutOfScope lets the model answer from its own knowledge when
	// the documents say nothing. Off by default: answers stay in scope.
	AllowOutOfScope bool
	// MaxToolCalls bounds the tool calls of the request (0: the
	// orchestrator's limit; [NoToolCalls]: none, and no tool is offered).
	MaxToolCalls int
	// Orchestrator names the orchestrator to run in a [Registry]; unknown
	// or empty names get the default.
	Orchestrator string
}

// Defaults.
const (
	DefaultK = 5
	// DefaultMaxToolCalls is the one limit on tool calls per request that
	// every provider path shares.
	DefaultMaxToolCalls = 8
	// DefaultName is the default orchestrator's name.
	DefaultName = "default"
	// NoToolCalls, as [Request.MaxToolCalls], offers the model no tool.
	NoToolCalls = -1
)

// Orchestrator answers requests. Run returns the answer as one stream of
// events, ending with an [EventAnswer]; a non-streaming caller collects
// the same stream with [Collect]. Stopping the iteration early cancels the
// work; an error is the iteration's last element.
type Orchestrator interface {
	Name() string
	Run(ctx context.Context, req Request) iter.Seq2[Event, error]
}

// Registry finds orchestrators by name.
type Registry struct {
	mu  sync.RWMutex
	m   map[string]Orchestrator
	def Orchestrator
}

// NewRegistry returns a registry whose default is def.
func NewRegistry(def Orchestrator) *Registry {
	return &Registry{m: map[string]Orchestrator{def.Name(): def}, def: def}
}

// Register adds o under its name.
func (r *Registry) Register(o Orchestrator) {
	r.mu.Lock()
	r.m[o.Name()] = o
	r.mu.Unlock()
}

// Get returns the orchestrator named name, or the default when there is
// none by that name.
func (r *Registry) Get(name string) Orchestrator {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if o, ok := r.m[name]; ok {
		return o
	}
	return r.def
}

// Collect runs the stream to its end and returns the answer.
func Collect(seq iter.Seq2[Event, error]) (*Result, error) {
	var res *Result
	for ev, err := range seq {
		if err != nil {
			return res, err
		}
		if ev.Kind == EventAnswer {
			res = ev.Answer
		}
	}
	if res == nil {
		return nil, errors.New("answer: the stream ended without an answer")
	}
	return res, nil
}

// Retriever searches the index; *search.Searcher is one.
type Retriever interface {
	Search(ctx context.Context, q search.Query) (*search.Result, error)
}

// Library reads documents; *index.Store is one.
type Library interface {
	Document(ctx context.Context, source, ref string) (index.Document, error)
	Chunks(ctx context.Context, documentID string) ([]index.Chunk, error)
}

// Call is a tool call in progress, as filters and tools see it.
type Call struct {
	provider.ToolCall
	Tool *ToolSpec
	// Index and Count place the call in its batch; Cycle is the model call
	// that asked for it.
	Index, Count, Cycle int
	// Permission is the permission policy's decision (allowed when there
	// is no policy).
	Permission Decision
	// Props is the request's property bag, shared by all its calls.
	Props *sync.Map
	// Request is the request being answered; Model the model answering.
	Request *Request
	Model   provider.ChatModel

	terminate bool
	env       *run
}

// Terminate ends the tool loop after the current batch: the model is
// called once more, without tools, to answer.
func (c *Call) Terminate() { c.terminate = true }

// Decision is a permission policy's verdict on a call.
type Decision struct {
	Allow  bool
	Reason string // why not
}

// Policy decides whether a call may run.
type Policy func(ctx context.Context, c *Call) Decision

// Outcome is a tool call's result.
type Outcome struct {
	Content string // what the model gets
	Status  string // StatusOK, StatusError, StatusBlocked or StatusCancelled
}

// Filter wraps every tool invocation (seed 003): it may inspect the call,
// run next (the rest of the chain and the tool), replace the outcome (a
// cache), return without running next (cancel), or call Terminate.
type Filter interface {
	InvokeTool(ctx context.Context, c *Call, next func(context.Context) Outcome) Outcome
}

// FilterFunc adapts a function to [Filter].
type FilterFunc func(ctx context.Context, c *Call, next func(context.Context) Outcome) Outcome

// InvokeTool calls f.
func (f FilterFunc) InvokeTool(ctx context.Context, c *Call, next func(context.Context) Outcome) Outcome {
	return f(ctx, c, next)
}

// Config configures an [Engine].
type Config struct {
	// Model answers. Required; [NewExtractive] answers offline.
	Model provider.ChatModel
	// Retriever searches data sources and session documents.
	Retriever Retriever
	// Library reads session documents for list_documents and read_document.
	Library Library
	// LocalOnly names the data sources whose passages never go to a model
	// that is not on this machine (provider confidence).
	LocalOnly []string
	// Tools are user tools, offered beside the built-in ones.
	Tools []ToolSpec
	// Filters wrap every tool invocation, outermost first.
	Filters []Filter
	// Policy, when set, decides whether each call may run.
	Policy Policy
	// MaxToolCalls bounds tool calls per request (0: DefaultMaxToolCalls;
	// [NoToolCalls]: no request is offered a tool, whatever it asks).
	MaxToolCalls int
	// SystemPrompt replaces the default instructions.
	SystemPrompt string
	// Scoping narrows the tools offered when many are registered
	// (progressive tool scoping); the zero value has seed 004's defaults.
	Scoping Scoping
	// KeepLinks keeps every image and link the model writes. By default
	// those to a host that is not a web source of the answer's passages
	// are neutralized ([citations.Render]): a prompt-injected document
	// cannot make the answer fetch or link to another host.
	KeepLinks bool
	// Now is the clock (time.Now by default).
	Now func() time.Time
}

// Engine is the default orchestrator: preemptive retrieval, then a
// tool-calling loop, rendering citations as the answer streams.
type Engine struct {
	cfg   Config
	tools *Toolbox
}

var _ Orchestrator = (*Engine)(nil)

// New returns the default orchestrator. It fails when a tool is defined
// without an implementation or the reverse, or when a schema is invalid.
func New(cfg Config) (*Engine, error) {
	if cfg.Model == nil {
		return nil, errors.New("answer: no model configured (set --model or CITE_MODEL, or use the extractive model)")
	}
	if cfg.MaxToolCalls < 0 {
		cfg.MaxToolCalls = NoToolCalls
	} else if cfg.MaxToolCalls == 0 {
		cfg.MaxToolCalls = DefaultMaxToolCalls
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	defs, err := LoadDefs(mustSub(builtinDefs, "tools"))
	if err != nil {
		return nil, err
	}
	funcs := builtinFuncs()
	for _, t := range cfg.Tools {
		defs = append(defs, t.Def)
		funcs[t.Def.Name] = t.Func
	}
	tb, err := NewToolbox(defs, funcs)
	if err != nil {
		return nil, fmt.Errorf("answer: tools: %w", err)
	}
	return &Engine{cfg: cfg, tools: tb}, nil
}

// Name returns DefaultName.
func (e *Engine) Name() string { return DefaultName }

// Model returns the engine's model.
func (e *Engine) Model() provider.ChatModel { return e.cfg.Model }

// Tools returns the engine's tools.
func (e *Engine) Tools() *Toolbox { return e.tools }

// run is the state of one request; nothing in it is shared with another.
type run struct {
	e       *Engine
	req     Request
	inv     *citations.Invocation
	stream  *citations.Stream
	props   sync.Map
	traces  []ToolTrace
	usage   provider.Usage
	timings Timings
	start   time.Time
	yield   func(Event, error) bool
	stopped bool // the consumer stopped iterating

	eligible   []*ToolSpec // tools the request's context allows
	offered    []*ToolSpec // tools offered to the model now
	expansions int         // scoping expansion rounds used
	scope      ScopeResult
}

// errStopped ends a model call when the consumer stops iterating.
var errStopped = errors.New("answer: the caller stopped reading")

// Run answers req. See [Orchestrator].
func (e *Engine) Run(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(citations.Begin(ctx))
		defer cancel()
		inv, _ := citations.FromContext(ctx)
		inv.SetResolver(citations.DefaultResolver())
		r := &run{e: e, req: req, inv: inv, stream: citations.NewStreamWith(inv, citations.Options{KeepLinks: e.cfg.KeepLinks}), start: e.cfg.Now(), yield: yield}
		if r.req.K <= 0 {
			r.req.K = DefaultK
		}
		if r.req.MaxToolCalls < 0 || e.cfg.MaxToolCalls == NoToolCalls {
			r.req.MaxToolCalls = NoToolCalls
		} else if r.req.MaxToolCalls == 0 || r.req.MaxToolCalls > e.cfg.MaxToolCalls {
			r.req.MaxToolCalls = e.cfg.MaxToolCalls
		}
		res, err := r.answer(ctx)
		if r.stopped {
			return
		}
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				err = context.Cause(ctx)
			}
			yield(Event{}, err)
			return
		}
		yield(Event{Kind: EventAnswer, Answer: res}, nil)
	}
}

// emit yields ev; false when the consumer stopped.
func (r *run) emit(ev Event) bool {
	if r.stopped {
		return false
	}
	if !r.yield(ev, nil) {
		r.stopped = true
		return false
	}
	return true
}

func (r *run) since() float64 { return float64(time.Since(r.start).Microseconds()) / 1000 }

func (r *run) answer(ctx context.Context) (*Result, error) {
	if strings.TrimSpace(r.req.Question) == "" {
		return nil, errors.New("answer: the question is empty")
	}
	model := r.e.cfg.Model
	t0 := time.Now()
	passages, err := r.preemptive(ctx)
	if err != nil {
		return nil, err
	}
	r.timings.RetrievalMS = ms(time.Since(t0))

	r.offer(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msgs := r.messages(passages, r.offered)
	tools := r.toolList()
	used := 0
	var stop string
	wrote := false // a model call has written text
	para := false  // text was written since the last paragraph break
	for cycle := 0; ; cycle++ {
		req := provider.ChatRequest{Messages: msgs, Tools: tools}
		t := time.Now()
		fresh := true // no text yet from this call
		resp, err := model.Chat(ctx, req, func(delta string) error {
			if delta == "" {
				return nil
			}
			if fresh && wrote {
				// The paragraph break is fed already (below).
				if delta = strings.TrimLeft(delta, " \t\r\n"); delta == "" {
					return nil
				}
			}
			fresh, wrote, para = false, true, true
			if !r.text(r.stream.Feed(delta)) {
				return errStopped
			}
			return nil
		})
		stop = resp.StopReason
		r.timings.ModelMS += ms(time.Since(t))
		r.timings.ModelCalls++
		r.usage.InputTokens += resp.Usage.InputTokens
		r.usage.OutputTokens += resp.Usage.OutputTokens
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		if len(resp.ToolCalls) == 0 || len(tools) == 0 {
			break
		}
		if para {
			// What the model wrote before its tool calls is final: its
			// markers resolve now, against the passages it was given (one
			// naming a passage the calls register only later is dropped),
			// and what it writes after them is a paragraph of its own. A
			// round that wrote nothing adds no break.
			para = false
			if !r.text(r.stream.Feed("\n\n")) {
				return nil, errStopped
			}
		}
		msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		t = time.Now()
		outs, terminate := r.batch(ctx, resp.ToolCalls, cycle, &used)
		tools = r.toolList() // scoping may have expanded
		r.timings.ToolsMS += ms(time.Since(t))
		if r.stopped {
			return nil, errStopped
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, c := range resp.ToolCalls {
			msgs = append(msgs, provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: outs[i].Content})
		}
		if terminate || used >= r.req.MaxToolCalls {
			tools = nil // the last call answers without tools
			msgs = append(msgs, provider.Message{Role: provider.RoleSystem, Content: "No more tool calls are available for this question: answer now from the passages you have, citing them."})
		}
	}
	tail := r.stream.Close()
	rendered := r.stream.Result()
	list := rendered.Markdown()[len(rendered.Text):]
	if !r.text(strings.TrimSuffix(tail, list)) {
		return nil, errStopped
	}
	if list != "" && !r.emit(Event{Kind: EventReferenceList, Text: list}) {
		return nil, errStopped
	}
	r.timings.TotalMS = r.since()
	return &Result{
		Text:       rendered.Text,
		References: nonNil(rendered.References),
		Dropped:    nonNil(rendered.Dropped),
		ToolCalls:  nonNil(r.traces),
		Model:      model.Name(),
		Usage:      r.usage,
		Timings:    r.timings,
		StopReason: stop,
		Markdown:   rendered.Markdown(),
	}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// text emits rendered text and the references it cites first.
func (r *run) text(s string) bool {
	if s == "" {
		return !r.stopped
	}
	if r.timings.FirstTextMS == 0 {
		r.timings.FirstTextMS = r.since()
	}
	if !r.emit(Event{Kind: EventText, Text: s}) {
		return false
	}
	if refs := r.stream.NewCitations(); len(refs) > 0 {
		return r.emit(Event{Kind: EventReferences, References: refs})
	}
	return true
}

// localOnly reports whether source's passages must not reach the model.
func (r *run) localOnly(source string) bool {
	return !r.e.cfg.Model.Local() && slices.Contains(r.e.cfg.LocalOnly, source)
}

// preemptive searches the request's data sources, then its session
// documents, and registers every passage: data-source passages take the
// first indices, document passages continue the numbering. A data-source
// passage whose text a session document's passage has (a file uploaded
// whose bytes equal an indexed one's) is that document's passage, in its
// place: the user gave the file, and expects it cited.
func (r *run) preemptive(ctx context.Context) ([]citations.Reference, error) {
	ret := r.e.cfg.Retriever
	if ret == nil {
		return nil, nil
	}
	var refs []citations.Reference
	var sources []string
	for _, src := range r.req.Sources {
		if !r.localOnly(src) {
			sources = append(sources, src)
		}
	}
	var sourceHits []search.Hit
	if len(sources) > 0 {
		// One search over all of them: its scores rank passages across
		// sources, which scores of separate searches would not.
		res, err := ret.Search(ctx, search.Query{Text: r.searchText(), K: r.req.K, Filter: index.Filter{Sources: sources}, Scope: r.req.Scope})
		if err != nil {
			return nil, fmt.Errorf("search data sources %s: %w", strings.Join(sources, ", "), err)
		}
		sourceHits = res.Hits
	}
	docHits, err := r.searchDocuments(ctx, r.searchText(), r.req.Documents, r.req.K)
	if err != nil {
		return nil, err
	}
	sourceHits, docHits = preferDocuments(sourceHits, docHits)
	for _, h := range append(sourceHits, docHits...) {
		ref, err := r.register(h)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// maxFollowUpTerms: a question of at most this many content terms that
// follows another ("what about for the current user only?") is searched
// for with the question before it, whose subject it leaves out.
const maxFollowUpTerms = 3

// searchText is what preemptive retrieval searches for: the question, and
// the conversation's last question before it when it is a short follow-up.
func (r *run) searchText() string {
	q := r.req.Question
	if len(analysis.QueryTerms(q)) > maxFollowUpTerms {
		return q
	}
	for i := len(r.req.History) - 1; i >= 0; i-- {
		if m := r.req.History[i]; m.Role == provider.RoleUser && strings.TrimSpace(m.Content) != "" {
			return q + "\n" + m.Content
		}
	}
	return q
}

// searchDocuments searches each session document and keeps the k best.
func (r *run) searchDocuments(ctx context.Context, q string, ids []string, k int) ([]search.Hit, error) {
	var hits []search.Hit
	for _, id := range ids {
		res, err := r.e.cfg.Retriever.Search(ctx, search.Query{Text: q, K: k, Filter: index.Filter{Document: id}, Scope: r.req.Scope})
		if err != nil {
			return nil, fmt.Errorf("search document %s: %w", id, err)
		}
		hits = append(hits, res.Hits...)
	}
	return best(hits, k), nil
}

// preferDocuments puts in place of each of hits (a data source's) whose
// text one of docHits (a session document's) has that session passage,
// and returns the hits and the docHits left. A session passage replaces
// at most one hit; hits whose text no session passage has stay as they
// are, in their order.
func preferDocuments(hits, docHits []search.Hit) ([]search.Hit, []search.Hit) {
	if len(hits) == 0 || len(docHits) == 0 {
		return hits, docHits
	}
	byText := make(map[string]int, len(docHits))
	for i, h := range docHits {
		if _, ok := byText[h.Text]; !ok {
			byText[h.Text] = i
		}
	}
	used := make([]bool, len(docHits))
	out := make([]search.Hit, 0, len(hits))
	for _, h := range hits {
		if i, ok := byText[h.Text]; ok && !used[i] {
			used[i] = true
			h = docHits[i]
		}
		out = append(out, h)
	}
	rest := make([]search.Hit, 0, len(docHits))
	for i, h := range docHits {
		if !used[i] {
			rest = append(rest, h)
		}
	}
	return out, rest
}

// best keeps the k highest-scoring hits, best first, one per chunk.
func best(hits []search.Hit, k int) []search.Hit {
	slices.SortStableFunc(hits, func(a, b search.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	seen := map[string]bool{}
	out := hits[:0]
	for _, h := range hits {
		if !seen[h.ChunkID] && len(out) < k {
			seen[h.ChunkID] = true
			out = append(out, h)
		}
	}
	return out
}

// register registers a hit as a reference of the request.
func (r *run) register(h search.Hit) (citations.Reference, error) {
	typ := citations.TypeFile
	if h.Document.Kind == index.KindWeb {
		typ = citations.TypeWeb
	}
	return r.inv.Register(citations.Reference{
		Title:      cleanTitle(h.Document.Title, h.Document.Path),
		Passage:    h.Text,
		ID:         h.ChunkID,
		DocumentID: h.Document.ID,
		Type:       typ,
		Source:     h.Document.Path,
		Span:       h.SourceSpan,
		Location:   h.Location,
		Heading:    h.Heading,
		Extracted:  search.Extracted(h.Document.Format),
	}.WithPageStarts(h.PageStarts).WithSectionStarts(h.SectionStarts))
}

// cleanTitle normalizes a title when its reference is made: control
// characters and runs of space become one space, and an empty title
// becomes the file's name (defense in depth: the renderer escapes too).
func cleanTitle(title, path string) string {
	t := strings.Join(strings.FieldsFunc(title, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == ' ' || r == '\u2028' || r == '\u2029'
	}), " ")
	if len(t) > 300 {
		t = t[:300]
		for len(t) > 0 && !validUTF8End(t) {
			t = t[:len(t)-1]
		}
	}
	if t == "" {
		t = index.EscapePath(path[strings.LastIndexAny(path, `/\`)+1:])
	}
	return t
}

// label writes passages as the model sees them. Marker-like text in a
// passage ("[doc:2]", in a document about citations) is written in
// parentheses, which make no marker, so that the only markers the model
// sees are the labels: copied, the passage's own would cite another.
func label(b *strings.Builder, refs []citations.Reference) {
	for _, ref := range refs {
		fmt.Fprintf(b, "%s %s\n%s\n\n", ref.Key(), defang(ref.Title), defang(strings.TrimSpace(ref.Passage)))
	}
}

// defang returns text with the brackets of marker-like text
// ([extractive.CitationLike]) made parentheses.
func defang(text string) string {
	spans := extractive.CitationLike(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp[0]])
		m := text[sp[0]:sp[1]]
		for _, br := range [][2]string{{"[", "("}, {"【", "("}, {"［", "("}, {"]", ")"}, {"】", ")"}, {"］", ")"}, {"&#91;", "("}, {"&#93;", ")"}, {"&lbrack;", "("}, {"&rbrack;", ")"}, {"&lsqb;", "("}, {"&rsqb;", ")"}} {
			m = strings.ReplaceAll(m, br[0], br[1])
		}
		b.WriteString(m)
		last = sp[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

func (r *run) toolList() []provider.Tool {
	tools := make([]provider.Tool, len(r.offered))
	for i, t := range r.offered {
		tools[i] = t.Def.Tool()
	}
	return tools
}

// expand adds a tool the model called that scoping left out, when the
// request's context allows it and expansion rounds remain.
func (r *run) expand(name string) *ToolSpec {
	t := offeredTool(r.eligible, name)
	if t == nil || r.expansions >= r.e.cfg.Scoping.withDefaults().MaxExpansionRounds {
		return nil
	}
	r.expansions++
	r.offered = append(r.offered, t)
	return t
}

// offer chooses the tools the request gets: system tools whose context
// holds, selectable tools the request selected, then scoping.
func (r *run) offer(ctx context.Context) {
	var out []*ToolSpec
	for _, t := range r.e.tools.All() {
		switch {
		case t.Def.Selectable:
			if !slices.Contains(r.req.Tools, t.Def.Name) {
				continue
			}
		case t.Def.Purpose == PurposeDataSourceSearch:
			if len(r.req.Sources) == 0 || r.e.cfg.Retriever == nil {
				continue
			}
		case t.Def.Purpose == PurposeDocumentProcessing:
			if len(r.req.Documents) == 0 || r.e.cfg.Retriever == nil {
				continue
			}
		}
		out = append(out, t)
	}
	if r.req.MaxToolCalls == NoToolCalls {
		out = nil
	}
	r.eligible = out
	r.scope = r.e.cfg.Scoping.Scope(ctx, out, append(slices.Clone(r.req.History), provider.Message{Role: provider.RoleUser, Content: r.req.Question}), r.e.cfg.Model)
	r.offered = r.scope.Tools
}

// DefaultSystemPrompt is the model's instructions.
const DefaultSystemPrompt = `You answer questions using the passages you are given, each labelled [doc:N].
Cite every statement taken from a passage with its marker right after it, like this: [doc:3]. Cite only markers you were given; never invent one. Use several markers when several passages support a statement.`

const (
	inScopeDirective = `Answer only from the passages. If they do not contain the answer, say that the indexed documents do not answer the question; do not answer from your own knowledge.`
	tryToolsFirst    = ` Before concluding that there is no answer, use the search tools you have to look for it.`
	nothingFound     = `No passage relevant to the question was found in the indexed documents.`
)

// messages builds the conversation sent to the model: instructions with
// the offered tools' policies, the history, the passages, the question.
func (r *run) messages(passages []citations.Reference, offered []*ToolSpec) []provider.Message {
	var sys strings.Builder
	sys.WriteString(cmpOr(r.e.cfg.SystemPrompt, DefaultSystemPrompt))
	searching := false
	for _, t := range offered {
		if t.Def.Policy != "" {
			sys.WriteString("\n\n")
			sys.WriteString(t.Def.Policy)
		}
		searching = searching || t.Def.Purpose == PurposeDataSourceSearch || t.Def.Purpose == PurposeDocumentProcessing
	}
	if !r.req.AllowOutOfScope {
		sys.WriteString("\n\n")
		if len(passages) == 0 {
			sys.WriteString(nothingFound + " ")
		}
		sys.WriteString(inScopeDirective)
		if searching {
			sys.WriteString(tryToolsFirst)
		}
	}
	msgs := []provider.Message{{Role: provider.RoleSystem, Content: sys.String()}}
	for _, m := range r.req.History {
		switch m.Role {
		case provider.RoleUser:
			msgs = append(msgs, provider.Message{Role: m.Role, Content: m.Content})
		case provider.RoleAssistant:
			// An earlier answer's citation numbers name passages of its
			// own request: kept, they would read as this request's, and
			// teach the model to write numbers instead of markers.
			msgs = append(msgs, provider.Message{Role: m.Role, Content: withoutCitations(m.Content)})
		}
	}
	if len(passages) > 0 {
		var b strings.Builder
		b.WriteString("Passages:\n\n")
		label(&b, passages)
		msgs = append(msgs, provider.Message{Role: provider.RoleSystem, Content: strings.TrimSpace(b.String())})
	}
	return append(msgs, provider.Message{Role: provider.RoleUser, Content: r.req.Question})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// batch runs one model response's tool calls concurrently, through the
// filters, and returns their outcomes in call order.
func (r *run) batch(ctx context.Context, calls []provider.ToolCall, cycle int, used *int) ([]Outcome, bool) {
	n := len(calls)
	outs := make([]Outcome, n)
	cs := make([]*Call, n)
	traces := make([]ToolTrace, n)
	var wg sync.WaitGroup
	for i, tc := range calls {
		c := &Call{ToolCall: tc, Index: i, Count: n, Cycle: cycle, Props: &r.props, Request: &r.req, Model: r.e.cfg.Model, Permission: Decision{Allow: true}, env: r}
		cs[i] = c
		traces[i] = ToolTrace{ID: tc.ID, Name: printable(tc.Name, 64), Status: StatusRunning, Arguments: map[string]any{}, Index: i, Count: n, Cycle: cycle}
		spec := offeredTool(r.offered, tc.Name)
		if spec == nil {
			spec = r.expand(tc.Name)
		}
		c.Tool = spec
		var args map[string]any
		var argErr error
		if spec != nil {
			args, argErr = spec.parseArgs(tc.Arguments)
			if args != nil {
				traces[i].Arguments = spec.redact(args)
			}
		}
		started := traces[i] // a copy: the running call updates traces[i]
		if !r.emit(Event{Kind: EventToolStarted, Tool: &started}) {
			wg.Wait()
			return outs, true
		}
		*used++
		if *used > r.req.MaxToolCalls {
			outs[i] = Outcome{Content: fmt.Sprintf("Tool call limit reached: at most %d tool calls per question. Answer with what you have.", r.req.MaxToolCalls), Status: StatusBlocked}
			continue
		}
		if spec == nil {
			names := make([]string, len(r.offered))
			for j, t := range r.offered {
				names[j] = t.Def.Name
			}
			outs[i] = Outcome{Content: fmt.Sprintf("Tool execution failed: there is no tool %q. Available tools: %s.", trimRunes(tc.Name, 64), strings.Join(names, ", ")), Status: StatusError}
			continue
		}
		if argErr != nil {
			outs[i] = Outcome{Content: "Tool execution failed: " + argErr.Error(), Status: StatusError}
			continue
		}
		if r.e.cfg.Policy != nil {
			c.Permission = r.e.cfg.Policy(ctx, c)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.Now()
			outs[i] = r.invoke(ctx, c, args)
			traces[i].DurationMS = time.Since(t).Milliseconds()
		}()
	}
	wg.Wait()
	terminate := false
	for i := range calls {
		tr := &traces[i]
		tr.Status = outs[i].Status
		tr.ResultBytes = len(outs[i].Content)
		if tr.Status != StatusOK {
			tr.Message = trimRunes(outs[i].Content, 300)
		}
		terminate = terminate || cs[i].terminate
		r.traces = append(r.traces, *tr)
		kind := map[string]EventKind{StatusOK: EventToolCompleted, StatusError: EventToolFailed, StatusBlocked: EventToolBlocked, StatusCancelled: EventToolCancelled}[tr.Status]
		done := *tr
		if !r.emit(Event{Kind: kind, Tool: &done}) {
			return outs, true
		}
	}
	return outs, terminate
}

func offeredTool(offered []*ToolSpec, name string) *ToolSpec {
	for _, t := range offered {
		if t.Def.Name == name {
			return t
		}
	}
	return nil
}

// printable returns s, a name the model gave, as text safe to show: its
// characters that are not printable (terminal escapes, bidirectional
// overrides) written as escapes, cut to n bytes.
func printable(s string, n int) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return trimRunes(s, n)
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else if r < 0x10000 {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			fmt.Fprintf(&b, "\\U%08x", r)
		}
	}
	return trimRunes(b.String(), n)
}

func trimRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !validUTF8End(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// invoke runs one call through the filters and the tool, never panicking.
func (r *run) invoke(ctx context.Context, c *Call, args map[string]any) (out Outcome) {
	tool := func(ctx context.Context) (out Outcome) {
		if !c.Permission.Allow {
			return Outcome{Content: "Blocked: " + cmpOr(c.Permission.Reason, "this call is not permitted"), Status: StatusBlocked}
		}
		defer func() {
			if p := recover(); p != nil {
				out = Outcome{Content: fmt.Sprintf("Tool execution failed: the tool %s crashed", c.Tool.Def.Name), Status: StatusError}
			}
		}()
		if err := ctx.Err(); err != nil {
			return Outcome{Content: "Tool execution failed: the request was cancelled", Status: StatusCancelled}
		}
		text, err := c.Tool.Func(ctx, c, maps.Clone(args))
		var be *BlockedError
		switch {
		case errors.As(err, &be):
			return Outcome{Content: "Blocked: " + be.Reason, Status: StatusBlocked}
		case err != nil && ctx.Err() != nil:
			return Outcome{Content: "Tool execution failed: the request was cancelled", Status: StatusCancelled}
		case err != nil:
			return Outcome{Content: "Tool execution failed: " + err.Error(), Status: StatusError}
		}
		return Outcome{Content: text, Status: StatusOK}
	}
	next := tool
	for i := len(r.e.cfg.Filters) - 1; i >= 0; i-- {
		f, inner := r.e.cfg.Filters[i], next
		next = func(ctx context.Context) Outcome { return f.InvokeTool(ctx, c, inner) }
	}
	defer func() {
		if p := recover(); p != nil { // a filter panicked
			out = Outcome{Content: fmt.Sprintf("Tool execution failed: a filter around %s crashed", c.Tool.Def.Name), Status: StatusError}
		}
	}()
	out = next(ctx)
	if out.Status == "" {
		out.Status = StatusOK
	}
	return out
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // the embedded folder exists
	}
	return sub
}

// citationGroup is a rendered citation: "[1]", "[2, 3]", "[1][4]".
var citationGroup = regexp.MustCompile(`[ \t]?(?:\[\d+(?:\s*[,;]\s*\d+)*\])+`)

// withoutCitations returns an earlier answer's text without its citation
// numbers, outside code: a group that follows a word ("a[1]") is code-like
// text and stays (see indexLike), and so does a link's text ("[1](…)").
// The reference list cite renders after an answer goes too (an OpenAI
// client sends cite's earlier answers back as they came): its numbers and
// links name the passages of that answer's request.
func withoutCitations(text string) string {
	text = withoutReferenceList(text)
	lines := strings.SplitAfter(text, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if f := fenceOf(t); f != "" && len(l)-len(t) <= 3 {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(t) == f:
				fence = ""
			}
			continue
		}
		if fence != "" || !strings.Contains(l, "[") {
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range citationGroup.FindAllStringIndex(l, -1) {
			start := m[0]
			if l[start] == ' ' || l[start] == '\t' {
				start++
			}
			if indexLike(l[:start]) || strings.HasPrefix(l[m[1]:], "(") || strings.Count(l[:start], "`")%2 == 1 {
				continue
			}
			b.WriteString(l[last:m[0]])
			last = m[1]
		}
		b.WriteString(l[last:])
		lines[i] = b.String()
	}
	return strings.Join(lines, "")
}

// withoutReferenceList returns text without the reference list that ends
// it as [citations.Render] writes one: the heading, then numbered entries
// alone up to the end.
func withoutReferenceList(text string) string {
	i := strings.LastIndex(text, "\n\n"+citations.ListHeading+"\n")
	if i < 0 {
		return text
	}
	for l := range strings.Lines(text[i+len("\n\n"+citations.ListHeading+"\n"):]) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		n, rest, ok := strings.Cut(l, ". ")
		if !ok || n == "" || strings.Trim(n, "0123456789") != "" || rest == "" {
			return text // not a list cite wrote
		}
	}
	return strings.TrimRight(text[:i], " \t\n")
}

// fenceOf returns the fence a line opens with ("```", "~~~~"), or "".
func fenceOf(t string) string {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return ""
	}
	return t[:n]
}

// indexLike reports whether a bracketed number after before is an index
// or a link label rather than a citation, as package citations reads it
// (and so never renders a citation): after a letter or digit ("a[1]"),
// after "_" that follows one ("x_[1]"), or after "]" ("[text][1]"). A
// letter beyond ASCII does not count: "東京[1]" and "café[1]" are
// citations.
func indexLike(before string) bool {
	if before == "" {
		return false
	}
	c := before[len(before)-1]
	if c == '_' {
		return len(before) > 1 && isAlnum(before[len(before)-2])
	}
	return c == ']' || isAlnum(c)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
