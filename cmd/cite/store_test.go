package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/weaviate"
)

// fakeWeaviate is an empty Weaviate reporting version v: /v1/meta, every
// collection asked for exists, and every GraphQL query finds nothing.
func fakeWeaviate(t *testing.T, v string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/meta":
			json.NewEncoder(w).Encode(map[string]any{"hostname": "http://[::]:8080", "modules": map[string]any{}, "version": v})
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/properties"):
			io.Copy(w, r.Body) // a property added to an existing collection
		case strings.HasPrefix(r.URL.Path, "/v1/schema/"):
			json.NewEncoder(w).Encode(map[string]any{"class": strings.TrimPrefix(r.URL.Path, "/v1/schema/")})
		case r.URL.Path == "/v1/graphql":
			w.Write([]byte(`{"data":{}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestStoreVersion: a command run against a Weaviate release that
// misranks unflushed objects prints one warning naming the fixed release
// and goes on; against a release older than the oldest supported, it
// fails saying what to install.
func TestStoreVersion(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	install := "go install github.com/weaviate/weaviate/cmd/weaviate-server@" + weaviate.TestedVersion
	none := filepath.Join(t.TempDir(), "no-index-here")
	for _, tc := range []struct {
		version string
		code    int
		stderr  []string // substrings, each once
	}{
		{"1.38.5", 0, nil},
		{"1.35.2", 0, []string{"cite: warning: weaviate at ", "version 1.35.2 misranks", install}},
		{"1.34.0", 1, []string{"version 1.34.0 is older than " + weaviate.MinVersion, install}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			addr := fakeWeaviate(t, tc.version)
			code, stdout, stderr := citeEnv(t, map[string]string{"CITE_STORE": "weaviate://" + addr}, "search", "--index", none, "--mode", "bm25", "waggle dance")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			for _, want := range tc.stderr {
				if n := strings.Count(stderr, want); n != 1 {
					t.Errorf("stderr says %q %d times, want once:\n%s", want, n, stderr)
				}
			}
			if tc.stderr == nil && strings.Contains(stderr, "cite: warning") {
				t.Errorf("a warning for %s:\n%s", tc.version, stderr)
			}
		})
	}
}
