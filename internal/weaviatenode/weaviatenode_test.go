package weaviatenode

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestBinaryFromEnv(t *testing.T) {
	t.Setenv("CITE_WEAVIATE_SERVER", "/opt/weaviate-server")
	if got := Binary(); got != "/opt/weaviate-server" {
		t.Errorf("Binary() = %q", got)
	}
}

func TestFreePorts(t *testing.T) {
	base, err := FreePorts(6)
	if err != nil {
		t.Fatal(err)
	}
	if base < 1024 || base+6 > ephemeralStart() {
		t.Errorf("ports %d-%d, want within 1024-%d", base, base+5, ephemeralStart())
	}
	for p := base; p < base+6; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		l.Close()
	}
}

// TestWaitReady: ready once /v1/.well-known/ready says 200; otherwise the
// process's end or the context's, whichever comes first.
func TestWaitReady(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/.well-known/ready" {
			http.NotFound(w, r)
		}
	}))
	defer ready.Close()
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer starting.Close()
	exited := make(chan struct{})
	close(exited)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		url    string
		exited chan struct{}
		want   error
	}{
		{"ready", t.Context(), ready.URL, nil, nil},
		{"exited", t.Context(), starting.URL, exited, ErrExited},
		{"context ends", cancelled, starting.URL, nil, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WaitReady(tt.ctx, strings.TrimPrefix(tt.url, "http://"), tt.exited)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("WaitReady: %v, want %v", err, tt.want)
			}
		})
	}
}
