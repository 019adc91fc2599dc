package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/eval/bench/blevepeer"
	"github.com/cite-rag/cite/eval/bench/chromempeer"
	"github.com/cite-rag/cite/eval/bench/fts5peer"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/search"
)

// TestMain lets the test binary stand in for cite serve
// (BENCH_FAKE_SERVE=1): it listens where told, says so as cite serve does,
// and answers POST /v1/search until SIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("BENCH_FAKE_SERVE") == "1" {
		fakeServe(os.Args[1:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServe(args []string) {
	var addr, index string
	for i, a := range args {
		switch {
		case a == "--addr" && i+1 < len(args):
			addr = args[i+1]
		case a == "--index" && i+1 < len(args):
			index = args[i+1]
		}
	}
	if args[0] != "serve" || !slices.Contains(args, "--no-token") {
		fmt.Fprintf(os.Stderr, "fake cite: want serve ... --no-token, got %q\n", args)
		os.Exit(2)
	}
	if _, err := os.Stat(index); err != nil {
		fmt.Fprintf(os.Stderr, "fake cite serve: %v\n", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake cite serve: %v\n", err)
		os.Exit(1)
	}
	http.HandleFunc("POST /v1/search", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Query, Mode string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" || !slices.Contains([]string{"bm25", "vector", "hybrid"}, req.Mode) {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"hits":[]}`))
	})
	fmt.Fprintf(os.Stderr, "cite serve: listening on http://%s (model none)\n", ln.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go http.Serve(ln, nil)
	<-sig
}

// TestServe measures cite serve (here the test binary standing in for it)
// beside cite: started on the index, asked every query in every mode
// through its HTTP API, its resident memory read, stopped.
func TestServe(t *testing.T) {
	t.Setenv("BENCH_FAKE_SERVE", "1")
	rep, err := bench.Run(t.Context(), bench.Config{
		Corpus:  "../../testdata/corpus",
		Work:    t.TempDir(),
		Sizes:   []int{60},
		Queries: 3,
		Serve:   []string{os.Args[0]},
	})
	if err != nil {
		t.Fatal(err)
	}
	sys := rep.Sizes[0].Systems
	if len(sys) != 2 || sys[1].Name != "cite serve" {
		t.Fatalf("systems %+v, want cite and cite serve", sys)
	}
	s := sys[1]
	if s.Skipped || s.RSSBytes <= 0 || s.RSSPeakBytes < s.RSSBytes || s.OpenMS <= 0 {
		t.Errorf("cite serve: %+v", s)
	}
	for _, m := range bench.Modes {
		if l, ok := s.Latency[m]; !ok || l.P50 <= 0 || l.P99 < l.P50 {
			t.Errorf("cite serve %s: latency %+v", m, l)
		}
	}

	// A server that never listens is reported, not waited for.
	rep, err = bench.Run(t.Context(), bench.Config{
		Corpus:  "../../testdata/corpus",
		Work:    t.TempDir(),
		Sizes:   []int{60},
		Queries: 3,
		Serve:   []string{os.Args[0], "--not-a-flag"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sizes[0].Systems[1]; !s.Skipped || !strings.Contains(s.Note, "ended before listening") {
		t.Errorf("cite serve that fails: %+v", s)
	}
}

// TestResume takes up a build an earlier run left unfinished (its record
// of a build begun, no record of a build done) where it stopped, rather
// than starting again; its build time is then the sum of the runs' parts,
// unknown where a run recorded none.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		name string
		// stop leaves an unfinished build in work, index-60.
		stop     func(t *testing.T, cfg bench.Config, dir string)
		wantRate bool
	}{
		{"stopped as it began", func(t *testing.T, cfg bench.Config, dir string) {
			// The run is stopped when it starts building.
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cfg.Log = cancelOn{"cite index (", cancel}
			if _, err := bench.Run(ctx, cfg); !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped run: %v", err)
			}
		}, true},
		{"stopped as it ended", func(t *testing.T, cfg bench.Config, dir string) {
			if _, err := bench.Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(dir, "cite.built.json"), filepath.Join(dir, "cite.partial.json")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"by a run that recorded no time", func(t *testing.T, cfg bench.Config, dir string) {
			if _, err := bench.Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			// The record as runs before the parts were recorded wrote it.
			rec := editRecord(t, filepath.Join(dir, "cite.built.json"), func(m map[string]any) { delete(m, "parts") })
			if err := os.Rename(rec, filepath.Join(dir, "cite.partial.json")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := bench.Config{Corpus: "../../testdata/corpus", Work: t.TempDir(), Sizes: []int{60}, Queries: 3, Keep: true}
			dir := filepath.Join(cfg.Work, "index-60")
			tc.stop(t, cfg, dir)
			var recorded float64
			editRecord(t, filepath.Join(dir, "cite.partial.json"), func(m map[string]any) {
				if parts, ok := m["parts"].([]any); ok && len(parts) == 1 {
					recorded = parts[0].(map[string]any)["build_s"].(float64)
				}
			})
			if tc.wantRate && recorded <= 0 {
				t.Fatalf("the stopped run recorded no build time")
			}
			rep, err := bench.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			sz := rep.Sizes[0]
			c := sz.Systems[0]
			if sz.Chunks < 50 || !strings.Contains(c.Note, "built in 2 runs") || len(c.Latency) != 3 {
				t.Errorf("resumed: %d chunks, %+v", sz.Chunks, c)
			}
			if tc.wantRate {
				if c.BuildMBps <= 0 || c.BuildSeconds <= recorded || !strings.Contains(c.Note, "summed") {
					t.Errorf("resumed: build %v s (the first run recorded %v s), %.2f MB/s, note %q", c.BuildSeconds, recorded, c.BuildMBps, c.Note)
				}
			} else if c.BuildMBps != 0 || c.BuildSeconds != 0 || !strings.Contains(c.Note, "no build rate") {
				t.Errorf("resumed after a run that recorded no time: build %v s, %.2f MB/s, note %q", c.BuildSeconds, c.BuildMBps, c.Note)
			}
			if _, err := os.Stat(filepath.Join(dir, "cite.partial.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the record of the unfinished build is left: %v", err)
			}
			// The finished build is reused by the next run, with its build
			// figures.
			rep, err = bench.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r := rep.Sizes[0].Systems[0]; !strings.Contains(r.Note, "reused") || r.BuildMBps != c.BuildMBps {
				t.Errorf("third run: %+v", r)
			}
		})
	}
}

// cancelOn is a log that calls cancel when a line holds s.
type cancelOn struct {
	s      string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.s)) {
		c.cancel()
	}
	return len(p), nil
}

// editRecord changes the JSON record at path with edit, and returns path.
func editRecord(t *testing.T, path string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReuse runs the benchmark three times on the same work folder with
// Keep: the second run measures the kept indexes of cite, bleve and FTS5
// again with the first run's build figures (chromem-go, in memory, is
// built again), and a run with another embedder or with Rebuild builds
// cite's anew.
func TestReuse(t *testing.T) {
	if testenv.Race {
		t.Skip("indexes 300 chunks four times: slow under the race detector (TestServe runs)")
	}
	cfg := bench.Config{
		Corpus:  testenv.SharedData(t, "markdown"),
		Work:    t.TempDir(),
		Sizes:   []int{300},
		Queries: 5,
		Peers:   []bench.NewPeer{blevepeer.New, fts5peer.New, chromempeer.New},
		Keep:    true,
	}
	run := func(cfg bench.Config) map[string]bench.System {
		t.Helper()
		rep, err := bench.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bench.System{}
		for _, s := range rep.Sizes[0].Systems {
			if s.Skipped {
				t.Fatalf("%s skipped: %s", s.Name, s.Note)
			}
			m[strings.Fields(s.Name)[0]] = s
		}
		return m
	}
	first := run(cfg)
	second := run(cfg)
	for name, s := range second {
		reused := strings.Contains(s.Note, "reused")
		if want := name != "chromem-go"; reused != want {
			t.Errorf("second run, %s: reused %v, want %v (%s)", name, reused, want, s.Note)
		}
		if reused && s.BuildSeconds != first[name].BuildSeconds {
			t.Errorf("second run, %s: build %v s, want the first run's %v", name, s.BuildSeconds, first[name].BuildSeconds)
		}
		if len(s.Latency) == 0 {
			t.Errorf("second run, %s: no latencies", name)
		}
	}
	other := cfg
	other.Embedder = "hash:64"
	if s := run(other)["cite"]; strings.Contains(s.Note, "reused") {
		t.Errorf("another embedder: cite's index reused: %s", s.Note)
	}
	other = cfg
	other.Rebuild = true
	for name, s := range run(other) {
		if strings.Contains(s.Note, "reused") {
			t.Errorf("Rebuild: %s reused: %s", name, s.Note)
		}
	}
}

// TestRun runs the whole benchmark at 2,000 chunks with the in-process
// peers, so that cite bench keeps working: every system builds, opens and
// answers every query of its modes. It times nothing against a limit.
func TestRun(t *testing.T) {
	if testenv.Race {
		t.Skip("indexes 2,000 chunks five ways: slow under the race detector (TestVary and TestWriteTable run)")
	}
	corpus := testenv.SharedData(t, "markdown")
	var log bytes.Buffer
	rep, err := bench.Run(t.Context(), bench.Config{
		Corpus:  corpus,
		Work:    t.TempDir(),
		Sizes:   []int{2000},
		Queries: 20,
		Peers:   []bench.NewPeer{blevepeer.New, fts5peer.New, chromempeer.New},
		Log:     &log,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(rep.Sizes) != 1 {
		t.Fatalf("%d sizes, want 1", len(rep.Sizes))
	}
	sz := rep.Sizes[0]
	if sz.Chunks < 1900 || sz.Chunks > 2600 {
		t.Errorf("%d chunks for a target of 2,000", sz.Chunks)
	}
	if sz.Queries != 20 {
		t.Errorf("%d queries, want 20", sz.Queries)
	}
	var table, js bytes.Buffer
	if err := bench.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	want := map[string][]search.Mode{
		"cite":        bench.Modes,
		"bleve":       {search.BM25},
		"SQLite FTS5": {search.BM25},
		"chromem-go":  {search.Vector},
	}
	if len(sz.Systems) != len(want) {
		t.Errorf("%d systems, want %d", len(sz.Systems), len(want))
	}
	for _, s := range sz.Systems {
		var modes []search.Mode
		for name, ms := range want {
			if strings.HasPrefix(s.Name, name) {
				modes = ms
			}
		}
		if s.Skipped || modes == nil {
			t.Errorf("%s: skipped or unknown: %s", s.Name, s.Note)
			continue
		}
		if s.BuildMBps <= 0 || s.RSSBytes <= 0 {
			t.Errorf("%s: build %.2f MB/s, RSS %d", s.Name, s.BuildMBps, s.RSSBytes)
		}
		if s.DiskBytes == 0 {
			t.Errorf("%s: no bytes on disk", s.Name)
		}
		for _, m := range modes {
			if l, ok := s.Latency[m]; !ok || l.P50 <= 0 || l.P99 < l.P50 {
				t.Errorf("%s %s: latency %+v", s.Name, m, l)
			}
		}
		// A long run stopped early has logged every finished system's
		// figures, each line with its time and load.
		if s.Load == "" || !strings.Contains(table.String(), s.Name+" "+s.Load) {
			t.Errorf("%s: load during its part %q, not in the table", s.Name, s.Load)
		}
		if !logHas(log.String(), s.Name+" searched: ", "build ", " MB/s", "RSS ", " load ") {
			t.Errorf("%s: its figures are not in the log:\n%s", s.Name, log.String())
		}
	}
	if err := bench.WriteJSON(&js, rep); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
	t.Logf("\n%s", table.String())
}

// logHas reports whether a line of log holds every one of parts.
func logHas(log string, parts ...string) bool {
	for line := range strings.Lines(log) {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestDirSize counts the files under a folder, also when it is named by a
// symbolic link (a kept index linked into another work folder).
func TestDirSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "index", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int{"index/a": 10, "index/sub/b": 5} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "index"), link); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{filepath.Join(dir, "index"), link} {
		if n := bench.DirSize(p); n != 15 {
			t.Errorf("DirSize(%s) = %d, want 15", p, n)
		}
	}
}
