package citetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cite-rag/cite/citations"
)

// Scenario is one citation test case, stored as a JSON file.
type Scenario struct {
	// Description says what the scenario is about.
	Description string `json:"description"`
	// Preemptive are the references registered before generation starts.
	Preemptive []Ref `json:"preemptive,omitempty"`
	// ToolCalls register their references during generation, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Output is the model's output, when it is not given as Deltas.
	Output string `json:"output,omitempty"`
	// Deltas is the model's output as streamed.
	Deltas []string `json:"deltas,omitempty"`
	// Quotes are texts the cited passages must contain (in Want's numbering).
	Quotes []Quote `json:"quotes,omitempty"`
	// Want is the expected non-streamed rendering, numbered by index.
	Want *Want `json:"want,omitempty"`
	// WantStream is the expected streamed rendering.
	WantStream *Want `json:"want_stream,omitempty"`
}

// Ref is a reference as a producer registers it; its index comes from the
// invocation's counter. The fields are those of [citations.Reference].
type Ref struct {
	Title   string         `json:"title"`
	Passage string         `json:"passage,omitempty"`
	ID      string         `json:"reference_id,omitempty"`
	Type    citations.Type `json:"reference_type,omitempty"`
	Source  string         `json:"source,omitempty"`
	Span    citations.Span `json:"span,omitzero"`
	// Link, if set, is kept; otherwise [citations.DefaultResolver] builds it.
	Link string `json:"link,omitempty"`
}

func (r Ref) reference() citations.Reference {
	return citations.Reference{Title: r.Title, Passage: r.Passage, ID: r.ID, Type: r.Type, Source: r.Source, Span: r.Span, Link: r.Link}
}

// ToolCall is a tool call that registers references while the model
// streams.
type ToolCall struct {
	// Name is the tool's name, for reading the fixture.
	Name string `json:"name"`
	// AtDelta is the index of the delta before which the references are
	// registered: 0 before any text, len(Deltas) after all of it.
	AtDelta int `json:"at_delta"`
	// References are registered in order.
	References []Ref `json:"references"`
}

// Quote is a text that the passage cited as Number must contain.
type Quote struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// Want is an expected rendering.
type Want struct {
	// Markdown is the full output: text and reference list.
	Markdown string `json:"markdown"`
	// References and Dropped are those of the [citations.Rendered].
	References []citations.Cited `json:"references"`
	Dropped    []citations.Drop  `json:"dropped"`
}

func wantOf(r citations.Rendered) *Want {
	return &Want{Markdown: r.Markdown(), References: r.References, Dropped: r.Dropped}
}

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	var s Scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("load scenario %s: %w", path, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("load scenario %s: %w", path, err)
	}
	return &s, nil
}

func (s *Scenario) check() error {
	if s.Output != "" && len(s.Deltas) > 0 {
		return errors.New("output and deltas are both set")
	}
	for i, tc := range s.ToolCalls {
		if tc.AtDelta < 0 || tc.AtDelta > len(s.deltas()) {
			return fmt.Errorf("tool_calls[%d].at_delta %d: want 0..%d", i, tc.AtDelta, len(s.deltas()))
		}
		if i > 0 && tc.AtDelta < s.ToolCalls[i-1].AtDelta {
			return fmt.Errorf("tool_calls[%d].at_delta %d: tool calls must be in stream order", i, tc.AtDelta)
		}
	}
	return nil
}

// Text returns the model's whole output.
func (s *Scenario) Text() string { return strings.Join(s.deltas(), "") }

func (s *Scenario) deltas() []string {
	if len(s.Deltas) > 0 {
		return s.Deltas
	}
	return []string{s.Output}
}

// registration is one batch of references and the text offset before which
// it is registered.
type registration struct {
	at   int
	refs []Ref
}

func (s *Scenario) registrations() []registration {
	regs := []registration{{at: 0, refs: s.Preemptive}}
	ds := s.deltas()
	for _, tc := range s.ToolCalls {
		at := 0
		for _, d := range ds[:tc.AtDelta] {
			at += len(d)
		}
		regs = append(regs, registration{at: at, refs: tc.References})
	}
	return regs
}

