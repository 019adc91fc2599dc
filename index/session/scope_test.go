package session_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/index"
	"github.com/cite-rag/cite/index/session"
)

func TestSees(t *testing.T) {
	const a, b = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	for _, tc := range []struct {
		scope  session.Scope
		source string
		want   bool
	}{
		{session.Public, "default", true},
		{session.Public, "uploads", true},
		{session.Public, session.Source(a), false},
		{session.Public, "session:", false},
		{session.Scope{Session: a}, "default", true},
		{session.Scope{Session: a}, session.Source(a), true},
		{session.Scope{Session: a}, session.Source(b), false},
		{session.Scope{Session: a}, session.Source(a) + "x", false},
		{session.Scope{Session: a}, "session:", false},
	} {
		if got := tc.scope.Sees(tc.source); got != tc.want {
			t.Errorf("%+v sees %q: %v, want %v", tc.scope, tc.source, got, tc.want)
		}
	}
}

// TestScopeLookups: listings and look-ups through a scope never name a
// document of a session outside it, even when a path or an id prefix
// matches one.
func TestScopeLookups(t *testing.T) {
	ctx := t.Context()
	st, dir := openIndex(t)
	s := session.New(st, session.Config{Dir: dir + "/sessions"})
	a, _ := s.Create(ctx)
	b, _ := s.Create(ctx)
	upload(t, st, s, a.ID, "plan.md", "# Plan A\n\nalpha\n")
	upload(t, st, s, b.ID, "plan.md", "# Plan B\n\nbeta\n")
	pub := &index.Document{Source: "default", Path: s.Folder(b.ID) + "/plan.md", Title: "public copy of b's path", Type: "markdown"}
	if _, err := st.PutDocument(ctx, pub, nil); err != nil {
		t.Fatal(err)
	}
	bDocs, _ := s.Documents(ctx, b.ID)
	aDocs, _ := s.Documents(ctx, a.ID)
	scopeA := session.Scope{Session: a.ID}
	for _, tc := range []struct {
		name  string
		scope session.Scope
		ref   string
		want  string // document id; "" for not found
	}{
		{"public: b's path is the public document", session.Public, bDocs[0].Path, pub.ID},
		{"public: a's path", session.Public, aDocs[0].Path, ""},
		{"public: a's id", session.Public, aDocs[0].ID, ""},
		{"public: a's id prefix", session.Public, aDocs[0].ID[:6], ""},
		{"a: its own path", scopeA, aDocs[0].Path, aDocs[0].ID},
		{"a: its own id", scopeA, aDocs[0].ID, aDocs[0].ID},
		{"a: b's path is the public document", scopeA, bDocs[0].Path, pub.ID},
		{"a: b's id", scopeA, bDocs[0].ID, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.scope.Document(ctx, st, "", tc.ref)
			if tc.want == "" {
				if !errors.Is(err, index.ErrNotFound) {
					t.Errorf("found %+v, %v; want not found", d, err)
				}
			} else if err != nil || d.ID != tc.want {
				t.Errorf("found %+v, %v; want %s", d, err, tc.want)
			}
			for _, other := range []string{a.ID, b.ID} {
				if other != tc.scope.Session && err != nil && strings.Contains(err.Error(), other) && !strings.Contains(tc.ref, other) {
					t.Errorf("the error names session %s: %v", other, err)
				}
			}
		})
	}
	names, _ := scopeA.SourceNames(ctx, st)
	if want := []string{"default", session.Source(a.ID)}; !slices.Equal(names, want) {
		t.Errorf("sources a sees: %v, want %v", names, want)
	}
	srcs, _ := session.Public.Sources(ctx, st)
	if len(srcs) != 1 || srcs[0].Name != "default" {
		t.Errorf("public sources: %+v", srcs)
	}
	for _, tc := range []struct {
		scope  session.Scope
		source string
		want   int
	}{{session.Public, "", 1}, {scopeA, "", 2}, {session.Public, session.Source(a.ID), 0}, {scopeA, session.Source(b.ID), 0}, {scopeA, session.Source(a.ID), 1}} {
		if docs, err := tc.scope.Documents(ctx, st, tc.source); err != nil || len(docs) != tc.want {
			t.Errorf("%+v: documents of %q: %d, %v; want %d", tc.scope, tc.source, len(docs), err, tc.want)
		}
	}
}
