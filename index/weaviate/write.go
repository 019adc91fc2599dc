package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cite-rag/cite/index"
	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// metaID is the one settings object's id.
func (s *Store) metaID() string { return objectID(s.metaName, "settings") }

// UseEmbedder records the embedder the vectors are made with. Changing it
// (cite reindex --embedder) empties the chunk collection, whose vector
// index has the old dimension: the local index then pushes every document
// again with the new vectors.
func (s *Store) UseEmbedder(ctx context.Context, info index.EmbedderInfo) error {
	cur, err := s.Embedder(ctx)
	if err != nil {
		return err
	}
	if cur == info {
		return nil
	}
	if cur.Name != "" {
		if err := s.c.Schema().ClassDeleter().WithClassName(s.chunk).Do(ctx); err != nil {
			return s.wrap("drop the chunks of embedder "+cur.Name, err)
		}
		if err := s.ensureSchema(ctx); err != nil {
			return err
		}
	}
	obj := &models.Object{Class: s.metaName, ID: strfmt.UUID(s.metaID()), Properties: map[string]any{"embedder": info.Name, "dim": info.Dim}}
	if err := s.batch(ctx, "record the embedder", []*models.Object{obj}, nil); err != nil {
		return err
	}
	s.mu.Lock()
	s.embedder = info
	s.mu.Unlock()
	return nil
}

// objectBatch is how many objects one batch request carries.
const objectBatch = 200

// batch writes objects, in requests of objectBatch. A per-object failure
// is passed to failed with the object's index (failed nil: it is the
// error).
func (s *Store) batch(ctx context.Context, what string, objs []*models.Object, failed func(i int, err error)) error {
	for off := 0; off < len(objs); off += objectBatch {
		part := objs[off:min(off+objectBatch, len(objs))]
		res, err := s.c.Batch().ObjectsBatcher().WithObjects(part...).WithConsistencyLevel(writeConsistency).Do(ctx)
		if err != nil {
			return s.wrap(what, err)
		}
		for i, r := range res {
			if r.Result == nil || r.Result.Errors == nil || len(r.Result.Errors.Error) == 0 {
				continue
			}
			var msgs []string
			for _, e := range r.Result.Errors.Error {
				msgs = append(msgs, e.Message)
			}
			err := fmt.Errorf("weaviate at %s: %s: %s", s.cfg.Addr, what, strings.Join(msgs, "; "))
			if failed == nil {
				return err
			}
			failed(off+i, err)
		}
	}
	return nil
}

