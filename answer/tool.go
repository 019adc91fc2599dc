package answer

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cite-rag/cite/internal/jsonkeys"
	"github.com/cite-rag/cite/provider"
	"github.com/google/jsonschema-go/jsonschema"
)

// Tool purposes: they decide when the orchestrator offers a system tool.
const (
	// PurposeDataSourceSearch tools are offered when the request has a
	// data source to search.
	PurposeDataSourceSearch = "data_source_search"
	// PurposeDocumentProcessing tools are offered when the session has
	// documents.
	PurposeDocumentProcessing = "document_processing"
)

// Def is a tool's definition: everything the model, the traces and the
// orchestrator know of it. It is data, one JSON document per tool (the
// built-in ones are embedded from answer/tools/*.json), and the single
// source of truth: each provider derives its wire shape (Chat Completions'
// nested "function", the Responses API's flat tool) from [Def.Tool].
type Def struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Category    string `json:"category"`
	// Purpose gates a system tool on the request's context (see the
	// Purpose constants); other purposes are always offered.
	Purpose string `json:"purpose"`
	// Selectable tools are offered only when the request selects them.
	Selectable bool `json:"selectable,omitempty"`
	// Parameters is the JSON Schema of the arguments.
	Parameters json.RawMessage `json:"parameters"`
	// Policy is appended to the system prompt when the tool is offered.
	Policy string `json:"policy,omitempty"`
	// Sensitive names arguments never shown in traces or events.
	Sensitive []string `json:"sensitive,omitempty"`
}

// Tool returns the provider-neutral shape of d offered to a model.
func (d *Def) Tool() provider.Tool {
	return provider.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters}
}

// Func runs a tool call. args are the call's arguments, already validated
// against the tool's schema. It returns the text given to the model; an
// error is reported to the model as a failure, or as a refusal when it is
// a [*BlockedError].
type Func func(ctx context.Context, call *Call, args map[string]any) (string, error)

// BlockedError is a tool's refusal by policy: the model gets Reason, the
// trace says BLOCKED, and the loop goes on.
type BlockedError struct{ Reason string }

func (e *BlockedError) Error() string { return "blocked: " + e.Reason }

// Blocked returns a [*BlockedError].
func Blocked(format string, a ...any) error { return &BlockedError{Reason: fmt.Sprintf(format, a...)} }

// ToolSpec is a tool: its definition and its implementation.
type ToolSpec struct {
	Def  Def
	Func Func

	schema *jsonschema.Resolved
}

// Toolbox holds the tools an orchestrator may offer, each with its schema
// resolved once.
type Toolbox struct {
	tools map[string]*ToolSpec
	order []string
}

//go:embed tools/*.json
var builtinDefs embed.FS

