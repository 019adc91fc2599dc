package embed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	chromem "github.com/philippgille/chromem-go"

	"github.com/cite-rag/cite/index/analysis"
)

func embedDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func mustEmbedder(tb testing.TB, spec string) *Embedder {
	tb.Helper()
	e, err := New(spec, Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func embedDocs(tb testing.TB, e *Embedder, texts ...string) [][]float32 {
	tb.Helper()
	vs, err := e.EmbedDocuments(tb.Context(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	return vs
}

func TestHashEmbedderSpecs(t *testing.T) {
	tests := []struct {
		spec, name string
		dim        int
	}{
		{"hash", "hash:2048", 2048},
		{"hash:", "hash:2048", 2048},
		{"hash:1024", "hash:1024", 1024},
		{"hash:2048?ngrams=3-5&words=0.5", "hash:2048", 2048},
		{"hash:2048?ngrams=3-4", "hash:2048?ngrams=3-4", 2048},
		{"hash:512?ngrams=0", "hash:512?ngrams=0", 512},
		{"hash:512?ngrams=none&words=0.3", "hash:512?ngrams=0", 512},
		{"hash?words=0.7", "hash:2048?words=0.7", 2048},
		{"hash:300?ngrams=4", "hash:300?ngrams=4-4", 300},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			e := mustEmbedder(t, tt.spec)
			if e.Name() != tt.name || e.Dim() != tt.dim || e.MaxInput() != 0 {
				t.Errorf("New(%q): name %q dim %d max input %d, want %q %d 0", tt.spec, e.Name(), e.Dim(), e.MaxInput(), tt.name, tt.dim)
			}
			// The name rebuilds the same embedder.
			again := mustEmbedder(t, e.Name())
			if again.Name() != e.Name() {
				t.Errorf("New(%q).Name() = %q", e.Name(), again.Name())
			}
			a := embedDocs(t, e, "round trip")[0]
			b := embedDocs(t, again, "round trip")[0]
			if !slices.Equal(a, b) {
				t.Errorf("%q and %q give different vectors", tt.spec, e.Name())
			}
		})
	}
}

func TestNewEmbedderErrors(t *testing.T) {
	for _, spec := range []string{
		"", "bert", "hash:abc", "hash:0", "hash:-5", "hash:4", "hash:131072", "hash:1048576", "hash:4096?ngrams=5-3",
		"hash:4096?ngrams=x", "hash?words=0", "hash?words=1.5", "hash?color=red", "hash?ngrams=3-5&ngrams=3-4",
		"ollama", "ollama:", "openai:", "openai:m?dimensions=-1", "ollama:m?foo=1", "hash:1024?%zz",
	} {
		if e, err := New(spec, Config{}); err == nil {
			t.Errorf("New(%q) = %q, want an error", spec, e.Name())
		}
	}
}

// TestHashEmbedderParallel: a batch is embedded on all cores, each vector
// as if alone.
func TestHashEmbedderParallel(t *testing.T) {
	e := mustEmbedder(t, "hash:512")
	var texts []string
	for i := range 100 {
		texts = append(texts, fmt.Sprintf("document %d of the batch, about topic %d", i, i%7))
	}
	vs := embedDocs(t, e, texts...)
	for i, text := range texts {
		if alone := embedDocs(t, e, text)[0]; !slices.Equal(alone, vs[i]) {
			t.Fatalf("vector %d differs in a batch", i)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.EmbedDocuments(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled batch: err = %v, want context.Canceled", err)
	}
}

func TestHashEmbedderVectors(t *testing.T) {
	e := mustEmbedder(t, "hash")
	texts := []string{
		"Get-ChildItem gets the items in one or more specified locations.",
		"Set-Location sets the working location to a specified location.",
		"The Denver Broncos defeated the Carolina Panthers.",
		"---",
		"🙂",
		"the of and",
	}
	vs := embedDocs(t, e, texts...)
	for i, v := range vs {
		if len(v) != e.Dim() {
			t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), e.Dim())
		}
		if n := math.Sqrt(embedDot(v, v)); math.Abs(n-1) > 1e-6 {
			t.Errorf("vector of %q has norm %v", texts[i], n)
		}
		// Embedding alone gives the same vector as in a batch: a
		// document's vector depends on nothing else.
		if alone := embedDocs(t, e, texts[i])[0]; !slices.Equal(alone, v) {
			t.Errorf("vector of %q differs alone and in a batch", texts[i])
		}
	}
	if _, err := e.EmbedDocuments(t.Context(), []string{"ok", " \n\t"}); !errors.Is(err, ErrEmptyText) {
		t.Errorf("embedding white space: err = %v, want ErrEmptyText", err)
	}
	if _, err := e.EmbedQuery(t.Context(), "", nil); !errors.Is(err, ErrEmptyText) {
		t.Errorf("empty query: err = %v, want ErrEmptyText", err)
	}
	if vs, err := e.EmbedDocuments(t.Context(), nil); err != nil || len(vs) != 0 {
		t.Errorf("no texts: %v, %v", vs, err)
	}
}

// embedRank returns the indexes of docs by decreasing similarity to q.
func embedRank(q []float32, docs [][]float32) []int {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		da, db := embedDot(q, docs[a]), embedDot(q, docs[b])
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return 0
	})
	return idx
}

