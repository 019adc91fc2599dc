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
