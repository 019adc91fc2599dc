package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBench runs cite bench on the small test corpus, replicated to 60
// chunks, cite alone and cite serve (this test binary run as cite): the
// flags, the table and the JSON.
func TestBench(t *testing.T) {
	t.Setenv("CITE_TEST_MAIN_ARGV", "1")
	work := t.TempDir()
	code, stdout, stderr := cite(t, "bench", "--corpus", corpus, "--work", work, "--sizes", "60", "--queries", "3", "--peers", "none", "--weaviate", "off", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Sizes []struct {
			Chunks  int `json:"chunks"`
			Systems []struct {
				Name    string                        `json:"name"`
				Note    string                        `json:"note"`
				RSS     int64                         `json:"rss_bytes"`
				Latency map[string]map[string]float64 `json:"latency"`
			} `json:"systems"`
		} `json:"sizes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(rep.Sizes) != 1 || rep.Sizes[0].Chunks < 60 || len(rep.Sizes[0].Systems) != 2 || rep.Sizes[0].Systems[0].Name != "cite" || rep.Sizes[0].Systems[1].Name != "cite serve" {
		t.Fatalf("report %+v", rep)
	}
	for _, s := range rep.Sizes[0].Systems {
		if s.RSS <= 0 {
			t.Errorf("%s: RSS %d (%s)", s.Name, s.RSS, s.Note)
		}
		for _, m := range []string{"bm25", "vector", "hybrid"} {
			if l := s.Latency[m]; l["p50_ms"] <= 0 || l["p99_ms"] < l["p50_ms"] {
				t.Errorf("%s %s latency %v (%s)", s.Name, m, l, s.Note)
			}
		}
	}
	// The table, from the corpus written by the first run.
	code, stdout, stderr = cite(t, "bench", "--corpus", corpus, "--work", work, "--sizes", "60", "--queries", "3", "--peers", "none", "--weaviate", "off", "--serve=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"chunks (target 60)", "build MB/s", "bm25 p50 / p99 ms", "cite "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--sizes", "ten"}, "--sizes"},
		{[]string{"bench", "--peers", "lucene"}, "unknown peer"},
		{[]string{"bench", "--weaviate", "/no/such/weaviate-server"}, "--weaviate"},
		{[]string{"bench", "extra"}, "no arguments"},
	} {
		if code, _, stderr := cite(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("cite %q: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
