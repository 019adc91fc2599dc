package index

import (
	"context"
	"database/sql"
	"runtime"
	"sync"

	"github.com/cite-rag/cite/index/analysis"
)

// A chunk's full-text terms are not stored (schema 7): they are
// [analysis.JoinedTerms] of its text, made again where they are needed.
// The analyzer's version is recorded (metaAnalyzer), and an index of
// another version has its postings and document frequencies rebuilt when
// opened, so the terms made again are always the ones that were counted.

// termsBatch is how many chunks' texts eachChunkTerms holds at a time.
const termsBatch = 512

// eachChunkTerms runs query (over chunks: its rows are a rowid and a
// text) and calls fn with each row's rowid and analyzed terms, in the
// rows' order, analyzing a batch of rows on all the cores at once. A
// damaged row whose text is not text has no terms.
func eachChunkTerms(ctx context.Context, q readQuerier, query string, args []any, fn func(rowid int64, terms string) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var rowids []int64
	var texts []string
	flush := func() error {
		analyzeAll(texts)
		for i, r := range rowids {
			if err := fn(r, texts[i]); err != nil {
				return err
			}
		}
		rowids, texts = rowids[:0], texts[:0]
		return nil
	}
	for rows.Next() {
		var rowid int64
		var text any // a damaged row may hold anything
		if err := rows.Scan(&rowid, &text); err != nil {
			return err
		}
		t, _ := text.(string)
		if b, ok := text.([]byte); ok {
			t = string(b)
		}
		rowids, texts = append(rowids, rowid), append(texts, t)
		if len(rowids) == termsBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// analyzeAll replaces each text by its analyzed terms, on all the cores.
func analyzeAll(texts []string) {
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 {
		for i, t := range texts {
			texts[i] = analysis.JoinedTerms(t)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(texts); i += workers {
				texts[i] = analysis.JoinedTerms(texts[i])
			}
		})
	}
	wg.Wait()
}

// recountTermDF counts the document frequency of every term, and under the
// empty term the chunks, from the chunks' texts.
func recountTermDF(ctx context.Context, q readQuerier) (map[string]int, error) {
	df := map[string]int{}
	err := eachChunkTerms(ctx, q, `SELECT rowid, text FROM chunks`, nil, func(_ int64, terms string) error {
		countTerms(df, terms, +1)
		return nil
	})
	return df, err
}

// removedTerms subtracts the terms of the chunks with these rowids from
// delta, reading their texts before the chunks are deleted.
func removedTerms(ctx context.Context, tx *sql.Tx, rowids []int64, delta map[string]int) error {
	if len(rowids) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `SELECT text FROM chunks WHERE rowid = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	texts := make([]string, 0, len(rowids))
	for _, r := range rowids {
		var text any
		err := stmt.QueryRowContext(ctx, r).Scan(&text)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return err
		}
		t, _ := text.(string)
		if b, ok := text.([]byte); ok {
			t = string(b)
		}
		texts = append(texts, t)
	}
	analyzeAll(texts)
	for _, terms := range texts {
		countTerms(delta, terms, -1)
	}
	return nil
}
