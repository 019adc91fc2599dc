package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cite-rag/cite/index/analysis"
)

// cue is the kind of answer a question asks for.
type cue int

const (
	cueNone   cue = iota
	cueNumber     // how many, how much, what percentage
	cueDate       // when, what year
	cueName       // who, whom, whose
	cuePlace      // where: a name after in, at, near...
)

func questionCue(q string) cue {
	ws := strings.Fields(strings.ToLower(q))
	has := func(seq ...string) bool {
		for i := 0; i+len(seq) <= len(ws); i++ {
			ok := true
			for j, s := range seq {
				if strings.Trim(ws[i+j], "?,.\"'") != s {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("how", "many"), has("how", "much"), has("what", "percentage"), has("what", "percent"),
		has("how", "long"), has("how", "old"), has("how", "far"), has("how", "large"), has("how", "big"), has("how", "high"):
		return cueNumber
	case has("when"), has("what", "year"), has("which", "year"), has("what", "century"), has("what", "date"), has("what", "decade"):
		return cueDate
	case has("who"), has("whom"), has("whose"):
		return cueName
	case has("where"):
		return cuePlace
	}
	// "what day", "which company": the word after the question word.
	for i, w := range ws[:max(len(ws)-1, 0)] {
		if w != "what" && w != "which" {
			continue
		}
		if c, ok := headCues[strings.Trim(ws[i+1], "?,.\"'")]; ok {
			return c
		}
		break
	}
	return cueNone
}

// headCues are the kinds of answer of "what X" and "which X" questions.
var headCues = map[string]cue{
	"day": cueDate, "month": cueDate, "date": cueDate, "period": cueDate, "era": cueDate, "time": cueDate, "years": cueDate,
	"number": cueNumber, "amount": cueNumber, "size": cueNumber, "population": cueNumber, "age": cueNumber,
	"cost": cueNumber, "price": cueNumber, "temperature": cueNumber, "distance": cueNumber, "length": cueNumber,
	"height": cueNumber, "rate": cueNumber, "score": cueNumber, "speed": cueNumber, "weight": cueNumber,
	"company": cueName, "country": cueName, "team": cueName, "city": cueName, "network": cueName,
	"person": cueName, "player": cueName, "doctor": cueName, "group": cueName, "language": cueName,
	"university": cueName, "organization": cueName, "state": cueName, "river": cueName, "town": cueName,
	"station": cueName, "channel": cueName, "dynasty": cueName, "band": cueName, "king": cueName,
	"president": cueName, "emperor": cueName, "church": cueName, "island": cueName, "region": cueName,
	"nationality": cueName, "venue": cueName, "stadium": cueName, "author": cueName, "scientist": cueName,
}

var numberWords = map[string]bool{
	"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "twenty": true,
	"thirty": true, "forty": true, "fifty": true, "hundred": true, "hundreds": true, "thousand": true,
	"thousands": true, "million": true, "millions": true, "billion": true, "dozen": true, "half": true,
}

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"century": true, "centuries": true, "decade": true, "bc": true, "ad": true, "bce": true, "ce": true,
}

// foldedWords returns the lower-cased words of s.
func foldedWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[strings.ToLower(w)] = true
	}
	return m
}

// words returns the runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) })
}

// hasCue reports whether sentence holds a new answer of kind c: a word the
// question does not contain that is a number, a date or a name.
func hasCue(sentence string, c cue, qwords map[string]bool) bool {
	ws := words(sentence)
	for i, w := range ws {
		if !qwords[strings.ToLower(w)] && isCue(ws, i, c) {
			return true
		}
	}
	return false
}

// cueNear reports whether the sentence with tokens toks of text holds a new
// answer of kind c within win words of a term of the question.
func cueNear(text string, toks []analysis.Token, c cue, qwords map[string]bool, qterms map[string]struct{}, win int) bool {
	ws := wordsOf(text, toks)
	lastQ, lastCue := -win-1, -win-1
	for i, t := range toks {
		if _, ok := qterms[t.Term]; ok {
			lastQ = i
			if i-lastCue <= win {
				return true
			}
			continue
		}
		if !qwords[strings.ToLower(ws[i])] && isCue(ws, i, c) {
			lastCue = i
			if i-lastQ <= win {
				return true
			}
		}
	}
	return false
}

// isCue reports whether ws[i], a word of a sentence as written, is an
// answer of kind c: a number, a date, a name (not the sentence's first
// word) or, for a place, a name after a locative ("in", "at").
func isCue(ws []string, i int, c cue) bool {
	w := ws[i]
	lw := strings.ToLower(w)
	first, _ := utf8.DecodeRuneInString(w)
	switch c {
	case cueNumber:
		return unicode.IsDigit(first) || numberWords[lw]
	case cueDate:
		return months[lw] || isYear(w)
	case cueName:
		return i > 0 && unicode.IsUpper(first)
	case cuePlace:
		return i > 0 && unicode.IsUpper(first) && locative(ws[max(i-2, 0):i])
	}
	return false
}

func isYear(w string) bool {
	if len(w) < 3 || len(w) > 4 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// locatives are the words before a place's name.
var locatives = map[string]bool{"in": true, "at": true, "near": true, "from": true, "to": true, "into": true, "on": true, "of": true, "across": true}

// locative reports whether one of ws is a locative.
func locative(ws []string) bool {
	for _, w := range ws {
		if locatives[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// wordsOf returns the words of toks in text.
func wordsOf(text string, toks []analysis.Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = text[t.Start:t.End]
	}
	return out
}
