package search

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/index"
)

// Fusion combines the BM25 and the vector ranking of a hybrid search.
//
// Methods:
//   - "max": each retriever's scores are divided by its best score for the
//     query, so both lie in (0, 1], and a chunk's fused score is
//     BM25Weight*bm25 + VectorWeight*vector, a retriever that did not rank
//     the chunk adding 0.
//   - "minmax": as "max", with each retriever's scores first shifted so its
//     worst candidate scores 0.
//   - "rrf": weighted reciprocal-rank fusion, sum of weight/(K+rank).
//   - "backend": the index fuses, in one query, when it can
//     ([index.HybridSearcher]: Weaviate's relative-score fusion, which is
//     "minmax" with the vector ranking weighted
//     VectorWeight/(BM25Weight+VectorWeight)); "max" on an index that
//     cannot.
//
// Plain reciprocal-rank fusion throws the scores away: when one retriever
// is much weaker, its ranks count as much as the stronger one's. Score
// fusion with a weight measured on data keeps the strong retriever's
// confidence (see [DefaultFusion]).
type Fusion struct {
	Method       string  `json:"method"`
	BM25Weight   float64 `json:"bm25_weight"`
	VectorWeight float64 `json:"vector_weight"`
	K            float64 `json:"k,omitempty"` // rrf only (default 60)
}

// DefaultFusion is the fusion hybrid search uses. Its method and weights
// were chosen with cite eval --tune on the shared SQuAD half (24 articles,
// 5,397 questions, hash embedder): it is at least as good as BM25 alone on
// Recall@1, Recall@5, Recall@20 and MRR@10, where plain reciprocal-rank
// fusion is worse than BM25 alone. The README's retrieval table has the
// numbers.
var DefaultFusion = Fusion{Method: "max", BM25Weight: 0.75, VectorWeight: 0.25}

// ParseFusion reads a fusion spec: "METHOD:BM25WEIGHT:VECTORWEIGHT", e.g.
// "max:0.7:0.3" or "rrf:1:1" (rrf may add ":K").
func ParseFusion(s string) (Fusion, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 3 || len(parts) > 4 {
		return Fusion{}, fmt.Errorf("fusion %q: want METHOD:BM25WEIGHT:VECTORWEIGHT", s)
	}
	f := Fusion{Method: parts[0]}
	switch f.Method {
	case "max", "minmax", "rrf", "backend":
	default:
		return Fusion{}, fmt.Errorf("fusion %q: unknown method %q (want max, minmax, rrf or backend)", s, f.Method)
	}
	var err error
	if f.BM25Weight, err = strconv.ParseFloat(parts[1], 64); err != nil || f.BM25Weight < 0 {
		return Fusion{}, fmt.Errorf("fusion %q: BM25 weight %q: want a number >= 0", s, parts[1])
	}
	if f.VectorWeight, err = strconv.ParseFloat(parts[2], 64); err != nil || f.VectorWeight < 0 {
		return Fusion{}, fmt.Errorf("fusion %q: vector weight %q: want a number >= 0", s, parts[2])
	}
	if len(parts) == 4 {
		if f.Method != "rrf" {
			return Fusion{}, fmt.Errorf("fusion %q: only rrf takes a K", s)
		}
		if f.K, err = strconv.ParseFloat(parts[3], 64); err != nil || f.K <= 0 {
			return Fusion{}, fmt.Errorf("fusion %q: K %q: want a number > 0", s, parts[3])
		}
	}
	return f, nil
}

// String returns the spec ParseFusion reads.
func (f Fusion) String() string {
	s := fmt.Sprintf("%s:%g:%g", f.Method, f.BM25Weight, f.VectorWeight)
	if f.Method == "rrf" && f.K != 0 {
		s += fmt.Sprintf(":%g", f.K)
	}
	return s
}

// fuse merges two rankings, best first; ties go to the lower rowid.
func (f Fusion) fuse(bm, vec []index.Scored) []candidate {
	byRow := make(map[int64]*candidate, len(bm)+len(vec))
	var order []*candidate
	get := func(rowid int64) *candidate {
		c := byRow[rowid]
		if c == nil {
			c = &candidate{rowid: rowid}
			byRow[rowid] = c
			order = append(order, c)
		}
		return c
	}
	add := func(rs []index.Scored, w float64, isBM25 bool) {
		if len(rs) == 0 {
			return
		}
		top, bottom := rs[0].Score, rs[len(rs)-1].Score
		for rank, r := range rs {
			c := get(r.Chunk)
			sc := r.Score
			if isBM25 {
				c.bm25 = &sc
			} else {
				c.vector = &sc
			}
			switch f.Method {
			case "rrf":
				k := f.K
				if k == 0 {
					k = 60
				}
				c.score += w / (k + float64(rank+1))
			case "minmax":
				if top > bottom {
					c.score += w * (sc - bottom) / (top - bottom)
				} else {
					c.score += w
				}
			default: // max
				if top > 0 {
					c.score += w * sc / top
				}
			}
		}
	}
	add(bm, f.BM25Weight, true)
	add(vec, f.VectorWeight, false)
	out := make([]candidate, len(order))
	for i, c := range order {
		out[i] = *c
	}
	slices.SortFunc(out, func(a, b candidate) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if a.rowid < b.rowid {
			return -1
		}
		return 1
	})
	return out
}
