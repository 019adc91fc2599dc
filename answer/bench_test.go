package answer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/answer/modeltest"
	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/embed"
	"github.com/cite-rag/cite/provider"
	"github.com/cite-rag/cite/search"
)

// instant answers at once, citing the first two passages: the model's
// time is zero, so what is measured is the orchestrator's own.
type instant struct{}

func (instant) Name() string { return "instant" }
func (instant) Local() bool  { return true }
func (instant) Chat(ctx context.Context, req provider.ChatRequest, onDelta func(string) error) (provider.ChatResponse, error) {
	text := "The answer is here [doc:1] and there [doc:2]."
	for _, d := range []string{"The answer is here [do", "c:1] and there [doc:2]."} {
		if err := onDelta(d); err != nil {
			return provider.ChatResponse{}, err
		}
	}
	return provider.ChatResponse{Content: text}, nil
}

// benchIndex makes an index of n chunks of varied text with hash vectors,
// its documents spread over the data sources named.
func benchIndex(b *testing.B, n int, sources ...string) *search.Searcher {
	if len(sources) == 0 {
		sources = []string{"s"}
	}
	ctx := context.Background()
	st, err := index.Open(ctx, b.TempDir(), index.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	emb, _ := embed.New("hash", embed.Config{})
	if err := st.UseEmbedder(ctx, emb); err != nil {
		b.Fatal(err)
	}
	// A Zipf-distributed vocabulary of 5,000 words, as in real text: a
	// few words in most chunks, most words in few.
	words := strings.Fields("bee hive queen worker drone honey wax comb nectar pollen flower dance sun angle distance forager colony swarm winter summer larva brood egg cell guard scout water wing field season")
	for i := len(words); i < 5000; i++ {
		words = append(words, fmt.Sprintf("w%dx%d", i, i*7%13))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(words)-1))
	const perDoc = 50
	for d := 0; d < n/perDoc; d++ {
		var chunks []index.Chunk
		off := 0
		for c := range perDoc {
			var sb strings.Builder
			for w := range 80 {
				sb.WriteString(words[(int(zipf.Uint64())+d*c+w)%len(words)])
				sb.WriteByte(' ')
			}
			text := sb.String()
			v, _ := emb.EmbedDocuments(ctx, []string{text})
			chunks = append(chunks, index.Chunk{Chunk: chunk.Chunk{Ordinal: c, Text: text, Tokens: 80, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text), Vector: v[0]})
			off += len(text)
		}
		doc := &index.Document{Source: sources[d%len(sources)], Path: fmt.Sprintf("/docs/%d.md", d), Title: fmt.Sprint("Doc ", d), Type: "markdown", Hash: fmt.Sprint(d), Pipeline: "p", TextBytes: off}
		if _, err := st.PutDocument(ctx, doc, chunks); err != nil {
			b.Fatal(err)
		}
	}
	s, err := search.Open(ctx, st, search.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkOrchestratorOverhead: a whole request at 10,000 chunks —
// preemptive retrieval (hybrid, k 5), registration, the prompt, the
// streamed rendering and the reference list — with a model that takes no
// time. Reports the p50 and p99 per request, and the p50 of the same
// search alone. The chunks are in two data sources; the request asks both
// (the search is unfiltered) or one (filtered to half the chunks).
func BenchmarkOrchestratorOverhead(b *testing.B) {
	s := benchIndex(b, 10000, "s", "t")
	for _, tc := range []struct {
		name    string
		sources []string
	}{
		{"all-sources", []string{"s", "t"}},
		{"one-of-two", []string{"s"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			eng, err := answer.New(answer.Config{Model: instant{}, Retriever: s})
			if err != nil {
				b.Fatal(err)
			}
			qs := []string{"how do bees dance", "queen and drones in winter", "nectar pollen forager", "wax comb cells", "swarm scout season"}
			var lat, alone []time.Duration
			for i := 0; b.Loop(); i++ {
				// The same search alone, for the share that is the orchestrator's.
				t := time.Now()
				if _, err := s.Search(context.Background(), search.Query{Text: qs[i%len(qs)], K: answer.DefaultK, Filter: index.Filter{Sources: tc.sources}}); err != nil {
					b.Fatal(err)
				}
				alone = append(alone, time.Since(t))
				t = time.Now()
				res, err := answer.Collect(eng.Run(context.Background(), answer.Request{Question: qs[i%len(qs)], Sources: tc.sources}))
				if err != nil || len(res.References) != 2 {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			slices.Sort(lat)
			slices.Sort(alone)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(alone[len(alone)/2].Microseconds())/1000, "search-alone-p50-ms")
		})
	}
}

// BenchmarkFirstText: time to the first text event of a streamed answer
// through langchaingo's client and the modeltest server (preemptive
// retrieval at 10,000 chunks included).
func BenchmarkFirstText(b *testing.B) {
	s := benchIndex(b, 10000)
	turns := make([]modeltest.Turn, 0, 20000)
	for range 20000 {
		turns = append(turns, modeltest.Turn{Text: []string{"Bees [doc:1]", " dance."}})
	}
	srv := modeltest.NewServer(nil, modeltest.Script{Turns: turns})
	defer srv.Close()
	m, _ := provider.NewChatModel("openai:m", provider.Config{OpenAIBaseURL: srv.OpenAIBaseURL()})
	eng, _ := answer.New(answer.Config{Model: m, Retriever: s})
	var first []time.Duration
	for b.Loop() {
		t := time.Now()
		got := false
		for ev, err := range eng.Run(context.Background(), answer.Request{Question: "how do bees dance", Sources: []string{"s"}}) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == answer.EventText && !got {
				got = true
				first = append(first, time.Since(t))
			}
		}
	}
	slices.Sort(first)
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "p50-first-text-ms")
}
