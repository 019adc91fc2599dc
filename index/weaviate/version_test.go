package weaviate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cite-rag/cite/index/weaviate"
)

// fakeMeta is a Weaviate that reports version v at /v1/meta (status
// status, when not 200) and has every collection asked for. It counts the
// schema requests.
func fakeMeta(t *testing.T, v string, status int) (addr string, schemaReqs *atomic.Int32) {
	t.Helper()
	schemaReqs = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/meta":
			if status != 0 {
				http.Error(w, `{"error":[{"message":"forbidden"}]}`, status)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"hostname": "http://[::]:8080", "modules": map[string]any{}, "version": v})
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/schema/") && strings.HasSuffix(r.URL.Path, "/properties"):
			schemaReqs.Add(1)
			io.Copy(w, r.Body) // a property added to an existing collection
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
			schemaReqs.Add(1)
			class := strings.TrimPrefix(r.URL.Path, "/v1/schema/")
			json.NewEncoder(w).Encode(map[string]any{"class": class, "replicationConfig": map[string]any{"factor": 1}})
		default:
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), schemaReqs
}

// TestServerVersion opens the store on a fake server of each version:
// releases older than MinVersion are refused before anything else is
// asked, naming what to install; releases that misrank unflushed objects
// (before v1.38.3) open with one warning naming the fixed release and the
// tested one; v1.38.3 and later open without one.
func TestServerVersion(t *testing.T) {
	const install = "go install github.com/weaviate/weaviate/cmd/weaviate-server@" + weaviate.TestedVersion
	for _, tc := range []struct {
		version string
		status  int      // of /v1/meta, when not 200
		err     []string // the error says all of these; nil: it opens
		warning []string // the warning says all of these; nil: none
	}{
		{version: "1.38.5"},
		{version: "1.38.17"},
		{version: "1.39.0"},
		{version: "2.0.0"},
		{version: "1.38.5+build.7"},
		{version: "1.38.4"},
		{version: "1.38.3"},
		{version: "1.38.2", warning: []string{"version 1.38.2 misranks", "memtables", weaviate.FixedVersion + " fixes it", "tested with " + weaviate.TestedVersion, install}},
		{version: "1.37.9", warning: []string{"version 1.37.9 misranks", install}},
		{version: "1.35.2", warning: []string{"version 1.35.2 misranks", install}},
		{version: "1.38.3-rc.1", warning: []string{"version 1.38.3-rc.1 misranks"}},
		{version: "1.38.5-rc.1"},
		{version: "", warning: []string{`cannot read its version ""`, weaviate.TestedVersion}},
		{version: "1.38", warning: []string{`cannot read its version "1.38"`}},
		{version: "1.35.1", err: []string{"version 1.35.1 is older than " + weaviate.MinVersion, "the oldest cite supports", install}},
		{version: "1.30.0", err: []string{"version 1.30.0 is older than", install}},
		{version: "0.22.20", err: []string{"version 0.22.20 is older than", install}},
		{version: "1.35.2-rc.0", err: []string{"version 1.35.2-rc.0 is older than"}},
		{status: http.StatusForbidden, err: []string{"read version", "status 403"}},
	} {
		name := tc.version
		if tc.status != 0 {
			name = http.StatusText(tc.status)
		}
		t.Run(name, func(t *testing.T) {
			addr, schemaReqs := fakeMeta(t, tc.version, tc.status)
			s, err := weaviate.Open(t.Context(), weaviate.Config{Addr: addr, Retries: 1})
			if tc.err != nil {
				if err == nil {
					t.Fatalf("opened; want an error saying %q", tc.err)
				}
				for _, want := range append(tc.err, "weaviate at "+addr) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if n := schemaReqs.Load(); n > 0 {
					t.Errorf("%d schema requests after the version was refused", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Version() != tc.version {
				t.Errorf("Version() = %q, want %q", s.Version(), tc.version)
			}
			w := s.Warning()
			if tc.warning == nil {
				if w != "" {
					t.Errorf("warning %q, want none", w)
				}
				return
			}
			for _, want := range append(tc.warning, "weaviate at "+addr) {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q does not say %q", w, want)
				}
			}
		})
	}
}
