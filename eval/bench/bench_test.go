package bench_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cite-rag/cite/eval/bench"
	"github.com/cite-rag/cite/eval/bench/blevepeer"
	"github.com/cite-rag/cite/eval/bench/chromempeer"
	"github.com/cite-rag/cite/eval/bench/fts5peer"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/search"
)

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
	}
	var table, js bytes.Buffer
	if err := bench.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteJSON(&js, rep); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
	t.Logf("\n%s", table.String())
}
