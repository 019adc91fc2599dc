// Package weaviatetest starts real Weaviate clusters for tests: one node or
// several, on loopback, each in a temporary folder, stopped when the test
// ends.
//
// It runs the weaviate-server binary that [weaviatenode.Binary] finds:
// $CITE_WEAVIATE_SERVER, else weaviate-server on PATH, else the one
// .ci/run installs, in cite-weaviate/VERSION beside the Go build cache
// ($(dirname $(go env GOCACHE))/cite-weaviate/v1.38.5/weaviate-server),
// else $(go env GOPATH)/bin/weaviate-server, as installed by
//
//	go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.38.5
//
// To run the tests against another release by hand (to see what an older
// one gets wrong), set CITE_WEAVIATE_VERSION, e.g. 1.35.2: the binary is
// then the one in cite-weaviate/v1.35.2 beside the build cache, installed
// with GOBIN set to that folder (whatever CITE_WEAVIATE_SERVER says), and
// a cluster whose /v1/meta reports another version fails the test. CI and
// the default leave it unset.
//
// Without the binary the tests skip saying so, except under CI (CI=true),
// where they fail. The nodes run with Weaviate's defaults but for
// addresses, paths and anonymous access: in particular its memtables are
// flushed when Weaviate decides (by default 60 s after the first write
// into an empty memtable), so tests search what was just written, as
// users do.
package weaviatetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/internal/weaviatenode"
)

// Version is the Weaviate release the tests are written against.
const Version = weaviate.TestedVersion

// Wanted returns the release the tests run against: CITE_WEAVIATE_VERSION
// ("1.35.2" or "v1.35.2") if set, else [Version].
func Wanted() string {
	if v := strings.TrimSpace(os.Getenv("CITE_WEAVIATE_VERSION")); v != "" {
		return "v" + strings.TrimPrefix(v, "v")
	}
	return Version
}

// Binary returns the path of weaviate-server, or "" if there is none
// (see [weaviatenode.Binary]). With CITE_WEAVIATE_VERSION set only the
// binary installed for that version beside the build cache will do
// (CITE_WEAVIATE_SERVER is then ignored).
func Binary() string {
	if os.Getenv("CITE_WEAVIATE_VERSION") != "" {
		return weaviatenode.Cached(Wanted())
	}
	return weaviatenode.Binary()
}

