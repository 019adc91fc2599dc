package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/internal/testenv"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/server"
)

// TestLoad: 200 streaming questions at once (20 under -race), each in its
// own session with its own uploaded document, against a modeltest model
// that cites the first two passages: the data-source passage and the
// session document's. Every answer must cite its own document and no
// other session's. It reports the time to the first event and to the end
// of the stream (p50, p99), the peak heap, and the errors (want 0).
func TestLoad(t *testing.T) {
	n := 200
	if testenv.Race || testing.Short() {
		n = 20
	}
	turns := make([]modeltest.Turn, n)
	for i := range turns {
		turns[i] = modeltest.Turn{Text: []string{"From the corpus [doc:1]", "; from your document [doc:2]."}}
	}
	model := modeltest.NewServer(t, modeltest.Script{Turns: turns})
	m, err := provider.NewChatModel("openai:load", provider.Config{OpenAIBaseURL: model.OpenAIBaseURL(), OpenAIAPIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ts, _, _ := startAt(t, dir, true, m, server.Config{MaxAnswers: n})
	type req struct{ session, path, word string }
	reqs := make([]req, n)
	for i := range reqs {
		resp, out := do(t, "POST", ts.URL+"/v1/sessions", "", "")
		var s struct{ ID string }
		json.Unmarshal([]byte(out), &s)
		word := fmt.Sprintf("zq%dx", i)
		ct, body := multipartBody(t, fmt.Sprintf("note%d.md", i), fmt.Sprintf("# Note %d\n\nThe codeword of this session is %s.\n", i, word))
		resp, out = do(t, "POST", ts.URL+"/v1/sessions/"+s.ID+"/documents", ct, body)
		var up uploadResult
		json.Unmarshal([]byte(out), &up)
		if resp.StatusCode != 201 || up.Files[0].Document == nil {
			t.Fatalf("upload %d: %d %s", i, resp.StatusCode, out)
		}
		reqs[i] = req{s.ID, up.Files[0].Document.Path, word}
	}

	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	first := make([]time.Duration, n)
	total := make([]time.Duration, n)
	var errs atomic.Int32
	var wg sync.WaitGroup
	start := time.Now()
	for i, r := range reqs {
		wg.Go(func() {
			fail := func(format string, args ...any) {
				errs.Add(1)
				t.Errorf("request %d: "+format, append([]any{i}, args...)...)
			}
			body := fmt.Sprintf(`{"question":"what is the codeword %s","session_id":%q,"k":1}`, r.word, r.session)
			hr, _ := http.NewRequest("POST", ts.URL+"/v1/ask", strings.NewReader(body))
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("Accept", "text/event-stream")
			t0 := time.Now()
			resp, err := http.DefaultClient.Do(hr)
			if err != nil {
				fail("%v", err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				fail("status %d", resp.StatusCode)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			event := ""
			var answer struct {
				Answer struct {
					References []struct{ Source string }
				}
			}
			got := false
			for sc.Scan() {
				line := sc.Text()
				if first[i] == 0 && line != "" {
					first[i] = time.Since(t0)
				}
				if e, ok := strings.CutPrefix(line, "event: "); ok {
					event = e
				}
				if d, ok := strings.CutPrefix(line, "data: "); ok {
					switch event {
					case "error":
						fail("error event %s", d)
						return
					case "answer":
						json.Unmarshal([]byte(d), &answer)
						got = true
					}
				}
			}
			total[i] = time.Since(t0)
			if !got {
				fail("no answer event")
				return
			}
			own := false
			for _, ref := range answer.Answer.References {
				if ref.Source == r.path {
					own = true
				} else if strings.Contains(ref.Source, "/sessions/") {
					fail("cites another session's document %s", ref.Source)
				}
			}
			if !own {
				fail("does not cite its own document: %+v", answer.Answer.References)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	close(stop)
	sampler.Wait()
	slices.Sort(first)
	slices.Sort(total)
	pct := func(ds []time.Duration, p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	t.Logf("%d concurrent streaming answers in %v: first event p50 %v p99 %v; complete p50 %v p99 %v; peak heap in use %.1f MB; errors %d",
		n, wall.Round(time.Millisecond), pct(first, 0.5).Round(time.Microsecond), pct(first, 0.99).Round(time.Microsecond),
		pct(total, 0.5).Round(time.Microsecond), pct(total, 0.99).Round(time.Microsecond), float64(peak.Load())/1e6, errs.Load())
}

// TestSoak: documents are uploaded and deleted while questions are
// answered; no question fails, and the index checks clean afterwards.
func TestSoak(t *testing.T) {
	dir := t.TempDir()
	ts, _, st := startAt(t, dir, true, nil, server.Config{MaxAnswers: 16})
	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	var asked, churned atomic.Int32
	for range 6 {
		wg.Go(func() {
			// Once at least, however late a loaded machine runs it.
			for first := true; first || time.Now().Before(deadline); first = false {
				resp, out := do(t, "POST", ts.URL+"/v1/ask", "application/json", `{"question":"how do bees tell where flowers are"}`)
				if resp.StatusCode != 200 {
					t.Errorf("ask during churn: %d %s", resp.StatusCode, out)
					return
				}
				asked.Add(1)
			}
		})
	}
	wg.Go(func() {
		for i := 0; i == 0 || time.Now().Before(deadline); i++ {
			ct, body := multipartBody(t, fmt.Sprintf("churn%d.md", i%3), fmt.Sprintf("# Churn %d\n\nBees tell flowers apart by scent, version %d.\n", i, i))
			resp, out := do(t, "POST", ts.URL+"/v1/documents?source=churn", ct, body)
			var up uploadResult
			json.Unmarshal([]byte(out), &up)
			if resp.StatusCode != 201 || up.Files[0].Document == nil {
				t.Errorf("upload during answers: %d %s", resp.StatusCode, out)
				return
			}
			if i%2 == 1 {
				if resp, out := do(t, "DELETE", ts.URL+"/v1/documents/"+up.Files[0].Document.ID, "", ""); resp.StatusCode != 200 {
					t.Errorf("delete during answers: %d %s", resp.StatusCode, out)
					return
				}
			}
			churned.Add(1)
		}
	})
	wg.Wait()
	rep, err := st.Check(t.Context())
	if err != nil || !rep.OK() {
		t.Fatalf("check after the soak: %v %+v", err, rep)
	}
	t.Logf("%d answers during %d uploads and deletions; check clean", asked.Load(), churned.Load())
	if asked.Load() == 0 || churned.Load() == 0 {
		t.Errorf("nothing happened: %d answers, %d uploads", asked.Load(), churned.Load())
	}
}
