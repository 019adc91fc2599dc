package citations

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestBeginFromContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("FromContext found an invocation in a bare context")
	}
	ctx := Begin(context.Background())
	inv, ok := FromContext(ctx)
	if !ok || inv == nil {
		t.Fatal("FromContext after Begin found nothing")
	}
	if again, _ := FromContext(ctx); again != inv {
		t.Error("FromContext returned a different invocation for the same context")
	}
	inner, _ := FromContext(Begin(ctx))
	if inner == inv {
		t.Error("a nested Begin reused the outer invocation")
	}
	if inv.NextIndex() != 1 || inner.NextIndex() != 1 {
		t.Error("a new invocation does not start at index 1")
	}
}

func TestNextIndexConcurrent(t *testing.T) {
	inv := NewInvocation()
	const workers, each = 50, 200
	got := make([][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				got[w] = append(got[w], inv.NextIndex())
			}
		})
	}
	wg.Wait()
	all := slices.Concat(got...)
	slices.Sort(all)
	for i, n := range all {
		if n != i+1 {
			t.Fatalf("indices are not 1..%d without repeats: position %d holds %d", workers*each, i, n)
		}
	}
}

func TestRegister(t *testing.T) {
	inv := NewInvocation()
	inv.SetResolver(ResolverFunc(func(r Reference) string { return "link:" + r.ID }))

	a, err := inv.Register(Reference{ID: "a"})
	if err != nil || a.Index != 1 || a.Link != "link:a" {
		t.Fatalf("Register(a) = %+v, %v", a, err)
	}
	reserved := inv.NextIndex() // 2, reserved by a producer before it registers
	c, err := inv.Register(Reference{Index: 5, ID: "c", Link: "own"})
	if err != nil || c.Index != 5 || c.Link != "own" {
		t.Fatalf("Register(index 5) = %+v, %v", c, err)
	}
	if d, _ := inv.Register(Reference{ID: "d"}); d.Index != 6 {
		t.Errorf("after an explicit index 5 the next index is %d, want 6", d.Index)
	}
	if b, err := inv.Register(Reference{Index: reserved, ID: "b"}); err != nil || b.Index != 2 {
		t.Errorf("Register(reserved index) = %+v, %v", b, err)
	}
	if _, err := inv.Register(Reference{Index: 5, ID: "dup"}); !errors.Is(err, ErrDuplicateIndex) {
		t.Errorf("duplicate index: err = %v, want ErrDuplicateIndex", err)
	}
	if _, err := inv.Register(Reference{Index: -1}); !errors.Is(err, ErrInvalidIndex) {
		t.Errorf("negative index: err = %v, want ErrInvalidIndex", err)
	}

	var idx []int
	for _, r := range inv.References() {
		idx = append(idx, r.Index)
	}
	if !slices.Equal(idx, []int{1, 2, 5, 6}) || inv.Len() != 4 {
		t.Errorf("References() indices = %v (Len %d), want [1 2 5 6]", idx, inv.Len())
	}
	if r, ok := inv.Lookup(5); !ok || r.ID != "c" {
		t.Errorf("Lookup(5) = %+v, %v", r, ok)
	}
	if _, ok := inv.Lookup(3); ok {
		t.Error("Lookup(3) found an unregistered index")
	}
	var zero Invocation // the zero value works too
	if r, err := zero.Register(Reference{}); err != nil || r.Index != 1 {
		t.Errorf("zero Invocation Register = %+v, %v", r, err)
	}
}

