package topk

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

type scored struct {
	score float64
	id    int64
}

// bestFirst: higher score first, then lower id.
func bestFirst(a, b scored) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// TestHeapMatchesSort: the heap keeps exactly the first k of a full sort,
// ties included, for every k and many orders of the input.
func TestHeapMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		var all []scored
		for i := range n {
			all = append(all, scored{float64(r.IntN(8)), int64(i)})
		}
		want := slices.Clone(all)
		slices.SortFunc(want, bestFirst)
		for _, k := range []int{0, 1, 2, 5, n, n + 3} {
			for range 5 {
				r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				h := New(k, bestFirst)
				for _, x := range all {
					admits := h.Admits(x)
					before := h.Sorted()
					h.Push(x)
					if changed := !slices.Equal(before, h.Sorted()); changed != admits {
						t.Fatalf("n %d k %d: Admits(%v) = %v, but the push changed the heap: %v", n, k, x, admits, changed)
					}
				}
				if got := h.Sorted(); !slices.Equal(got, want[:min(k, n)]) {
					t.Fatalf("n %d k %d: kept %v, want %v", n, k, got, want[:min(k, n)])
				}
				if h.Len() != min(k, n) || h.Full() != (n >= k) {
					t.Fatalf("n %d k %d: Len %d, Full %v", n, k, h.Len(), h.Full())
				}
				if k > 0 && n > 0 && h.Worst() != want[min(k, n)-1] {
					t.Fatalf("n %d k %d: Worst %v, want %v", n, k, h.Worst(), want[min(k, n)-1])
				}
			}
		}
	}
}

func ExampleHeap() {
	h := New(2, func(a, b int) int { return cmp.Compare(b, a) }) // largest first
	for _, x := range []int{3, 9, 1, 7} {
		h.Push(x)
	}
	fmt.Println(h.Sorted())
	// Output: [9 7]
}

func BenchmarkHeap(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]scored, 100_000)
	for i := range xs {
		xs[i] = scored{r.Float64(), int64(i)}
	}
	for b.Loop() {
		h := New(10, bestFirst)
		for _, x := range xs {
			h.Push(x)
		}
	}
}
