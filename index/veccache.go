package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"
)

// The vector cache is a snapshot of the in-memory vectors in the index
// folder (vectors.cache), so that opening an index does not read every
// vector out of SQLite (2.8 s for 100,000 vectors of 2048 dimensions,
// against milliseconds to map the snapshot; BenchmarkOpen). It is only a
// cache: it records the vectors generation it reflects and the embedder,
// and is ignored unless both match the database, which stays the one
// source of truth. It is written to a temporary file and renamed, so a
// crash leaves the old snapshot or the new one.
//
// Layout, native byte order (a machine of the other order ignores it):
//
//	0   magic "CITEVEC1"
//	8   uint32 0x01020304 (byte order check)
//	12  uint32 dim
//	16  uint32 segRows
//	20  uint32 length of the embedder name
//	24  int64 generation
//	32  int64 slots
//	40  int64 vectors
//	48  16 bytes of padding
//	64  the embedder name, padded to a multiple of 8 bytes
//	... slots int64 rowids (0 for a free slot)
//	... the segments, each segRows*dim float32, column-major
const (
	cacheFile   = "vectors.cache"
	cacheMagic  = "CITEVEC1"
	cacheHeader = 64
	cacheOrder  = 0x01020304
)

var errStaleCache = errors.New("stale vector cache")

// writeVectorCache writes x to the index folder. The caller holds x.mu for
// reading at least.
func (s *Store) writeVectorCache(x *vectorIndex, embedder string) (err error) {
	final := filepath.Join(s.dir, cacheFile)
	f, err := os.CreateTemp(s.dir, cacheFile+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var h [cacheHeader]byte
	copy(h[:], cacheMagic)
	ne := binary.NativeEndian
	ne.PutUint32(h[8:], cacheOrder)
	ne.PutUint32(h[12:], uint32(x.dim))
	ne.PutUint32(h[16:], segRows)
	ne.PutUint32(h[20:], uint32(len(embedder)))
	ne.PutUint64(h[24:], uint64(x.gen.Load()))
	ne.PutUint64(h[32:], uint64(len(x.rowids)))
	ne.PutUint64(h[40:], uint64(x.n))
	w.Write(h[:])
	w.WriteString(embedder)
	w.Write(make([]byte, pad8(len(embedder))-len(embedder)))
	if len(x.rowids) > 0 {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&x.rowids[0])), 8*len(x.rowids)))
	}
	for _, seg := range x.segs {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&seg[0])), 4*len(seg)))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), final)
}

func pad8(n int) int { return (n + 7) &^ 7 }

// readVectorCache maps the cache and returns the vectors it holds, if it
// reflects generation gen of embedder's vectors; errStaleCache otherwise.
// The segments share the mapping (copy-on-write: changing them leaves the
// file alone); release unmaps it.
func (s *Store) readVectorCache(gen int64, embedder string, dim int) (x *vectorIndex, release func(), err error) {
	data, unmap, err := mapFile(filepath.Join(s.dir, cacheFile))
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	ne := binary.NativeEndian
	if len(data) < cacheHeader || string(data[:8]) != cacheMagic || ne.Uint32(data[8:]) != cacheOrder ||
		int(ne.Uint32(data[12:])) != dim || ne.Uint32(data[16:]) != segRows || int64(ne.Uint64(data[24:])) != gen {
		return nil, nil, errStaleCache
	}
	nameLen := int(ne.Uint32(data[20:]))
	slots, n := int(ne.Uint64(data[32:])), int(ne.Uint64(data[40:]))
	off := cacheHeader + pad8(nameLen)
	nseg := (slots + segRows - 1) / segRows
	if slots < 0 || n < 0 || n > slots || len(data) != off+8*slots+4*nseg*segRows*dim || string(data[cacheHeader:cacheHeader+nameLen]) != embedder {
		return nil, nil, errStaleCache
	}
	x = newVectorIndex(dim)
	x.gen.Store(gen)
	x.n = n
	x.rowids = make([]int64, slots)
	if slots > 0 {
		copy(x.rowids, unsafe.Slice((*int64)(unsafe.Pointer(&data[off])), slots))
	}
	off += 8 * slots
	x.slots = make(map[int64]int32, n)
	for i, r := range x.rowids {
		if r == 0 {
			x.free = append(x.free, int32(i))
		} else {
			x.slots[r] = int32(i)
		}
	}
	if len(x.slots) != n {
		return nil, nil, errStaleCache
	}
	for range nseg {
		x.segs = append(x.segs, unsafe.Slice((*float32)(unsafe.Pointer(&data[off])), segRows*dim))
		off += 4 * segRows * dim
	}
	return x, unmap, nil
}

// SaveVectorCache writes the in-memory vectors to the index folder's
// vector cache if they are loaded, current, and newer than the cache, so
// that the next process opens them at once. cite index calls it at the end
// of a run.
func (s *Store) SaveVectorCache(ctx context.Context) error {
	if s.readOnly {
		return nil
	}
	gen, err := vectorsGen(ctx, s.db)
	if err != nil {
		return err
	}
	info, err := s.Embedder(ctx)
	if err != nil || info.Name == "" {
		return err
	}
	s.vmu.Lock()
	defer s.vmu.Unlock()
	x := s.vectors
	if x == nil || x.gen.Load() != gen || s.cachedGen == gen || x.dim != info.Dim {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if err := s.writeVectorCache(x, info.Name); err != nil {
		return fmt.Errorf("write vector cache: %w", err)
	}
	s.cachedGen = gen
	return nil
}
