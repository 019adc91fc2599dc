package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cite-rag/cite/chunk"
	"github.com/cite-rag/cite/normalize"
)

// corpusVersion changes whenever [Corpus.Vary] would write other text, so
// that corpora materialized by an earlier version are made again.
const corpusVersion = 1

// Corpus is a folder of Markdown files, the seed of the benchmark's
// collections: copy 0 is the files as they are, every other copy the same
// files with their text varied ([Corpus.Vary]).
type Corpus struct {
	Dir   string
	Files []CorpusFile // sorted by name
	Bytes int64        // of all files
	// Chunks is the number of chunks of all files, as cite index cuts them.
	Chunks int

	vocab []string       // words by descending frequency
	rank  map[string]int // word -> index in vocab
}

// CorpusFile is one Markdown file of a [Corpus].
type CorpusFile struct {
	Name   string // slash-separated, relative to the corpus folder
	Size   int64
	Chunks int // as cite index cuts the original
}

// LoadCorpus reads the Markdown files (.md) under dir, leaving out hidden
// folders and files as cite index does, counts their chunks and learns
// their vocabulary.
func LoadCorpus(ctx context.Context, dir string) (*Corpus, error) {
	c := &Corpus{Dir: dir, rank: map[string]int{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		c.Files = append(c.Files, CorpusFile{Name: filepath.ToSlash(rel), Size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	if len(c.Files) == 0 {
		return nil, fmt.Errorf("corpus %s: no Markdown files", dir)
	}
	slices.SortFunc(c.Files, func(a, b CorpusFile) int { return strings.Compare(a.Name, b.Name) })
	sp, err := chunk.New(chunk.Options{})
	if err != nil {
		return nil, err
	}
	// Count chunks in parallel; words in one map per worker.
	workers := runtime.GOMAXPROCS(0)
	counts := make([]map[string]int, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		counts[w] = map[string]int{}
		wg.Go(func() {
			for i := w; i < len(c.Files); i += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				f := &c.Files[i]
				src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
				if err != nil {
					errs[w] = fmt.Errorf("corpus: %w", err)
					return
				}
				f.Chunks = chunksOf(sp, src)
				eachWord(src, func(word []byte) { counts[w][strings.ToLower(string(word))]++ })
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	freq := counts[0]
	for _, m := range counts[1:] {
		for w, n := range m {
			freq[w] += n
		}
	}
	for _, f := range c.Files {
		c.Bytes += f.Size
		c.Chunks += f.Chunks
	}
	for w := range freq {
		c.vocab = append(c.vocab, w)
	}
	slices.SortFunc(c.vocab, func(a, b string) int {
		if freq[a] != freq[b] {
			return freq[b] - freq[a]
		}
		return strings.Compare(a, b)
	})
	for i, w := range c.vocab {
		c.rank[w] = i
	}
	return c, nil
}

// chunksOf counts the chunks cite index cuts a Markdown file into.
func chunksOf(sp *chunk.Splitter, src []byte) int {
	nd := normalize.FromMarkdown(src)
	if nd.Text == "" {
		return 0
	}
	hs := make([]chunk.Heading, len(nd.Headings))
	for i, h := range nd.Headings {
		hs[i] = chunk.Heading{Offset: h.Offset, Level: h.Level, Text: h.Text}
	}
	cs, _ := sp.Split(nd.Text, hs)
	return len(cs)
}

// eachWord calls fn with every run of ASCII letters of src (at least two).
func eachWord(src []byte, fn func(w []byte)) {
	start := -1
	for i := 0; i <= len(src); i++ {
		if i < len(src) && isLetter(src[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 2 {
			fn(src[start:i])
		}
		start = -1
	}
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// Variation rates of [Corpus.Vary].
const (
	swapRate   = 0.10 // of the vocabulary, swapped with a word of nearby frequency rank
	swapSpread = 8    // how far in rank a swapped word goes, either way
	respell    = 0.30 // of the words past the commonest commonWords, respelled for the copy
	common     = 1000
	shuffle    = 0.5 // of lines of two sentences or more, their sentences reordered
)

// Vary returns copy number copyNo of the file name, whose text is src:
// src itself for copy 0; otherwise a deterministic variation of it, the
// same for the same copy, name and text. Within a copy, a tenth of the
// vocabulary is swapped with words of nearby frequency (so that document
// frequencies stay those of a real collection, not multiples of one
// copy's), 30% of the words beyond the 1,000 commonest are respelled (so
// that the vocabulary grows with the collection, as real ones do), and
// half the prose lines of two sentences or more have their sentences
// reordered. Code blocks are left as they are; Markdown markup is kept.
func (c *Corpus) Vary(src []byte, copyNo int, name string) []byte {
	if copyNo == 0 {
		return src
	}
	seed := uint64(copyNo)*0x9e3779b97f4a7c15 ^ hashString(name)
	rng := rand.New(rand.NewPCG(seed, uint64(copyNo)))
	out := make([]byte, 0, len(src)+len(src)/16)
	fence := false
	var lower []byte
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, len(src)+1)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if !first {
			out = append(out, '\n')
		}
		first = false
		trimmed := bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~")) {
			fence = !fence
			out = append(out, line...)
			continue
		}
		if fence {
			out = append(out, line...)
			continue
		}
		if isProse(line) && rng.Float64() < shuffle {
			line = shuffleSentences(line, rng)
		}
		// Substitute words.
		last := 0
		eachWord(line, func(w []byte) {
			i := int(offsetOf(line, w))
			out = append(out, line[last:i]...)
			last = i + len(w)
			lower = append(lower[:0], w...)
			for k, b := range lower {
				lower[k] = b | 0x20
			}
			out = c.substitute(out, w, lower, copyNo)
		})
		out = append(out, line[last:]...)
	}
	if len(src) > 0 && src[len(src)-1] == '\n' {
		out = append(out, '\n')
	}
	return out
}

// offsetOf returns the offset of sub, a subslice of s, in s.
func offsetOf(s, sub []byte) int {
	return cap(s) - cap(sub)
}

// substitute appends the copy's word for w (lower is w in lower case).
func (c *Corpus) substitute(out, w, lower []byte, copyNo int) []byte {
	r, ok := c.rank[string(lower)]
	if !ok {
		return append(out, w...)
	}
	h := hashWord(lower, copyNo)
	var repl string
	switch {
	case float64(h%10000)/10000 < swapRate:
		d := int(h>>20)%(2*swapSpread+1) - swapSpread
		if d == 0 {
			d = 1
		}
		j := min(max(r+d, 0), len(c.vocab)-1)
		repl = c.vocab[j]
	case r >= common && float64((h>>40)%10000)/10000 < respell:
		return appendCase(out, respelled(lower, copyNo), w)
	default:
		return append(out, w...)
	}
	return appendCase(out, []byte(repl), w)
}

// respelled is word with its last letters changed by copyNo, a new word
// of the same length class.
func respelled(word []byte, copyNo int) []byte {
	out := slices.Clone(word)
	n := copyNo
	for i := len(out) - 1; i >= 0 && n > 0; i-- {
		out[i] = 'a' + byte((int(out[i]-'a')+n%26)%26)
		n /= 26
	}
	return out
}

// appendCase appends repl with the case pattern of like: capitalized or
// all upper case.
func appendCase(out, repl, like []byte) []byte {
	upperFirst := like[0] < 'a'
	allUpper := upperFirst && len(like) > 1 && like[1] < 'a'
	for i, b := range repl {
		if (i == 0 && upperFirst) || allUpper {
			b &^= 0x20
		}
		out = append(out, b)
	}
	return out
}

// isProse reports whether a line is ordinary text: not a heading, list
// item, quote, table row, indented code or HTML.
func isProse(line []byte) bool {
	if len(line) == 0 || line[0] == ' ' || line[0] == '\t' {
		return false
	}
	switch line[0] {
	case '#', '|', '>', '<', '-', '*', '+', '!', '[', ':', '=':
		return false
	}
	return line[0] < '0' || line[0] > '9'
}

// shuffleSentences reorders the sentences of a line (split after ". ").
func shuffleSentences(line []byte, rng *rand.Rand) []byte {
	parts := bytes.SplitAfter(line, []byte(". "))
	if len(parts) < 2 {
		return line
	}
	// The last part lacks the separator; give it one, and take it back.
	last := parts[len(parts)-1]
	parts[len(parts)-1] = append(slices.Clone(bytes.TrimRight(last, " ")), ' ')
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	out := bytes.Join(parts, nil)
	return bytes.TrimRight(out, " ")
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// hashWord mixes a word with a copy number (FNV-1a, then a finalizer).
func hashWord(w []byte, copyNo int) uint64 {
	h := uint64(14695981039346656037) ^ uint64(copyNo)*0x9e3779b97f4a7c15
	for _, b := range w {
		h ^= uint64(b)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// Materialize writes the files of a collection of about n chunks into
// dir/corpus-vV-N (once: a later call finds it done): copy 0 of every
// file, then copy 1, ..., in the order of [Corpus.Files], until the
// chunks of the originals add up to n. Copy k of a file is at ck/NAME.
// It returns the folder and the number of files and bytes in it.
func (c *Corpus) Materialize(ctx context.Context, dir string, n int) (root string, files int, size int64, err error) {
	root = filepath.Join(dir, fmt.Sprintf("corpus-v%d-%d", corpusVersion, n))
	done := filepath.Join(root, ".done")
	if b, err := os.ReadFile(done); err == nil {
		if _, err := fmt.Sscan(string(b), &files, &size); err == nil {
			return root, files, size, nil
		}
	}
	if err := os.RemoveAll(root); err != nil {
		return "", 0, 0, err
	}
	total := 0
	for copyNo := 0; total < n; copyNo++ {
		for _, f := range c.Files {
			if total >= n {
				break
			}
			if err := ctx.Err(); err != nil {
				return "", 0, 0, err
			}
			src, err := os.ReadFile(filepath.Join(c.Dir, filepath.FromSlash(f.Name)))
			if err != nil {
				return "", 0, 0, fmt.Errorf("corpus: %w", err)
			}
			out := c.Vary(src, copyNo, f.Name)
			p := filepath.Join(root, fmt.Sprintf("c%d", copyNo), filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return "", 0, 0, err
			}
			if err := os.WriteFile(p, out, 0o644); err != nil {
				return "", 0, 0, err
			}
			files++
			size += int64(len(out))
			total += f.Chunks
		}
		if total == 0 {
			return "", 0, 0, fmt.Errorf("corpus %s: no chunks", c.Dir)
		}
	}
	if err := os.WriteFile(done, fmt.Appendf(nil, "%d %d\n", files, size), 0o644); err != nil {
		return "", 0, 0, err
	}
	return root, files, size, nil
}