func TestCursor(t *testing.T) {
	inv := NewInvocation()
	cur := inv.Cursor()
	if got := cur.Next(); got != nil {
		t.Fatalf("Next on an empty invocation = %v", got)
	}
	const producers, each = 8, 100
	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			for range each {
				if _, err := inv.Register(Reference{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	seen := map[int]bool{}
	collect := func() {
		for _, r := range cur.Next() {
			if seen[r.Index] {
				t.Errorf("Cursor returned [doc:%d] twice", r.Index)
			}
			seen[r.Index] = true
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		collect() // incremental collection while producers run
	}
	collect() // final collection
	if len(seen) != producers*each {
		t.Errorf("Cursor saw %d references, want %d", len(seen), producers*each)
	}
	other := inv.Cursor()
	if got := other.Next(); len(got) != producers*each {
		t.Errorf("a new cursor saw %d references", len(got))
	}
}

func TestBag(t *testing.T) {
	type key struct{}
	inv := NewInvocation()
	if _, ok := inv.Load(key{}); ok {
		t.Fatal("empty bag has a value")
	}
	inv.Store(key{}, "session-7")
	if v, ok := inv.Load(key{}); !ok || v != "session-7" {
		t.Errorf("Load = %v, %v", v, ok)
	}
}

// TestRegisterSamePassage: a passage registered twice in one request (found
// by preemptive retrieval and again by a tool) is one reference.
func TestRegisterSamePassage(t *testing.T) {
	chunk := Reference{Title: "WAL", Passage: "readers do not block", ID: "c1", Type: TypeFile, Source: "/docs/wal.md", Span: Span{10, 40}}
	for _, tc := range []struct {
		name   string
		second Reference
		same   bool
	}{
		{"same chunk id", Reference{ID: "c1", Type: TypeFile, Source: "/docs/wal.md", Span: Span{10, 40}}, true},
		{"same id, span not given", Reference{ID: "c1", Type: TypeFile}, true},
		{"same source and span, no id", Reference{Type: TypeFile, Source: "/docs/wal.md", Span: Span{10, 40}}, true},
		{"same source and span, reserved index", Reference{Index: 7, Type: TypeFile, Source: "/docs/wal.md", Span: Span{10, 40}}, true},
		{"other span", Reference{Type: TypeFile, Source: "/docs/wal.md", Span: Span{10, 41}}, false},
		{"other id", Reference{ID: "c2", Type: TypeFile}, false},
		{"same id, other type", Reference{ID: "c1", Type: TypeUpload}, false},
		{"same source, empty span", Reference{Type: TypeFile, Source: "/docs/wal.md"}, false},
		{"nothing to compare", Reference{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := NewInvocation()
			first, err := inv.Register(chunk)
			if err != nil {
				t.Fatal(err)
			}
			got, err := inv.Register(tc.second)
			if err != nil {
				t.Fatal(err)
			}
			if tc.same {
				if got != first || inv.Len() != 1 {
					t.Errorf("second registration = %+v (%d references), want the first, %+v", got, inv.Len(), first)
				}
			} else if got.Index == first.Index || inv.Len() != 2 {
				t.Errorf("second registration = %+v (%d references), want a new reference", got, inv.Len())
			}
		})
	}
	// Rendering lists the passage once, whichever marker the model used.
	inv := NewInvocation()
	a, _ := inv.Register(chunk)
	b, _ := inv.Register(chunk)
	r := Render("Readers "+a.Key()+" do not wait "+b.Key()+".", inv, Options{})
	if len(r.References) != 1 || r.Text != "Readers [1] do not wait [1]." {
		t.Errorf("rendered %q with %d references", r.Text, len(r.References))
	}
}

func TestRegisterSamePassageConcurrent(t *testing.T) {
	inv := NewInvocation()
	const producers = 16
	got := make([]Reference, producers)
	var wg sync.WaitGroup
	for i := range producers {
		wg.Go(func() {
			r, err := inv.Register(Reference{ID: "c1", Type: TypeFile, Source: "/a.md", Span: Span{0, 5}})
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		})
	}
	wg.Wait()
	if inv.Len() != 1 {
		t.Fatalf("%d references, want 1", inv.Len())
	}
	for _, r := range got {
		if r.Index != got[0].Index {
			t.Fatalf("producers got indices %d and %d", got[0].Index, r.Index)
		}
	}
}
