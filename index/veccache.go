package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"time"
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
// It holds the vectors as the in-memory index does, quantized to int8 with
// a float32 scale each: half the float16 vectors the database holds
// (2,060 bytes a vector of 2,048 dimensions, against 4,097; 8,192 for the
// float32 vectors of older cite).
//
// A checksum covers the header, the embedder name, the rowids, which say
// which chunk each vector is (a damaged one would make vector search
// return wrong chunks), and the scales. The vectors themselves are not
// summed at each open (that would read them all); [Store.Check] compares
// them with the database's, quantized, and [Store.Repair] deletes a cache
// that differs. A cache of the float32 vectors that cite wrote before
// (CITEVEC2) is stale: the next process that opens the index for writing
// replaces it.
//
// Layout, native byte order (a machine of the other order ignores it):
//
//	0   magic "CITEVEC3"
//	8   uint32 0x01020304 (byte order check)
//	12  uint32 dim
//	16  uint32 rows: slots of a full segment
//	20  uint32 length of the embedder name
//	24  int64 generation
//	32  int64 slots
//	40  int64 vectors
//	48  uint32 capacity of the last segment
//	52  uint32 CRC-32C of bytes 0-51, the name, the rowids and the scales
//	56  8 bytes of padding
//	64  the embedder name, padded to a multiple of 8 bytes
//	... slots int64 rowids (0 for a free slot)
//	... slots float32 scales, padded to a multiple of 8 bytes
//	... the segments, each rows*dim int8 (the last capacity*dim),
//	    column-major
const (
	cacheFile   = "vectors.cache"
	cacheMagic  = "CITEVEC3"
	cacheHeader = 64
	cacheOrder  = 0x01020304
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	errStaleCache   = errors.New("stale vector cache")
	errDamagedCache = errors.New("damaged vector cache")
)

// writeVectorCache writes x to the index folder. The caller holds x.mu for
// reading at least.
func (s *Store) writeVectorCache(x *vectorIndex, embedder string) (err error) {
	final := filepath.Join(s.dir, cacheFile)
	f, err := os.CreateTemp(s.dir, cacheFile+cacheTemp+"*")
	if err != nil {
		return err
	}
	// Held while the file is written, so that removeStaleTemps, in another
	// process, leaves it alone; released however this process ends.
	tryLock(f)
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
	ne.PutUint32(h[16:], uint32(x.rows))
	ne.PutUint32(h[20:], uint32(len(embedder)))
	ne.PutUint64(h[24:], uint64(x.gen.Load()))
	ne.PutUint64(h[32:], uint64(len(x.rowids)))
	ne.PutUint64(h[40:], uint64(x.n))
	// The last segment is written with the capacity its slots take: the
	// one it has in memory may be whole.
	last, lastCap := 0, 0
	if n := len(x.segs); n > 0 {
		lastCap = len(x.segs[n-1]) / x.dim
		last = min(lastCap, len(x.rowids)-(n-1)*x.rows)
		ne.PutUint32(h[48:], uint32(last))
	}
	var rowids, scales []byte
	if len(x.rowids) > 0 {
		rowids = unsafe.Slice((*byte)(unsafe.Pointer(&x.rowids[0])), 8*len(x.rowids))
		scales = unsafe.Slice((*byte)(unsafe.Pointer(&x.scales[0])), 4*len(x.scales))
	}
	ne.PutUint32(h[52:], cacheSum(h[:52], embedder, rowids, scales))
	w.Write(h[:])
	w.WriteString(embedder)
	w.Write(make([]byte, pad8(len(embedder))-len(embedder)))
	w.Write(rowids)
	w.Write(scales)
	w.Write(make([]byte, pad8(len(scales))-len(scales)))
	for i, seg := range x.segs {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&seg[0])), len(seg))
		if i < len(x.segs)-1 || last == lastCap {
			w.Write(b)
			continue
		}
		for j := range x.dim {
			w.Write(b[j*lastCap : j*lastCap+last])
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), final)
}

// cacheTemp ends the name of a vector cache being written, before the
// suffix os.CreateTemp adds.
const cacheTemp = ".tmp"

// staleAge is how long a temporary vector cache has not been written before
// removeStaleTemps takes it for a killed process's.
const staleAge = time.Minute

