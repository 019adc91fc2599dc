package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestIndexRenamedFolder: a folder of documents (Markdown, HTML, text,
// PDF, Word, EPUB, ...) indexed, then moved, with a file in it renamed and
// another copied, is indexed again by copying what the index has (the run
// says so, in text and JSON); the index then lists the same documents,
// searches find the same chunks with the same scores in every mode as in
// a fresh index of the moved folder, and cite check finds nothing wrong.
func TestIndexRenamedFolder(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.CopyFS(filepath.Join(docs, "corpus"), os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(docs, "documents"), os.DirFS("../../testdata/documents")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(docs, "documents", "make.sh"))
	idx := filepath.Join(t.TempDir(), "idx")
	code, out, errOut := cite(t, "index", "--index", idx, "--json", docs)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	var first struct{ Stats struct{ Added, Copied int } }
	if err := json.Unmarshal([]byte(out), &first); err != nil || first.Stats.Added < 10 || first.Stats.Copied != 0 {
		t.Fatalf("first run: %+v, %v\n%s", first.Stats, err, out)
	}
	moved := filepath.Join(dir, "moved")
	for _, mv := range [][2]string{
		{docs, moved},
		{filepath.Join(moved, "corpus", "honeybees.md"), filepath.Join(moved, "corpus", "bees.md")},
		{filepath.Join(moved, "documents", "rivers.pdf"), filepath.Join(moved, "rivers, renamed.pdf")},
	} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(moved, "documents", "volcano.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, "volcano copy.pptx"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cite(t, "index", "--index", idx, "--prune", "--json", moved, docs)
	var second struct {
		Stats struct {
			Added, Updated, Copied, Pruned, Vectors, Chunks int
			CopiedVectors                                   int `json:"copied_vectors"`
		}
	}
	if err := json.Unmarshal([]byte(out), &second); code != 0 || err != nil {
		t.Fatalf("after the move: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	// The hash embedder's vectors are made again with the chunks' terms
	// (embed.Embedder.Local): cheaper than reading them back.
	if s := second.Stats; s.Added != first.Stats.Added+1 || s.Copied != s.Added || s.Pruned != first.Stats.Added || s.Vectors != s.Chunks || s.CopiedVectors != 0 {
		t.Errorf("after the move: %+v, want every file added as a copy, every old path pruned, the local embedder's vectors made again", s)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if code, out, errOut := cite(t, "index", "--index", fresh, "--quiet", moved); code != 0 {
		t.Fatalf("fresh index: exit %d\n%s%s", code, out, errOut)
	}
	// The same documents, but for when they were indexed.
	if got, want := docsJSON(t, idx), docsJSON(t, fresh); !reflect.DeepEqual(got, want) {
		t.Errorf("documents differ from a fresh index's:\n got %v\nwant %v", got, want)
	}
	for _, q := range []string{"waggle dance of honeybees", "write-ahead log checkpoint", "rivers flood plains", "volcano eruption lava", "tokenizer byte pair encoding"} {
		for _, mode := range []string{"hybrid", "bm25", "vector"} {
			got, want := searchJSON(t, idx, mode, q), searchJSON(t, fresh, mode, q)
			if !strings.Contains(got, `"score"`) {
				t.Errorf("%s %q: no hits: %s", mode, q, got)
			}
			if got != want {
				t.Errorf("%s %q: differs from a fresh index's:\n got %s\nwant %s", mode, q, got, want)
			}
		}
	}
	code, out, errOut = cite(t, "check", "--index", idx)
	if code != 0 {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	// Said in text too: the summary counts the copies.
	os.Rename(filepath.Join(moved, "corpus", "bees.md"), filepath.Join(moved, "corpus", "honeybees.md"))
	code, out, errOut = cite(t, "index", "--index", idx, "--prune", moved)
	if code != 0 || !strings.Contains(out, "1 file") && !strings.Contains(out, "1 added") || !strings.Contains(out, "1 copied from indexed files with the same content, not read again") {
		t.Errorf("a rename back: exit %d\n%s%s", code, out, errOut)
	}
}

// docsJSON returns cite docs --json's documents without their time of
// indexing.
func docsJSON(t *testing.T, idx string) []map[string]any {
	t.Helper()
	code, out, errOut := cite(t, "docs", "--index", idx, "--json")
	if code != 0 {
		t.Fatalf("docs: exit %d\n%s%s", code, out, errOut)
	}
	var v struct{ Documents []map[string]any }
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Documents) == 0 {
		t.Fatalf("docs: %v\n%s", err, out)
	}
	for _, d := range v.Documents {
		delete(d, "indexed_at")
	}
	return v.Documents
}

// searchJSON returns cite search --json's hits for q in mode, with the
// search's timings left out.
func searchJSON(t *testing.T, idx, mode, q string) string {
	t.Helper()
	code, out, errOut := cite(t, "search", "--index", idx, "--json", "--mode", mode, "-k", "20", q)
	if code != 0 {
		t.Fatalf("search: exit %d\n%s%s", code, out, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	dropTimings(v)
	// A chunk that documents share (a file and its copy; rivers.html and
	// rivers.pdf, whose texts read the same) is one hit, in the first of
	// them its search met, with the others as its copies: which is first
	// follows the order the chunks were written in, which the workers'
	// timing decides, in a fresh index too. Where the chunk is in its
	// file (span, page) is the first one's.
	hits, _ := v["hits"].([]any)
	for _, h := range hits {
		h := h.(map[string]any)
		if len(anySlice(h["copies"])) > 0 {
			for _, k := range []string{"source_span", "page", "page_end", "slide", "slide_end"} {
				delete(h, k)
			}
		}
		docs := []string{}
		for _, d := range append([]any{h["document"]}, anySlice(h["copies"])...) {
			b, _ := json.Marshal(d)
			docs = append(docs, string(b))
		}
		slices.Sort(docs)
		h["documents"] = docs
		delete(h, "document")
		delete(h, "copies")
		delete(h, "chunk_id") // of the first document's chunk
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// dropTimings removes the keys that are durations (ending in _ns) at
// every depth.
func dropTimings(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if strings.HasSuffix(k, "_ns") {
				delete(v, k)
				continue
			}
			dropTimings(x)
		}
	case []any:
		for _, x := range v {
			dropTimings(x)
		}
	}
}