func TestHashEmbedderRanking(t *testing.T) {
	e := mustEmbedder(t, "hash")
	docs := []string{
		"The Denver Broncos defeated the Carolina Panthers to earn their third Super Bowl title.",
		"Get-ChildItem gets the items and child items in one or more specified locations.",
		"The Amazon rainforest covers most of the Amazon basin of South America.",
		"Photosynthesis converts light energy into chemical energy in plants.",
	}
	vs := embedDocs(t, e, docs...)
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, term := range analysis.Analyze(d) {
			if !seen[term] {
				seen[term] = true
				df[term]++
			}
		}
	}
	idf := func(term string) float64 { return analysis.IDF(len(docs), df[term]) }
	tests := []struct {
		query string
		want  int
	}{
		{"Which team won the Super Bowl?", 0},
		{"Brocnos", 0},      // a typo: n-grams still match
		{"GetChildItem", 1}, // identifier written without its hyphen
		{"childitems", 1},   // inflection
		{"rainforests in south america", 2},
		{"how do plants use light", 3},
		{"the", 0}, // only a stopword: still a vector
	}
	for _, tt := range tests {
		q, err := e.EmbedQuery(t.Context(), tt.query, idf)
		if err != nil {
			t.Fatal(err)
		}
		if n := math.Sqrt(embedDot(q, q)); math.Abs(n-1) > 1e-6 {
			t.Errorf("query %q: norm %v", tt.query, n)
		}
		if tt.query == "the" {
			continue
		}
		if got := embedRank(q, vs)[0]; got != tt.want {
			t.Errorf("query %q ranks document %d first, want %d", tt.query, got, tt.want)
		}
	}
}

func TestHashEmbedderIDF(t *testing.T) {
	e := mustEmbedder(t, "hash")
	docs := embedDocs(t, e, "zebra grazing", "common common common grazing")
	// "zebra" is rare, "common" frequent: with idf the rare word decides.
	idf := func(term string) float64 {
		if term == "zebra" {
			return 5
		}
		return 0.1
	}
	q, err := e.EmbedQuery(t.Context(), "zebra common", idf)
	if err != nil {
		t.Fatal(err)
	}
	if embedRank(q, docs)[0] != 0 {
		t.Errorf("with idf, %q should rank the zebra document first", "zebra common")
	}
	flat := func(string) float64 { return 1 }
	qFlat, _ := e.EmbedQuery(t.Context(), "zebra common", flat)
	qNil, _ := e.EmbedQuery(t.Context(), "zebra common", nil)
	if !slices.Equal(qFlat, qNil) {
		t.Error("a nil idf should weigh terms alike")
	}
	// Terms every document has (idf 0) still give a vector.
	zero := func(string) float64 { return 0 }
	if q, err := e.EmbedQuery(t.Context(), "zebra", zero); err != nil || math.Abs(embedDot(q, q)-1) > 1e-6 {
		t.Errorf("query with zero idf: %v", err)
	}
}

// TestHashEmbedderTail proves the end of a long text counts: two chunk-size
// texts that differ only in their last sentence get different vectors.
func TestHashEmbedderTail(t *testing.T) {
	e := mustEmbedder(t, "hash")
	body := strings.Repeat("PowerShell cmdlets process objects in a pipeline. ", 60)
	vs := embedDocs(t, e, body+"The last sentence mentions zebras.", body+"The last sentence mentions giraffes.")
	if slices.Equal(vs[0], vs[1]) {
		t.Fatal("texts that differ in their last sentence have the same vector")
	}
	q, _ := e.EmbedQuery(t.Context(), "zebras", nil)
	if embedDot(q, vs[0]) <= embedDot(q, vs[1]) {
		t.Error("a query for the last sentence's word should prefer the text that has it")
	}
}

