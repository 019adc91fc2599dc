package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/provider"
)

// synthetic makes n tools in ten categories; tool 7 is about invoices.
func synthetic(t *testing.T, n int) []*ToolSpec {
	t.Helper()
	var defs []Def
	funcs := map[string]Func{}
	topics := []string{"weather", "calendar", "email", "billing", "maps", "music", "photos", "notes", "tasks", "stocks"}
	for i := range n {
		name := fmt.Sprintf("%s_tool_%03d", topics[i%10], i)
		desc := fmt.Sprintf("Does %s things, number %d.", topics[i%10], i)
		if i == 7 {
			name, desc = "find_invoice", "Find an invoice by customer and month."
		}
		defs = append(defs, Def{Name: name, Description: desc, Category: topics[i%10], Purpose: "test",
			Parameters: []byte(`{"type":"object","properties":{"customerName":{"type":"string"}},"additionalProperties":false}`)})
		funcs[name] = func(context.Context, *Call, map[string]any) (string, error) { return "ok", nil }
	}
	tb, err := NewToolbox(defs, funcs)
	if err != nil {
		t.Fatal(err)
	}
	return tb.All()
}

type planner struct {
	reply string
	err   error
	hang  bool
	seen  *provider.ChatRequest
}

func (p *planner) Name() string { return "planner" }
func (p *planner) Local() bool  { return true }
func (p *planner) Chat(ctx context.Context, req provider.ChatRequest, _ func(string) error) (provider.ChatResponse, error) {
	if p.seen != nil {
		*p.seen = req
	}
	if p.hang {
		<-ctx.Done()
		return provider.ChatResponse{}, ctx.Err()
	}
	return provider.ChatResponse{Content: p.reply}, p.err
}

func names(ts []*ToolSpec) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Def.Name)
	}
	return strings.Join(out, ",")
}

func TestScoping(t *testing.T) {
	q := []provider.Message{{Role: provider.RoleUser, Content: "Find the invoice of customer ACME for March"}}
	var seen provider.ChatRequest
	tests := []struct {
		name       string
		n          int
		s          Scoping
		model      *planner
		wantMethod string
		wantCount  int
		// wantFallback is in the result's Fallback, the reason given.
		wantFallback string
		check        func(t *testing.T, r ScopeResult)
	}{
		{name: "10 tools: all", n: 10, wantMethod: "all", wantCount: 10},
		{name: "50 tools: token scoring, the relevant one first", n: 50, wantMethod: "tokens", wantCount: 20,
			check: func(t *testing.T, r ScopeResult) {
				if r.Tools[0].Def.Name != "find_invoice" {
					t.Errorf("first %s", r.Tools[0].Def.Name)
				}
			}},
		{name: "50 tools: must-include kept", n: 50, s: Scoping{MustInclude: []string{"stocks_tool_049"}}, wantMethod: "tokens", wantCount: 21,
			check: func(t *testing.T, r ScopeResult) {
				if r.Tools[0].Def.Name != "stocks_tool_049" {
					t.Errorf("%s", names(r.Tools))
				}
			}},
		{name: "150 tools: planning picks categories", n: 150, model: &planner{reply: `Sure: ["billing"]`, seen: &seen}, wantMethod: "planning", wantCount: 15,
			check: func(t *testing.T, r ScopeResult) {
				for _, x := range r.Tools {
					if x.Def.Category != "billing" {
						t.Errorf("%s", x.Def.Name)
					}
				}
				if *seen.Temperature != 0.1 || seen.MaxTokens != 300 {
					t.Errorf("planning request %+v", seen)
				}
			}},
		{name: "150 tools: the planner fails", n: 150, model: &planner{err: errors.New("HTTP 500")}, wantMethod: "tokens-fallback", wantCount: 20, wantFallback: "planning failed: HTTP 500"},
		{name: "150 tools: the planner times out", n: 150, s: Scoping{PlanningTimeout: 20 * time.Millisecond}, model: &planner{hang: true}, wantMethod: "tokens-fallback", wantCount: 20, wantFallback: "planning failed: context deadline exceeded"},
		{name: "150 tools: the planner answers nonsense", n: 150, model: &planner{reply: "billing, I think"}, wantMethod: "tokens-fallback", wantCount: 20},
		{name: "the hard cap", n: 150, s: Scoping{InitialToolCount: 50, MaxToolCount: 25}, model: &planner{err: errors.New("x")}, wantMethod: "tokens-fallback", wantCount: 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m provider.ChatModel
			if tt.model != nil {
				m = tt.model
			}
			// A planner that hangs is cut off by PlanningTimeout (the
			// fallback says the deadline passed; t.Context has none), not
			// checked by a wall-clock bound: under the race detector on a
			// loaded 2-core machine the 150 tools' schemas alone took over
			// 5 s to compile.
			r := tt.s.Scope(t.Context(), synthetic(t, tt.n), q, m)
			if r.Method != tt.wantMethod || len(r.Tools) != tt.wantCount || !strings.Contains(r.Fallback, tt.wantFallback) {
				t.Errorf("%s with %d tools (%s), want %s with %d (%s)", r.Method, len(r.Tools), r.Fallback, tt.wantMethod, tt.wantCount, tt.wantFallback)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestToolWords(t *testing.T) {
	if got := strings.Join(toolWords("search_dataSources for the HTTPServer"), " "); got != "search data sources httpserver" {
		t.Errorf("%q", got)
	}
}

// scripted replies with its turns in order.
type scripted struct {
	turns []provider.ChatResponse
	reqs  []provider.ChatRequest
}

func (s *scripted) Name() string { return "scripted" }
func (s *scripted) Local() bool  { return true }
func (s *scripted) Chat(_ context.Context, req provider.ChatRequest, onDelta func(string) error) (provider.ChatResponse, error) {
	s.reqs = append(s.reqs, req)
	r := s.turns[0]
	s.turns = s.turns[1:]
	if r.Content != "" && onDelta != nil {
		onDelta(r.Content)
	}
	return r, nil
}

// TestScopingExpansion: a tool scoping left out is added when the model
// calls it, for MaxExpansionRounds rounds.
func TestScopingExpansion(t *testing.T) {
	tools := synthetic(t, 50)
	var specs []ToolSpec
	for _, x := range tools {
		specs = append(specs, ToolSpec{Def: x.Def, Func: x.Func})
	}
	callOf := func(names ...string) provider.ChatResponse {
		var cs []provider.ToolCall
		for i, n := range names {
			cs = append(cs, provider.ToolCall{ID: fmt.Sprint("c", i), Name: n, Arguments: "{}"})
		}
		return provider.ChatResponse{ToolCalls: cs}
	}
	m := &scripted{turns: []provider.ChatResponse{
		callOf("weather_tool_000", "music_tool_005"),
		callOf("photos_tool_006", "notes_tool_017"),
		{Content: "Done."},
	}}
	eng, err := New(Config{Model: m, Tools: specs, Scoping: Scoping{MaxExpansionRounds: 3}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Collect(eng.Run(t.Context(), Request{Question: "Find the invoice of customer ACME for March", MaxToolCalls: 8}))
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, c := range res.ToolCalls {
		st = append(st, c.Name+":"+c.Status)
	}
	if got := strings.Join(st, ","); got != "weather_tool_000:OK,music_tool_005:OK,photos_tool_006:OK,notes_tool_017:ERROR" {
		t.Errorf("%s", got)
	}
	if n0, n1 := len(m.reqs[0].Tools), len(m.reqs[1].Tools); n0 != 20 || n1 != 22 {
		t.Errorf("offered %d then %d tools", n0, n1)
	}
}
