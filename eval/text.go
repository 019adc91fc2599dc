package eval

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ShingleWords is how many consecutive words a hit must share with the
// gold passage to be judged right by text ([Options.ByText]); a passage
// shorter than that must be in the hit whole.
const ShingleWords = 8

// Words splits s into its words, lowercased: the runs of letters and
// digits, so that one text written in two formats (quotes curled, dashes
// and line breaks changed, ligatures folded by the reader) gives the same
// words.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Article is the article a document holds: its file name without the
// extension, the same for an article in every format.
func Article(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// shingles returns the hashes of the runs of k consecutive words of s
// (one run, of all of them, when s has fewer than k words).
func shingles(words []string, k int) map[uint64]struct{} {
	k = min(k, len(words))
	out := map[uint64]struct{}{}
	if k == 0 {
		return out
	}
	h := fnv.New64a()
	for i := 0; i+k <= len(words); i++ {
		h.Reset()
		for _, w := range words[i : i+k] {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		out[h.Sum64()] = struct{}{}
	}
	return out
}

// textJudge judges a hit by its article and words: the way to compare
// one set written in several formats, whose spans differ.
type textJudge struct {
	passages map[string]passageWords // by question id
	chunks   map[string]chunkWords   // by chunk text
	files    map[string][]byte       // gold articles read so far
}

type passageWords struct {
	article  string
	k        int
	shingles map[uint64]struct{}
}

type chunkWords struct {
	words []string
	byK   map[int]map[uint64]struct{}
}

func newTextJudge() *textJudge {
	return &textJudge{passages: map[string]passageWords{}, chunks: map[string]chunkWords{}, files: map[string][]byte{}}
}

// passage returns q's gold passage as words, read from its article.
func (j *textJudge) passage(q Question) (passageWords, error) {
	if p, ok := j.passages[q.ID]; ok {
		return p, nil
	}
	data, ok := j.files[q.Doc]
	if !ok {
		var err error
		if data, err = os.ReadFile(q.Doc); err != nil {
			return passageWords{}, fmt.Errorf("question %s: read its article: %w", q.ID, err)
		}
		j.files[q.Doc] = data
	}
	if q.Start < 0 || q.End > len(data) {
		return passageWords{}, fmt.Errorf("question %s: passage bytes %d-%d outside %s (%d bytes)", q.ID, q.Start, q.End, q.Doc, len(data))
	}
	w := Words(string(data[q.Start:q.End]))
	p := passageWords{article: Article(q.Doc), k: min(ShingleWords, len(w)), shingles: shingles(w, ShingleWords)}
	j.passages[q.ID] = p
	return p, nil
}

// right reports whether a chunk of the document at path, of the given
// text, is from q's article and shares a run of words with its passage.
func (j *textJudge) right(q Question, path, text string) (bool, error) {
	p, err := j.passage(q)
	if err != nil || Article(path) != p.article || p.k == 0 {
		return false, err
	}
	c, ok := j.chunks[text]
	if !ok {
		c = chunkWords{words: Words(text), byK: map[int]map[uint64]struct{}{}}
		j.chunks[text] = c
	}
	sh, ok := c.byK[p.k]
	if !ok {
		sh = shingles(c.words, p.k)
		if len(c.words) < p.k {
			sh = nil // a chunk shorter than the run cannot hold it
		}
		c.byK[p.k] = sh
	}
	for h := range p.shingles {
		if _, ok := sh[h]; ok {
			return true, nil
		}
	}
	return false, nil
}