// TestFeatureHash pins the hash function: vectors are persisted, so
// feature hashing must never change (XXH64 with seed 0 is a published,
// fixed algorithm; these are its reference values).
func TestFeatureHash(t *testing.T) {
	for in, want := range map[string]uint64{
		"":    0xef46db3751d8e999,
		"abc": 0x44bc2cf5ad770999,
	} {
		if got := xxhash.Sum64String(in); got != want {
			t.Errorf("XXH64(%q) = %#x, want %#x", in, got, want)
		}
	}
}

func TestFeatures(t *testing.T) {
	var ft featureTable
	want := map[uint64]float64{}
	for i := range 5000 {
		k := uint64(i*7919%1301) * 0x9E3779B97F4A7C15
		ft.add(k, float64(i%3+1))
		if k == 0 {
			k = 1
		}
		want[k] += float64(i%3 + 1)
	}
	if ft.len() != len(want) {
		t.Fatalf("%d features, want %d", ft.len(), len(want))
	}
	for k, f := range ft.keys {
		if want[f] != ft.vals[k] {
			t.Fatalf("feature %#x = %v, want %v", f, ft.vals[k], want[f])
		}
	}
	// Emptied by clearing the index, then (a few features in a large
	// index) by clearing their probe runs only.
	for _, n := range []int{0, 3, 40} {
		ft.reset()
		if slices.ContainsFunc(ft.slots, func(k uint32) bool { return k != 0 }) {
			t.Fatal("reset left slots behind")
		}
		for i := range n {
			ft.add(uint64(i)*0x9E3779B97F4A7C15, 1)
		}
		if ft.len() != n {
			t.Fatalf("%d features, want %d", ft.len(), n)
		}
	}
	ft.reset()
	ft.add(42, 1)
	ft.add(42, 1)
	if ft.len() != 1 || ft.vals[0] != 2 {
		t.Fatal("reset left features behind")
	}
}

var update = flag.Bool("update", false, "rewrite testdata/hash.golden")

// TestHashEmbedderGolden freezes vectors of the hash embedder: they are
// persisted in indexes, so any change must be deliberate (run with
// -update, and rename the embedder).
func TestHashEmbedderGolden(t *testing.T) {
	texts := []string{
		"Get-ChildItem -Path C:\\Windows -Recurse",
		"Super Bowl 50 was an American football game.",
		"Café naïve 東京都 don't",
	}
	var out bytes.Buffer
	for _, spec := range []string{"hash:16", "hash:16?ngrams=0", "hash"} {
		e := mustEmbedder(t, spec)
		for _, text := range texts {
			v := embedDocs(t, e, text)[0]
			q, err := e.EmbedQuery(t.Context(), text, func(term string) float64 { return float64(len(term)) })
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s %q\n  doc:   %s\n  query: %s\n", e.Name(), text, sparseString(v), sparseString(q))
		}
	}
	golden := filepath.Join("testdata", "hash.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("vectors differ from %s:\n%s", golden, out.String())
	}
}

