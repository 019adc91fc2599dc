// Package weaviatenode holds what starting a weaviate-server process on
// loopback takes, for the tests' clusters (internal/weaviatetest) and cite
// bench's Weaviate peer (eval/bench/weaviatepeer): where the binary is,
// free ports for a node, the environment it inherits, and waiting until
// it is ready. It does not import testing.
package weaviatenode

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cite-rag/cite/index/weaviate"
)

// Binary returns the path of weaviate-server, or "" if there is none:
// $CITE_WEAVIATE_SERVER, else weaviate-server on PATH, else the one .ci/run
// installs ([Cached] of [weaviate.TestedVersion]), else
// $(go env GOPATH)/bin/weaviate-server, as installed by
//
//	go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.38.5
func Binary() string {
	if p := os.Getenv("CITE_WEAVIATE_SERVER"); p != "" {
		return p
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p
	}
	if p := Cached(weaviate.TestedVersion); p != "" {
		return p
	}
	for _, dir := range filepath.SplitList(goenv("GOPATH")) {
		p := filepath.Join(dir, "bin", "weaviate-server")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Cached returns weaviate-server in cite-weaviate/VERSION beside the Go
// build cache ($(dirname $(go env GOCACHE))/cite-weaviate/v1.38.5), where
// .ci/run installs it, or "" if it is not there.
func Cached(version string) string {
	gocache := goenv("GOCACHE")
	if gocache == "" || gocache == "off" {
		return ""
	}
	p := filepath.Join(filepath.Dir(gocache), "cite-weaviate", version, "weaviate-server")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// goenv returns the environment variable name, else what go env says of
// it, else "".
func goenv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// FreePorts returns the first of n consecutive loopback ports free for
// TCP and UDP (Weaviate expects its data port next to its gossip port),
// below the system's ephemeral range: a port from that range, free while
// its node is down, can be taken meanwhile as the source port of any
// outgoing connection (the other nodes', the client's), and the node could
// not restart on it.
func FreePorts(n int) (int, error) {
	lo, hi := 10000, ephemeralStart()
	if hi-lo < n*4 {
		lo, hi = 1024, max(hi, 1024+n*4)
	}
	for try := 0; try < 200; try++ {
		base := lo + rand.IntN(hi-lo-n)
		ok := true
		for p := base; p < base+n && ok; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			l.Close()
			if u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(p)); err != nil {
				ok = false
			} else {
				u.Close()
			}
		}
		if ok {
			return base, nil
		}
	}
	return 0, errors.New("no free ports")
}

// ephemeralStart returns the first port of the range the system gives
// outgoing connections (Linux: /proc/sys/net/ipv4/ip_local_port_range),
// or 32768.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	p, err := strconv.Atoi(f[0])
	if err != nil || p <= 1024 {
		return 32768
	}
	return p
}

// Env is this process's environment without Weaviate's storage settings
// (PERSISTENCE_*), so that a node flushes and compacts as Weaviate does by
// default whatever the shell that runs it sets.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PERSISTENCE_") {
			env = append(env, kv)
		}
	}
	return env
}

// ErrExited is [WaitReady]'s error when the process ended first.
var ErrExited = errors.New("weaviate-server exited before it was ready")

// WaitReady waits until the node at addr (host:port of its REST API)
// answers /v1/.well-known/ready, polling every 200 ms. It returns
// ctx.Err() when ctx ends first, and [ErrExited] when exited (closed once
// the node's process has ended) is closed first.
func WaitReady(ctx context.Context, addr string, exited <-chan struct{}) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/v1/.well-known/ready", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return ErrExited
		case <-time.After(200 * time.Millisecond):
		}
	}
}
