// Package weaviatepeer is Weaviate on one node as a peer of cite bench:
// cite pushes its chunks, terms and vectors to a collection as it does to
// any Weaviate replica (index.Store.SetReplica, SyncReplica), and cite's
// search runs over the collection (package index/weaviate) in each mode,
// so its figures are whole searches as cite's are.
//
// The node is a weaviate-server process started for the run in the
// peer's folder, with Weaviate's defaults but for addresses, paths and
// anonymous access, and stopped at the end; or a node already running.
package weaviatepeer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/index/weaviate"
	"github.com/cite-rag/cite/internal/weaviatenode"
	"github.com/cite-rag/cite/search"
)

// Binary returns the path of weaviate-server, looked for where
// internal/weaviatetest looks (see [weaviatenode.Binary]):
// $CITE_WEAVIATE_SERVER, weaviate-server on PATH,
// cite-weaviate/VERSION/weaviate-server beside the Go build cache (where
// .ci/run installs it), $(go env GOPATH)/bin; "" if none.
func Binary() string { return weaviatenode.Binary() }

// New returns the peer's maker. target is a weaviate-server binary to
// start a node with, or the HOST:PORT of a node already running (its
// gRPC port as grpcAddr, or "" for none); the collection is "Bench".
func New(target, grpcAddr string) bench.NewPeer {
	return func(ctx context.Context, cfg bench.PeerConfig) (bench.Peer, error) {
		// HNSW holds the vectors in memory, and its graph beside them.
		need := int64(cfg.Chunks) * int64(cfg.Dim*4+400)
		if cfg.MemoryBudget > 0 && need > cfg.MemoryBudget {
			return nil, fmt.Errorf("Weaviate: %w: its vectors and graph would take %.1f GB, over the budget of %.1f GB (a third of the memory available)",
				bench.ErrSkip, float64(need)/1e9, float64(cfg.MemoryBudget)/1e9)
		}
		p := &Peer{addr: target, grpc: grpcAddr}
		if _, _, err := net.SplitHostPort(target); err != nil {
			if err := p.start(ctx, target, cfg.Dir); err != nil {
				return nil, fmt.Errorf("Weaviate: %w", err)
			}
		}
		st, err := weaviate.Open(ctx, weaviate.Config{Addr: p.addr, GRPC: p.grpc, Collection: "Bench"})
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("Weaviate: %w", err)
		}
		p.store = st
		return p, nil
	}
}

// Peer is a Weaviate collection on one node.
type Peer struct {
	addr, grpc string
	store      *weaviate.Store
	search     *search.Searcher
	cmd        *exec.Cmd
	done       chan struct{}
	data       string
}

var _ bench.Peer = (*Peer)(nil)

// start runs weaviate-server bin on free loopback ports with its data in
// dir, and waits until it is ready.
func (p *Peer) start(ctx context.Context, bin, dir string) error {
	base, err := weaviatenode.FreePorts(6) // http, grpc, gossip, data, raft, raft rpc
	if err != nil {
		return err
	}
	var ports [6]int
	for i := range ports {
		ports[i] = base + i
	}
	p.data = filepath.Join(dir, "data")
	p.addr = "127.0.0.1:" + strconv.Itoa(ports[0])
	p.grpc = "127.0.0.1:" + strconv.Itoa(ports[1])
	env := append(weaviatenode.Env(),
		"PERSISTENCE_DATA_PATH="+p.data,
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"LOG_LEVEL=warning",
		"CLUSTER_HOSTNAME=node0",
		"CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(ports[2]),
		"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(ports[3]),
		"RAFT_PORT="+strconv.Itoa(ports[4]),
		"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(ports[5]),
		"RAFT_JOIN=node0:"+strconv.Itoa(ports[4]),
		"RAFT_BOOTSTRAP_EXPECT=1",
		"GRPC_PORT="+strconv.Itoa(ports[1]),
	)
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(ports[0]), "--scheme", "http")
	cmd.Env, cmd.Dir = env, dir
	logf, err := os.Create(filepath.Join(dir, "weaviate.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(p.done) }()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	switch err := weaviatenode.WaitReady(ctx, p.addr, p.done); {
	case errors.Is(err, weaviatenode.ErrExited):
		return fmt.Errorf("weaviate-server exited before it was ready (log: %s)", logf.Name())
	case err != nil:
		p.Close()
		return fmt.Errorf("weaviate-server not ready at %s: %w (log: %s)", p.addr, err, logf.Name())
	}
	return nil
}

// Name is "Weaviate" and the server's version.
func (p *Peer) Name() string { return "Weaviate " + p.store.Version() + " (1 node)" }

// Modes: all three, through cite's search.
func (p *Peer) Modes() []search.Mode { return bench.Modes }

// Build pushes the collection from cite's index, as cite index does to a
// replica.
func (p *Peer) Build(ctx context.Context, src *bench.Source) error {
	if err := src.Store.SetReplica(ctx, p.store); err != nil {
		return err
	}
	if _, err := src.Store.SyncReplica(ctx); err != nil {
		return err
	}
	p.store.SetTermStats(src.Store.TermStats)
	s, err := search.New(ctx, p.store, src.Embedder)
	if err != nil {
		return err
	}
	p.search = s
	return nil
}

// Open: the node is already serving.
func (p *Peer) Open(ctx context.Context) error { return bench.ErrNoOpen }

// Search is cite's search over the collection.
func (p *Peer) Search(ctx context.Context, mode search.Mode, q *bench.Query, k int) (int, error) {
	res, err := p.search.Search(ctx, search.Query{Text: q.Text, Mode: mode, K: k})
	if err != nil {
		return 0, err
	}
	return len(res.Hits), nil
}

// DiskBytes is the size of the node's data folder right after the push
// (its memtables not yet flushed, their write-ahead logs counted), or -2
// (unknown) for a node not started here.
func (p *Peer) DiskBytes() int64 {
	if p.data == "" {
		return -2
	}
	return bench.DirSize(p.data)
}

// RSS is the server process's resident memory (-1: unknown, a node not
// started here).
func (p *Peer) RSS() int64 {
	if p.cmd == nil || p.cmd.Process == nil {
		return -1 // unknown
	}
	return bench.RSS(p.cmd.Process.Pid)
}

// Close stops the node started here (SIGTERM, SIGKILL after 10 s).
func (p *Peer) Close() error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd = nil
	return nil
}
