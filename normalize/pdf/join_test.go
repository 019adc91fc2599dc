package pdf

import "testing"

func TestJoin(t *testing.T) {
	l := &layout{words: map[string]bool{"extraordinary": true, "well": true, "known": true, "co": true, "operate": true}}
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"an extra\u2010", "ordinary day"}, "an extraordinary day"},       // Chromium's hyphenation
		{[]string{"an extra\u00ad\u2010", "ordinary day"}, "an extraordinary day"}, // after a soft hyphen
		{[]string{"an extra-", "ordinary day"}, "an extraordinary day"},            // the document uses the word whole
		{[]string{"a well-", "known tale"}, "a well-known tale"},                   // "well" is a word: the hyphen stays
		{[]string{"we co-", "operate"}, "we co-operate"},
		{[]string{"incompre-", "hensible now"}, "incomprehensible now"}, // neither part is a word of the document
		{[]string{"the Anglo-", "Saxon tale"}, "the Anglo-Saxon tale"},
		{[]string{"pages 3-", "5 and"}, "pages 3- 5 and"},
		{[]string{"a 12–", "4 record"}, "a 12–4 record"}, // Chromium breaks after an en dash
		{[]string{"the war—", "then peace"}, "the war—then peace"},
		{[]string{"the war –", "then peace"}, "the war – then peace"}, // a spaced dash stays spaced
		{[]string{"–", "then"}, "– then"},
		{[]string{"ex\u00adtra\u00adordinary", "day"}, "extraordinary day"},
		{[]string{"one", "", "two"}, "one two"},
	} {
		if got := l.join(c.lines); got != c.want {
			t.Errorf("join(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}
