package index

import (
	"container/list"
	"sync"

	"github.com/cite-rag/cite/index/internal/postings"
)

// listCacheBytes is the most memory the postings lists kept by
// [listCache] take. At 100k chunks every list of the index fits (22 MB);
// at 1M the lists of the commonest terms take 1–2 MB each.
const listCacheBytes = 64 << 20

// listCache keeps the postings lists searches read, decoded, the least
// recently used dropped first past [listCacheBytes]. A segment's postings
// never change once written (a merge writes a new segment), so a list
// stays right as long as its segment exists; it is keyed by the segment as
// loaded ([loadedSegment.stored]), and a segment read again, or gone, is
// another key, never a stale hit. A search still asks SQLite which lists
// exist and their sizes (which reads no overflow page), and takes a kept
// list only where its size is the same: postings lost or damaged on disk
// are seen as without the cache, as the segments' own check does
// ([Store.ftsView]). Reading a common term's postings from SQLite
// (hundreds of KB over overflow pages, copied into Go) cost as much as
// ranking them. It is safe for concurrent use; a List is only read.
type listCache struct {
	max   int // bytes; 0: listCacheBytes
	mu    sync.Mutex
	byKey map[listKey]*list.Element // of *listEntry
	lru   list.List                 // most recent first
	bytes int
}

type listKey struct {
	seg  *loadedSegment // as stored, without tombstones
	term string
}

type listEntry struct {
	key     listKey
	list    *postings.List
	encoded int // the size of its encoding
	size    int // the memory it takes
}

// entryOverhead is the memory of an entry besides its list: the key, the
// map and list elements.
const entryOverhead = 128

// get returns the list of term in seg whose encoding took encoded bytes,
// or nil.
func (c *listCache) get(seg *loadedSegment, term string, encoded int) *postings.List {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[listKey{seg.stored, term}]
	if !ok || e.Value.(*listEntry).encoded != encoded {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*listEntry).list
}

// put keeps l, the list of term in seg decoded from encoded bytes.
func (c *listCache) put(seg *loadedSegment, term string, encoded int, l *postings.List) {
	k := listKey{seg.stored, term}
	limit := c.max
	if limit == 0 {
		limit = listCacheBytes
	}
	size := entryOverhead + len(term) + l.Size()
	if size > limit/8 {
		return // one list would push out too many others
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[listKey]*list.Element{}
	}
	if e, ok := c.byKey[k]; ok {
		c.remove(e)
	}
	c.byKey[k] = c.lru.PushFront(&listEntry{key: k, list: l, encoded: encoded, size: size})
	c.bytes += size
	for c.bytes > limit {
		c.remove(c.lru.Back())
	}
}

// keep drops the lists of segments not in segs (stored segments), which
// are gone or were read again.
func (c *listCache) keep(segs map[int64]*loadedSegment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		seg := e.Value.(*listEntry).key.seg
		if segs[seg.id] != seg {
			c.remove(e)
		}
		e = next
	}
}

func (c *listCache) remove(e *list.Element) {
	le := c.lru.Remove(e).(*listEntry)
	delete(c.byKey, le.key)
	c.bytes -= le.size
}
