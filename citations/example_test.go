package citations_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cite-rag/cite/citations"
)

// searchTool is a tool the model calls. It finds the request's invocation in
// its context and registers each result under a fresh index.
func searchTool(ctx context.Context, query string) string {
	inv, ok := citations.FromContext(ctx)
	if !ok {
		return "no invocation"
	}
	var b strings.Builder
	for _, hit := range []struct{ url, title, text string }{
		{"https://www.sqlite.org/fts5.html", "SQLite FTS5", "FTS5 provides full-text search."},
	} {
		ref, err := inv.Register(citations.Reference{Title: hit.title, Passage: hit.text, Type: citations.TypeWeb, Source: hit.url})
		if err != nil {
			return err.Error()
		}
		fmt.Fprintf(&b, "%s %s\n", ref.Key(), hit.text)
	}
	return b.String()
}

func ExampleBegin() {
	ctx := citations.Begin(context.Background())
	inv, _ := citations.FromContext(ctx)
	inv.SetResolver(citations.DefaultResolver())

	// Preemptive retrieval registers what it puts in the prompt.
	for _, title := range []string{"Install", "Index"} {
		ref, _ := inv.Register(citations.Reference{Title: title, Type: citations.TypeFile, Source: "/docs/" + strings.ToLower(title) + ".md"})
		fmt.Println("prompt:", ref.Key(), title)
	}
	// A tool call during generation continues the same counter.
	fmt.Print("tool result: ", searchTool(ctx, "full-text search"))

	for _, ref := range inv.References() {
		fmt.Println(ref.Key(), ref.Link)
	}
	// Output:
	// prompt: [doc:1] Install
	// prompt: [doc:2] Index
	// tool result: [doc:3] FTS5 provides full-text search.
	// [doc:1] file:///docs/install.md
	// [doc:2] file:///docs/index.md
	// [doc:3] https://www.sqlite.org/fts5.html
}

func ExampleRender() {
	inv := citations.NewInvocation()
	inv.SetResolver(citations.DefaultResolver())
	for _, ref := range []citations.Reference{
		{Title: "Install", Type: citations.TypeFile, Source: "/docs/install.md", Span: citations.Span{Start: 0, End: 120}},
		{Title: "Index", Type: citations.TypeFile, Source: "/docs/index.md"},
		{Title: "Meeting notes", Type: citations.TypeUpload},
	} {
		inv.Register(ref)
	}
	answer := "Install first [doc:3]. Then index [doc:1][doc:3], see `[doc:2]`. Made up [doc:9]."

	r := citations.Render(answer, inv, citations.Options{})
	fmt.Print(r.Markdown())
	for _, d := range r.Dropped {
		fmt.Println("dropped", d.Marker, d.Reason)
	}
	// Output:
	// Install first [2]. Then index [1][2], see `[doc:2]`. Made up.
	//
	// ---
	// Sources cited in this answer:
	//
	// 1. [Install](file:///docs/install.md#bytes=0-120)
	// 2. Meeting notes
	// dropped [doc:9] unregistered
}

func ExampleStream() {
	inv := citations.NewInvocation()
	inv.Register(citations.Reference{Title: "Install"})
	inv.Register(citations.Reference{Title: "Index"})

	s := citations.NewStream(inv)
	for _, delta := range []string{"Index it [", "doc:2", "] after", " installing [doc:1]."} {
		fmt.Printf("%q\n", s.Feed(delta))
		for _, c := range s.NewCitations() {
			fmt.Printf("  new citation [%d] %s\n", c.Number, c.Title)
		}
	}
	fmt.Printf("%q\n", s.Close())
	// Output:
	// "Index it"
	// ""
	// " [1] after"
	//   new citation [1] Index
	// " installing [2]."
	//   new citation [2] Install
	// "\n\n---\nSources cited in this answer:\n\n1. Index\n2. Install\n"
}

func ExampleParse() {
	text := "See [doc:1, doc:4] and 【doc:2】, not `[doc:3]`; [doc:x] is malformed."
	for _, m := range citations.Parse(text) {
		fmt.Println(text[m.Span.Start:m.Span.End], m.Index, m.Malformed)
	}
	// Output:
	// [doc:1, doc:4] 1 false
	// [doc:1, doc:4] 4 false
	// 【doc:2】 2 false
	// [doc:x] 0 true
}

func ExampleInvocation_Cursor() {
	inv := citations.NewInvocation()
	cur := inv.Cursor()
	inv.Register(citations.Reference{Title: "Preemptive"})
	fmt.Println(len(cur.Next()), "before streaming")
	inv.Register(citations.Reference{Title: "Tool A"})
	inv.Register(citations.Reference{Title: "Tool B"})
	for _, ref := range cur.Next() {
		fmt.Println(ref.Key(), ref.Title)
	}
	fmt.Println(cur.Next() == nil)
	// Output:
	// 1 before streaming
	// [doc:2] Tool A
	// [doc:3] Tool B
	// true
}

func ExampleFileResolver() {
	ref := citations.Reference{Type: citations.TypeFile, Source: "/home/ana/notes/fts.md", Span: citations.Span{Start: 120, End: 840}}
	fmt.Println(citations.FileResolver{}.Resolve(ref))
	fmt.Println(citations.DefaultResolver().Resolve(citations.Reference{Type: citations.TypeUpload, Title: "upload.pdf"}) == "")
	// Output:
	// file:///home/ana/notes/fts.md#bytes=120-840
	// true
}

func ExampleInvocation_Register_samePassage() {
	inv := citations.NewInvocation()
	inv.SetResolver(citations.DefaultResolver())
	wal := citations.Reference{Title: "WAL", ID: "7f3a", Type: citations.TypeFile, Source: "/docs/wal.md", Span: citations.Span{Start: 120, End: 840}}
	// Preemptive retrieval puts the chunk in the prompt...
	first, _ := inv.Register(wal)
	// ...and a tool call finds it again: it keeps its index.
	again, _ := inv.Register(wal)
	fmt.Println(first.Key(), again.Key(), inv.Len())
	r := citations.Render("Readers do not block "+again.Key()+".", inv, citations.Options{})
	fmt.Print(r.Markdown())
	// Output:
	// [doc:1] [doc:1] 1
	// Readers do not block [1].
	//
	// ---
	// Sources cited in this answer:
	//
	// 1. [WAL](file:///docs/wal.md#bytes=120-840)
}
