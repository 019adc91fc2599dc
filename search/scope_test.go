package search

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
	"github.com/cite-rag/cite/ingest"
)

// TestScopeCopies: the same page in a data source and in two sessions. A
// search sees the sessions' copies only from within their own session:
// never as a hit elsewhere, never folded into another's hit as its copy,
// in every mode, with or without a filter.
func TestScopeCopies(t *testing.T) {
	st := newIndex(t, nil)
	const a, b = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	page := "The zorbulator hums at forty-two hertz when the hive is calm."
	for _, src := range []string{"versions", session.Source(a), session.Source(b)} {
		name := strings.ReplaceAll(src, ":", "-")
		fsys := fstest.MapFS{name + "/zorbulator.md": &fstest.MapFile{Data: []byte(page), ModTime: t0}}
		if src != "versions" {
			fsys[name+"/own.md"] = &fstest.MapFile{Data: []byte("The zorbulator of session " + src + " is blue."), ModTime: t0}
		}
		ix, err := ingest.New(t.Context(), st, ingest.Options{Source: src, FS: fsys, Embedder: mustHash(t)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Index(t.Context(), name); err != nil {
			t.Fatal(err)
		}
	}
	s := newSearcher(t, st)
	for _, tc := range []struct {
		name  string
		scope session.Scope
		saw   string // the session whose documents may be seen; "" none
	}{
		{"public", session.Public, ""},
		{"session a", session.Scope{Session: a}, a},
		{"session b", session.Scope{Session: b}, b},
	} {
		for _, mode := range Modes {
			for _, f := range []index.Filter{{}, {Path: "*zorbulator*"}, {Sources: []string{"versions"}}} {
				res, err := s.Search(t.Context(), Query{Text: "zorbulator hertz blue", K: 10, Mode: mode, Scope: tc.scope, Filter: f})
				if err != nil {
					t.Fatalf("%s %s %+v: %v", tc.name, mode, f, err)
				}
				ownSeen := false
				for _, h := range res.Hits {
					for _, d := range append([]DocumentRef{h.Document}, h.Copies...) {
						if strings.HasPrefix(d.DataSource, "session:") && d.DataSource != session.Source(tc.saw) {
							t.Errorf("%s %s %+v: sees %s (%s) in hit %d", tc.name, mode, f, d.Path, d.DataSource, h.Rank)
						}
						ownSeen = ownSeen || tc.saw != "" && d.DataSource == session.Source(tc.saw)
					}
				}
				if tc.saw != "" && f.Sources == nil && mode != Vector && !ownSeen {
					t.Errorf("%s %s %+v: its own documents are not found: %+v", tc.name, mode, f, paths(res.Hits))
				}
			}
		}
		// Naming another session's source, or document, finds nothing and
		// says it does not exist.
		for _, other := range []string{a, b} {
			if other == tc.saw {
				continue
			}
			_, err := s.Search(t.Context(), Query{Text: "zorbulator", Scope: tc.scope, Filter: index.Filter{Sources: []string{session.Source(other)}}})
			// The error repeats the name asked, and lists no other.
			if !errors.Is(err, ErrUnknownSource) || strings.Contains(strings.Replace(err.Error(), session.Source(other), "", 1), other) {
				t.Errorf("%s: searching session %s's source: %v", tc.name, other, err)
			}
			docs, _ := st.Documents(t.Context(), session.Source(other))
			res, err := s.Search(t.Context(), Query{Text: "zorbulator", Scope: tc.scope, Filter: index.Filter{Document: docs[0].ID}})
			if !errors.Is(err, index.ErrNotFound) {
				t.Errorf("%s: searching session %s's document: %v, %+v", tc.name, other, err, res)
			}
		}
	}
}
