package answer

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/cite-rag/cite/provider"
)

// Scoping defaults (seed 004's DefaultOrchestratorOptions).
const (
	DefaultScopingThreshold       = 30  // up to this many tools: all offered
	DefaultPlanningThreshold      = 100 // above this: a utility model plans
	DefaultInitialToolCount       = 20  // tools offered by token scoring
	DefaultMaxToolCount           = 30  // hard cap on offered tools
	DefaultMaxExpansionRounds     = 3   // rounds adding tools the model asked for
	DefaultPlanningHistoryCount   = 10  // messages the utility model sees
	DefaultPlanningTimeout        = 10 * time.Second
	planningTemperature           = 0.1
	planningMaxTokens             = 300
	scopeNameWeight, scopeParamWt = 3, 1
)

// Scoping narrows a large tool set to the tools a question needs
// (progressive tool scoping, seed 004): up to ScopingThreshold tools are
// all offered; up to PlanningThreshold, the InitialToolCount tools whose
// name, description and parameter names share most words with the latest
// user and assistant messages, plus the MustInclude ones; above it, a
// utility model names the categories needed (temperature 0.1, at most 300
// output tokens, the last PlanningHistoryCount messages), with token
// scoring as the fallback when it fails, times out or answers nonsense.
// No more than MaxToolCount tools are ever offered. When the model calls a
// registered tool that scoping left out, the orchestrator adds it (and
// runs the call) in up to MaxExpansionRounds rounds per request.
//
// The zero Scoping uses the defaults and the main model for planning.
type Scoping struct {
	ScopingThreshold     int
	PlanningThreshold    int
	InitialToolCount     int
	MaxToolCount         int
	MaxExpansionRounds   int
	PlanningHistoryCount int
	PlanningTimeout      time.Duration
	// UtilityModel plans; nil means the request's model.
	UtilityModel provider.ChatModel
	// MustInclude names tools always offered.
	MustInclude []string
}

func (s Scoping) withDefaults() Scoping {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&s.ScopingThreshold, DefaultScopingThreshold)
	def(&s.PlanningThreshold, DefaultPlanningThreshold)
	def(&s.InitialToolCount, DefaultInitialToolCount)
	def(&s.MaxToolCount, DefaultMaxToolCount)
	def(&s.MaxExpansionRounds, DefaultMaxExpansionRounds)
	def(&s.PlanningHistoryCount, DefaultPlanningHistoryCount)
	if s.PlanningTimeout <= 0 {
		s.PlanningTimeout = DefaultPlanningTimeout
	}
	return s
}

// ScopeResult says which tools scoping chose, and how.
type ScopeResult struct {
	Tools []*ToolSpec
	// Method is "all", "tokens", "planning" or "tokens-fallback".
	Method string
	// Fallback is why planning was not used, when Method is
	// "tokens-fallback".
	Fallback string
}

// Scope chooses tools among tools for the conversation msgs (the question
// last). It never fails: planning failures fall back to token scoring,
// except that a cancelled ctx stops planning and is left for the caller
// to see.
func (s Scoping) Scope(ctx context.Context, tools []*ToolSpec, msgs []provider.Message, model provider.ChatModel) ScopeResult {
	s = s.withDefaults()
	if len(tools) <= s.ScopingThreshold {
		return ScopeResult{Tools: s.capped(tools, tools), Method: "all"}
	}
	if len(tools) <= s.PlanningThreshold {
		return ScopeResult{Tools: s.byTokens(tools, msgs), Method: "tokens"}
	}
	picked, why := s.plan(ctx, tools, msgs, model)
	if why != "" {
		return ScopeResult{Tools: s.byTokens(tools, msgs), Method: "tokens-fallback", Fallback: why}
	}
	return ScopeResult{Tools: picked, Method: "planning"}
}