// Push makes each document's copy here what it is in the local index, in
// three steps, each idempotent:
//
//  1. upsert its chunk objects (ids derived from chunk ids);
//  2. upsert its document object, which lists the chunk ids of this
//     version: the commit point, as searches return only chunks their
//     document lists;
//  3. delete its chunk objects the new list does not name.
//
// A crash before 2 leaves the old version visible and unlisted chunks
// (orphans) that the next push of the document, or a repair, deletes; a
// crash before 3 leaves the new version visible and the same orphans.
func (s *Store) Push(ctx context.Context, docs []index.ReplicaDocument) error {
	failed := map[string]error{}
	var objs []*models.Object
	var owner []string
	for _, d := range docs {
		for _, c := range d.Chunks {
			headings := c.Headings
			if headings == nil {
				headings = []string{}
			}
			o := &models.Object{
				Class: s.chunk, ID: strfmt.UUID(objectID(s.chunk, c.ID)),
				Properties: map[string]any{
					"chunkId": c.ID, "key": strconv.FormatInt(chunkKey(c.ID), 10), "docId": d.Document.ID, "source": d.Document.Source, "path": d.Document.Path,
					"terms": c.Terms, "text": c.Text, "headings": headings, "ordinal": c.Ordinal, "tokens": c.Tokens,
					"spanStart": c.Start, "spanEnd": c.End, "srcStart": c.SourceStart, "srcEnd": c.SourceEnd,
					"page": c.Page, "pageEnd": c.PageEnd,
				},
			}
			if c.Vector != nil {
				o.Vector = models.C11yVector(c.Vector)
			}
			objs = append(objs, o)
			owner = append(owner, d.Document.ID)
		}
	}
	if err := s.batch(ctx, "write chunks", objs, func(i int, err error) { failed[owner[i]] = err }); err != nil {
		return err
	}
	// Commit the documents whose chunks are all in.
	var dobjs []*models.Object
	var committed []index.ReplicaDocument
	for _, d := range docs {
		if failed[d.Document.ID] != nil {
			continue
		}
		ids := make([]string, len(d.Chunks))
		for i, c := range d.Chunks {
			ids[i] = c.ID
		}
		doc := d.Document
		dobjs = append(dobjs, &models.Object{
			Class: s.doc, ID: strfmt.UUID(objectID(s.doc, doc.ID)),
			Properties: map[string]any{
				"docId": doc.ID, "source": doc.Source, "path": doc.Path, "title": doc.Title, "format": doc.Type, "kind": string(doc.Kind),
				"size": doc.Size, "mtime": doc.ModTime.UTC().Format(time.RFC3339Nano), "hash": doc.Hash, "pipeline": doc.Pipeline,
				"textBytes": doc.TextBytes, "chunkCount": len(ids), "tokens": doc.Tokens,
				"indexedAt": doc.IndexedAt.UTC().Format(time.RFC3339Nano), "chunkIds": ids,
				"layout": layoutJSON(doc.Layout),
			},
		})
		committed = append(committed, d)
	}
	if err := s.batch(ctx, "commit documents", dobjs, func(i int, err error) { failed[committed[i].Document.ID] = err }); err != nil {
		for _, d := range committed {
			failed[d.Document.ID] = err
		}
	} else {
		// Delete what the committed versions no longer list.
		var conds []*filters.WhereBuilder
		for _, d := range committed {
			if failed[d.Document.ID] != nil {
				continue
			}
			ids := make([]string, len(d.Chunks))
			for i, c := range d.Chunks {
				ids[i] = c.ID
			}
			cond := filters.Where().WithPath([]string{"docId"}).WithOperator(filters.Equal).WithValueText(d.Document.ID)
			if len(ids) > 0 {
				cond = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
					cond, filters.Where().WithPath([]string{"chunkId"}).WithOperator(filters.ContainsNone).WithValueText(ids...),
				})
			}
			conds = append(conds, cond)
		}
		for off := 0; off < len(conds); off += 16 {
			part := conds[off:min(off+16, len(conds))]
			w := part[0]
			if len(part) > 1 {
				w = filters.Where().WithOperator(filters.Or).WithOperands(part)
			}
			if err := s.deleteWhere(ctx, s.chunk, "delete replaced chunks", w); err != nil {
				// The new versions are committed and searches skip the
				// leftovers; a repair deletes them.
				return err
			}
		}
	}
	if len(failed) > 0 {
		return &index.ReplicaError{Replica: s.Name(), Documents: failed}
	}
	return nil
}

// deleteWhere deletes every object of class matching w, in as many
// requests as Weaviate's per-request limit needs.
func (s *Store) deleteWhere(ctx context.Context, class, what string, w *filters.WhereBuilder) error {
	for range 10000 {
		res, err := s.c.Batch().ObjectsBatchDeleter().WithClassName(class).WithWhere(w).WithOutput("minimal").WithConsistencyLevel(writeConsistency).Do(ctx)
		if err != nil {
			return s.wrap(what, err)
		}
		if res.Results == nil {
			return nil
		}
		if res.Results.Failed > 0 {
			return fmt.Errorf("weaviate at %s: %s: %d object(s) not deleted", s.cfg.Addr, what, res.Results.Failed)
		}
		if res.Results.Matches < res.Results.Limit || res.Results.Matches == 0 {
			return nil
		}
	}
	return fmt.Errorf("weaviate at %s: %s: objects keep matching", s.cfg.Addr, what)
}

