package chunk_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/cite-rag/cite/chunk"
)

func ExampleSplitter_Split() {
	s, err := chunk.New(chunk.Options{Size: 20, Overlap: 6})
	if err != nil {
		log.Fatal(err)
	}
	text := "Intro\n\nChunks never exceed the limit. They overlap a little, so a sentence cut at one edge is whole in the next chunk.\n\nDetails\n\nEach chunk knows its byte span and its headings."
	headings := []chunk.Heading{
		{Offset: 0, Level: 1, Text: "Intro"},
		{Offset: strings.Index(text, "Details"), Level: 2, Text: "Details"},
	}
	chunks, tokens := s.Split(text, headings)
	fmt.Println(tokens, "tokens")
	for _, c := range chunks {
		fmt.Printf("%d [%d,%d) %d tokens %q\n  %q\n", c.Ordinal, c.Start, c.End, c.Tokens, c.Headings, c.Text)
	}
	// Output:
	// 39 tokens
	// 0 [0,90) 20 tokens ["Intro"]
	//   "Intro\n\nChunks never exceed the limit. They overlap a little, so a sentence cut at one edge"
	// 1 [64,118) 13 tokens ["Intro"]
	//   "a sentence cut at one edge is whole in the next chunk."
	// 2 [94,177) 18 tokens ["Intro" "Details"]
	//   "whole in the next chunk.\n\nDetails\n\nEach chunk knows its byte span and its headings."
}

func ExampleTokenizer_Count() {
	tok, err := chunk.O200k()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Count("Hello, world!"), tok.Encode("Hello, world!"))
	// Output: 4 [13225 11 2375 0]
}
