package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/search"
	"github.com/cite-rag/cite/server"
)

// beforeSearch is a Retriever that calls hook before each search.
type beforeSearch struct {
	answer.Retriever
	hook func()
}

func (b beforeSearch) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	b.hook()
	return b.Retriever.Search(ctx, q)
}

// TestSourceDeletedWhileAsked: a question whose data source is removed
// (DELETE /v1/sources/NAME) after it was checked and before it is searched
// is answered as a question naming an unknown source is, 400
// unknown_source, not as a model's failure (502); streamed, its error
// event says so.
func TestSourceDeletedWhileAsked(t *testing.T) {
	var url string
	var once sync.Once
	var hook func()
	ts, _, _ := startEngine(t, t.TempDir(), true, nil, server.Config{}, answer.Config{}, func(d *server.Deps, st *index.Store) {
		eng, err := answer.New(answer.Config{Model: answer.NewExtractive(answer.ExtractiveOptions{TermStats: st.TermStats}), Library: st,
			Retriever: beforeSearch{d.Searcher, func() { once.Do(hook) }}})
		if err != nil {
			t.Fatal(err)
		}
		d.Engine = eng
	})
	url = ts.URL
	hook = func() {
		if resp, out := do(t, "DELETE", url+"/v1/sources/race", "", ""); resp.StatusCode != 200 {
			t.Errorf("delete: %d %s", resp.StatusCode, out)
		}
	}
	for _, tc := range []struct {
		name, accept string
		status       int
		want         string
	}{
		{"ask", "", 400, `{"error":{"code":"unknown_source","message":"no data source \"race\"; the sources are default"}}`},
		{"ask streamed", "text/event-stream", 200, "event: error\ndata: {\"error\":{\"code\":\"unknown_source\",\"message\":\"no data source \\\"race\\\"; the sources are default\"}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			once = sync.Once{}
			ct, body := multipartBody(t, "race.md", "# Race\n\nA document about nothing the question asks.\n")
			if resp, out := do(t, "POST", url+"/v1/documents?source=race", ct, body); resp.StatusCode != http.StatusCreated {
				t.Fatalf("upload: %d %s", resp.StatusCode, out)
			}
			resp, out := do(t, "POST", url+"/v1/ask", "application/json", `{"question":"zyzzyva quux","sources":["race"]}`, "Accept", tc.accept)
			if resp.StatusCode != tc.status || !strings.Contains(out, tc.want) {
				t.Errorf("%d %s\nwant %d %s", resp.StatusCode, out, tc.status, tc.want)
			}
		})
	}
}
