package citations_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/citations"
	"github.com/cite-rag/cite/citations/citetest"
)

// TestConcurrentScopes runs 1,000 requests at once, each in its own scope,
// each with preemptive retrieval and two tool calls that register references
// concurrently through the context. No reference may cross scopes, and every
// scope must number its own references 1..n.
func TestConcurrentScopes(t *testing.T) {
	const scopes = 1000
	var wg sync.WaitGroup
	for s := range scopes {
		wg.Go(func() {
			tag := fmt.Sprintf("scope-%d/", s)
			ctx := citations.Begin(t.Context())
			inv, _ := citations.FromContext(ctx)
			inv.SetResolver(citations.DefaultResolver())

			texts := make([]string, 3)
			texts[0] = produce(t, ctx, tag+"pre", 3)
			var tools sync.WaitGroup
			tools.Go(func() { texts[1] = produce(t, ctx, tag+"a", 3) })
			tools.Go(func() { texts[2] = produce(t, ctx, tag+"b", 3) })
			tools.Wait()
			answer := strings.Join(texts, "")

			r := citations.Render(answer, inv, citations.Options{})
			citetest.AssertValid(t, r)
			if len(r.References) != 9 {
				t.Errorf("%s: %d references, want 9", tag, len(r.References))
			}
			for i, c := range r.References {
				if !strings.HasPrefix(c.ID, tag) {
					t.Errorf("%s: reference %s belongs to %s", tag, c.Key, c.ID)
				}
				if c.Index != i+1 {
					t.Errorf("%s: reference %d has index %d", tag, i+1, c.Index)
				}
			}

			st := citations.NewStream(inv)
			var out strings.Builder
			for chunk := range strings.SplitSeq(answer, " ") {
				out.WriteString(st.Feed(chunk + " "))
			}
			out.WriteString(st.Close())
			want := citations.Render(answer+" ", inv, citations.Options{Order: citations.ByAppearance})
			if out.String() != want.Markdown() {
				t.Errorf("%s: streamed\n%q\nwant\n%q", tag, out.String(), want.Markdown())
			}
		})
	}
	wg.Wait()
}

// produce registers n references tagged id through the invocation in ctx,
// as a tool does, and returns text citing them.
func produce(t *testing.T, ctx context.Context, id string, n int) string {
	inv, ok := citations.FromContext(ctx)
	if !ok {
		t.Error("no invocation in context")
		return ""
	}
	var b strings.Builder
	for i := range n {
		ref, err := inv.Register(citations.Reference{
			Title: id, Passage: "passage", ID: fmt.Sprintf("%s#%d", id, i),
			Type: citations.TypeFile, Source: "/" + id + ".md", Span: citations.Span{Start: i, End: i + 1},
		})
		if err != nil {
			t.Error(err)
			return ""
		}
		fmt.Fprintf(&b, "Fact from %s %s. ", id, ref.Key())
	}
	return b.String()
}