// Invocation returns an invocation with every reference of the scenario
// registered, in order, with links from [citations.DefaultResolver].
func (s *Scenario) Invocation() (*citations.Invocation, error) {
	inv := newInvocation()
	for _, r := range s.registrations() {
		if err := register(inv, r.refs); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

func newInvocation() *citations.Invocation {
	inv := citations.NewInvocation()
	inv.SetResolver(citations.DefaultResolver())
	return inv
}

func register(inv *citations.Invocation, refs []Ref) error {
	for _, r := range refs {
		if _, err := inv.Register(r.reference()); err != nil {
			return err
		}
	}
	return nil
}

// streamed is the outcome of one streamed rendering.
type streamed struct {
	out      string
	result   citations.Rendered
	incoming []citations.Cited // from NewCitations, in order
}

// stream renders the scenario's text split at cuts (offsets, ascending)
// plus the registration offsets. Given a registry, it streams against it;
// given nil, it registers each tool call's references into a fresh
// invocation before the piece that starts at the tool call's offset.
func (s *Scenario) stream(cuts []int, reg citations.Registry) (streamed, error) {
	text := s.Text()
	var regs []registration
	inv := newInvocation()
	if reg == nil {
		regs, reg = s.registrations(), inv
	}
	all := slices.Clone(cuts)
	for _, r := range regs {
		all = append(all, r.at)
	}
	all = append(all, 0, len(text))
	slices.Sort(all)
	all = slices.Compact(all)

	var out strings.Builder
	var got streamed
	st := citations.NewStream(reg)
	for i, at := range all {
		for len(regs) > 0 && regs[0].at <= at {
			if err := register(inv, regs[0].refs); err != nil {
				return streamed{}, err
			}
			regs = regs[1:]
		}
		if i+1 < len(all) {
			out.WriteString(st.Feed(text[at:all[i+1]]))
			got.incoming = append(got.incoming, st.NewCitations()...)
		}
	}
	out.WriteString(st.Close())
	got.incoming = append(got.incoming, st.NewCitations()...)
	got.out = out.String()
	got.result = st.Result()
	return got, nil
}

// lateMarkers reports whether some marker names a reference that is
// registered only after the marker starts in the text. A stream drops such
// markers, so its output may differ from a rendering of the whole text.
func (s *Scenario) lateMarkers() bool {
	regAt := map[int]int{}
	n := 0
	for _, r := range s.registrations() {
		for range r.refs {
			n++
			regAt[n] = r.at
		}
	}
	for _, m := range citations.Parse(s.Text()) {
		if at, ok := regAt[m.Index]; ok && at > m.Span.Start {
			return true
		}
	}
	return false
}

// Run runs the scenarios matched by pattern, a directory (its *.json files)
// or a glob, each as a subtest named after its file. It fails the test if
// nothing matches. See the package documentation for what it checks. When
// the test binary has a boolean -update flag and it is set, Run rewrites each
// file's goldens instead of comparing them.
func Run(t *testing.T, pattern string) {
	t.Helper()
	run(t, pattern, updating())
}

func updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	v, ok := g.Get().(bool)
	return ok && v
}

func run(t *testing.T, pattern string, update bool) {
	t.Helper()
	if fi, err := os.Stat(pattern); err == nil && fi.IsDir() {
		pattern = filepath.Join(pattern, "*.json")
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("citetest: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("citetest: no scenarios match %s", pattern)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			runFile(t, file, update)
		})
	}
}

func runFile(t *testing.T, file string, update bool) {
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	checkScenario(t, s, file, update)
}

