package provider_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cite-rag/cite/provider"
)

// BenchmarkChatStream streams answers of many small chunks (a token each,
// as servers send them) through each wire, from a canned body.
func BenchmarkChatStream(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 40_000} {
		var cc, rs strings.Builder
		for i := range n {
			fmt.Fprintf(&cc, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok%d "},"finish_reason":null}]}`+"\n\n", i%10)
			fmt.Fprintf(&rs, "event: response.output_text.delta\n"+
				`data: {"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"tok%d ","sequence_number":%d}`+"\n\n", i%10, i)
		}
		cc.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
		rs.WriteString("event: response.completed\n" +
			`data: {"type":"response.completed","sequence_number":0,"response":{"id":"r","object":"response","status":"completed","output":[]}}` + "\n\n")
		for _, w := range []struct{ spec, body string }{{"openai:m", cc.String()}, {"openai-responses:m", rs.String()}} {
			b.Run(fmt.Sprintf("%s/%d", w.spec, n), func(b *testing.B) {
				hs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					rw.Header().Set("Content-Type", "text/event-stream")
					rw.Write([]byte(w.body))
				}))
				defer hs.Close()
				m, err := provider.NewChatModel(w.spec, provider.Config{OpenAIBaseURL: hs.URL + "/v1"})
				if err != nil {
					b.Fatal(err)
				}
				req := provider.ChatRequest{Messages: []provider.Message{{Role: provider.RoleUser, Content: "q"}}}
				for b.Loop() {
					resp, err := m.Chat(b.Context(), req, func(string) error { return nil })
					if err != nil {
						b.Fatal(err)
					}
					if len(resp.Content) != 5*n {
						b.Fatalf("%d bytes of text, want %d", len(resp.Content), 5*n)
					}
				}
			})
		}
	}
}
