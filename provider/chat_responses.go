package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// responsesModel is a model reached through the OpenAI Responses API with
// the official openai-go client.
type responsesModel struct {
	spec  string
	model string
	svc   responses.ResponseService
	key   redactor
	local bool
	ids   callIDs
}

var _ ChatModel = (*responsesModel)(nil)

func newResponsesModel(spec, model, base, key string, client *http.Client) *responsesModel {
	m := &responsesModel{spec: spec, model: model, key: redactor(key), local: isLocal(base)}
	opts := []option.RequestOption{
		// responses.NewResponseService, unlike openai.NewClient, reads
		// nothing from the environment.
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0), // retries belong to the transport
		option.WithMiddleware(m.middleware),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	m.svc = responses.NewResponseService(opts...)
	return m
}

func (m *responsesModel) Name() string { return m.spec }
func (m *responsesModel) Local() bool  { return m.local }

// middleware turns failed replies and transport errors into [*Error]
// before openai-go reads them (it cannot parse Ollama-style
// {"error":"text"} bodies, and its own error text omits the message).
func (m *responsesModel) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, err
		}
		return nil, &Error{Provider: ProviderOpenAIResponses, Op: "chat", Err: m.key.error(err)}
	}
	if resp.StatusCode >= 400 {
		return nil, httpError(ProviderOpenAIResponses, resp, m.key)
	}
	return resp, nil
}

func (m *responsesModel) Chat(ctx context.Context, req ChatRequest, onDelta func(string) error) (ChatResponse, error) {
	params, err := m.params(req)
	if err != nil {
		return ChatResponse{}, fmt.Errorf("%s chat: %w", ProviderOpenAIResponses, err)
	}
	if onDelta == nil {
		r, err := m.svc.New(ctx, params)
		if err != nil {
			return ChatResponse{}, callError(ctx, ProviderOpenAIResponses, m.key, err)
		}
		return m.response(r, r.OutputText())
	}

	stream := m.svc.NewStreaming(ctx, params)
	defer stream.Close()
	var (
		text  strings.Builder
		final *responses.Response
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
			if ev.Delta != "" {
				if err := onDelta(ev.Delta); err != nil {
					return ChatResponse{}, err
				}
			}
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			final = &r
		case "error":
			msg := ev.Message
			if msg == "" {
				msg = "the stream reported an error"
			}
			return ChatResponse{}, &Error{Provider: ProviderOpenAIResponses, Op: "chat", StatusCode: http.StatusOK, Message: m.key.String(msg)}
		}
	}
	if err := stream.Err(); err != nil {
		return ChatResponse{}, callError(ctx, ProviderOpenAIResponses, m.key, err)
	}
	if final == nil {
		if ctx.Err() != nil {
			return ChatResponse{}, callError(ctx, ProviderOpenAIResponses, m.key, ctx.Err())
		}
		return ChatResponse{}, &Error{Provider: ProviderOpenAIResponses, Op: "chat", StatusCode: http.StatusOK,
			Message: "the stream ended before the response completed"}
	}
	return m.response(final, text.String())
}

// params maps a request to the Responses API: messages become input items,
// an assistant's tool calls become function_call items and tool results
// function_call_output items, tied to their call by call_id.
func (m *responsesModel) params(req ChatRequest) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: m.model, Store: param.NewOpt(false)}
	var items responses.ResponseInputParam
	for i, msg := range req.Messages {
		switch msg.Role {
		case RoleSystem:
			items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleSystem))
		case RoleUser:
			items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleUser))
		case RoleAssistant:
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range msg.ToolCalls {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(c.Arguments, c.ID, c.Name))
			}
		case RoleTool:
			if msg.ToolCallID == "" {
				return p, fmt.Errorf("message %d: a tool result needs the ToolCallID of the call it answers", i)
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(msg.Content)
			item.OfFunctionCallOutput.CallID = param.NewOpt(msg.ToolCallID)
			items = append(items, item)
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, t := range req.Tools {
		raw, err := toolSchema(t)
		if err != nil {
			return p, err
		}
		var schema map[string]any
		if err := json.Unmarshal(raw, &schema); err != nil {
			return p, fmt.Errorf("tool %q: parameters are not a JSON object", t.Name)
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	return p, nil
}

// response maps a finished response; text is the answer's text as
// streamed (or the whole output text).
func (m *responsesModel) response(r *responses.Response, text string) (ChatResponse, error) {
	if r.Status == "failed" {
		msg := r.Error.Message
		if msg == "" {
			msg = "the response failed"
		}
		return ChatResponse{}, &Error{Provider: ProviderOpenAIResponses, Op: "chat", StatusCode: http.StatusOK, Message: m.key.String(msg)}
	}
	out := ChatResponse{Content: text, Usage: Usage{InputTokens: int(r.Usage.InputTokens), OutputTokens: int(r.Usage.OutputTokens)}}
	for _, item := range r.Output {
		if item.Type == "function_call" {
			fc := item.AsFunctionCall()
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments})
		}
	}
	m.ids.fill(out.ToolCalls)
	// Say it in Chat Completions' words, so callers see one vocabulary.
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason != "":
		out.StopReason = stopReason(string(r.IncompleteDetails.Reason), false)
	case r.Status == "completed" || r.Status == "":
		out.StopReason = stopReason("", len(out.ToolCalls) > 0)
	default: // incomplete without a reason, in_progress, cancelled, ...
		out.StopReason = StopOther
	}
	return out, nil
}
