package extractive

import (
	"context"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/analysis"
)

// TestTwoTermQuestions: a question of two terms is answered only from a
// passage that speaks of its topic, the rarer term in the index, in its
// sentences, its title or its heading path; a sentence that shares the
// other word alone ("You can elect to…" for "who won the election") is no
// answer.
func TestTwoTermQuestions(t *testing.T) {
	ps := []citations.Reference{
		{Index: 1, Title: "about_Tracing", Type: citations.TypeUpload, Passage: "You can elect to send the trace data to a debugger, to the console or to a file."},
		{Index: 2, Title: "about_Scopes", Type: citations.TypeUpload, Passage: "Scope names and modifiers are capitalized in the examples below."},
	}
	france := []citations.Reference{
		{Index: 1, Title: "France", Heading: "Geography", Type: citations.TypeUpload, Passage: "Its capital is Paris, on the Seine, and it has 2.1 million people."},
	}
	atlas := []citations.Reference{
		{Index: 1, Title: "Atlas", Heading: "Atlas › Europe › France", Type: citations.TypeUpload, Passage: "Its capital is Paris, on the Seine, and it has 2.1 million people."},
	}
	// Document frequencies in an index of 1,000 chunks of PowerShell docs:
	// the topic of each question is its rarer term.
	df := map[string]int{"won": 2, "elect": 30, "capit": 20, "franc": 1}
	stats := func(_ context.Context, terms []string) (index.TermStats, error) {
		return index.TermStats{Chunks: 1000, DF: df}, nil
	}
	for _, tc := range []struct {
		name, question string
		passages       []citations.Reference
		want           string
	}{
		{"one word shared", "who won the election", ps, ""},
		{"a derived form shared", "what is the capital of France", ps, ""},
		{"the topic in the title", "what is the capital of France", france, "Its capital is Paris, on the Seine, and it has 2.1 million people."},
		{"the topic in the heading path", "what is the capital of France", atlas, "Its capital is Paris, on the Seine, and it has 2.1 million people."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := analysis.AnalyzeQuery(tc.question); len(got) != 2 {
				t.Fatalf("%q has terms %q, want two", tc.question, got)
			}
			if got := firstSentence(t, New(Options{TermStats: stats}), tc.question, tc.passages); got != tc.want {
				t.Errorf("%q: %q, want %q", tc.question, got, tc.want)
			}
		})
	}
}
