package chunk

import "container/heap"

// longPiece is the piece length above which the Tokenizer merges with
// mergeLong instead of tiktoken-go, whose byte-pair merge rescans the whole
// piece after every merge: quadratic, so that one 100 KB run of letters
// without a space would take minutes.
const longPiece = 256

// mergeLong byte-pair-encodes piece in O(n log n): a linked list of parts
// and a heap of adjacent pairs keyed by (rank, position). Taking the lowest
// rank, leftmost first, is the order of tiktoken's merge, so the tokens are
// the same (TestMergeLongMatchesTiktoken).
func (t *Tokenizer) mergeLong(piece string) []uint32 {
	type part struct {
		start, end int
		prev, next int // part indices, -1 for none
		ver        uint32
		dead       bool
	}
	parts := make([]part, len(piece))
	for i := range parts {
		parts[i] = part{start: i, end: i + 1, prev: i - 1, next: i + 1}
	}
	parts[len(parts)-1].next = -1
	h := make(pairHeap, 0, len(piece))
	push := func(i int) {
		if i < 0 || parts[i].next < 0 {
			return
		}
		j := parts[i].next
		if rank, ok := t.ranks[piece[parts[i].start:parts[j].end]]; ok {
			h = append(h, pair{rank: rank, start: parts[i].start, i: i, j: j, veri: parts[i].ver, verj: parts[j].ver})
		}
	}
	for i := range parts {
		push(i)
	}
	heap.Init(&h)
	for h.Len() > 0 {
		p := heap.Pop(&h).(pair)
		a, b := &parts[p.i], &parts[p.j]
		if a.dead || b.dead || a.next != p.j || a.ver != p.veri || b.ver != p.verj {
			continue // stale: one side has merged since
		}
		a.end = b.end
		a.ver++
		a.next = b.next
		b.dead = true
		if b.next >= 0 {
			parts[b.next].prev = p.i
		}
		n := h.Len()
		push(a.prev)
		push(p.i)
		for k := n; k < h.Len(); k++ {
			heap.Fix(&h, k)
		}
	}
	var ids []uint32
	for i := 0; i >= 0; i = parts[i].next {
		ids = append(ids, uint32(t.ranks[piece[parts[i].start:parts[i].end]]))
	}
	return ids
}

// pair is a candidate merge of parts i and j=next(i).
type pair struct {
	rank, start int
	i, j        int
	veri, verj  uint32
}

type pairHeap []pair

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].start < h[b].start
}
func (h pairHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pair)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
