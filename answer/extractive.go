package answer

import (
	"context"
	"errors"
	"strings"

	"github.com/cite-rag/cite/answer/extractive"
	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/provider"
)

// NothingFound is the whole answer of [Extractive] when no retrieved
// passage answers the question. It cites nothing.
const NothingFound = "I found nothing in the indexed documents that answers this."

// ExtractiveOptions configure [NewExtractive]: those of the extractive
// answerer ([extractive.Options]). The zero value means the defaults.
type ExtractiveOptions = extractive.Options

// Extractive answers without a language model: it picks the sentences of
// the retrieved passages that best answer the question and cites each with
// its passage's marker (package [extractive] tells how). It is the
// [provider.ChatModel] used when no model is configured, so answers go
// through the same pipeline as generated ones.
//
// Chat reads the question from the request's last user message and the
// candidate passages from the [citations.Invocation] in ctx, where the
// orchestrator registers them: every registered reference, in index
// order, which is retrieval rank order. It hands them to
// [extractive.Answerer.Answer]. The request's other messages and its tools
// are ignored; Extractive never calls a tool. For each sentence it cites,
// it sets the reference's quote ([citations.Invocation.SetQuote]) to the
// sentence's bytes in the source file and their range, so the reference's
// link opens that sentence.
//
// An Extractive is safe for concurrent use.
type Extractive struct {
	a *extractive.Answerer
}

var _ provider.ChatModel = (*Extractive)(nil)

// NewExtractive returns an extractive model with opts.
func NewExtractive(opts ExtractiveOptions) *Extractive {
	return &Extractive{a: extractive.New(opts)}
}

// Name returns "extractive".
func (*Extractive) Name() string { return "extractive" }

// Local reports true: nothing leaves the machine.
func (*Extractive) Local() bool { return true }

// ErrNoInvocation is returned by [Extractive.Chat] when ctx carries no
// [citations.Invocation]: the passages to answer from are unknown.
var ErrNoInvocation = errors.New("extractive: no citations invocation in the context (call citations.Begin and register the passages)")

// Chat answers the last user message of req from the passages registered
// in ctx's invocation. onDelta, when not nil, receives the answer in a few
// pieces (one per sentence, then one per marker).
func (e *Extractive) Chat(ctx context.Context, req provider.ChatRequest, onDelta func(string) error) (provider.ChatResponse, error) {
	inv, ok := citations.FromContext(ctx)
	if !ok {
		return provider.ChatResponse{}, ErrNoInvocation
	}
	sents, err := e.a.Answer(ctx, lastUser(req.Messages), inv.References())
	if err != nil {
		return provider.ChatResponse{}, err
	}
	var deltas []string
	if len(sents) == 0 {
		deltas = []string{NothingFound}
	}
	block := false // the previous sentence came with a block
	for i, s := range sents {
		if _, err := inv.SetQuote(s.Ref.Index, s.Quote, s.Span); err != nil {
			return provider.ChatResponse{}, err
		}
		if s.Heading != s.Ref.Heading {
			if err := inv.SetHeading(s.Ref.Index, s.Heading); err != nil {
				return provider.ChatResponse{}, err
			}
		}
		text := s.Text
		switch {
		case i > 0 && block:
			text = "\n\n" + text
		case i > 0:
			text = " " + text
		}
		deltas = append(deltas, text, " "+s.Ref.Key())
		block = s.Block != ""
		if block {
			deltas = append(deltas, "\n\n"+s.Block)
		}
	}
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(d)
		if onDelta != nil {
			if err := onDelta(d); err != nil {
				return provider.ChatResponse{Content: b.String()}, err
			}
		}
	}
	return provider.ChatResponse{Content: b.String(), StopReason: "stop"}, nil
}

// lastUser returns the content of the last user message.
func lastUser(msgs []provider.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}
