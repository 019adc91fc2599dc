package provider_test

import (
	"context"
	"fmt"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
)

// A model behind an OpenAI-compatible server streams its answer and asks
// for a tool; here the server is a scripted one.
func ExampleNewChatModel() {
	srv := modeltest.NewServer(nil, modeltest.Script{Turns: []modeltest.Turn{{
		Text:      []string{"Let me ", "search."},
		ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "search_documents", Arguments: `{"query":"capital of France"}`}},
	}}})
	defer srv.Close()

	m, err := provider.NewChatModel("openai:gpt-4o-mini", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Chat(context.Background(), provider.ChatRequest{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "What is the capital of France?"}},
		Tools:    []provider.Tool{{Name: "search_documents", Description: "Search the documents."}},
	}, func(text string) error {
		fmt.Printf("delta %q\n", text)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name(), "local:", m.Local())
	for _, c := range resp.ToolCalls {
		fmt.Println(c.ID, c.Name, c.Arguments)
	}
	fmt.Println(resp.StopReason)
	// Output:
	// delta "Let me "
	// delta "search."
	// openai:gpt-4o-mini local: true
	// call_1 search_documents {"query":"capital of France"}
	// tool_calls
}
