// Package bench is cite's scale benchmark (cite bench): it builds indexes
// of 10,000 to 1,000,000 chunks from a Markdown corpus replicated with
// varied text ([Corpus.Vary]), and measures, on each, ingest speed, size
// on disk, open time, memory and search latency per mode, for cite and for
// other engines (peers) given the same chunks and the same queries in the
// same run.
//
// It sits above index, ingest and search and uses only their exported
// API. Each peer lives in a package of its own beneath this one (bleve,
// SQLite FTS5, chromem-go, Weaviate), holding its third-party dependency;
// cmd/cite wires them in:
//
//	rep, err := bench.Run(ctx, bench.Config{
//		Corpus: dir,
//		Sizes:  []int{10_000, 100_000},
//		Peers:  []bench.NewPeer{blevepeer.New, fts5peer.New},
//	})
//	bench.WriteTable(os.Stdout, rep)
//
// Costs: every size writes its corpus (about 2 KB of Markdown a chunk,
// kept in Config.Work for the next run) and an index per system (cite's
// is typically 10-25 KB a chunk with the hash embedder's 2,048 dimensions),
// removed after the size unless Config.Keep. Vectors are read from cite's
// index in batches; a peer that holds all vectors in memory is skipped
// when they would not fit in a third of the memory available.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/ingest"
	"github.com/cite-rag/cite/internal/benchquery"
	"github.com/cite-rag/cite/search"
)

// Modes are the search modes measured, in the order they are reported.
var Modes = []search.Mode{search.BM25, search.Vector, search.Hybrid}

