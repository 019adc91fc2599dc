// Package citetest provides citation fixtures and assertions for tests of
// code that uses package citations, as net/http/httptest does for net/http.
//
// Stage: tests only. Imports: package citations and the standard library,
// including testing; never import it from non-test code.
//
// # Scenarios
//
// A scenario is a JSON file describing one request: the references that
// preemptive retrieval registers, the references each tool call registers and
// when (before which stream delta), the model's output, optionally split into
// deltas as a model would stream it, and the expected renderings:
//
//	{
//	  "description": "preemptive retrieval plus one tool call",
//	  "preemptive": [{"title": "Guide", "passage": "...", "reference_type": "file",
//	                  "source": "/docs/guide.md", "span": {"start": 0, "end": 120}}],
//	  "tool_calls": [{"name": "search_documents", "at_delta": 1,
//	                  "references": [{"title": "Notes", "reference_type": "upload"}]}],
//	  "deltas": ["The guide says so [doc:1]. ", "The notes agree [doc:2]."],
//	  "quotes": [{"number": 1, "text": "..."}],
//	  "want": {"markdown": "...", "references": [...], "dropped": [...]},
//	  "want_stream": {"markdown": "...", "references": [...], "dropped": [...]}
//	}
//
// References get indices from the invocation's shared counter in file order:
// preemptive ones first, then each tool call's. "want" is the non-streamed
// rendering (numbered by index); "want_stream" is what a [citations.Stream]
// produces when the tool calls register their references at their deltas.
//
// [Run] checks every scenario in a directory: the renderings against the
// goldens, [AssertValid] on each, the streamed rendering against the
// non-streamed one numbered by appearance for every split of the text at
// every byte (all pairs of split points for short texts, and random splits),
// and the incremental citations a stream reports. With the test binary's
// -update flag set it rewrites the goldens instead of comparing them; Run
// does not define the flag, so that it never clashes with a package's own:
//
//	var _ = flag.Bool("update", false, "rewrite golden files")
//
//	func TestCitations(t *testing.T) {
//		citetest.Run(t, "../testdata/citations")
//	}
package citetest
