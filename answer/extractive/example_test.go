package extractive_test

import (
	"context"
	"fmt"

	"github.com/cite-rag/cite/answer/extractive"
	"github.com/cite-rag/cite/citations"
)

// The passages are given explicitly, in retrieval rank order; nothing is
// read from the context.
func ExampleAnswerer_Answer() {
	a := extractive.New(extractive.Options{})
	sents, err := a.Answer(context.Background(), "What does a checkpoint copy?", []citations.Reference{{
		Index: 1, Title: "SQLite notes", Type: citations.TypeUpload,
		Passage: "In write-ahead logging mode, readers do not block the writer. " +
			"A checkpoint copies pages from the write-ahead log back into the database file.",
	}})
	if err != nil {
		panic(err)
	}
	for _, s := range sents {
		fmt.Println(s.Text, s.Ref.Key())
		fmt.Printf("quote: %q, span in the source: %v\n", s.Quote, s.Span != nil)
	}
	// Output:
	// A checkpoint copies pages from the write-ahead log back into the database file. [doc:1]
	// quote: "A checkpoint copies pages from the write-ahead log back into the database file.", span in the source: false
}