// removeStaleTemps removes the temporary vector caches that processes
// killed while writing them left in the index folder dir: those no process
// holds locked (a writer holds its file's lock until it renames it into
// place, and the system releases it when the process ends) and that have
// not been written for a minute (on systems without locks, the age alone
// decides). It returns how many it removed.
func removeStaleTemps(dir string) int {
	names, _ := filepath.Glob(filepath.Join(dir, cacheFile+cacheTemp+"*"))
	n := 0
	for _, name := range names {
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < staleAge {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if ok, err := tryLock(f); ok && err == nil && os.Remove(name) == nil {
			n++
		}
		f.Close()
	}
	return n
}

func pad8(n int) int { return (n + 7) &^ 7 }

// cacheSum is the checksum of a vector cache's header, embedder name,
// rowids and scales.
func cacheSum(header []byte, embedder string, rowids, scales []byte) uint32 {
	sum := crc32.Update(0, castagnoli, header)
	sum = crc32.Update(sum, castagnoli, []byte(embedder))
	sum = crc32.Update(sum, castagnoli, rowids)
	return crc32.Update(sum, castagnoli, scales)
}

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
		int(ne.Uint32(data[12:])) != dim || int(ne.Uint32(data[16:])) != rowsPerSegment(dim) || int64(ne.Uint64(data[24:])) != gen {
		return nil, nil, errStaleCache
	}
	// The cache claims to be current: from here on, a mismatch is damage.
	rows := rowsPerSegment(dim)
	nameLen := int(ne.Uint32(data[20:]))
	slots, n := int(ne.Uint64(data[32:])), int(ne.Uint64(data[40:]))
	last := int(ne.Uint32(data[48:]))
	off := cacheHeader + pad8(nameLen)
	nseg := (slots + rows - 1) / rows
	if slots < 0 || n < 0 || n > slots || nameLen != len(embedder) || slots > (len(data)-off)/12 {
		return nil, nil, errDamagedCache
	}
	if nseg > 0 && (last < slots-(nseg-1)*rows || last > rows) || nseg == 0 && last != 0 {
		return nil, nil, errDamagedCache
	}
	scalesAt := off + 8*slots
	size := scalesAt + pad8(4*slots)
	if nseg > 0 {
		size += ((nseg-1)*rows + last) * dim
	}
	if len(data) != size || string(data[cacheHeader:cacheHeader+nameLen]) != embedder ||
		ne.Uint32(data[52:]) != cacheSum(data[:52], embedder, data[off:scalesAt], data[scalesAt:scalesAt+4*slots]) {
		return nil, nil, errDamagedCache
	}
	x = newVectorIndex(dim)
	x.gen.Store(gen)
	x.n = n
	x.rowids = make([]int64, slots)
	if slots > 0 {
		copy(x.rowids, unsafe.Slice((*int64)(unsafe.Pointer(&data[off])), slots))
	}
	x.scales = make([]float32, slots)
	if slots > 0 {
		copy(x.scales, unsafe.Slice((*float32)(unsafe.Pointer(&data[scalesAt])), slots))
	}
	off = scalesAt + pad8(4*slots)
	x.slots = make(map[int64]int32, n)
	for i, r := range x.rowids {
		if r == 0 {
			x.free = append(x.free, int32(i))
		} else {
			x.slots[r] = int32(i)
		}
	}
	if len(x.slots) != n {
		return nil, nil, errDamagedCache
	}
	for s := range nseg {
		c := rows
		if s == nseg-1 {
			c = last
		}
		x.segs = append(x.segs, unsafe.Slice((*int8)(unsafe.Pointer(&data[off])), c*dim))
		off += c * dim
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

// checkVectorCache compares the vector cache, if it claims to reflect the
// database's vectors, with them: it returns how many vectors differ (or are
// missing from one side), and whether the cache is damaged.
func (s *Store) checkVectorCache(ctx context.Context, info EmbedderInfo) (differ int, damaged bool, err error) {
	if _, err := os.Stat(filepath.Join(s.dir, cacheFile)); err != nil {
		return 0, false, nil
	}
	db, err := s.loadVectors(ctx)
	if err != nil {
		return 0, false, err
	}
	if db.dim != info.Dim {
		return 0, false, nil
	}
	cached, release, err := s.readVectorCache(db.gen.Load(), info.Name, info.Dim)
	switch {
	case errors.Is(err, errDamagedCache):
		return 0, true, nil
	case err != nil:
		return 0, false, nil // stale or unreadable: not used
	}
	defer release()
	a, b := make([]int8, db.dim), make([]int8, db.dim)
	for r, slot := range cached.slots {
		other, ok := db.slots[r]
		if !ok {
			differ++
			continue
		}
		qa, sa := cached.vector(int(slot), a)
		qb, sb := db.vector(int(other), b)
		if sa != sb || !slices.Equal(qa, qb) {
			differ++
		}
	}
	for r := range db.slots {
		if _, ok := cached.slots[r]; !ok {
			differ++
		}
	}
	return differ, false, nil
}

// deleteVectorCache removes the vector cache and forgets the vectors read
// from it.
func (s *Store) deleteVectorCache() error {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	s.vectors, s.cachedGen = nil, 0
	if err := os.Remove(filepath.Join(s.dir, cacheFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
