package embed_test

import (
	"strings"
	"testing"

	"github.com/cite-rag/cite/index/embed"
)

func TestFollower(t *testing.T) {
	start, err := embed.New("hash", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := embed.NewFollower(start, embed.Config{})
	for _, tc := range []struct {
		name    string // the index's embedder, in turn
		want    string // the embedder's name; "" none
		wantErr string
		same    bool // the embedder asked for before
	}{
		{name: start.Name(), want: start.Name(), same: true},
		{name: "hash:256", want: "hash:256"},
		{name: "hash:256", want: "hash:256", same: true},
		{name: "nope:x", wantErr: `the index's embedder: embedder "nope:x": unknown provider`},
		{name: "", want: ""},
		{name: start.Name(), want: start.Name()},
	} {
		prev := start
		if tc.same {
			prev, _ = f.Embedder(tc.name)
		}
		e, err := f.Embedder(tc.name)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || e != nil {
				t.Errorf("%q: %v, %v; want the error %q", tc.name, e, err, tc.wantErr)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tc.name, err)
			continue
		case tc.want == "":
			if e != nil {
				t.Errorf("%q: %s, want none", tc.name, e.Name())
			}
			continue
		}
		if e == nil || e.Name() != tc.want {
			t.Errorf("%q: %v, want %s", tc.name, e, tc.want)
		} else if tc.same && e != prev {
			t.Errorf("%q: a new embedder, want the one made before", tc.name)
		}
	}
}
