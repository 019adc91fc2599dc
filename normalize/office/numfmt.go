package office

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A number format code (SpreadsheetML's formatCode, ECMA-376 Part 1,
// 18.8.31) says how a cell shows its number: "#,##0.00", "[$$-409]#,##0.00",
// "0.0%", "[h]:mm:ss", "# ?/?", "0.00E+00", up to four sections separated
// by ";" (positive, negative, zero, text) or two with conditions
// ("[>=100]"). [parseNumFormat] parses one; [numFormat.number] renders a
// number the way the spreadsheet shows it, with "." and "," as the decimal
// and thousands separators (as LibreOffice and Excel show them in an
// English locale: the code does not say the reader's). A date is shown as
// its ISO date (2006-01-02, with the time of day when the format has one),
// whatever the format's order, so that dates read and sort the same in
// every workbook.
//
// excelize (github.com/xuri/excelize/v2) renders format codes too, but only
// through File.GetCellValue on a workbook it reads itself (its renderer,
// numfmt.go's format, is not exported), which would read every workbook a
// second time, without this package's limits, and bring eight modules
// (xuri/nfp, xuri/efp, mscfb, go-deepcopy, x/crypto, ...): cite renders them
// here, checked against LibreOffice (numfmt_test.go).

// maxFormatCode bounds the format code parsed: longer ones are General.
const maxFormatCode = 512

// numFormat is a parsed number format code.
type numFormat struct {
	sections []fmtSection
	text     int // the section for text ("@"), or -1
}

// fmtSection is one section of a format code.
type fmtSection struct {
	toks []fmtTok
	cond *fmtCond
	kind sectionKind
	// seconds: a date section shows the seconds.
	seconds bool
	// For numbers: how the number is scaled and laid out.
	percent  int // "%" count: ×100 each
	scale    int // trailing "," after the digits: ÷1000 each
	thousand bool
	point    int // index of the decimal point token, or -1
	exp      int // index of the exponent token, or -1
	slash    int // index of the fraction's slash, or -1
	// sep are the separators of the section's language ([$-407], an ODS
	// style's number:language), nil for "." and ",".
	sep *separators
}

type sectionKind uint8

const (
	kindNumber  sectionKind = iota
	kindGeneral             // "General"
	kindDate                // a date (with or without a time): ISO
	kindTime                // a time of day or an elapsed time, shown by the code
	kindText                // "@" and literals only
)

type fmtCond struct {
	op string
	v  float64
}

func (c *fmtCond) match(n float64) bool {
	switch c.op {
	case "<":
		return n < c.v
	case "<=":
		return n <= c.v
	case ">":
		return n > c.v
	case ">=":
		return n >= c.v
	case "=":
		return n == c.v
	case "<>":
		return n != c.v
	}
	return false
}

// fmtTok is a token of a section.
type fmtTok struct {
	kind tokKind
	s    string // tokLit: the text; tokDigit: "0", "#" or "?"; tokTime: the code, lowercase; tokExp: "+" or "-"
}

type tokKind uint8

const (
	tokLit     tokKind = iota
	tokDigit           // 0 # ?
	tokPoint           // .
	tokComma           // , (thousands or scaling, told apart after)
	tokPercent         // %
	tokExp             // E+ E-
	tokSlash           // / of a fraction
	tokDenom           // a fraction's fixed denominator
	tokText            // @
	tokGeneral         // General
	tokTime            // h m s, [h] [m] [s], am/pm a/p, fractional seconds (".00")
	tokDate            // y d, m as a month
)

// builtinCodes are the format codes SpreadsheetML numbers without writing
// them (ECMA-376 Part 1, 18.8.30, as an English locale shows them). The
// East Asian dates (27–36, 50–58) are dates or times.
var builtinCodes = map[int]string{
	1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `$#,##0_);($#,##0)`, 6: `$#,##0_);[Red]($#,##0)`, 7: `$#,##0.00_);($#,##0.00)`, 8: `$#,##0.00_);[Red]($#,##0.00)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm",
	27: "yyyy-mm-dd", 28: "yyyy-mm-dd", 29: "yyyy-mm-dd", 30: "yyyy-mm-dd", 31: "yyyy-mm-dd",
	32: "h:mm", 33: "h:mm", 34: "h:mm", 35: "h:mm", 36: "yyyy-mm-dd",
	37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, 42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`, 44: `_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mm:ss.0", 48: "##0.0E+0", 49: "@",
	50: "yyyy-mm-dd", 51: "yyyy-mm-dd", 52: "yyyy-mm-dd", 53: "yyyy-mm-dd", 54: "yyyy-mm-dd",
	55: "h:mm", 56: "h:mm", 57: "yyyy-mm-dd", 58: "yyyy-mm-dd",
}

// builtinFormats are builtinCodes parsed.
var builtinFormats = func() map[int]*numFormat {
	m := make(map[int]*numFormat, len(builtinCodes))
	for id, code := range builtinCodes {
		m[id] = parseNumFormat(code)
	}
	return m
}()

// builtin returns the built-in format numbered id; nil (General) for
// an unknown one.
func builtin(id int) *numFormat { return builtinFormats[id] }

// splitSections splits a format code at the ";" outside quotes, brackets
// and escapes.
func splitSections(code string) []string {
	var out []string
	start := 0
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case '\\', '_', '*':
			i++
		case '[':
			if j := strings.IndexByte(code[i:], ']'); j >= 0 {
				i += j
			} else {
				i = len(code)
			}
		case ';':
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

// parseNumFormat parses a format code; nil for General (or a code too
// long to be one).
func parseNumFormat(code string) *numFormat {
	if len(code) > maxFormatCode || strings.EqualFold(strings.TrimSpace(code), "general") || code == "" {
		return nil
	}
	parts := splitSections(code)
	if len(parts) > 4 {
		parts = parts[:4]
	}
	f := &numFormat{text: -1}
	for _, p := range parts {
		f.sections = append(f.sections, parseSection(p))
	}
	switch {
	case len(f.sections) == 4:
		f.text = 3
	case f.sections[len(f.sections)-1].kind == kindText:
		f.text = len(f.sections) - 1
	}
	return f
}

func parseSection(code string) fmtSection {
	sec := fmtSection{point: -1, exp: -1, slash: -1}
	lit := func(s string) {
		if n := len(sec.toks); n > 0 && sec.toks[n-1].kind == tokLit {
			sec.toks[n-1].s += s
			return
		}
		sec.toks = append(sec.toks, fmtTok{kind: tokLit, s: s})
	}
	add := func(k tokKind, s string) { sec.toks = append(sec.toks, fmtTok{kind: k, s: s}) }
	lower := strings.ToLower(code)
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				lit(code[i+1:])
				i = len(code)
			} else {
				lit(code[i+1 : i+1+j])
				i += j + 1
			}
		case c == '\\':
			if i+1 < len(code) {
				_, n := decodeRune(code[i+1:])
				lit(code[i+1 : i+1+n])
				i += n
			}
		case c == '_':
			if i+1 < len(code) {
				_, n := decodeRune(code[i+1:])
				lit(" ")
				i += n
			}
		case c == '*':
			if i+1 < len(code) {
				_, n := decodeRune(code[i+1:])
				i += n // a fill: no width to fill here
			}
		case c == '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				break
			}
			in := code[i+1 : i+j]
			i += j
			low := strings.ToLower(in)
			switch {
			case low != "" && strings.Trim(low, "hms") == "" && strings.Count(low, low[:1]) == len(low):
				add(tokTime, "["+low+"]")
			case strings.HasPrefix(in, "$"):
				sym, lcid, _ := strings.Cut(in[1:], "-")
				if sym != "" {
					lit(sym)
				}
				// A locale alone ([$-407]) is the section's language; a
				// currency's ([$€-407]) is the currency's, which
				// LibreOffice shows with the reader's separators.
				if id, err := strconv.ParseUint(lcid, 16, 32); err == nil && sym == "" {
					sec.sep = lcidSeparators(uint32(id))
				}
			case low != "" && strings.ContainsRune("<>=", rune(low[0])):
				if cond := parseCond(in); cond != nil {
					sec.cond = cond
				}
			}
			// Colours ([Red], [Color10]), locales, calendars: nothing shown.
		case strings.HasPrefix(lower[i:], "general"):
			add(tokGeneral, "")
			i += len("general") - 1
		case c == '0' || c == '#' || c == '?':
			add(tokDigit, string(c))
		case c == '.':
			if sec.point < 0 && sec.exp < 0 && sec.slash < 0 && hasDigitOrSecond(sec.toks, lower[i+1:]) {
				if n := len(sec.toks); n > 0 && sec.toks[n-1].kind == tokTime && sec.toks[n-1].s[len(sec.toks[n-1].s)-1] == 's' {
					// Fractional seconds: ss.00
					j := i + 1
					for j < len(code) && code[j] == '0' {
						j++
					}
					add(tokTime, "."+code[i+1:j])
					i = j - 1
					break
				}
				sec.point = len(sec.toks)
				add(tokPoint, "")
				break
			}
			lit(".")
		case c == ',':
			add(tokComma, "")
		case c == '%':
			sec.percent++
			add(tokPercent, "")
		case (c == 'E' || c == 'e') && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-') && sec.exp < 0:
			sec.exp = len(sec.toks)
			add(tokExp, code[i+1:i+2])
			i++
		case c == '/' && sec.slash < 0 && afterDigit(sec.toks):
			sec.slash = len(sec.toks)
			add(tokSlash, "")
			j := i + 1
			for j < len(code) && code[j] >= '0' && code[j] <= '9' {
				j++
			}
			if j > i+1 && code[i+1] != '0' {
				add(tokDenom, code[i+1:j])
				i = j - 1
			}
		case c == '@':
			add(tokText, "")
		case strings.HasPrefix(lower[i:], "am/pm"):
			add(tokTime, "am/pm")
			i += 4
		case strings.HasPrefix(lower[i:], "a/p"):
			add(tokTime, "a/p")
			i += 2
		case strings.ContainsRune("ymdhs", rune(lower[i])):
			j := i
			for j < len(lower) && lower[j] == lower[i] {
				j++
			}
			k := tokTime
			if lower[i] == 'y' || lower[i] == 'd' {
				k = tokDate
			}
			add(k, lower[i:j])
			i = j - 1
		default:
			_, n := decodeRune(code[i:])
			lit(code[i : i+n])
			i += n - 1
		}
	}
	sec.classify()
	return sec
}

// decodeRune returns the first character of s and its length in bytes
// (1 for a byte that starts no UTF-8 character).
func decodeRune(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	return r, max(n, 1)
}

// hasDigitOrSecond reports whether a "." is a decimal point: the section
// has digit placeholders before it or after it, or it follows seconds.
func hasDigitOrSecond(toks []fmtTok, rest string) bool {
	for _, t := range toks {
		if t.kind == tokDigit || t.kind == tokGeneral {
			return true
		}
	}
	if n := len(toks); n > 0 && toks[n-1].kind == tokTime && strings.HasSuffix(toks[n-1].s, "s") {
		return true
	}
	return rest != "" && strings.ContainsRune("0#?", rune(rest[0]))
}

// afterDigit reports whether the last token but literals is a digit
// placeholder: a "/" there is a fraction's.
func afterDigit(toks []fmtTok) bool {
	for i := len(toks) - 1; i >= 0; i-- {
		switch toks[i].kind {
		case tokDigit:
			return true
		case tokLit:
			continue
		}
		return false
	}
	return false
}

func parseCond(in string) *fmtCond {
	op := ""
	for _, o := range []string{"<=", ">=", "<>", "<", ">", "="} {
		if strings.HasPrefix(in, o) {
			op = o
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(in[len(op):]), 64)
	if op == "" || err != nil {
		return nil
	}
	return &fmtCond{op: op, v: v}
}

// classify sets the section's kind and, for numbers, tells the commas
// apart: one between digit placeholders of the integer part groups
// thousands, those right after the last digit placeholder before the
// point (or the end) scale by 1000 each, others are text. An "m" is a
// minute after an hour or before a second, else a month.
func (s *fmtSection) classify() {
	date, clock, digits, text, general := false, false, false, false, false
	for i := range s.toks {
		t := &s.toks[i]
		switch t.kind {
		case tokDate:
			date = true
		case tokTime:
			if t.s[0] == 'm' && !s.minuteAt(i) {
				t.kind = tokDate
				date = true
			} else {
				clock = true
			}
		case tokDigit:
			digits = true
		case tokText:
			text = true
		case tokGeneral:
			general = true
		}
	}
	for _, t := range s.toks {
		if t.kind == tokTime && (t.s == "s" || t.s == "ss" || strings.HasPrefix(t.s, "[s")) {
			s.seconds = true
		}
	}
	switch {
	case date:
		s.kind = kindDate
		return
	case clock:
		s.kind = kindTime
		return
	case general || !digits && !text:
		s.kind = kindGeneral
		if !general {
			s.kind = kindNumber // literals only: shown as they are
		}
	case text && !digits:
		s.kind = kindText
		return
	}
	// The integer part ends at the point, the exponent or the fraction.
	end := len(s.toks)
	for _, e := range []int{s.point, s.exp, s.slash} {
		if e >= 0 && e < end {
			end = e
		}
	}
	lastInt, lastDigit := -1, -1 // the last digit placeholders of the integer part and of the number
	numEnd := len(s.toks)
	if s.exp >= 0 {
		numEnd = s.exp
	}
	for i := 0; i < numEnd; i++ {
		if s.toks[i].kind == tokDigit {
			lastDigit = i
			if i < end {
				lastInt = i
			}
		}
	}
	for i := range s.toks {
		if s.toks[i].kind != tokComma {
			continue
		}
		switch {
		case i < lastInt && s.digitBefore(i):
			s.thousand = true
			s.toks[i] = fmtTok{kind: tokLit}
		case s.slash < 0 && lastDigit >= 0 && i > lastDigit && s.onlyCommasBetween(lastDigit, i):
			s.scale++
			s.toks[i] = fmtTok{kind: tokLit}
		default:
			s.toks[i] = fmtTok{kind: tokLit, s: ","}
		}
	}
}

func (s *fmtSection) digitBefore(i int) bool {
	for j := i - 1; j >= 0; j-- {
		if s.toks[j].kind == tokDigit {
			return true
		}
	}
	return false
}

func (s *fmtSection) onlyCommasBetween(a, b int) bool {
	for j := a + 1; j < b; j++ {
		if s.toks[j].kind != tokComma && !(s.toks[j].kind == tokLit && s.toks[j].s == "") {
			return false
		}
	}
	return true
}

// minuteAt reports whether the "m" token at i is a minute: the time token
// before it (literals between) is an hour, or the one after it a second.
func (s *fmtSection) minuteAt(i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := s.toks[j]
		if t.kind == tokTime || t.kind == tokDate {
			if t.s[0] == 'h' || strings.HasPrefix(t.s, "[h") {
				return true
			}
			break
		}
	}
	for j := i + 1; j < len(s.toks); j++ {
		t := s.toks[j]
		if t.kind == tokTime || t.kind == tokDate {
			return t.s[0] == 's' || strings.HasPrefix(t.s, "[s")
		}
	}
	return false
}

// section returns the section that shows n and the number it shows (its
// absolute value where the section's own text says the sign), and whether
// a minus is to be put before it.
func (f *numFormat) section(n float64) (sec *fmtSection, v float64, minus bool) {
	num := f.sections
	if f.text >= 0 {
		num = num[:f.text]
	}
	if len(num) == 0 {
		return nil, n, false
	}
	if num[0].cond != nil || len(num) > 1 && num[1].cond != nil {
		for i := range num {
			if num[i].cond == nil {
				// The section after the conditions: the others. Its minus
				// is its own when a condition took the negatives.
				own := i > 0 && num[0].cond != nil && num[0].cond.match(-1)
				return &num[i], math.Abs(n), n < 0 && !own
			}
			if num[i].cond.match(n) {
				return &num[i], math.Abs(n), n < 0 && !(num[i].cond.op[0] == '<' || num[i].cond.v < 0)
			}
		}
		return nil, n, false
	}
	switch {
	case len(num) == 1, n > 0, n == 0 && len(num) < 3:
		return &num[0], math.Abs(n), n < 0
	case n < 0:
		return &num[1], -n, false
	}
	return &num[2], n, false
}

// number renders n by the format. date1904 chooses the workbook's date
// system. ok is false where the format cannot show n (a date before 1900):
// the caller shows it as General does.
func (f *numFormat) number(n float64, date1904 bool) (string, bool) {
	if f.text == 0 {
		return f.sections[0].sep.general(n), true // "@": a number shows as General
	}
	sec, v, minus := f.section(n)
	if sec == nil {
		return "", true // hidden ("0;;")
	}
	var out string
	switch sec.kind {
	case kindDate:
		if n < 0 {
			return "", false
		}
		t, ok := serialTime(v, date1904)
		if !ok {
			return "", false
		}
		if !sec.hasTimeOfDay() {
			return t.Format("2006-01-02"), true
		}
		if sec.seconds {
			return t.Format("2006-01-02 15:04:05"), true
		}
		return t.Format("2006-01-02 15:04"), true
	case kindTime:
		out = sec.clock(v)
	case kindGeneral, kindText:
		out = sec.literals(sec.sep.general(v))
	default:
		out = sec.render(v)
	}
	if minus && strings.ContainsAny(out, "123456789") {
		out = "-" + out
	}
	return strings.Join(strings.Fields(out), " "), true
}

// text renders a string cell by the format's text section, if it has one.
func (f *numFormat) textOf(s string) string {
	if f == nil || f.text < 0 {
		return s
	}
	return strings.Join(strings.Fields(f.sections[f.text].literals(s)), " ")
}

// literals returns the section's text with v for "@" and "General".
func (s *fmtSection) literals(v string) string {
	var sb strings.Builder
	for _, t := range s.toks {
		switch t.kind {
		case tokLit:
			sb.WriteString(t.s)
		case tokText, tokGeneral:
			sb.WriteString(v)
		}
	}
	return sb.String()
}

func (s *fmtSection) hasTimeOfDay() bool {
	for _, t := range s.toks {
		if t.kind == tokTime {
			return true
		}
	}
	return false
}

// clock renders a time of day or an elapsed time.
func (s *fmtSection) clock(v float64) string {
	frac := 0 // digits of fractional seconds
	ampm := false
	for _, t := range s.toks {
		if t.kind == tokTime && t.s[0] == '.' {
			frac = max(frac, len(t.s)-1)
		}
		if t.kind == tokTime && (t.s == "am/pm" || t.s == "a/p") {
			ampm = true
		}
	}
	unit := math.Pow10(frac)
	total := math.Round(v * 86400 * unit) // in 10^-frac seconds
	if math.IsInf(total, 0) || total > 1e18 {
		return general(v)
	}
	ticks := int64(total)
	sub := ticks % int64(unit)
	secs := ticks / int64(unit)
	// The largest elapsed unit takes what is above it.
	largest := byte(0)
	for _, t := range s.toks {
		if t.kind == tokTime && t.s[0] == '[' {
			largest = t.s[1]
		}
	}
	pm := (secs/3600)%24 >= 12
	var sb strings.Builder
	for _, t := range s.toks {
		switch t.kind {
		case tokLit:
			sb.WriteString(t.s)
		case tokDigit:
			sb.WriteString(t.s) // a digit in a time: shown as it is
		case tokTime:
			w := len(strings.Trim(t.s, "[]"))
			var x int64
			switch c := strings.Trim(t.s, "[]")[0]; c {
			case 'h':
				x = secs / 3600
				if largest != 'h' {
					x %= 24
					if ampm {
						x %= 12
						if x == 0 {
							x = 12
						}
					}
				}
			case 'm':
				x = secs / 60
				if largest != 'm' {
					x %= 60
				}
			case 's':
				x = secs
				if largest != 's' {
					x %= 60
				}
			case '.':
				if frac > 0 {
					d := strconv.FormatInt(sub, 10)
					d = strings.Repeat("0", frac-len(d)) + d
					sb.WriteString(s.decimal() + d[:len(t.s)-1])
				}
				continue
			case 'a':
				switch {
				case t.s == "am/pm" && pm:
					sb.WriteString("PM")
				case t.s == "am/pm":
					sb.WriteString("AM")
				case pm:
					sb.WriteString("P")
				default:
					sb.WriteString("A")
				}
				continue
			}
			d := strconv.FormatInt(x, 10)
			if len(d) < w {
				d = strings.Repeat("0", min(w, 2)-len(d)) + d
			}
			sb.WriteString(d)
		}
	}
	return sb.String()
}

// render renders v (not negative) by a number section: its digits, point,
// thousands, percent and scaling, exponent or fraction, and literals.
func (s *fmtSection) render(v float64) string {
	for range s.percent {
		v *= 100
	}
	for range s.scale {
		v /= 1000
	}
	if s.slash >= 0 {
		return s.fraction(v)
	}
	exponent := 0
	if s.exp >= 0 {
		ints := s.count(0, s.exp, true)
		if v != 0 {
			exponent = int(math.Floor(math.Log10(v)))
			step := max(ints, 1)
			if ints > 1 && s.hasHash(0, s.pointOr(s.exp)) {
				exponent = floorDiv(exponent, step) * step
			} else {
				exponent -= max(ints, 1) - 1
			}
			v /= math.Pow10(exponent)
			// Rounding may carry the mantissa to a new digit.
			dec := s.count(s.pointOr(s.exp), s.exp, false)
			if ip, _ := roundDigits(v, dec); len(ip) > max(ints, 1) && !(ints > 1 && s.hasHash(0, s.pointOr(s.exp))) {
				v /= 10
				exponent++
			}
		}
	}
	intEnd := len(s.toks)
	if s.point >= 0 {
		intEnd = s.point
	} else if s.exp >= 0 {
		intEnd = s.exp
	}
	decEnd := len(s.toks)
	if s.exp >= 0 {
		decEnd = s.exp
	}
	dec := 0
	if s.point >= 0 {
		dec = s.count(s.point, decEnd, false)
	}
	ip, fp := roundDigits(v, dec)
	var sb strings.Builder
	s.writeInt(&sb, 0, intEnd, ip)
	if s.point >= 0 && s.count(0, s.point, false) == 0 && ip != "0" {
		sb.WriteString(ip) // ".00": the integer digits go before the point
	}
	if s.point >= 0 {
		sb.WriteString(s.decimal())
		s.writeFrac(&sb, s.point+1, decEnd, fp)
	}
	if s.exp >= 0 {
		sb.WriteByte('E')
		e := exponent
		switch {
		case e < 0:
			sb.WriteByte('-')
			e = -e
		case s.toks[s.exp].s == "+":
			sb.WriteByte('+')
		}
		s.writeInt(&sb, s.exp+1, len(s.toks), strconv.Itoa(e))
	}
	return sb.String()
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (s *fmtSection) pointOr(end int) int {
	if s.point >= 0 && s.point < end {
		return s.point
	}
	return end
}

// count returns the digit placeholders among toks[from:to]; with ints,
// those before the point.
func (s *fmtSection) count(from, to int, ints bool) int {
	if ints {
		to = s.pointOr(to)
	}
	n := 0
	for i := from; i < to && i < len(s.toks); i++ {
		if s.toks[i].kind == tokDigit {
			n++
		}
	}
	return n
}

func (s *fmtSection) hasHash(from, to int) bool {
	for i := from; i < to && i < len(s.toks); i++ {
		if s.toks[i].kind == tokDigit && s.toks[i].s == "#" {
			return true
		}
	}
	return false
}

// writeInt writes the integer digits ip into the placeholders of
// toks[from:to] from the right, the first placeholder taking the digits
// left over, with the literals between them, and thousands separators
// when the section groups them.
func (s *fmtSection) writeInt(sb *strings.Builder, from, to int, ip string) {
	if ip == "0" {
		ip = ""
	}
	var slots []int
	for i := from; i < to; i++ {
		if s.toks[i].kind == tokDigit {
			slots = append(slots, i)
		}
	}
	// Pad to the placeholders: "0" a zero, "?" a space, "#" nothing.
	cells := make([]string, len(slots)) // each slot's digits
	d := ip
	for k := len(slots) - 1; k >= 0; k-- {
		switch {
		case k == 0 && d != "":
			cells[k] = d
			d = ""
		case d != "":
			cells[k] = d[len(d)-1:]
			d = d[:len(d)-1]
		case s.toks[slots[k]].s == "0":
			cells[k] = "0"
		case s.toks[slots[k]].s == "?":
			cells[k] = " "
		}
	}
	// Digits' positions from the right, for the thousands.
	total := 0
	for _, c := range cells {
		total += len(c)
	}
	pos := total
	k := 0
	for i := from; i < to; i++ {
		t := s.toks[i]
		switch t.kind {
		case tokLit:
			sb.WriteString(t.s)
		case tokDigit:
			for _, ch := range []byte(cells[k]) {
				sb.WriteByte(ch)
				pos--
				if s.thousand && s.groupsAt(pos) && ch != ' ' {
					sb.WriteString(s.grouping())
				}
			}
			k++
		case tokPercent:
			sb.WriteByte('%')
		case tokText, tokGeneral:
			sb.WriteString(ip)
		}
	}
}

// writeFrac writes the decimals fp (as many as the placeholders) into
// the placeholders of toks[from:to]: trailing zeros left out for "#" and
// shown as spaces for "?".
func (s *fmtSection) writeFrac(sb *strings.Builder, from, to int, fp string) {
	var slots []int
	for i := from; i < to; i++ {
		if s.toks[i].kind == tokDigit {
			slots = append(slots, i)
		}
	}
	cells := make([]string, len(slots))
	trailing := true
	for k := len(slots) - 1; k >= 0; k-- {
		c := byte('0')
		if k < len(fp) {
			c = fp[k]
		}
		switch {
		case trailing && c == '0' && s.toks[slots[k]].s == "#":
			cells[k] = ""
		case trailing && c == '0' && s.toks[slots[k]].s == "?":
			cells[k] = " "
		default:
			trailing = false
			cells[k] = string(c)
		}
	}
	k := 0
	for i := from; i < to; i++ {
		t := s.toks[i]
		switch t.kind {
		case tokLit:
			sb.WriteString(t.s)
		case tokDigit:
			sb.WriteString(cells[k])
			k++
		case tokPercent:
			sb.WriteByte('%')
		}
	}
}

// fraction renders v as a fraction: "# ?/?" (a whole part and a proper
// fraction), "?/?" (improper), "# ?/4" (a fixed denominator).
func (s *fmtSection) fraction(v float64) string {
	// The numerator is the run of placeholders before the slash; the
	// whole part the placeholders before it.
	numStart := s.slash
	for numStart > 0 && (s.toks[numStart-1].kind == tokDigit) {
		numStart--
	}
	wholeEnd := numStart
	for wholeEnd > 0 && s.toks[wholeEnd-1].kind == tokLit {
		wholeEnd--
	}
	hasWhole := s.count(0, wholeEnd, false) > 0
	denDigits, fixed := 0, 0
	denEnd := s.slash + 1
	for denEnd < len(s.toks) && (s.toks[denEnd].kind == tokDigit || s.toks[denEnd].kind == tokDenom) {
		if s.toks[denEnd].kind == tokDenom {
			fixed, _ = strconv.Atoi(s.toks[denEnd].s)
		} else {
			denDigits++
		}
		denEnd++
	}
	whole, f := 0.0, v
	if hasWhole {
		whole = math.Floor(v)
		f = v - whole
	}
	if whole > 1e15 {
		return general(v)
	}
	var num, den int64
	if fixed > 0 {
		den = int64(fixed)
		num = int64(math.Round(f * float64(den)))
	} else {
		num, den = approximate(f, int64(math.Pow10(min(max(denDigits, 1), 7)))-1)
	}
	if hasWhole && num == den && num > 0 {
		whole++
		num = 0
	}
	var sb strings.Builder
	ws := strconv.FormatFloat(whole, 'f', 0, 64)
	if hasWhole {
		s.writeInt(&sb, 0, wholeEnd, ws)
	}
	if hasWhole && num == 0 {
		if whole == 0 {
			return "0"
		}
		return sb.String()
	}
	for i := wholeEnd; i < numStart; i++ {
		sb.WriteString(s.toks[i].s)
	}
	s.writeInt(&sb, numStart, s.slash, strconv.FormatInt(num, 10))
	if num == 0 && !hasWhole {
		sb.WriteByte('0')
	}
	sb.WriteByte('/')
	sb.WriteString(strconv.FormatInt(den, 10))
	for i := denEnd; i < len(s.toks); i++ {
		if s.toks[i].kind == tokLit {
			sb.WriteString(s.toks[i].s)
		}
	}
	return sb.String()
}

// approximate returns the fraction closest to f (0 <= f) with a
// denominator of at most maxDen, by the Stern–Brocot mediants along the
// continued fraction.
func approximate(f float64, maxDen int64) (num, den int64) {
	if maxDen < 1 {
		maxDen = 1
	}
	// Convergents h/k.
	h0, h1 := int64(0), int64(1)
	k0, k1 := int64(1), int64(0)
	x := f
	for range 64 {
		a := int64(math.Floor(x))
		if k1 != 0 && a > 0 && k0+a*k1 > maxDen || a < 0 {
			// The best semiconvergent below the limit.
			n := (maxDen - k0) / k1
			hs, ks := h0+n*h1, k0+n*k1
			if ks > 0 && math.Abs(f-float64(hs)/float64(ks)) < math.Abs(f-float64(h1)/float64(k1)) {
				return hs, ks
			}
			return h1, k1
		}
		h0, h1 = h1, h0+a*h1
		k0, k1 = k1, k0+a*k1
		if k1 > maxDen {
			return h0, k0
		}
		r := x - float64(a)
		if r < 1e-12 || math.Abs(f-float64(h1)/float64(k1)) < 1e-15 {
			break
		}
		x = 1 / r
	}
	return h1, k1
}

// roundDigits rounds v (not negative) to dec decimals as a spreadsheet
// does, on its 15 significant digits with a half rounded away from zero
// (2.675 shows as 2.68, though its float is below it), and returns the
// integer digits ("0" for none) and dec decimals.
func roundDigits(v float64, dec int) (string, string) {
	dec = min(dec, 30)
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "0", strings.Repeat("0", dec)
	}
	e := strconv.FormatFloat(v, 'e', 14, 64) // d.dddddddddddddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	digits := []byte(strings.Replace(mant, ".", "", 1)) // 15 digits: v = 0.digits × 10^(exp+1)
	point := exp + 1                                    // digits before the point
	keep := point + dec                                 // digits kept
	switch {
	case keep < 0:
		digits, point = nil, 0
	case keep < len(digits):
		up := digits[keep] >= '5'
		digits = digits[:keep]
		if up {
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
				point++
			}
		}
	}
	// Lay the digits around the point.
	var ip, fp string
	switch {
	case point <= 0:
		ip = "0"
		fp = strings.Repeat("0", -point) + string(digits)
	case point >= len(digits):
		ip = string(digits) + strings.Repeat("0", point-len(digits))
	default:
		ip, fp = string(digits[:point]), string(digits[point:])
	}
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		ip = "0"
	}
	if len(fp) < dec {
		fp += strings.Repeat("0", dec-len(fp))
	}
	return ip, fp[:dec]
}

// general shows n with up to 15 significant digits, without an exponent
// between 1e-9 and 1e15.
func general(n float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(n, 'g', 15, 64), 64)
	if a := math.Abs(r); r == 0 || a >= 1e-9 && a < 1e15 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// serialTime turns a date serial number into a time: days since the
// workbook's epoch (1899-12-30 in the 1900 system, which counts a
// 1900-02-29 that never was, or 1904-01-01), the fraction the time of day,
// rounded to the second. ok is false outside years 1900–9999.
func serialTime(n float64, date1904 bool) (time.Time, bool) {
	if n < 0 || n >= 2958466 {
		return time.Time{}, false
	}
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case date1904:
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case n < 61:
		// Before Lotus's 1900-02-29 (serial 60, shown as 1900-02-28).
		epoch = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
		if n >= 60 {
			n--
		}
	}
	days := math.Floor(n)
	secs := math.Round((n - days) * 86400)
	return epoch.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second), true
}

// separators are the decimal and thousands separators of a language, as
// LibreOffice shows a number in it ("1.234,50" in German), and whether it
// groups digits the Indian way: the first three, then by two (lakhs and
// crores: "12,34,567.50").
type separators struct {
	point, group string
	lakhs        bool
}

// groupsAt reports whether a thousands separator goes before the digit
// pos places from the right of a number's integer part (3, 6, 9, …; in
// Indian grouping 3, 5, 7, …).
func (s *fmtSection) groupsAt(pos int) bool {
	if s.sep != nil && s.sep.lakhs {
		return pos == 3 || pos > 3 && pos%2 == 1
	}
	return pos > 0 && pos%3 == 0
}

// decimal returns the section's decimal separator.
func (s *fmtSection) decimal() string {
	if s.sep == nil {
		return "."
	}
	return s.sep.point
}

// grouping returns the section's thousands separator.
func (s *fmtSection) grouping() string {
	if s.sep == nil {
		return ","
	}
	return s.sep.group
}

// general renders n as General does in the language of sep (nil: ".").
func (sep *separators) general(n float64) string {
	g := general(n)
	if sep == nil || sep.point == "." {
		return g
	}
	return strings.Replace(g, ".", sep.point, 1)
}

// localized returns f with the separators of sep in the sections whose
// code names no language of its own; f itself is not changed. A nil sep
// (English, or a language cite does not know) returns f.
func (f *numFormat) localized(sep *separators) *numFormat {
	if sep == nil || f == nil {
		return f
	}
	out := &numFormat{sections: slices.Clone(f.sections), text: f.text}
	for i := range out.sections {
		if out.sections[i].sep == nil {
			out.sections[i].sep = sep
		}
	}
	return out
}

// Separators by language, as LibreOffice 7.4 shows numbers (its locale
// data, checked against its CSV export "as shown": locales.csv). A
// language not listed shows "." and ",".
var (
	commaDot   = &separators{point: ",", group: "."}
	commaSpace = &separators{point: ",", group: "\u00a0"}
	dotQuote   = &separators{point: ".", group: "'"}
	dotLakhs   = &separators{point: ".", group: ",", lakhs: true}
	langSeps   = map[string]*separators{
		"de": commaDot, "nl": commaDot, "es": commaDot, "it": commaDot, "pt": commaDot, "da": commaDot,
		"id": commaDot, "tr": commaDot, "el": commaDot, "ro": commaDot, "hr": commaDot, "sl": commaDot,
		"sr": commaDot, "vi": commaDot, "ca": commaDot,
		"fr": commaSpace, "sv": commaSpace, "nb": commaSpace, "nn": commaSpace, "no": commaSpace, "fi": commaSpace, "cs": commaSpace,
		"sk": commaSpace, "pl": commaSpace, "ru": commaSpace, "uk": commaSpace, "hu": commaSpace, "bg": commaSpace,
		"lt": commaSpace, "lv": commaSpace, "et": commaSpace,
	}
	countrySeps = map[string]*separators{
		"de-CH": dotQuote, "it-CH": dotQuote, "fr-CH": dotQuote, "de-LI": dotQuote,
		"es-MX": nil, "es-US": nil,
		// English and Hindi of India group lakhs and crores (locales.csv);
		// India's other languages are not listed: not measured.
		"en-IN": dotLakhs, "hi-IN": dotLakhs,
	}
)

// langSeparators returns the separators of a language and country
// ("de", "DE"), nil for "." and ",".
func langSeparators(lang, country string) *separators {
	lang = strings.ToLower(lang)
	if s, ok := countrySeps[lang+"-"+strings.ToUpper(country)]; ok {
		return s
	}
	return langSeps[lang]
}

// lcidLangs are the languages of Windows' locale IDs (LCID), by their
// primary language (the low 10 bits): [$-407] is German (Germany).
var lcidLangs = map[uint32]string{
	0x03: "ca", 0x05: "cs", 0x06: "da", 0x07: "de", 0x08: "el", 0x09: "en", 0x0A: "es", 0x0B: "fi", 0x0C: "fr",
	0x0E: "hu", 0x10: "it", 0x11: "ja", 0x12: "ko", 0x13: "nl", 0x14: "nb", 0x15: "pl", 0x16: "pt", 0x18: "ro",
	0x19: "ru", 0x1A: "hr", 0x1B: "sk", 0x1D: "sv", 0x1F: "tr", 0x21: "id", 0x22: "uk", 0x24: "sl", 0x25: "et",
	0x26: "lv", 0x27: "lt", 0x2A: "vi", 0x02: "bg",
}

// lcidCountries are the locale IDs whose country changes the separators.
var lcidCountries = map[uint32]string{0x807: "de-CH", 0x810: "it-CH", 0x100C: "fr-CH", 0x1407: "de-LI", 0x80A: "es-MX", 0x540A: "es-US", 0x4009: "en-IN", 0x439: "hi-IN"}

// lcidSeparators returns the separators of a locale ID's language, nil
// for "." and "," (English, an ID cite does not know, 0 and the system's
// F800/F400).
func lcidSeparators(id uint32) *separators {
	id &= 0xFFFF
	if c, ok := lcidCountries[id]; ok {
		return countrySeps[c]
	}
	return langSeps[lcidLangs[id&0x3FF]]
}
