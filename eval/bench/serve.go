package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cite-rag/cite/search"
)

// serveSystem is the name of the row of [Config.Serve]'s measurements.
const serveSystem = "cite serve"

// measureServe starts cite serve on the index folder dir as a user would
// (cfg.Serve, then "serve --index DIR --addr 127.0.0.1:0 --no-token"),
// asks every query in every mode through POST /v1/search, reads the
// server's resident memory from /proc, and stops it. Its open time is
// from the start of the process until it listens and has answered a
// first search (which loads the vectors).
func measureServe(ctx context.Context, cfg Config, dir string, queries []Query) (sys System) {
	sys = System{Name: serveSystem, DiskBytes: -2, Latency: map[search.Mode]Latency{}}
	fail := func(what string, err error) System {
		sys.Note = fmt.Sprintf("%s: %v", what, err)
		sys.Skipped = true
		return sys
	}
	args := append(append([]string{}, cfg.Serve[1:]...), "serve", "--index", dir, "--addr", "127.0.0.1:0", "--no-token")
	cmd := exec.Command(cfg.Serve[0], args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return fail("start", err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fail("start", err)
	}
	out := &tail{}
	addr := make(chan string, 1)
	var drained sync.WaitGroup
	drained.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			out.add(line)
			if _, rest, ok := strings.Cut(line, "listening on http://"); ok {
				if a, _, _ := strings.Cut(rest, " "); a != "" {
					select {
					case addr <- a:
					default:
					}
				}
			}
		}
		io.Copy(io.Discard, stderr)
		close(addr)
	})
	exited := make(chan error, 1)
	go func() {
		drained.Wait()
		exited <- cmd.Wait()
	}()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	var base string
	select {
	case a, ok := <-addr:
		if !ok {
			err := <-exited
			return fail("cite serve ended before listening", fmt.Errorf("%v: %s", err, out.String()))
		}
		base = "http://" + a
	case <-ctx.Done():
		stop()
		return fail("start", ctx.Err())
	}
	defer stop()
	client := &http.Client{}
	ask := func(mode search.Mode) func(q *Query) error {
		return func(q *Query) error {
			body, _ := json.Marshal(map[string]any{"query": q.Text, "mode": string(mode)})
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/search", bytes.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("POST /v1/search: %s: %s", resp.Status, bytes.TrimSpace(data))
			}
			return nil
		}
	}
	if len(queries) == 0 {
		return fail("search", errors.New("no queries"))
	}
	if err := ask(search.Hybrid)(&queries[0]); err != nil {
		return fail("first search", err)
	}
	sys.OpenMS = ms(time.Since(start))
	for _, mode := range Modes {
		lat, err := measure(ctx, queries, ask(mode))
		if err != nil {
			return fail(string(mode)+" search", err)
		}
		sys.Latency[mode] = lat
	}
	pid := cmd.Process.Pid
	sys.RSSBytes = rss(pid)
	sys.RSSPeakBytes = procKB(procStatus(pid), "VmHWM:") * 1024
	sys.Note = fmt.Sprintf("its own process: searches through POST /v1/search; RSS after them, peak %s MB; open is until it listens and has answered a first search", mb(sys.RSSPeakBytes))
	return sys
}

// tail keeps the last lines written by a process, for its error.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 20 {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, line)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// procStatus is the /proc status file of process pid (0: this one).
func procStatus(pid int) string {
	if pid > 0 {
		return fmt.Sprintf("/proc/%d/status", pid)
	}
	return "/proc/self/status"
}