// checkScenario checks one scenario; with update set it rewrites its goldens
// in file instead of comparing them.
func checkScenario(t testing.TB, s *Scenario, file string, update bool) {
	t.Helper()
	text := s.Text()
	inv, err := s.Invocation()
	if err != nil {
		t.Fatal(err)
	}
	for i, ref := range inv.References() {
		if ref.Index != i+1 {
			t.Fatalf("reference %d registered with index %d: indices must be 1..n", i+1, ref.Index)
		}
	}

	byIndex := citations.Render(text, inv, citations.Options{})
	byAppearance := citations.Render(text, inv, citations.Options{Order: citations.ByAppearance})
	AssertValid(t, byIndex)
	AssertValid(t, byAppearance)
	if !sameRefs(byIndex.References, byAppearance.References) {
		t.Errorf("orders cite different references:\nby index      %v\nby appearance %v", keys(byIndex.References), keys(byAppearance.References))
	}

	timed, err := s.stream(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, "stream", timed)

	if update {
		s.Want, s.WantStream = wantOf(byIndex), wantOf(timed.result)
		if err := s.save(file); err != nil {
			t.Fatal(err)
		}
	} else {
		if s.Want == nil || s.WantStream == nil {
			t.Fatalf("%s has no goldens: run the test with -update", file)
		}
		compare(t, "render", wantOf(byIndex), s.Want)
		compare(t, "stream", wantOf(timed.result), s.WantStream)
		if timed.out != s.WantStream.Markdown {
			t.Errorf("stream output:\n got %q\nwant %q", timed.out, s.WantStream.Markdown)
		}
	}
	for _, q := range s.Quotes {
		AssertQuote(t, byIndex, q.Number, q.Text)
	}

	// Streamed equals non-streamed when every reference is known in time.
	if !s.lateMarkers() {
		compare(t, "stream vs render by appearance", wantOf(timed.result), wantOf(byAppearance))
	}
	for i, cuts := range splits(len(text)) {
		got, err := s.stream(cuts, inv)
		if err != nil {
			t.Fatal(err)
		}
		if got.out != byAppearance.Markdown() || !reflect.DeepEqual(got.result, byAppearance) {
			t.Fatalf("split at %v: streamed output differs from the render by appearance:\n got %q\nwant %q", cuts, got.out, byAppearance.Markdown())
		}
		checkStream(t, fmt.Sprintf("split at %v", cuts), got)
		if len(cuts) > 1 || len(text) > 256 && i%16 != 0 {
			continue
		}
		// The stream with tool calls registering mid-stream is the same
		// for every split too (for long texts, for a sample of splits).
		got, err = s.stream(cuts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.out != timed.out || !reflect.DeepEqual(got.result, timed.result) {
			t.Fatalf("split at %v with tool calls: output differs:\n got %q\nwant %q", cuts, got.out, timed.out)
		}
	}
}

// checkStream checks a streamed rendering: its output is its result's
// Markdown, the result is valid, and the citations it reported incrementally
// are its references.
func checkStream(t testing.TB, name string, got streamed) {
	t.Helper()
	if got.out != got.result.Markdown() {
		t.Errorf("%s: output is not the result's Markdown:\n got %q\nwant %q", name, got.out, got.result.Markdown())
	}
	AssertValid(t, got.result)
	if !reflect.DeepEqual(got.incoming, got.result.References) && len(got.incoming)+len(got.result.References) > 0 {
		t.Errorf("%s: NewCitations reported %v, result has %v", name, keys(got.incoming), keys(got.result.References))
	}
}

// splits returns the ways Run splits a text of n bytes: at every single
// offset, into single bytes, at every pair of offsets for short texts, and at
// random offsets.
func splits(n int) [][]int {
	var out [][]int
	for i := 1; i < n; i++ {
		out = append(out, []int{i})
	}
	every := make([]int, 0, n)
	for i := 1; i < n; i++ {
		every = append(every, i)
	}
	out = append(out, every)
	if n <= 96 {
		for i := 1; i < n; i++ {
			for j := i + 1; j < n; j++ {
				out = append(out, []int{i, j})
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 4))
	for range 50 {
		var cuts []int
		for at := rng.IntN(8) + 1; at < n; at += rng.IntN(24) + 1 {
			cuts = append(cuts, at)
		}
		out = append(out, cuts)
	}
	return out
}

func compare(t testing.TB, name string, got, want *Want) {
	t.Helper()
	if got.Markdown != want.Markdown {
		t.Errorf("%s: markdown:\n got %q\nwant %q", name, got.Markdown, want.Markdown)
	}
	if !reflect.DeepEqual(normRefs(got.References), normRefs(want.References)) {
		t.Errorf("%s: references:\n got %s\nwant %s", name, jsonString(got.References), jsonString(want.References))
	}
	if !reflect.DeepEqual(normDrops(got.Dropped), normDrops(want.Dropped)) {
		t.Errorf("%s: dropped:\n got %s\nwant %s", name, jsonString(got.Dropped), jsonString(want.Dropped))
	}
}

func normRefs(r []citations.Cited) []citations.Cited {
	if len(r) == 0 {
		return nil
	}
	return r
}

func normDrops(d []citations.Drop) []citations.Drop {
	if len(d) == 0 {
		return nil
	}
	return d
}

// sameRefs reports whether a and b cite the same references, in any order.
func sameRefs(a, b []citations.Cited) bool {
	ka := make([]string, len(a))
	for i, c := range a {
		ka[i] = c.Key
	}
	kb := make([]string, len(b))
	for i, c := range b {
		kb[i] = c.Key
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}

func keys(refs []citations.Cited) []string {
	k := make([]string, len(refs))
	for i, r := range refs {
		k[i] = strconv.Itoa(r.Number) + "=" + r.Key
	}
	return k
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Scenario) save(file string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("save scenario %s: %w", file, err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save scenario: %w", err)
	}
	return nil
}
