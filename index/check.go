package index

import (
	"context"
	"fmt"
)

// Problem is one inconsistency found by [Store.Check].
type Problem struct {
	DocumentID string `json:"document_id,omitempty"`
	Path       string `json:"path,omitempty"`
	Problem    string `json:"problem"`
}

// Report is the result of [Store.Check].
type Report struct {
	Documents int       `json:"documents"`
	Chunks    int       `json:"chunks"`
	Problems  []Problem `json:"problems"`
}

// OK reports whether the check found nothing wrong.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Check verifies the index: SQLite's own integrity check, no chunk without
// its document, and for every document a complete chunk sequence: ordinals
// 0..n-1 matching the recorded count, spans that start at 0, move forward
// without gaps and end at the text's length, and texts as long as their
// spans.
func (s *Store) Check(ctx context.Context) (Report, error) {
	var r Report
	var integrity string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&integrity); err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	if integrity != "ok" {
		r.Problems = append(r.Problems, Problem{Problem: "sqlite quick_check: " + integrity})
	}
	var orphans int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)`).Scan(&orphans); err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	if orphans > 0 {
		r.Problems = append(r.Problems, Problem{Problem: fmt.Sprintf("%d chunks belong to no document", orphans)})
	}
	docs, err := s.Documents(ctx, "")
	if err != nil {
		return r, fmt.Errorf("check index: %w", err)
	}
	r.Documents = len(docs)
	for _, d := range docs {
		chunks, err := s.Chunks(ctx, d.ID)
		if err != nil {
			return r, fmt.Errorf("check index: %w", err)
		}
		r.Chunks += len(chunks)
		bad := func(format string, args ...any) {
			r.Problems = append(r.Problems, Problem{DocumentID: d.ID, Path: d.Path, Problem: fmt.Sprintf(format, args...)})
		}
		if len(chunks) != d.Chunks {
			bad("has %d chunks, recorded %d", len(chunks), d.Chunks)
			continue
		}
		for i, c := range chunks {
			switch {
			case c.Ordinal != i:
				bad("chunk %d has ordinal %d", i, c.Ordinal)
			case len(c.Text) != c.End-c.Start:
				bad("chunk %d text is %d bytes, span [%d,%d)", i, len(c.Text), c.Start, c.End)
			case i == 0 && c.Start != 0:
				bad("first chunk starts at %d", c.Start)
			case i > 0 && (c.Start <= chunks[i-1].Start || c.Start > chunks[i-1].End || c.End <= chunks[i-1].End):
				bad("chunk %d span [%d,%d) does not follow [%d,%d)", i, c.Start, c.End, chunks[i-1].Start, chunks[i-1].End)
			default:
				continue
			}
			break
		}
		if n := len(chunks); n > 0 && chunks[n-1].End != d.TextBytes {
			bad("chunks end at %d, text is %d bytes", chunks[n-1].End, d.TextBytes)
		}
	}
	return r, nil
}
