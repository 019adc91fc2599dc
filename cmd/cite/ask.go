package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	sessions "github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/internal/escape"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// askFlags are the flags ask and chat share.
type askFlags struct {
	*flags
	sources, docs, tools listFlag
	model                string
	k                    int
	noList               bool
	maxTools             int
	keepLinks            bool
	access               access // readIndex unless the command writes (serve)
}

func newAskFlags(e *env, name, args, about string) *askFlags {
	f := &askFlags{flags: newFlags(e, name, args, about, name == "ask"), k: answer.DefaultK}
	if name != "serve" {
		// A request to cite serve names its own sources and k, and
		// gets the reference list; these flags would be ignored there.
		f.Var(&f.sources, "source", "search this data source (repeatable; default: every source, or none when --doc attaches documents)")
		f.Var(&f.docs, "doc", "attach this indexed document, by path or id, or the end of one document's path (a file name, a path below the folder indexed) (repeatable): it is searched, alone with the other documents attached unless --source names data sources too, and the document tools are offered")
		f.Var(&f.tools, "tool", "offer this selectable tool, such as current_datetime (repeatable)")
		f.IntVar(&f.k, "k", answer.DefaultK, "passages retrieved before the model call")
		f.BoolVar(&f.noList, "no-reference-list", false, "do not print the reference list after the answer")
	}
	f.StringVar(&f.model, "model", "", "the model: openai:NAME, openai-responses:NAME or ollama:NAME (default CITE_MODEL, else the offline extractive answerer)")
	f.IntVar(&f.maxTools, "max-tool-calls", answer.DefaultMaxToolCalls, "at most this many tool calls per question (0: offer the model no tools)")
	f.BoolVar(&f.keepLinks, "allow-external-links", false, "keep images and links the model writes to hosts that are not a web source of the answer (by default they show as text with their host)")
	return f
}

// session is an open index with an orchestrator over it.
type session struct {
	st       *index.Store
	searcher *search.Searcher
	embedder *embed.Embedder // the index's, if it has one
	eng      *answer.Engine
	req      answer.Request
	json     bool
}

func (f *askFlags) open(ctx context.Context, e *env) (*session, error) {
	if f.k <= 0 {
		return nil, f.usageError("-k must be at least 1")
	}
	if f.maxTools < 0 {
		return nil, f.usageError("--max-tool-calls must be 0 (no tools) or more")
	}
	a := f.access
	if a == readIndex {
		a = queryIndex
	}
	st, err := f.openIndex(ctx, a)
	if a == writeIndex && errors.Is(err, index.ErrReadOnly) {
		st, err = f.openIndex(ctx, queryIndex) // serve what can be served
	}
	if err != nil {
		return nil, err
	}
	s, err := search.Open(ctx, f.reader(st), search.Options{Embedder: e.embedConfig()})
	if err != nil {
		st.Close()
		return nil, err
	}
	spec := f.model
	if spec == "" {
		spec = e.getenv("CITE_MODEL")
	}
	var model provider.ChatModel
	if spec == "" || spec == "extractive" {
		model = answer.NewExtractive(answer.ExtractiveOptions{TermStats: f.reader(st).TermStats})
	} else if model, err = provider.NewChatModel(spec, provider.ConfigFromEnv(e.getenv)); err != nil {
		st.Close()
		return nil, f.usageError("--model: %v", err)
	}
	maxTools := f.maxTools
	if maxTools == 0 {
		maxTools = answer.NoToolCalls // cite serve's requests too
	}
	eng, err := answer.New(answer.Config{Model: model, Retriever: s, Library: st, MaxToolCalls: maxTools, KeepLinks: f.keepLinks})
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := checkTools(eng.Tools(), f.tools); err != nil {
		st.Close()
		return nil, f.usageError("%v", err)
	}
	req := answer.Request{Sources: f.sources, Tools: f.tools, K: f.k, MaxToolCalls: f.maxTools}
	if f.maxTools == 0 {
		req.MaxToolCalls = answer.NoToolCalls
	}
	// The data sources are those searches read: the --store collection's
	// when there is one (a query node may have no index folder); never
	// cite serve's sessions'.
	names, err := sessions.Public.SourceNames(ctx, f.reader(st))
	if err != nil {
		st.Close()
		return nil, err
	}
	if len(req.Sources) == 0 {
		// Every data source, unless documents are named: then those
		// alone, as cite search --doc searches them (--source adds
		// sources beside them).
		if len(f.docs) == 0 {
			req.Sources = names
		}
	} else {
		for _, name := range req.Sources {
			if !slices.Contains(names, name) {
				st.Close()
				return nil, f.usageError("--source %s: no such data source (cite sources lists them)", name)
			}
		}
	}
	for _, ref := range f.docs {
		d, byTail, err := findByName(ctx, st, "", ref, "--doc")
		if err != nil {
			st.Close()
			return nil, err
		}
		if byTail {
			fmt.Fprintf(e.stderr, "attaching %s, the indexed document whose path ends in %s\n", displayPath(d.Path), cell(ref))
		}
		req.Documents = append(req.Documents, d.ID)
	}
	var emb *embed.Embedder
	if info, err := st.Embedder(ctx); err == nil && info.Name != "" {
		emb, _ = embed.New(info.Name, e.embedConfig()) // nil: uploads get no vectors
	}
	return &session{st: st, searcher: s, embedder: emb, eng: eng, req: req, json: f.json}, nil
}

