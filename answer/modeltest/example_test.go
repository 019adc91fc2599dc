package modeltest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cite-rag/cite/answer/modeltest"
)

// A scripted model answers one Chat Completions request; the test then
// reads what the model was given.
func ExampleNewServer() {
	srv := modeltest.NewServer(nil, modeltest.Script{Turns: []modeltest.Turn{
		{Text: []string{"Paris is the capital ", "[doc:1]."}},
	}})
	defer srv.Close()

	body := `{"model":"test","messages":[{"role":"user","content":"Capital of France?"}]}`
	resp, err := http.Post(srv.OpenAIBaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Choices[0].Message.Content)
	fmt.Println(srv.Requests()[0].LastUserMessage())
	// Output:
	// Paris is the capital [doc:1].
	// Capital of France?
}
