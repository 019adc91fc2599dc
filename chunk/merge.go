package chunk

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
	h.init()
	for len(h) > 0 {
		p := h.pop()
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
		n := len(h)
		push(a.prev)
		push(p.i)
		for k := n; k < len(h); k++ {
			h.up(k)
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

// pairHeap is a min-heap of pairs by (rank, start), without
// container/heap's interface calls and boxing.
type pairHeap []pair

func (h pairHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].start < h[b].start
}

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h pairHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h pairHeap) down(i int) {
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if j2 := j + 1; j2 < n && h.less(j2, j) {
			j = j2
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

func (h *pairHeap) pop() pair {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	x := old[n]
	*h = old[:n]
	h.down(0)
	return x
}