// checkTools checks the names given to --tool: each must be a tool of tb
// that a request selects (current_datetime); the others are offered
// without asking, and a name misspelt would select nothing, silently.
func checkTools(tb *answer.Toolbox, names []string) error {
	var selectable []string
	for _, t := range tb.All() {
		if t.Def.Selectable {
			selectable = append(selectable, t.Def.Name)
		}
	}
	for _, name := range names {
		if !slices.Contains(selectable, name) {
			there := "there is none"
			switch len(selectable) {
			case 0:
			case 1:
				there = "there is " + selectable[0]
			default:
				there = "there are " + strings.Join(selectable, ", ")
			}
			return fmt.Errorf("--tool %s: no such tool to select (%s)", name, there)
		}
	}
	return nil
}

func runAsk(ctx context.Context, e *env, args []string) error {
	f := newAskFlags(e, "ask", `"QUESTION"`, `Answer a question from the index, citing the passages it used. The answer
streams to stdout with tool calls as status lines on stderr, then the
reference list. With no model (--model or CITE_MODEL) the answer is
extractive and offline: the sentences of the retrieved passages that best
answer the question, each cited. --json prints one object:
{"text","references","dropped","tool_calls","model","usage","timings","stop_reason"}.`)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() == 0 || strings.TrimSpace(strings.Join(f.Args(), "")) == "" {
		return f.usageError("ask: no QUESTION given")
	}
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.st.Close()
	s.req.Question = strings.Join(f.Args(), " ")
	res, err := s.ask(ctx, e, f.noList)
	if err != nil {
		return err
	}
	if s.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return nil
}

// ask runs the request, printing the answer as it streams unless the
// output is JSON. The answer and its reference list are [shown], through
// one [escape.Writer], so that an escape sequence or a character split
// between the stream's chunks is made visible too.
func (s *session) ask(ctx context.Context, e *env, noList bool) (*answer.Result, error) {
	var res *answer.Result
	wroteText := false
	out := escape.NewWriter(e.stdout)
	for ev, err := range s.eng.Run(ctx, s.req) {
		if err != nil {
			if !s.json && wroteText {
				out.Flush()
				fmt.Fprintln(e.stdout)
			}
			return nil, err
		}
		switch ev.Kind {
		case answer.EventText:
			if !s.json {
				io.WriteString(out, ev.Text)
				wroteText = true
			}
		case answer.EventReferenceList:
			if !s.json && !noList {
				io.WriteString(out, ev.Text)
			}
		case answer.EventToolStarted:
			fmt.Fprintf(e.stderr, "… %s %s\n", cell(ev.Tool.Name), cell(argsLine(ev.Tool.Arguments)))
		case answer.EventToolCompleted, answer.EventToolFailed, answer.EventToolBlocked, answer.EventToolCancelled:
			line := fmt.Sprintf("%s %s: %s, %d ms, %d bytes", mark(ev.Tool.Status), ev.Tool.Name, ev.Tool.Status, ev.Tool.DurationMS, ev.Tool.ResultBytes)
			if ev.Tool.Message != "" && ev.Tool.Status != answer.StatusOK {
				line += ": " + ev.Tool.Message
			}
			fmt.Fprintln(e.stderr, cell(line))
		case answer.EventAnswer:
			res = ev.Answer
		}
	}
	if !s.json {
		out.Flush()
		fmt.Fprintln(e.stdout)
	}
	if res != nil {
		switch res.StopReason {
		case provider.StopLength:
			fmt.Fprintln(e.stderr, "cite: the answer is cut short: the model reached its output limit")
		case provider.StopContentFilter:
			fmt.Fprintln(e.stderr, "cite: the answer is cut short: the provider's content filter stopped it")
		case provider.StopOther:
			fmt.Fprintln(e.stderr, "cite: the answer may be cut short: the model stopped for a reason it did not name")
		case provider.StopToolCalls:
			fmt.Fprintln(e.stderr, toolCallsPastLimit(res.Text, s.req.MaxToolCalls))
		}
		if len(res.Dropped) > 0 {
			fmt.Fprintln(e.stderr, droppedNote(res.Dropped))
		}
	}
	return res, nil
}

