package normalize

import "strconv"

// listLevel is an open list: HTML <ul>, <ol>, <menu>, <dl>, or a Markdown list.
type listLevel struct {
	ordered bool
	num     int  // number of the current item of an ordered list
	delim   byte // '.' or ')' after the number
	bullets int  // bullet lists open up to this one, this one included
}

// pushList opens a list inside the open ones.
func pushList(lists []listLevel, l listLevel) []listLevel {
	if len(lists) > 0 {
		l.bullets = lists[len(lists)-1].bullets
	}
	if !l.ordered {
		l.bullets++
	}
	return append(lists, l)
}

// bullets mark the items of bullet lists, by depth of bullet-list nesting.
var bullets = [...]string{"• ", "◦ ", "▪ "}

// itemMarker appends the marker of the current item of the innermost list
// in lists to dst. Bullet items get "• ", "◦ ", "▪ " by depth (the
// normalized text cannot indent: no line starts with a space). Ordered items
// get their number, prefixed by the numbers of directly enclosing ordered
// items (three levels at most), so nesting stays readable: "2. ", then
// "2.1. ", "2.2. ".
func itemMarker(dst []byte, lists []listLevel) []byte {
	n := len(lists)
	if n == 0 || !lists[n-1].ordered {
		depth := 1
		if n > 0 {
			depth = lists[n-1].bullets
		}
		return append(dst, bullets[(depth-1)%len(bullets)]...)
	}
	first := n - 1
	for first > 0 && first > n-3 && lists[first-1].ordered {
		first--
	}
	for i := first; i < n; i++ {
		if i > first {
			dst = append(dst, '.')
		}
		dst = strconv.AppendInt(dst, int64(lists[i].num), 10)
	}
	delim := lists[n-1].delim
	if delim == 0 {
		delim = '.'
	}
	return append(dst, delim, ' ')
}
