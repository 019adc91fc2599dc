package server_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cite-rag/cite/server"
)

// TestDocumentsUnknownSource: GET /v1/documents names an unknown data
// source (a session's too) as POST /v1/search does, 400 unknown_source
// listing the sources; a known one lists its documents.
func TestDocumentsUnknownSource(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	const says = `(the index has default)`
	for _, tc := range []struct {
		source string
		status int
		want   string
	}{
		{"default", 200, `"documents":[{`},
		{"", 200, `"documents":[{`},
		{"nope", 400, `"code":"unknown_source","message":"data source \"nope\": no such data source ` + says},
		{"../x", 400, `"code":"unknown_source","message":"data source \"../x\": no such data source ` + says},
		{"session:0123456789abcdef0123456789abcdef", 400, `"code":"unknown_source"`},
	} {
		t.Run(tc.source, func(t *testing.T) {
			resp, out := do(t, "GET", ts.URL+"/v1/documents?source="+url.QueryEscape(tc.source), "", "")
			if resp.StatusCode != tc.status || !strings.Contains(out, tc.want) {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, out, tc.status, tc.want)
			}
			if tc.status != 400 {
				return
			}
			// Search says the same of the same source.
			_, searched := do(t, "POST", ts.URL+"/v1/search", "application/json", `{"query":"zyzzyva","source":"`+tc.source+`"}`)
			if searched != out {
				t.Errorf("search answers %s, documents %s", searched, out)
			}
		})
	}
}