// sparseString prints the largest components of v, rounded.
func sparseString(v []float32) string {
	idx := make([]int, 0, len(v))
	for i, x := range v {
		if x != 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return -cmpAbs(v[a], v[b])
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d nonzero;", len(idx))
	for _, i := range idx[:min(len(idx), 8)] {
		fmt.Fprintf(&b, " %d:%.4f", i, v[i])
	}
	return b.String()
}

func cmpAbs(a, b float32) int {
	a, b = float32(math.Abs(float64(a))), float32(math.Abs(float64(b)))
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestEmbedderChromem uses the embedder with chromem-go: documents are
// embedded by Func, queries by EmbedQuery and QueryEmbedding; chromem-go
// finds the vectors normalized as it requires.
func TestEmbedderChromem(t *testing.T) {
	e := mustEmbedder(t, "hash:1024")
	db := chromem.NewDB()
	c, err := db.CreateCollection("chunks", nil, chromem.EmbeddingFunc(e.Func()))
	if err != nil {
		t.Fatal(err)
	}
	docs := []chromem.Document{
		{ID: "a", Content: "Get-ChildItem lists files and folders."},
		{ID: "b", Content: "Set-Location changes the current directory."},
		{ID: "c", Content: "The Broncos won Super Bowl 50."},
	}
	if err := c.AddDocuments(t.Context(), docs, 2); err != nil {
		t.Fatal(err)
	}
	q, err := e.EmbedQuery(t.Context(), "list the files in a folder", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.QueryEmbedding(t.Context(), q, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].ID != "a" {
		t.Errorf("chromem-go query = %+v, want document a", res)
	}
	// A nil embedder still gives a non-nil function, which fails.
	var nilE *Embedder
	f := nilE.Func()
	if f == nil {
		t.Fatal("Func of a nil embedder is nil: chromem-go would fall back to OpenAI")
	}
	if _, err := f(t.Context(), "x"); err == nil {
		t.Error("Func of a nil embedder succeeded")
	}
	if _, err := new(Embedder).Func()(t.Context(), "x"); err == nil {
		t.Error("Func of a zero Embedder succeeded")
	}
	if _, err := new(Embedder).EmbedQuery(t.Context(), "x", nil); err == nil {
		t.Error("EmbedQuery of a zero Embedder succeeded")
	}
}

func ExampleNew() {
	e, err := New("hash", Config{})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Name(), e.Dim())

	docs, _ := e.EmbedDocuments(context.Background(), []string{
		"Get-ChildItem lists the files in a folder.",
		"The Broncos won Super Bowl 50.",
	})
	q, _ := e.EmbedQuery(context.Background(), "which cmdlet lists files?", nil)
	fmt.Printf("%.2f %.2f\n", embedDot(q, docs[0]), embedDot(q, docs[1]))
	// Output:
	// hash:2048 2048
	// 0.48 0.00
}

// TestHashEmbedderAnalysisVersion: the hash embedder's features come from
// package analysis, so its name carries the analysis version (left
// implicit for version 1): an index holding vectors of another version
// refuses the new ones as another embedder's.
func TestHashEmbedderAnalysisVersion(t *testing.T) {
	e := mustEmbedder(t, "hash")
	h := e.impl.(*hashEmbedder)
	if got := h.nameFor(hashAnalysis); got != "hash:2048" {
		t.Errorf("name under version %d = %q, want hash:2048", hashAnalysis, got)
	}
	if got := h.nameFor(hashAnalysis + 1); got != fmt.Sprintf("hash:2048?analysis=%d", hashAnalysis+1) {
		t.Errorf("name under another version = %q", got)
	}
	if e.Name() != h.nameFor(analysis.Version) {
		t.Errorf("Name() = %q, want the name under analysis.Version %d", e.Name(), analysis.Version)
	}
	same := mustEmbedder(t, fmt.Sprintf("hash:2048?analysis=%d", analysis.Version))
	if same.Name() != e.Name() {
		t.Errorf("the current version spelled out gives %q, want %q", same.Name(), e.Name())
	}
	if _, err := New(fmt.Sprintf("hash?analysis=%d", analysis.Version+1), Config{}); err == nil || !strings.Contains(err.Error(), "reindex") {
		t.Errorf("another analysis version: err = %v, want a refusal naming cite reindex", err)
	}
}

// TestSum64: sum64 is xxhash.Sum64, at every length up to past the
// 32 bytes where it hands over to xxhash.
func TestSum64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 80)
	for n := range len(b) {
		for range 50 {
			for i := range b[:n] {
				b[i] = byte(rng.Uint32())
			}
			if got, want := sum64(b[:n]), xxhash.Sum64(b[:n]); got != want {
				t.Fatalf("sum64(%x) = %x, xxhash.Sum64 %x", b[:n], got, want)
			}
		}
	}
}

// TestSumN: sum3, sum4 and sum5 are XXH64 of the first 3, 4 and 5 bytes of
// an 8-byte load, whatever the bytes after them.
func TestSumN(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b [8]byte
	for range 10000 {
		u := rng.Uint64()
		binary.LittleEndian.PutUint64(b[:], u)
		for n, sum := range map[int]func(uint64) uint64{3: sum3, 4: sum4, 5: sum5} {
			if got, want := sum(u), xxhash.Sum64(b[:n]); got != want {
				t.Fatalf("sum%d(%x) = %x, xxhash.Sum64 %x", n, b[:n], got, want)
			}
		}
	}
}
