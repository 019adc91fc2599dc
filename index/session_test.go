package index

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

func TestSessions(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	a, err := st.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.CreateSession(ctx)
	if len(a.ID) != 32 || a.ID == b.ID {
		t.Fatalf("ids %q %q", a.ID, b.ID)
	}
	for i, q := range []string{"first?", "second?"} {
		if err := st.AppendTurn(ctx, a.ID, Turn{Question: q, Answer: "answer " + q, References: json.RawMessage(`[{"number":1}]`)}); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	got, err := st.Session(ctx, a.ID)
	if err != nil || len(got.Turns) != 2 || got.Turns[0].Question != "first?" || got.Turns[1].Answer != "answer second?" || string(got.Turns[0].References) != `[{"number":1}]` {
		t.Fatalf("%+v %v", got, err)
	}
	if got, _ := st.Session(ctx, b.ID); len(got.Turns) != 0 {
		t.Errorf("turns crossed sessions: %+v", got)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"unknown session", st.AppendTurn(ctx, "nosuch", Turn{Question: "q"}), ErrNotFound},
		{"references not JSON", st.AppendTurn(ctx, a.ID, Turn{References: json.RawMessage("{")}), ErrInvalidInput},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if _, err := st.Session(ctx, "nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	if SessionSource(a.ID) != "session:"+a.ID || !IsSessionSource(SessionSource(a.ID)) || IsSessionSource("docs") {
		t.Error("session source names")
	}
}

// TestRecoverKeepsSessions: check --repair rebuilds the index by copying
// its tables; sessions and their turns are among them.
func TestRecoverKeepsSessions(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "idx")
	st, err := Open(ctx, dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := st.CreateSession(ctx)
	if err := st.AppendTurn(ctx, sess.ID, Turn{Question: "q", Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	rec, err := Recover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Sessions != 1 || rec.Turns != 1 {
		t.Errorf("recovered %d sessions, %d turns; want 1, 1", rec.Sessions, rec.Turns)
	}
	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.Session(ctx, sess.ID); err != nil || len(got.Turns) != 1 || got.Turns[0].Answer != "a" {
		t.Errorf("after recovery: %+v %v", got, err)
	}
}
