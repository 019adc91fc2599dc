package server_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

// TestSessionTwinCitedAsUpload: a file uploaded to a session whose bytes
// equal an indexed file's is cited as the upload, not as the indexed
// file, by the extractive answer, in the passages a model is given first,
// and in what its search_data_sources calls return.
func TestSessionTwinCitedAsUpload(t *testing.T) {
	page, err := os.ReadFile("../testdata/corpus/honeybees.md")
	if err != nil {
		t.Fatal(err)
	}
	const question = "how does a forager tell her sisters where the flowers are"
	for _, tc := range []struct {
		name  string
		turns []modeltest.Turn // nil: the extractive answer
	}{
		{"extractive", nil},
		{"model, given passages", []modeltest.Turn{{Text: []string{"They dance [doc:1]."}}}},
		{"model, search_data_sources", []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{{Name: "search_data_sources", Arguments: `{"query":"waggle dance direction of the flowers","k":3}`}}},
			{Text: []string{"They dance [doc:1][doc:2][doc:3][doc:4]."}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m provider.ChatModel
			if tc.turns != nil {
				srv := modeltest.NewServer(t, modeltest.Script{Turns: tc.turns})
				m, _ = provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
			}
			ts, _, _ := startAt(t, t.TempDir(), true, m, server.Config{})
			code, out := doAuth(t, "POST", ts.URL+"/v1/sessions", "", "")
			var s struct{ ID string }
			json.Unmarshal([]byte(out), &s)
			if code != 201 {
				t.Fatalf("new session: %d %s", code, out)
			}
			ct, body := multipartBody(t, "mine.md", string(page))
			if code, out := doAuth(t, "POST", ts.URL+"/v1/sessions/"+s.ID+"/documents", ct, body); code != 201 {
				t.Fatalf("upload: %d %s", code, out)
			}
			code, out = doAuth(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"`+question+`","k":1,"session_id":"`+s.ID+`"}`)
			var res askResult
			json.Unmarshal([]byte(out), &res)
			if code != 200 || len(res.References) == 0 {
				t.Fatalf("ask: %d %s", code, out)
			}
			upload := false
			for _, r := range res.References {
				if strings.HasSuffix(r.Source, "testdata/corpus/honeybees.md") {
					t.Errorf("cites the indexed twin %s, not the upload: %s", r.Source, out)
				}
				upload = upload || strings.Contains(r.Source, s.ID) && strings.HasSuffix(r.Source, "/mine.md")
			}
			if !upload {
				t.Errorf("the upload is not cited: %s", out)
			}
		})
	}
}