// Remove deletes documents and then their chunks: once a document object
// is gone, its chunks are no longer returned, so a crash in between
// leaves only orphans.
func (s *Store) Remove(ctx context.Context, ids []string) error {
	for off := 0; off < len(ids); off += 500 {
		part := ids[off:min(off+500, len(ids))]
		if err := s.deleteWhere(ctx, s.doc, "delete documents", filters.Where().WithPath([]string{"docId"}).WithOperator(filters.ContainsAny).WithValueText(part...)); err != nil {
			return err
		}
		if err := s.deleteWhere(ctx, s.chunk, "delete chunks", filters.Where().WithPath([]string{"docId"}).WithOperator(filters.ContainsAny).WithValueText(part...)); err != nil {
			return err
		}
	}
	return nil
}

// RemoveChunks deletes chunk objects by chunk id.
func (s *Store) RemoveChunks(ctx context.Context, ids []string) error {
	for off := 0; off < len(ids); off += 500 {
		part := ids[off:min(off+500, len(ids))]
		if err := s.deleteWhere(ctx, s.chunk, "delete chunks", filters.Where().WithPath([]string{"chunkId"}).WithOperator(filters.ContainsAny).WithValueText(part...)); err != nil {
			return err
		}
	}
	return nil
}

// Inventory reads every document object and every chunk object's ids,
// with cursors (pages of 1,000).
func (s *Store) Inventory(ctx context.Context) (index.ReplicaInventory, error) {
	inv := index.ReplicaInventory{Documents: map[string][]string{}, Hashes: map[string]string{}, Chunks: map[string]string{}}
	err := s.scan(ctx, s.doc, "docId hash chunkIds", func(o map[string]any) {
		inv.Documents[str(o, "docId")] = strs(o, "chunkIds")
		inv.Hashes[str(o, "docId")] = str(o, "hash")
	})
	if err != nil {
		return inv, err
	}
	err = s.scan(ctx, s.chunk, "chunkId docId", func(o map[string]any) { inv.Chunks[str(o, "chunkId")] = str(o, "docId") })
	return inv, err
}

func (s *Store) scan(ctx context.Context, class, fields string, fn func(map[string]any)) error {
	after := ""
	for {
		arg := "limit:1000"
		if after != "" {
			arg += ",after:" + lit(after)
		}
		data, err := s.gql(ctx, "list "+class, fmt.Sprintf(`{Get{%s(%s){%s _additional{id}}}}`, class, arg, fields))
		if err != nil {
			return err
		}
		list := getList(data, class)
		for _, o := range list {
			fn(o)
		}
		if len(list) < 1000 {
			return nil
		}
		a, _ := list[len(list)-1]["_additional"].(map[string]any)
		after = str(a, "id")
	}
}

// retrying retries requests that failed for a reason that may pass: a
// connection refused or reset, 429, 502, 503 and 504. It backs off
// exponentially (50 ms doubling, with jitter). Other failures, including
// every 4xx but 429, are returned at once.
type retrying struct {
	base    http.RoundTripper
	retries int
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.GetBody == nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	wait := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 || body != nil {
			r = req.Clone(req.Context())
			switch {
			case body != nil:
				r.Body = io.NopCloser(strings.NewReader(string(body)))
			case req.GetBody != nil:
				b, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = b
			}
		}
		resp, err := t.base.RoundTrip(r)
		transient := err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
		if err == nil {
			switch resp.StatusCode {
			case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
				transient = true
			}
		}
		if !transient || attempt >= t.retries {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		d := wait + time.Duration(rand.Int64N(int64(wait)))
		wait *= 2
		select {
		case <-time.After(d):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
}

// layoutJSON is the document object's "layout": the JSON of an extracted
// document's [index.Layout] (where its pages or slides start, its
// reader's notes), "" for a document without one.
func layoutJSON(l *index.Layout) string {
	if l == nil || len(l.Pages) == 0 && len(l.Notes) == 0 {
		return ""
	}
	b, err := json.Marshal(l)
	if err != nil {
		return ""
	}
	return string(b)
}