// Require returns the binary's path, or skips t (fails it under CI).
func Require(t testing.TB) string {
	t.Helper()
	p := Binary()
	if p == "" {
		msg := "weaviate-server not found (set CITE_WEAVIATE_SERVER, or go install github.com/weaviate/weaviate/cmd/weaviate-server@" + Wanted() + ")"
		if os.Getenv("CITE_WEAVIATE_VERSION") != "" {
			msg = "weaviate-server " + Wanted() + " (CITE_WEAVIATE_VERSION) not found: GOBIN=$(dirname $(go env GOCACHE))/cite-weaviate/" + Wanted() + " go install github.com/weaviate/weaviate/cmd/weaviate-server@" + Wanted()
		}
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Node is one weaviate-server process.
type Node struct {
	Name string
	// HTTP is the host:port of its REST and GraphQL API, GRPC of its
	// gRPC API.
	HTTP, GRPC string

	bin, dir string
	gossip   string // host:port of its membership protocol
	env      []string
	mu       sync.Mutex
	cmd      *exec.Cmd
	exitErr  error      // how the last process ended, once done is closed
	logMu    sync.Mutex // guards log
	log      *bytes.Buffer
	done     chan struct{}
}

// Cluster is a set of nodes forming one Weaviate cluster.
type Cluster struct {
	Nodes []*Node
}

// Addr is the first node's HTTP address.
func (c *Cluster) Addr() string { return c.Nodes[0].HTTP }

// freePorts returns the first of n consecutive free loopback ports (see
// [weaviatenode.FreePorts]).
func freePorts(t testing.TB, n int) int {
	t.Helper()
	base, err := weaviatenode.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// Start starts a cluster of n nodes and waits until every node is ready
// and sees the others. It is stopped when the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	bin := Require(t)
	const per = 6 // http, grpc, gossip, data, raft, raft rpc
	base := freePorts(t, per*n)
	port := func(i, k int) int { return base + per*i + k }
	var join []string
	for i := range n {
		join = append(join, fmt.Sprintf("node%d:%d", i, port(i, 4)))
	}
	c := &Cluster{}
	for i := range n {
		nd := &Node{Name: fmt.Sprintf("node%d", i), HTTP: fmt.Sprintf("127.0.0.1:%d", port(i, 0)), GRPC: fmt.Sprintf("127.0.0.1:%d", port(i, 1)), gossip: fmt.Sprintf("127.0.0.1:%d", port(i, 2)), bin: bin, dir: t.TempDir()}
		nd.env = append(weaviatenode.Env(),
			"PERSISTENCE_DATA_PATH="+nd.DataDir(),
			"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
			"DEFAULT_VECTORIZER_MODULE=none",
			"ENABLE_MODULES=",
			"DISABLE_TELEMETRY=true",
			"LOG_LEVEL=warning",
			"QUERY_DEFAULTS_LIMIT=25",
			"CLUSTER_HOSTNAME="+nd.Name,
			"CLUSTER_IN_LOCALHOST=true",
			"CLUSTER_BIND_ADDR=127.0.0.1",
			"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
			"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(port(i, 2)),
			"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(port(i, 3)),
			"RAFT_PORT="+strconv.Itoa(port(i, 4)),
			"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(port(i, 5)),
			"RAFT_JOIN="+strings.Join(join, ","),
			"RAFT_BOOTSTRAP_EXPECT="+strconv.Itoa(n),
			"GRPC_PORT="+strconv.Itoa(port(i, 1)),
		)
		if i > 0 {
			nd.env = append(nd.env, fmt.Sprintf("CLUSTER_JOIN=127.0.0.1:%d", port(0, 2)))
		}
		c.Nodes = append(c.Nodes, nd)
	}
	t.Cleanup(func() {
		for _, nd := range c.Nodes {
			nd.Stop()
		}
		if t.Failed() {
			for _, nd := range c.Nodes {
				t.Logf("%s log (tail):\n%s", nd.Name, nd.tail())
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for i, nd := range c.Nodes {
		if err := nd.Start(); err != nil {
			t.Fatal(err)
		}
		if i == 0 && n > 1 {
			// The others join through the first node's gossip port, and
			// give up if it is not listening yet.
			if err := nd.waitListening(ctx, nd.gossip); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, nd := range c.Nodes {
		if err := nd.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.WaitNodes(ctx, n); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CITE_WEAVIATE_VERSION") != "" {
		v, err := c.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if "v"+v != Wanted() {
			t.Fatalf("CITE_WEAVIATE_VERSION is %s, but the cluster runs weaviate-server %s", Wanted(), v)
		}
	}
	return c
}

// Version returns the version the first node reports at /v1/meta.
func (c *Cluster) Version(ctx context.Context) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.Addr()+"/v1/meta", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.Version == "" {
		return "", fmt.Errorf("%s/v1/meta: no version (%v)", c.Addr(), err)
	}
	return meta.Version, nil
}

// DataDir is the folder that holds the node's data
// (PERSISTENCE_DATA_PATH).
func (nd *Node) DataDir() string { return filepath.Join(nd.dir, "data") }

// Start starts the node's process (again, after Kill: on the same data).
func (nd *Node) Start() error {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	host, p, _ := net.SplitHostPort(nd.HTTP)
	cmd := exec.Command(nd.bin, "--host", host, "--port", p, "--scheme", "http")
	cmd.Env = nd.env
	cmd.Dir = nd.dir
	nd.logMu.Lock()
	nd.log = &bytes.Buffer{}
	w := &lockedWriter{w: nd.log, mu: &nd.logMu}
	nd.logMu.Unlock()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", nd.Name, err)
	}
	nd.cmd, nd.done = cmd, make(chan struct{})
	done := nd.done
	go func() {
		err := cmd.Wait()
		nd.mu.Lock()
		nd.exitErr = err
		nd.mu.Unlock()
		close(done)
	}()
	return nil
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 1<<20 {
		return len(p), nil
	}
	return l.w.Write(p)
}

func (nd *Node) tail() string {
	nd.logMu.Lock()
	defer nd.logMu.Unlock()
	if nd.log == nil {
		return ""
	}
	b := nd.log.Bytes()
	return string(b[max(0, len(b)-4000):])
}

// waitListening waits until something accepts TCP connections at addr.
func (nd *Node) waitListening(ctx context.Context, addr string) error {
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: nothing listens at %s: %w\n%s", nd.Name, addr, ctx.Err(), nd.tail())
		case <-nd.done:
			return fmt.Errorf("%s exited before listening at %s:\n%s", nd.Name, addr, nd.tail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitReady waits until the node answers /v1/.well-known/ready.
func (nd *Node) WaitReady(ctx context.Context) error {
	nd.mu.Lock()
	done := nd.done
	nd.mu.Unlock()
	err := weaviatenode.WaitReady(ctx, nd.HTTP, done)
	switch {
	case errors.Is(err, weaviatenode.ErrExited):
		nd.mu.Lock()
		err := nd.exitErr
		nd.mu.Unlock()
		return fmt.Errorf("%s at %s exited before it was ready (%v):\n%s", nd.Name, nd.HTTP, err, nd.tail())
	case err != nil:
		return fmt.Errorf("%s at %s not ready: %w\n%s", nd.Name, nd.HTTP, err, nd.tail())
	}
	return nil
}

// WaitNodes waits until the first node reports n healthy nodes.
func (c *Cluster) WaitNodes(ctx context.Context, n int) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.Addr()+"/v1/nodes", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Count(b.String(), `"status":"HEALTHY"`) >= n {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster at %s: %d nodes not all healthy: %w", c.Addr(), n, ctx.Err())
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// Kill stops the node at once (SIGKILL), as a crash would.
func (nd *Node) Kill() {
	nd.mu.Lock()
	cmd, done := nd.cmd, nd.done
	nd.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// Stop stops the node gracefully (SIGTERM, then SIGKILL after 10 s).
func (nd *Node) Stop() {
	nd.mu.Lock()
	cmd, done := nd.cmd, nd.done
	nd.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}
