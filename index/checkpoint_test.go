package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/index/embed"
)

// TestCheckpointer: a writable store's commits write the log only (a
// commit of more pages than SQLite's automatic checkpoint lets by leaves
// the database file as it was), and its checkpointer folds the log into
// the file beside the writer; a reader sees every batch once committed
// meanwhile; the log stays within walLimit and a batch while the writer
// writes on; and Close leaves no log and a clean-close record, so that the
// next checked open skips quick_check.
func TestCheckpointer(t *testing.T) {
	if _, ok := statFile(os.Args[0]); !ok {
		t.Skip("no file stamps on this system")
	}
	defer func(l int64) { walLimit = l }(walLimit)
	walLimit = 256 << 10
	ctx := t.Context()
	e, err := embed.New("hash:2048", embed.Config{}) // 8 KB vectors: big batches
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "idx")
	file := filepath.Join(dir, dbFile)
	size := func(name string) int64 {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	put := func(st *Store, path string, chunks int) int64 {
		var cs []Chunk
		off := 0
		for i := range chunks {
			text := fmt.Sprintf("chunk %d of %s: %s", i, path, strings.Repeat("words to index ", 20))
			v, err := e.EmbedDocuments(ctx, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, Chunk{Chunk: chunk.Chunk{Ordinal: i, Text: text, Tokens: 1, Start: off, End: off + len(text)}, SourceStart: off, SourceEnd: off + len(text), Vector: v[0]})
			off += len(text)
		}
		doc := &Document{Source: "s", Path: path, Title: path, Type: "text", Hash: "h", Pipeline: "p", TextBytes: off}
		if _, err := st.PutDocument(ctx, doc, cs); err != nil {
			t.Fatal(err)
		}
		return int64(off + chunks*8192)
	}

	st, err := Open(ctx, dir, Options{Create: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UseEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	st.ckpt.wait()
	st.ckpt.close()
	before := size(file)
	put(st, "/big.txt", 1500) // more than 1,000 pages
	if now := size(file); now != before {
		t.Fatalf("a commit wrote the database file: %d bytes, %d before", now, before)
	}
	if size(file+"-wal") < 1000*4096 {
		t.Fatalf("the commit's pages are not in the log: %d bytes", size(file+"-wal"))
	}
	st.ckpt = startCheckpointer(st, writeDSN(file))
	st.ckpt.committed()
	st.ckpt.wait()
	if now := size(file); now < before+1000*4096 {
		t.Fatalf("the checkpointer did not fold the log into the file: %d bytes, %d before", now, before)
	}

	var most int64
	for i := range 15 {
		most = max(most, put(st, fmt.Sprintf("/a%02d.txt", i), 40))
		if wal := size(file + "-wal"); wal > walLimit+2*most {
			t.Fatalf("after batch %d the log holds %d bytes, more than %d and two batches (%d)", i, wal, walLimit, most)
		}
	}
	// A reader reads while the checkpointer copies.
	r, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 15 {
		put(st, fmt.Sprintf("/b%02d.txt", i), 40)
		docs, err := r.Documents(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 17+i {
			t.Fatalf("after batch %d a reader sees %d documents, want %d", i, len(docs), 17+i)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !walEmpty(file) {
		t.Fatal("a log is left after Close")
	}
	st, err = Open(ctx, dir, Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.QuickChecked() {
		t.Error("the open after a clean close ran quick_check")
	}
	if docs, err := st.Documents(ctx, ""); err != nil || len(docs) != 31 {
		t.Errorf("%d documents after reopening, want 31 (%v)", len(docs), err)
	}
}