// LoadDefs reads tool definitions, one JSON document per *.json file of fsys.
func LoadDefs(fsys fs.FS) ([]Def, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	var defs []Def
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var d Def
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("tool definition %s: %w", n, err)
		}
		if want := strings.TrimSuffix(path.Base(n), ".json"); d.Name != want {
			return nil, fmt.Errorf("tool definition %s: name %q, want %q", n, d.Name, want)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// NewToolbox pairs definitions with implementations by name. A definition
// without an implementation, an implementation without a definition, a
// duplicate name or a schema that does not compile is an error: tools are
// checked when the program starts, not when a model first calls them.
func NewToolbox(defs []Def, funcs map[string]Func) (*Toolbox, error) {
	tb := &Toolbox{tools: map[string]*ToolSpec{}}
	var errs []error
	for _, d := range defs {
		if _, dup := tb.tools[d.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %s: defined twice", d.Name))
			continue
		}
		f, ok := funcs[d.Name]
		if !ok || f == nil {
			errs = append(errs, fmt.Errorf("tool %s: defined but has no implementation", d.Name))
			continue
		}
		spec := &ToolSpec{Def: d, Func: f}
		if err := spec.compile(); err != nil {
			errs = append(errs, err)
			continue
		}
		tb.tools[d.Name] = spec
		tb.order = append(tb.order, d.Name)
	}
	for name := range funcs {
		if !slices.ContainsFunc(defs, func(d Def) bool { return d.Name == name }) {
			errs = append(errs, fmt.Errorf("tool %s: implemented but not defined", name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return tb, nil
}

func (s *ToolSpec) compile() error {
	d := &s.Def
	if d.Name == "" || strings.ContainsFunc(d.Name, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) || len(d.Name) > 64 {
		return fmt.Errorf("tool %q: a name is 1 to 64 letters, digits, _ or -", d.Name)
	}
	if d.Description == "" {
		return fmt.Errorf("tool %s: no description", d.Name)
	}
	if len(d.Parameters) == 0 {
		d.Parameters = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(d.Parameters, &sch); err != nil {
		return fmt.Errorf("tool %s: parameters: %w", d.Name, err)
	}
	if sch.Type != "object" {
		return fmt.Errorf("tool %s: parameters: the schema's type must be object", d.Name)
	}
	rs, err := sch.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: parameters: %w", d.Name, err)
	}
	s.schema = rs
	return nil
}

// Get returns the tool named name.
func (tb *Toolbox) Get(name string) (*ToolSpec, bool) {
	s, ok := tb.tools[name]
	return s, ok
}

// All returns every tool, in definition order.
func (tb *Toolbox) All() []*ToolSpec {
	out := make([]*ToolSpec, 0, len(tb.order))
	for _, n := range tb.order {
		out = append(out, tb.tools[n])
	}
	return out
}

// maxArgBytes bounds a call's arguments: anything longer is refused
// before it is parsed.
const maxArgBytes = 64 << 10

// parseArgs checks a model's arguments against the tool's schema. The error
// is written for the model to act on.
func (s *ToolSpec) parseArgs(raw string) (map[string]any, error) {
	if len(raw) > maxArgBytes {
		return nil, fmt.Errorf("the arguments are %d bytes; at most %d are accepted", len(raw), maxArgBytes)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = "{}"
	}
	var args map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil || dec.More() {
		return nil, fmt.Errorf("the arguments are not one JSON object (%v); send an object matching the tool's schema", firstErr(err, errors.New("trailing data")))
	}
	if args == nil {
		return nil, errors.New("the arguments must be a JSON object, not null")
	}
	// encoding/json would keep the last of a key given twice, and the
	// model would not learn that its first value was dropped.
	if key, dup := jsonkeys.Duplicate([]byte(raw)); dup {
		return nil, fmt.Errorf("the arguments give %q twice; give each argument once", key)
	}
	// jsonschema validates float64 numbers.
	inst := normalizeNumbers(args).(map[string]any)
	if err := s.schema.Validate(inst); err != nil {
		return nil, fmt.Errorf("invalid arguments: %s", schemaMessage(err))
	}
	return inst, nil
}

// maxValueShown bounds the bytes of a wrong argument's value an error
// repeats to the model.
const maxValueShown = 40

// withArticle returns a JSON type's name after "a" or "an".
func withArticle(t string) string {
	if t != "" && strings.IndexByte("aeiou", t[0]) >= 0 {
		return "an " + t
	}
	return "a " + t
}

// The messages of jsonschema's validation errors, for schemaMessage.
var (
	schemaPath  = regexp.MustCompile(`validating (/properties/[^:]+): `)
	schemaBound = regexp.MustCompile(`^(maximum|minimum): (-?\d+)/1 is (?:greater|less) than (-?[\d.]+)$`)
	schemaType  = regexp.MustCompile(`^type: (.*) has type "(\w+)", want "(\w+)"$`)
	schemaExtra = regexp.MustCompile(`^unexpected additional properties (\[.*\])$`)
	schemaNeed  = regexp.MustCompile(`^required: missing properties: (\[.*\])$`)
)

// schemaMessage returns a validation error of a tool's arguments as the
// model (and the trace a user reads) should get it: the argument it is
// about, and the rule in words, without the validator's paths and
// fractions ("k: 99 is more than the maximum, 20", not "validating root:
// validating /properties/k: maximum: 99/1 is greater than 20.000000").
func schemaMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	arg := ""
	if ms := schemaPath.FindAllStringSubmatchIndex(msg, -1); len(ms) > 0 {
		last := ms[len(ms)-1]
		arg = strings.ReplaceAll(strings.TrimPrefix(msg[last[2]:last[3]], "/properties/"), "/items", "[]")
		arg = strings.ReplaceAll(arg, "/properties/", ".")
		msg = msg[last[1]:]
	}
	if m := schemaBound.FindStringSubmatch(msg); m != nil {
		rel := "more"
		if m[1] == "minimum" {
			rel = "less"
		}
		msg = fmt.Sprintf("%s is %s than the %s, %s", m[2], rel, m[1], strings.TrimSuffix(strings.TrimRight(m[3], "0"), "."))
	} else if m := schemaType.FindStringSubmatch(msg); m != nil {
		switch m[2] {
		case "null":
			// The validator prints a null as "<invalid reflect.Value>".
			msg = fmt.Sprintf("null, want %s", withArticle(m[3]))
		case "object", "array":
			// Printed as a Go map or slice: the type says it.
			msg = fmt.Sprintf("%s, want %s", withArticle(m[2]), withArticle(m[3]))
		default:
			v := m[1]
			if len(v) > maxValueShown {
				v = strings.ToValidUTF8(v[:maxValueShown], "") + "…"
			}
			msg = fmt.Sprintf("%s is %s, want %s", v, withArticle(m[2]), withArticle(m[3]))
		}
	} else if m := schemaExtra.FindStringSubmatch(msg); m != nil {
		msg = "unknown arguments " + m[1]
	} else if m := schemaNeed.FindStringSubmatch(msg); m != nil {
		msg = "missing required arguments " + m[1]
	}
	if arg != "" {
		return arg + ": " + msg
	}
	return msg
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	}
	return v
}

// redact returns args without the tool's sensitive arguments.
func (s *ToolSpec) redact(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		if slices.Contains(s.Def.Sensitive, k) {
			out[k] = "[redacted]"
			continue
		}
		out[k] = v
	}
	return out
}

// Argument helpers for tool implementations: the arguments were validated,
// so a missing optional one gets its default.

// ArgString returns args[name] as a string, clamped to max bytes.
func ArgString(args map[string]any, name string, max int) string {
	s, _ := args[name].(string)
	if len(s) > max {
		s = s[:max]
		for len(s) > 0 && !validUTF8End(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

func validUTF8End(s string) bool {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		c := s[i]
		if c < 0x80 {
			return true
		}
		if c >= 0xC0 {
			n := 2
			if c >= 0xE0 {
				n = 3
			}
			if c >= 0xF0 {
				n = 4
			}
			return len(s)-i == n
		}
	}
	return false
}

// ArgInt returns args[name] as an int clamped to [lo, hi], or def when absent.
func ArgInt(args map[string]any, name string, def, lo, hi int) int {
	f, ok := args[name].(float64)
	if !ok {
		return def
	}
	n := int(f)
	if f > float64(hi) {
		n = hi
	}
	return max(lo, min(hi, n))
}

// ArgStrings returns args[name] as strings, at most max of them.
func ArgStrings(args map[string]any, name string, max int) []string {
	list, _ := args[name].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && len(out) < max {
			out = append(out, s)
		}
	}
	return out
}