// toolCallsPastLimit says that the model's last response asked for tool
// calls, which were not run: its tool calls were used up, or it was offered
// none. Its answer is text, if any, it wrote before them: none, or perhaps
// unfinished (cite printed an empty answer and said nothing).
func toolCallsPastLimit(text string, limit int) string {
	what := "the answer may be unfinished: the model"
	if strings.TrimSpace(text) == "" {
		what = "the model gave no answer: it"
	}
	if limit <= 0 {
		return fmt.Sprintf("cite: %s asked for tool calls, though it was offered none (--max-tool-calls 0)", what)
	}
	return fmt.Sprintf("cite: %s asked for more tool calls after the %d it may make (--max-tool-calls)", what, limit)
}

// droppedNote says which citations the model wrote were left out of the
// answer, so that a statement that lost its citation is not taken for one
// that never had any.
func droppedNote(drops []citations.Drop) string {
	const most = 5
	var marks []string
	for _, d := range drops[:min(len(drops), most)] {
		why := "no passage it was given"
		switch d.Reason {
		case citations.ReasonMalformed:
			why = "malformed"
		case citations.ReasonBare:
			why = "not a citation"
		}
		marks = append(marks, fmt.Sprintf("%s (%s)", cell(trimLine(d.Marker, 40)), why))
	}
	if len(drops) > most {
		marks = append(marks, fmt.Sprintf("and %d more", len(drops)-most))
	}
	n := "citation"
	if len(drops) > 1 {
		n = "citations"
	}
	return fmt.Sprintf("cite: left out %d %s the model wrote: %s", len(drops), n, strings.Join(marks, ", "))
}

func mark(status string) string {
	if status == answer.StatusOK {
		return "✓"
	}
	return "✗"
}

func argsLine(args map[string]any) string {
	b, _ := json.Marshal(args)
	return trimLine(string(b), 200)
}

func trimLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func runChat(ctx context.Context, e *env, args []string) error {
	f := newAskFlags(e, "chat", "", `A conversation in the terminal: each line you type is a question, answered
with citations as cite ask does, with the conversation so far as context.
An empty line typed, or the end of input, ends it (piped questions may be
spaced by empty lines).`)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return f.usageError("chat takes no arguments: type the questions (did you mean cite ask %q?)", strings.Join(f.Args(), " "))
	}
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.st.Close()
	// Lines are read in a goroutine, so that Ctrl-C (ctx) ends the chat
	// at the prompt too, not only while an answer streams.
	lines := make(chan string)
	var readErr error
	go func() {
		defer close(lines)
		in := bufio.NewScanner(e.stdin())
		in.Buffer(make([]byte, 64<<10), 1<<20)
		for in.Scan() {
			select {
			case lines <- in.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr = in.Err()
	}()
	// Typed questions show as typed; piped ones are written before their
	// answers, so that the output reads as the conversation.
	typed := isTerminalFile(e.stdin())
	for {
		if typed {
			fmt.Fprint(e.stderr, "> ")
		}
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			fmt.Fprintln(e.stderr)
			return context.Cause(ctx)
		}
		if !ok {
			if typed {
				fmt.Fprintln(e.stderr) // Ctrl-D: the shell's prompt on a line of its own
			}
			return readErr
		}
		q := strings.TrimSpace(line)
		if q == "" {
			if !typed {
				// A file of questions may space them with blank
				// lines: the questions after one were left
				// unanswered, without a word, and exit 0.
				continue
			}
			return nil
		}
		if !typed {
			fmt.Fprintf(e.stdout, "> %s\n\n", shown(q))
		}
		s.req.Question = q
		res, err := s.ask(ctx, e, f.noList)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "cite chat: %s\n", shown(err.Error()))
			continue
		}
		s.req.History = append(s.req.History,
			provider.Message{Role: provider.RoleUser, Content: q},
			provider.Message{Role: provider.RoleAssistant, Content: res.Text})
	}
}
