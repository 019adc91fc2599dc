// Package topk keeps the k best of a stream of values: the one bounded
// heap behind every ranking of package index (BM25 and vectors).
package topk

import "slices"

// Heap keeps the k best values pushed, under an order given by cmp as for
// [slices.SortFunc]: cmp(a, b) < 0 when a ranks before b. It is a min-heap
// whose root is the worst value kept, so a push costs O(log k). A Heap is
// not safe for concurrent use.
type Heap[T any] struct {
	k     int
	cmp   func(a, b T) int
	items []T
}

// New returns a Heap keeping the k best values under cmp. k <= 0 keeps
// none.
func New[T any](k int, cmp func(a, b T) int) *Heap[T] {
	return &Heap[T]{k: max(k, 0), cmp: cmp, items: make([]T, 0, min(max(k, 0), 1024))}
}

// Len returns the number of values kept.
func (h *Heap[T]) Len() int { return len(h.items) }

// Full reports whether k values are kept: a new one must beat [Heap.Worst].
func (h *Heap[T]) Full() bool { return len(h.items) >= h.k }

// Worst returns the worst value kept; the Heap must not be empty.
func (h *Heap[T]) Worst() T { return h.items[0] }

// Admits reports whether x would be kept if pushed.
func (h *Heap[T]) Admits(x T) bool {
	return h.k > 0 && (!h.Full() || h.cmp(x, h.items[0]) < 0)
}

// Push offers x: it is kept if fewer than k values are, or if it ranks
// before the worst kept, which it then replaces.
func (h *Heap[T]) Push(x T) {
	if h.k == 0 {
		return
	}
	if !h.Full() {
		h.items = append(h.items, x)
		h.up(len(h.items) - 1)
		return
	}
	if h.cmp(x, h.items[0]) < 0 {
		h.items[0] = x
		h.down(0)
	}
}

// Sorted returns the values kept, best first, in a new slice.
func (h *Heap[T]) Sorted() []T {
	out := slices.Clone(h.items)
	slices.SortFunc(out, h.cmp)
	return out
}

// worse reports whether item i ranks after item j: the heap's order.
func (h *Heap[T]) worse(i, j int) bool { return h.cmp(h.items[i], h.items[j]) > 0 }

func (h *Heap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.worse(i, p) {
			return
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *Heap[T]) down(i int) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && h.worse(r, c) {
			c = r
		}
		if !h.worse(c, i) {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		i = c
	}
}
