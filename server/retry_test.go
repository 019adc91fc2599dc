package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

// TestRetryHeaders: OpenAI's clients retry 408, 409, 429 and 5xx unless
// told not to. A model's 429 is answered 429 with its Retry-After; a
// failure a retry would only repeat (the model's other errors, the
// server's time limit) says x-should-retry: false, on /v1/ask and
// /v1/chat/completions alike.
func TestRetryHeaders(t *testing.T) {
	for _, c := range []struct {
		name       string
		turn       modeltest.Turn
		status     int
		code       string
		retryAfter string
		retry      string // x-should-retry
	}{
		{"model 429 with Retry-After", modeltest.Turn{Error: &modeltest.HTTPError{Status: 429, Message: "slow down", Header: http.Header{"Retry-After": {"7"}}}}, 429, "model_429", "7", ""},
		{"model 429", modeltest.Turn{Error: &modeltest.HTTPError{Status: 429, Message: "slow down"}}, 429, "model_429", "", ""},
		{"model 500", modeltest.Turn{Error: &modeltest.HTTPError{Status: 500, Message: "boom"}}, 502, "model_500", "", "false"},
		{"model 503 with Retry-After", modeltest.Turn{Error: &modeltest.HTTPError{Status: 503, Message: "later", Header: http.Header{"Retry-After": {"3"}}}}, 502, "model_503", "", "false"},
		{"model 401", modeltest.Turn{Error: &modeltest.HTTPError{Status: 401, Message: "bad key"}}, 502, "model_401", "", "false"},
		{"time limit", modeltest.Turn{Hang: true}, 504, "timeout", "", "false"},
	} {
		for _, path := range []string{"/v1/ask", "/v1/chat/completions"} {
			t.Run(c.name+" "+path, func(t *testing.T) {
				srv := modeltest.NewServer(t, modeltest.Script{Turns: []modeltest.Turn{c.turn}})
				m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
				ts, _ := start(t, m, server.Config{RequestTimeout: 500 * time.Millisecond})
				body := `{"question":"what is WAL mode"}`
				if path != "/v1/ask" {
					body = `{"messages":[{"role":"user","content":"what is WAL mode"}]}`
				}
				resp, out := do(t, "POST", ts.URL+path, "application/json", body)
				if resp.StatusCode != c.status || !strings.Contains(out, `"code":"`+c.code+`"`) {
					t.Errorf("%d %s, want %d %s", resp.StatusCode, out, c.status, c.code)
				}
				if got := resp.Header.Get("Retry-After"); got != c.retryAfter {
					t.Errorf("Retry-After %q, want %q", got, c.retryAfter)
				}
				if got := resp.Header.Get("X-Should-Retry"); got != c.retry {
					t.Errorf("x-should-retry %q, want %q", got, c.retry)
				}
			})
		}
	}
}
