//go:build ignore

// gen writes related.txt, the table of package lexicon, from the WordNet
// 3.0 database files in the folder -dict (Debian's wordnet-base installs
// them in /usr/share/wordnet):
//
//	go run gen.go -dict /usr/share/wordnet
//
// Each word is related to the other words of the synsets of its two most
// frequent senses (synonyms) and to the words its derivationally related
// forms point to ("+" pointers). Only words of lower-case letters are kept;
// multi-word lemmas are left out. The table holds them as terms, stemmed by
// package analysis: after a line naming the analyzer's version, one line a
// term, sorted, with the terms related to it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cite-rag/cite/index/analysis"
)

// senses is how many of a word's most frequent senses give synonyms.
const senses = 2

var (
	dict = flag.String("dict", "/usr/share/wordnet", "folder of the WordNet database files")
	out  = flag.String("o", "related.txt", "file to write")
)

var plain = regexp.MustCompile(`^[a-z]{2,}$`)

func main() {
	flag.Parse()
	poses := []string{"noun", "verb", "adj", "adv"}
	posOf := map[string]string{"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
	// The words of every synset, by part of speech and offset.
	words := map[string][]string{}
	eachLine := func(name string, fn func(fields []string)) {
		f, err := os.Open(filepath.Join(*dict, name))
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, " ") { // the license header
				continue
			}
			if i := strings.Index(l, "|"); i >= 0 { // the gloss
				l = l[:i]
			}
			fn(strings.Fields(l))
		}
		if err := sc.Err(); err != nil {
			log.Fatal(err)
		}
	}
	for _, pos := range poses {
		eachLine("data."+pos, func(fs []string) {
			n, _ := strconv.ParseInt(fs[3], 16, 32)
			for i := range int(n) {
				words[pos+fs[0]] = append(words[pos+fs[0]], strings.ToLower(fs[4+2*i]))
			}
		})
	}
	related := map[string]map[string]bool{}
	add := func(a, b string) {
		if a == b || !plain.MatchString(a) || !plain.MatchString(b) {
			return
		}
		if related[a] == nil {
			related[a] = map[string]bool{}
		}
		related[a][b] = true
	}
	for _, pos := range poses {
		// The synsets of each word's most frequent senses (index files list
		// a word's synsets most frequent first).
		top := map[string]bool{}
		eachLine("index."+pos, func(fs []string) {
			pc, _ := strconv.Atoi(fs[3])
			for i, off := range fs[4+pc+2:] {
				if i < senses {
					top[fs[0]+"/"+off] = true
				}
			}
		})
		eachLine("data."+pos, func(fs []string) {
			ws := words[pos+fs[0]]
			for _, a := range ws {
				if top[a+"/"+fs[0]] {
					for _, b := range ws {
						add(a, b)
					}
				}
			}
			k := 4 + 2*len(ws)
			pc, _ := strconv.Atoi(fs[k])
			for p := range pc {
				sym, off, tpos, st := fs[k+1+4*p], fs[k+2+4*p], fs[k+3+4*p], fs[k+4+4*p]
				if sym != "+" || st == "0000" {
					continue
				}
				src, _ := strconv.ParseInt(st[:2], 16, 32)
				dst, _ := strconv.ParseInt(st[2:], 16, 32)
				tw := words[posOf[tpos]+off]
				if src >= 1 && int(src) <= len(ws) && dst >= 1 && int(dst) <= len(tw) {
					add(ws[src-1], tw[dst-1])
				}
			}
		})
	}
	// Stem both sides; a word stemming to several terms, or to the term
	// it is related to, is left out.
	term := func(w string) string {
		if ts := analysis.Analyze(w); len(ts) == 1 {
			return ts[0]
		}
		return ""
	}
	terms := map[string]map[string]bool{}
	for a, rs := range related {
		ta := term(a)
		if ta == "" {
			continue
		}
		for b := range rs {
			if tb := term(b); tb != "" && tb != ta {
				if terms[ta] == nil {
					terms[ta] = map[string]bool{}
				}
				terms[ta][tb] = true
			}
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# analysis %d: WordNet 3.0 relations by gen.go (see LICENSE-WORDNET)\n", analysis.Version)
	keys := make([]string, 0, len(terms))
	for k := range terms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pairs := 0
	for _, k := range keys {
		rs := make([]string, 0, len(terms[k]))
		for r := range terms[k] {
			rs = append(rs, r)
		}
		slices.Sort(rs)
		pairs += len(rs)
		fmt.Fprintf(w, "%s %s\n", k, strings.Join(rs, " "))
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d terms, %d relations", len(keys), pairs)
}
