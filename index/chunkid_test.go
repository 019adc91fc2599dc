package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cite-rag/cite/internal/testenv"
)

// refChunkID is ChunkID as it was first written: the parts written to a
// sha256 hash.Hash one by one.
func refChunkID(documentID, text string, repeat int) string {
	h := sha256.New()
	h.Write([]byte(documentID))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(repeat))
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func checkChunkID(t *testing.T, documentID, text string, repeat int) {
	t.Helper()
	if got, want := ChunkID(documentID, text, repeat), refChunkID(documentID, text, repeat); got != want {
		t.Fatalf("ChunkID(%q, %.40q, %d) = %s, want %s", documentID, text, repeat, got, want)
	}
}

// TestChunkID checks ChunkID, and AssignIDs's ids, against the hash as
// first written: on short and empty parts, texts of every length around
// sha256's 64-byte blocks, repeats, a text longer than the buffers kept
// (so that the buffer used next is a new one), and the corpus's chunks.
func TestChunkID(t *testing.T) {
	for _, c := range []struct {
		doc, text string
		repeat    int
	}{
		{"", "", 0}, {"d", "", 0}, {"", "t", 0}, {"0123456789abcdef", "text", 0}, {"0123456789abcdef", "text", 1},
		{"0123456789abcdef", "text", -1}, {"a\x00b", "\x00", 1 << 40}, {"d", strings.Repeat("é", 70<<10), 3},
	} {
		checkChunkID(t, c.doc, c.text, c.repeat)
	}
	for n := range 300 {
		checkChunkID(t, "0123456789abcdef", strings.Repeat("x", n), n%3)
	}
	sample := testenv.MarkdownSample(t, 1<<20)
	texts := testenv.SplitAtSpace(sample, 2100)
	texts = append(texts, texts[:5]...) // repeated texts
	doc := &Document{Source: "s", Path: "/p.md"}
	chunks := make([]Chunk, len(texts))
	for i, text := range texts {
		chunks[i].Text = text
	}
	AssignIDs(doc, chunks)
	repeats := map[string]int{}
	for _, c := range chunks {
		if want := refChunkID(doc.ID, c.Text, repeats[c.Text]); c.ID != want || c.DocumentID != doc.ID {
			t.Fatalf("AssignIDs: chunk %.40q of repeat %d has id %s of document %s, want %s of %s", c.Text, repeats[c.Text], c.ID, c.DocumentID, want, doc.ID)
		}
		repeats[c.Text]++
	}
}

func FuzzChunkID(f *testing.F) {
	f.Add("0123456789abcdef", "a chunk's text", 0)
	f.Add("", "", 1)
	f.Add("d\x00", strings.Repeat("y", 119), -7)
	f.Fuzz(func(t *testing.T, documentID, text string, repeat int) { checkChunkID(t, documentID, text, repeat) })
}

// TestAssignIDsAgain: AssignIDs again on chunks it gave ids keeps them
// without hashing, and gives the right id to chunks whose document, text,
// repeat or id changed since.
func TestAssignIDsAgain(t *testing.T) {
	doc := &Document{Source: "s", Path: "/p.md"}
	chunks := make([]Chunk, 6)
	for i, text := range []string{"a", "b", "a", "c", "d", "e"} {
		chunks[i].Text = text
	}
	check := func(name string) {
		t.Helper()
		repeats := map[string]int{}
		for i, c := range chunks {
			if want := refChunkID(doc.ID, c.Text, repeats[c.Text]); c.ID != want || c.DocumentID != doc.ID {
				t.Fatalf("%s: chunk %d (%q) has id %s of %s, want %s of %s", name, i, c.Text, c.ID, c.DocumentID, want, doc.ID)
			}
			repeats[c.Text]++
		}
	}
	AssignIDs(doc, chunks)
	check("first")
	AssignIDs(doc, chunks)
	check("again")
	chunks[3].Text = "c, edited"  // text
	chunks[4].ID = "0123456789ab" // id
	chunks[1].Text = "a"          // the repeat of the next "a"
	AssignIDs(doc, chunks)
	check("changed")
	doc.Path = "/q.md" // document
	AssignIDs(doc, chunks)
	check("moved")
}