// Config configures [Run]; the zero value of a field selects its default.
type Config struct {
	// Corpus is the folder of Markdown files the collections are made of.
	Corpus string
	// Work is where corpora and indexes are written (default
	// $TMPDIR/cite-bench). Corpora are kept there for the next run.
	Work string
	// Sizes are the collections' sizes, in chunks (default 10k and 100k).
	Sizes []int
	// Queries is how many queries are asked in each mode (default 300):
	// the innermost headings of every 50th chunk, distinct.
	Queries int
	// Embedder names cite's embedder (default "hash", see [embed.New]).
	Embedder string
	// EmbedConfig configures a model provider's embedder.
	EmbedConfig embed.Config
	// Peers are the other engines measured beside cite.
	Peers []NewPeer
	// Keep keeps the indexes after measuring them, each with a record of
	// how it was built. A kept index is measured again by a later run
	// instead of being built anew when it was built from the same corpus
	// and embedder (for a peer: the same engine over the same chunks) and,
	// for cite's, this cite opens it read-only, that is without upgrading
	// its schema or full-text terms; its build figures are then those of
	// the run that built it.
	Keep bool
	// Rebuild builds every index anew even where a kept one would do.
	Rebuild bool
	// Upgrade measures a kept cite index whose format this cite would
	// upgrade (schema, full-text terms) after upgrading it in place, rather
	// than building it anew: its build figures are then an older cite's.
	Upgrade bool
	// Serve, when set, is the cite command (its path and any arguments
	// before the subcommand) with which each size's index is also served:
	// "serve --index DIR --addr 127.0.0.1:0 --no-token" is appended, the
	// queries are asked through its HTTP API, and its resident memory is
	// read from /proc (the "cite serve" row).
	Serve []string
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Chunk is one chunk of the collection as a peer receives it.
type Chunk struct {
	Key    int64  // 1, 2, ... in the order the chunks are given
	ID     string // cite's chunk id
	Text   string
	Terms  string    // cite's full-text terms of Text, joined by spaces
	Vector []float32 // cite's embedding (only from [Source.Vectors])
}

// Query is one query as every system receives it.
type Query struct {
	Text   string
	Terms  []string  // cite's analysis of Text (analysis.QueryTerms)
	Vector []float32 // cite's embedding of Text
}

// Source gives a peer the collection: the chunks of cite's index.
type Source struct {
	Store    *index.Store
	Embedder *embed.Embedder
	// Chunks is the number of chunks, TextBytes the bytes of their text
	// (-1 before a peer first needs it).
	Chunks    int
	TextBytes int64
}

// Batch is how many chunks a peer receives at once.
const Batch = 1000

// EachText calls fn with the chunks in batches, with Key, ID, Text and
// Terms (no Vector).
func (s *Source) EachText(ctx context.Context, fn func([]Chunk) error) error {
	docs, err := s.Store.Documents(ctx, "")
	if err != nil {
		return err
	}
	batch := make([]Chunk, 0, Batch)
	var key int64
	for _, d := range docs {
		cs, err := s.Store.Chunks(ctx, d.ID)
		if err != nil {
			return err
		}
		for _, c := range cs {
			key++
			batch = append(batch, Chunk{Key: key, ID: c.ID, Text: c.Text, Terms: analysis.JoinedTerms(c.Text)})
			if len(batch) == Batch {
				if err := fn(batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// textSize is the bytes of the chunks' text.
func (s *Source) textSize(ctx context.Context) (int64, error) {
	docs, err := s.Store.Documents(ctx, "")
	if err != nil {
		return 0, err
	}
	var n int64
	for _, d := range docs {
		cs, err := s.Store.Chunks(ctx, d.ID)
		if err != nil {
			return 0, err
		}
		for _, c := range cs {
			n += int64(len(c.Text))
		}
	}
	return n, nil
}

// EachVector calls fn with the chunks' vectors in batches, with ID and
// Vector only.
func (s *Source) EachVector(ctx context.Context, fn func([]Chunk) error) error {
	batch := make([]Chunk, 0, Batch)
	err := s.Store.Vectors(ctx, func(id string, v []float32) error {
		batch = append(batch, Chunk{ID: id, Vector: v})
		if len(batch) < Batch {
			return nil
		}
		err := fn(batch)
		batch = batch[:0]
		return err
	})
	if err != nil || len(batch) == 0 {
		return err
	}
	return fn(batch)
}

// Peer is another engine measured on the same chunks and queries.
type Peer interface {
	// Name names the engine and its version.
	Name() string
	// Modes are the modes it answers.
	Modes() []search.Mode
	// Build indexes the collection.
	Build(ctx context.Context, src *Source) error
	// Open makes what Build wrote ready for searching as a new process
	// would (closing and opening again, where the engine has files); it
	// is timed as the open time, unless it returns [ErrNoOpen].
	Open(ctx context.Context) error
	// Search ranks the top k chunks for q in mode and returns how many
	// it found.
	Search(ctx context.Context, mode search.Mode, q *Query, k int) (int, error)
	// DiskBytes is the size of its files (-1: it keeps everything in
	// memory; -2: unknown); RSS the resident memory of its own process in
	// bytes (0: it runs in this process; -1: unknown).
	DiskBytes() int64
	RSS() int64
	Close() error
}

// PeerConfig is what a peer is made with.
type PeerConfig struct {
	Dir    string // an empty folder for its files
	Chunks int    // the collection's size
	Dim    int    // the vectors' dimension
	// MemoryBudget is how many bytes the peer may hold in memory.
	MemoryBudget int64
	// Reopen: Dir holds what this peer's Build wrote in an earlier run,
	// over the same chunks. A peer that can open it does so instead of
	// making a new index, and says so ([Reopener]); Build is then not
	// called.
	Reopen bool
}

// Reopener is a peer that can open what an earlier run built
// ([PeerConfig.Reopen]).
type Reopener interface {
	// Reopened reports whether the peer opened an earlier run's index.
	Reopened() bool
}

// NewPeer makes a peer. An error wrapping [ErrSkip] leaves it out of this
// size, with the error's text as the reason.
type NewPeer func(ctx context.Context, cfg PeerConfig) (Peer, error)

var (
	// ErrSkip: the peer cannot run here (not installed, not enough memory).
	ErrSkip = errors.New("skipped")
	// ErrNoOpen: the peer has nothing to open (it lives in memory).
	ErrNoOpen = errors.New("nothing to open")
)

// Latency is the p50 and p99 of a mode's searches, in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
}

// System is one engine's measurements at one size.
type System struct {
	Name string `json:"name"`
	// Note says why it was skipped or what its figures include.
	Note string `json:"note,omitempty"`
	// BuildMBps is cite's ingest rate (Markdown bytes per second, from the
	// files to a searchable index), or a peer's indexing rate over the
	// chunks' text.
	BuildMBps    float64 `json:"build_mb_per_s"`
	BuildSeconds float64 `json:"build_s"`
	// DiskBytes is the size of its files (-1: in memory only, -2:
	// unknown).
	DiskBytes int64 `json:"disk_bytes"`
	// OpenMS is the time to open it for searching (-1: nothing to open).
	OpenMS float64 `json:"open_ms"`
	// RSSBytes is the resident memory after its searches: this process's
	// for in-process engines, the server's for Weaviate (-1: unknown).
	RSSBytes int64 `json:"rss_bytes"`
	// RSSPeakBytes is the peak resident memory of a system in a process
	// of its own (cite serve), where known.
	RSSPeakBytes int64                   `json:"rss_peak_bytes,omitempty"`
	Latency      map[search.Mode]Latency `json:"latency,omitempty"`
	// Skipped: the system was left out of this size (Note says why).
	Skipped bool `json:"skipped,omitempty"`
	// Load is the 1-minute load average when its part of the run began
	// (for cite: its build, or its reuse) and when it ended.
	Load string `json:"load,omitempty"`
}

// Size is the measurements at one collection size.
type Size struct {
	Target      int      `json:"target"`
	Chunks      int      `json:"chunks"`
	Files       int      `json:"files"`
	CorpusBytes int64    `json:"corpus_bytes"`
	Queries     int      `json:"queries"`
	Load        string   `json:"load"` // /proc/loadavg before and after
	Systems     []System `json:"systems"`
}

// Report is what [Run] measured.
type Report struct {
	Embedder string    `json:"embedder"`
	Dim      int       `json:"dim"`
	CPUs     int       `json:"cpus"`
	Go       string    `json:"go"`
	Commit   string    `json:"commit"` // cite's revision ([Commit])
	Started  time.Time `json:"started"`
	Sizes    []Size    `json:"sizes"`
}

// DefaultSizes are the sizes measured unless told otherwise.
var DefaultSizes = []int{10_000, 100_000}

// Run measures every size in turn. A peer that fails is reported with the
// error as its note and the run goes on; cite failing ends the run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Corpus == "" {
		return nil, errors.New("bench: no corpus folder")
	}
	if cfg.Work == "" {
		cfg.Work = filepath.Join(os.TempDir(), "cite-bench")
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = DefaultSizes
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 300
	}
	if cfg.Embedder == "" {
		cfg.Embedder = "hash"
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	emb, err := embed.New(cfg.Embedder, cfg.EmbedConfig)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Work, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "reading the corpus %s\n", cfg.Corpus)
	corpus, err := LoadCorpus(ctx, cfg.Corpus)
	if err != nil {
		return nil, err
	}
	rep := &Report{Embedder: emb.Name(), CPUs: runtime.GOMAXPROCS(0), Go: runtime.Version(), Commit: Commit(), Started: time.Now().UTC()}
	for _, n := range cfg.Sizes {
		sz, err := runSize(ctx, cfg, corpus, emb, n)
		if err != nil {
			return rep, fmt.Errorf("bench at %d chunks: %w", n, err)
		}
		rep.Dim = emb.Dim()
		rep.Sizes = append(rep.Sizes, *sz)
	}
	return rep, nil
}

func runSize(ctx context.Context, cfg Config, corpus *Corpus, emb *embed.Embedder, n int) (*Size, error) {
	// Each line says when and at what load, so that a long run's log
	// tells the load during each part.
	logf := func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "%s load %s: %d: "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05"), loadAvg(), n}, args...)...)
	}
	logf("writing the corpus")
	root, files, size, err := corpus.Materialize(ctx, cfg.Work, n)
	if err != nil {
		return nil, err
	}
	sz := &Size{Target: n, Files: files, CorpusBytes: size, Load: loadAvg()}
	dir := filepath.Join(cfg.Work, fmt.Sprintf("index-%d", n))
	citeDir := filepath.Join(dir, "cite")
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}

	// cite: ingest, or a kept index built from the same inputs.
	citeLoad := loadAvg()
	want := &built{Corpus: filepath.Base(root), Embedder: emb.Name(), System: "cite"}
	var cite System
	prev := errNotKept
	var b *built
	if cfg.Keep && !cfg.Rebuild {
		b, prev = reusableCite(ctx, dir, want, cfg.Upgrade)
	}
	if prev == nil {
		logf("cite index: reusing %s (%s)", citeDir, b.note())
		cite = System{Name: "cite", BuildMBps: b.BuildMBps, BuildSeconds: b.BuildSeconds, DiskBytes: dirSize(citeDir), Note: "index " + b.note()}
		sz.Chunks = b.Chunks
	} else {
		if cfg.Keep && !cfg.Rebuild && !errors.Is(prev, fs.ErrNotExist) {
			logf("cite index: not reusing the kept index: %v", prev)
		}
		// A peer's kept index stays: its record says which chunks it has.
		os.Remove(filepath.Join(dir, "cite.built.json"))
		// A build an earlier run began and did not finish goes on where
		// it stopped (cite index is incremental), with --keep.
		partial := filepath.Join(dir, "cite.partial.json")
		p, err := readBuilt(partial)
		resume := err == nil && cfg.Keep && !cfg.Rebuild && p.same(want)
		if resume {
			logf("cite index: taking up the build begun %s at commit %s", p.At.Format("2006-01-02 15:04 MST"), p.Commit)
		} else {
			if err := os.RemoveAll(citeDir); err != nil {
				return nil, err
			}
			c := *want
			c.Commit, c.Load, c.At = Commit(), sz.Load, time.Now().UTC()
			p = &c
		}
		if cfg.Keep {
			if resume {
				p.Resumed++
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			if err := writeBuilt(partial, p); err != nil {
				return nil, err
			}
		}
		// The run records its part of the build as it goes (and when it
		// ends, stopped or not), so that a build taken up again knows how
		// long the earlier runs spent on it.
		part := buildPart{Commit: Commit(), Load: loadAvg()}
		record := func(d time.Duration) {
			if !cfg.Keep {
				return
			}
			c := *p
			pt := part
			pt.Seconds, pt.Load = d.Seconds(), part.Load+" → "+loadAvg()
			c.Parts = append(slices.Clone(p.Parts), pt)
			if err := writeBuilt(partial, &c); err != nil {
				logf("cite index: recording the build's progress: %v", err)
			}
		}
		if cite, sz.Chunks, err = buildCite(ctx, citeDir, root, files, size, emb, logf, record); err != nil {
			return nil, err
		}
		b := *p
		part.Seconds, part.Load = cite.BuildSeconds, part.Load+" → "+loadAvg()
		b.Parts = append(slices.Clone(p.Parts), part)
		b.Chunks, b.BuildSeconds, b.BuildMBps = sz.Chunks, cite.BuildSeconds, cite.BuildMBps
		if b.Resumed > 0 {
			// The build time is the sum of the runs' parts, where each
			// recorded its own: the corpus over that time is the rate.
			note := "no build rate (a run recorded no build time)"
			b.BuildSeconds, b.BuildMBps = 0, 0
			if sec, ok := b.partsSeconds(); ok && sec > 0 {
				b.BuildSeconds, b.BuildMBps = sec, float64(size)/1e6/sec
				note = "build time summed over them: " + b.partsNote()
			}
			cite.BuildSeconds, cite.BuildMBps = b.BuildSeconds, b.BuildMBps
			cite.Note = fmt.Sprintf("index built in %d runs, begun %s at commit %s; %s", b.Resumed+1, b.At.Format("2006-01-02 15:04 MST"), b.Commit, note)
			logf("cite index: %s", cite.Note)
		}
		if !resume {
			b.Load += " → " + loadAvg()
		}
		if cfg.Keep {
			if err := writeBuilt(filepath.Join(dir, "cite.built.json"), &b); err != nil {
				return nil, err
			}
			os.Remove(partial)
		}
	}

	// cite: open (as cite search does: open, load the vectors), search.
	freeMemory()
	start := time.Now()
	st, err := index.Open(ctx, citeDir, index.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if _, _, err := st.VectorStats(ctx); err != nil {
		return nil, err
	}
	cite.OpenMS = ms(time.Since(start))
	queries, err := makeQueries(ctx, st, emb, cfg.Queries)
	if err != nil {
		return nil, err
	}
	sz.Queries = len(queries)
	s, err := search.New(ctx, st, emb)
	if err != nil {
		return nil, err
	}
	cite.Latency = map[search.Mode]Latency{}
	for _, mode := range Modes {
		lat, err := measure(ctx, queries, func(q *Query) error {
			_, err := s.Search(ctx, search.Query{Text: q.Text, Mode: mode})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cite %s search: %w", mode, err)
		}
		cite.Latency[mode] = lat
	}
	cite.RSSBytes = rss(0)
	cite.Load = citeLoad + " → " + loadAvg()
	cite.Note = strings.TrimPrefix(cite.Note+"; whole search (embed the query, rank, read the hits)", "; ")
	sz.Systems = append(sz.Systems, cite)
	logf("cite searched: %s", figures(&cite, sz.Chunks))
	if len(cfg.Serve) > 0 {
		freeMemory()
		load := loadAvg()
		sys := measureServe(ctx, cfg, citeDir, queries)
		sys.Load = load + " → " + loadAvg()
		logf("%s: %s; %s", sys.Name, sys.Note, figures(&sys, sz.Chunks))
		sz.Systems = append(sz.Systems, sys)
	}

	// Peers, one at a time, on the chunks of cite's index.
	// The chunks' text is counted when a peer first builds (at 1M chunks
	// reading it takes minutes, for nothing when every peer's index is
	// kept).
	src := &Source{Store: st, Embedder: emb, Chunks: sz.Chunks, TextBytes: -1}
	for i, np := range cfg.Peers {
		want := &built{Corpus: filepath.Base(root), Embedder: emb.Name(), Chunks: sz.Chunks}
		load := loadAvg()
		sys := runPeer(ctx, cfg, np, src, queries, emb.Dim(), filepath.Join(dir, fmt.Sprintf("peer%d", i)), want, logf)
		sys.Load = load + " → " + loadAvg()
		if sys.Skipped {
			logf("%s: %s", sys.Name, sys.Note)
		} else {
			logf("%s searched: %s; %s", sys.Name, sys.Note, figures(&sys, sz.Chunks))
		}
		sz.Systems = append(sz.Systems, sys)
	}
	sz.Load += " → " + loadAvg()
	return sz, nil
}

// buildCite indexes the corpus root (files, size bytes) into a new index
// in dir with cite index's pipeline; it returns cite's build figures and
// the number of chunks.
//
// record is called with the time spent so far every [checkpointEvery]
// while it builds, and once when it ends, stopped or not.
func buildCite(ctx context.Context, dir, root string, files int, size int64, emb *embed.Embedder, logf func(string, ...any), record func(time.Duration)) (System, int, error) {
	logf("cite index (%d files, %.0f MB)", files, float64(size)/1e6)
	freeMemory()
	start := time.Now()
	defer func() { record(time.Since(start)) }()
	st, err := index.Open(ctx, dir, index.Options{Create: true})
	if err != nil {
		return System{}, 0, err
	}
	ix, err := ingest.New(ctx, st, ingest.Options{Embedder: emb})
	if err != nil {
		st.Close()
		return System{}, 0, err
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				record(time.Since(start))
			}
		}
	})
	stats, err := ix.Index(ctx, root)
	close(done)
	wg.Wait()
	// The chunks of the whole index: a build taken up again indexes only
	// what the earlier run had not.
	chunks := 0
	if err == nil {
		var ts index.TermStats
		ts, err = st.TermStats(ctx, nil)
		chunks = ts.Chunks
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return System{}, 0, err
	}
	cite := System{Name: "cite", BuildMBps: stats.MBPerSecond(), BuildSeconds: stats.Elapsed.Seconds(), DiskBytes: dirSize(dir)}
	logf("cite index: %d chunks (%d new), %.1f MB/s", chunks, stats.Chunks, cite.BuildMBps)
	return cite, chunks, nil
}

// checkpointEvery is how often a build records the time it has spent, for
// a later run taking it up if it is stopped.
const checkpointEvery = 30 * time.Second

// runPeer builds (or, with cfg.Keep, reopens what an earlier run built
// from the inputs of want), opens and searches one peer; its failure is
// its note.
func runPeer(ctx context.Context, cfg Config, np NewPeer, src *Source, queries []Query, dim int, dir string, want *built, logf func(string, ...any)) (sys System) {
	freeMemory()
	record := dir + ".built.json"
	var prev *built
	if cfg.Keep && !cfg.Rebuild {
		if b, err := readBuilt(record); err == nil && b.Corpus == want.Corpus && b.Embedder == want.Embedder && b.Chunks == want.Chunks {
			prev = b
		}
	}
	pcfg := PeerConfig{Dir: dir, Chunks: src.Chunks, Dim: dim, MemoryBudget: memAvailable() / 3, Reopen: prev != nil}
	var p Peer
	if prev != nil {
		// A peer that cannot reopen it, or finds another engine's files,
		// builds anew.
		var err error
		if p, err = np(ctx, pcfg); err == nil {
			if r, ok := p.(Reopener); !ok || !r.Reopened() || p.Name() != prev.System {
				p.Close()
				p = nil
			}
		}
		if p == nil {
			prev = nil
			pcfg.Reopen = false
		}
	}
	if p == nil {
		os.Remove(record)
		if err := os.RemoveAll(dir); err != nil {
			return System{Name: "?", Note: err.Error(), Skipped: true}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return System{Name: "?", Note: err.Error(), Skipped: true}
		}
		var err error
		if p, err = np(ctx, pcfg); err != nil {
			name, _, _ := strings.Cut(err.Error(), ":")
			return System{Name: name, Note: err.Error(), Skipped: true}
		}
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	defer p.Close()
	sys = System{Name: p.Name(), Latency: map[search.Mode]Latency{}, OpenMS: -1}
	fail := func(what string, err error) System {
		sys.Note = fmt.Sprintf("%s: %v", what, err)
		sys.Skipped = true
		return sys
	}
	if prev != nil {
		sys.BuildSeconds, sys.BuildMBps = prev.BuildSeconds, prev.BuildMBps
	} else {
		if src.TextBytes < 0 {
			n, err := src.textSize(ctx)
			if err != nil {
				return fail("build", err)
			}
			src.TextBytes = n
		}
		start := time.Now()
		if err := p.Build(ctx, src); err != nil {
			return fail("build", err)
		}
		sys.BuildSeconds = time.Since(start).Seconds()
		sys.BuildMBps = float64(src.TextBytes) / 1e6 / sys.BuildSeconds
		logf("%s built: %.0f s, %s MB/s", sys.Name, sys.BuildSeconds, rate(sys.BuildMBps))
		if _, ok := p.(Reopener); ok && cfg.Keep {
			b := *want
			b.System, b.BuildSeconds, b.BuildMBps, b.Commit, b.Load, b.At = p.Name(), sys.BuildSeconds, sys.BuildMBps, Commit(), loadAvg(), time.Now().UTC()
			if err := writeBuilt(record, &b); err != nil {
				return fail("build", err)
			}
		}
	}
	freeMemory()
	start := time.Now()
	switch err := p.Open(ctx); {
	case errors.Is(err, ErrNoOpen):
	case err != nil:
		return fail("open", err)
	default:
		sys.OpenMS = ms(time.Since(start))
	}
	for _, mode := range p.Modes() {
		lat, err := measure(ctx, queries, func(q *Query) error {
			_, err := p.Search(ctx, mode, q, search.DefaultK)
			return err
		})
		if err != nil {
			return fail(string(mode)+" search", err)
		}
		sys.Latency[mode] = lat
	}
	sys.DiskBytes = p.DiskBytes()
	if sys.RSSBytes = p.RSS(); sys.RSSBytes == 0 {
		sys.RSSBytes = rss(0)
	}
	sys.Note = "ok"
	if prev != nil {
		sys.Note = "index " + prev.note()
	}
	return sys
}

// figures sums up a system's measurements at a size of chunks for the
// log, so that a run stopped early has still said them.
func figures(s *System, chunks int) string {
	var b strings.Builder
	if s.BuildMBps > 0 {
		fmt.Fprintf(&b, "build %s MB/s, ", rate(s.BuildMBps))
	}
	switch {
	case s.DiskBytes == -1:
		b.WriteString("in memory, ")
	case s.DiskBytes > 0:
		fmt.Fprintf(&b, "disk %s B/chunk, ", perChunk(s.DiskBytes, chunks))
	}
	fmt.Fprintf(&b, "open %s ms, RSS %s MB", openMS(s.OpenMS), mb(s.RSSBytes))
	for _, m := range Modes {
		if l, ok := s.Latency[m]; ok {
			fmt.Fprintf(&b, ", %s p50 / p99 %s / %s ms", m, num(l.P50), num(l.P99))
		}
	}
	return b.String()
}

// measure asks every query once, after one warm-up query.
func measure(ctx context.Context, queries []Query, ask func(*Query) error) (Latency, error) {
	if len(queries) == 0 {
		return Latency{}, errors.New("no queries")
	}
	if err := ask(&queries[0]); err != nil {
		return Latency{}, err
	}
	lat := make([]time.Duration, 0, len(queries))
	for i := range queries {
		if err := ctx.Err(); err != nil {
			return Latency{}, err
		}
		start := time.Now()
		if err := ask(&queries[i]); err != nil {
			return Latency{}, err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	at := func(p float64) float64 { return ms(lat[min(int(p*float64(len(lat))), len(lat)-1)]) }
	return Latency{P50: at(0.50), P99: at(0.99)}, nil
}

// makeQueries returns the innermost headings of every 50th chunk,
// distinct, up to n ([benchquery.Picker], as search's BenchmarkSearch),
// with their terms and query vectors.
func makeQueries(ctx context.Context, st *index.Store, emb *embed.Embedder, n int) ([]Query, error) {
	docs, err := st.Documents(ctx, "")
	if err != nil {
		return nil, err
	}
	p := benchquery.Picker{Limit: n}
pick:
	for _, d := range docs {
		cs, err := st.Chunks(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !p.Add(c.Headings) {
				break pick
			}
		}
	}
	qs := make([]Query, 0, len(p.Queries))
	for _, h := range p.Queries {
		terms := analysis.QueryTerms(h)
		ts, err := st.TermStats(ctx, terms)
		if err != nil {
			return nil, err
		}
		v, err := emb.EmbedQuery(ctx, h, ts.IDF)
		if err != nil {
			return nil, err
		}
		qs = append(qs, Query{Text: h, Terms: terms, Vector: v})
	}
	return qs, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// freeMemory returns what the collector can free to the system, so that
// the next resident-memory figure is the next system's.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// dirSize is the bytes of the files under dir, which may be a symbolic
// link to a folder (an index kept elsewhere).
func dirSize(dir string) int64 {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// DirSize is the bytes of the files under dir, for peers.
func DirSize(dir string) int64 { return dirSize(dir) }

// rss is the resident memory of process pid (0: this one) in bytes, from
// /proc (0 where there is none).
func rss(pid int) int64 {
	return procKB(procStatus(pid), "VmRSS:") * 1024
}

// RSS is the resident memory of process pid in bytes, for peers.
func RSS(pid int) int64 { return rss(pid) }

// memAvailable is the memory the system has available, in bytes (8 GB if
// unknown).
func memAvailable() int64 {
	if kb := procKB("/proc/meminfo", "MemAvailable:"); kb > 0 {
		return kb * 1024
	}
	return 8 << 30
}

func procKB(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// loadAvg is the system's 1-minute load average ("?" where unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// FindCorpus returns the shared Markdown corpus, shared/data/markdown,
// found beside the working directory or beside any folder above it (where
// CI and the tests find it, as internal/testenv does); ok is false when
// there is none.
func FindCorpus() (dir string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(wd, "..", "shared", "data", "markdown")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, true
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return "", false
		}
		wd = parent
	}
}

// ParseSizes reads a comma-separated list of sizes: numbers with an
// optional k (thousands) or m (millions) suffix, as "10k,100k,1m".
func ParseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mul := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mul, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mul, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n <= 0 || n > 100_000_000/mul {
			return nil, fmt.Errorf("size %q: want a positive number of chunks such as 2000, 10k or 1m", f)
		}
		sizes = append(sizes, n*mul)
	}
	return sizes, nil
}