// capped keeps must-include tools first, then the others in order, up to
// MaxToolCount.
func (s Scoping) capped(all, ranked []*ToolSpec) []*ToolSpec {
	var out []*ToolSpec
	for _, t := range all {
		if slices.Contains(s.MustInclude, t.Def.Name) {
			out = append(out, t)
		}
	}
	for _, t := range ranked {
		if len(out) >= s.MaxToolCount {
			break
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out[:min(len(out), s.MaxToolCount)]
}

// byTokens ranks tools by the overlap of their words with the latest user
// and assistant messages.
func (s Scoping) byTokens(tools []*ToolSpec, msgs []provider.Message) []*ToolSpec {
	ctxWords := map[string]bool{}
	var user, asst bool
	for i := len(msgs) - 1; i >= 0 && !(user && asst); i-- {
		m := msgs[i]
		if m.Role == provider.RoleUser && !user || m.Role == provider.RoleAssistant && !asst {
			for _, w := range toolWords(m.Content) {
				ctxWords[w] = true
			}
			user = user || m.Role == provider.RoleUser
			asst = asst || m.Role == provider.RoleAssistant
		}
	}
	type scored struct {
		t     *ToolSpec
		score int
	}
	var ss []scored
	for _, t := range tools {
		sc := 0
		for _, w := range toolWords(t.Def.Name) {
			if ctxWords[w] {
				sc += scopeNameWeight
			}
		}
		for _, w := range toolWords(t.Def.Description) {
			if ctxWords[w] {
				sc++
			}
		}
		for _, w := range paramNames(t) {
			if ctxWords[w] {
				sc += scopeParamWt
			}
		}
		ss = append(ss, scored{t, sc})
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		return cmp.Or(b.score-a.score, strings.Compare(a.t.Def.Name, b.t.Def.Name))
	})
	var ranked []*ToolSpec
	for _, x := range ss[:min(len(ss), s.InitialToolCount)] {
		ranked = append(ranked, x.t)
	}
	return s.capped(tools, ranked)
}

func paramNames(t *ToolSpec) []string {
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(t.Def.Parameters, &sch)
	var out []string
	for k := range sch.Properties {
		out = append(out, toolWords(k)...)
	}
	return out
}

var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "and": true, "or": true, "is": true, "are": true, "for": true, "on": true, "with": true, "what": true, "how": true, "me": true, "my": true, "it": true, "this": true, "that": true, "be": true, "do": true, "i": true, "you": true}

// toolWords splits text into lower-case words, cutting snake_case and
// camelCase, without stop words.
func toolWords(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if w := b.String(); w != "" && !stopWords[w] {
			out = append(out, w)
		}
		b.Reset()
	}
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

// plan asks the utility model for the categories needed; why is the reason
// to fall back, or "".
func (s Scoping) plan(ctx context.Context, tools []*ToolSpec, msgs []provider.Message, model provider.ChatModel) (picked []*ToolSpec, why string) {
	m := cmp.Or[provider.ChatModel](s.UtilityModel, model)
	if m == nil {
		return nil, "no utility model"
	}
	cats := map[string]bool{}
	var list []string
	for _, t := range tools {
		if c := t.Def.Category; c != "" && !cats[c] {
			cats[c] = true
			list = append(list, c)
		}
	}
	slices.Sort(list)
	hist := msgs[max(0, len(msgs)-s.PlanningHistoryCount):]
	var conv strings.Builder
	for _, msg := range hist {
		if msg.Role == provider.RoleUser || msg.Role == provider.RoleAssistant {
			conv.WriteString(msg.Role + ": " + trimRunes(msg.Content, 2000) + "\n")
		}
	}
	temp := planningTemperature
	req := provider.ChatRequest{
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "You choose which tool categories an assistant needs for the conversation below. Categories: " + strings.Join(list, ", ") + ". Reply with a JSON array of category names only, such as [\"retrieval\"]."},
			{Role: provider.RoleUser, Content: conv.String()},
		},
		Temperature: &temp,
		MaxTokens:   planningMaxTokens,
	}
	pctx, cancel := context.WithTimeout(ctx, s.PlanningTimeout)
	defer cancel()
	resp, err := m.Chat(pctx, req, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "cancelled"
		}
		return nil, "planning failed: " + trimRunes(err.Error(), 200)
	}
	text := resp.Content
	if i, j := strings.Index(text, "["), strings.LastIndex(text, "]"); i >= 0 && j > i {
		text = text[i : j+1]
	}
	var want []string
	if err := json.Unmarshal([]byte(text), &want); err != nil || len(want) == 0 {
		return nil, "the plan is not a JSON array of categories"
	}
	var ranked []*ToolSpec
	for _, t := range tools {
		if slices.Contains(want, t.Def.Category) {
			ranked = append(ranked, t)
		}
	}
	if len(ranked) == 0 {
		return nil, "the plan names no known category"
	}
	// Within the planned categories, the most relevant first.
	return s.byTokensAmong(tools, ranked, msgs), ""
}

func (s Scoping) byTokensAmong(all, among []*ToolSpec, msgs []provider.Message) []*ToolSpec {
	t := s
	t.InitialToolCount = s.MaxToolCount
	ranked := t.byTokens(among, msgs)
	return s.capped(all, ranked)
}
