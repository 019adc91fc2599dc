package office

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
)

// An ODS cell shows its value as its data style says (number:number-style,
// currency-style, percentage-style, time-style, boolean-style), and
// LibreOffice writes that text in the cell's text:p, which the reader
// takes. A producer that writes the value alone (no text:p) leaves the
// reader to render it: [odsDataStyle] turns a data style into the format
// code it stands for ("#,##0.00", "[hh]:mm:ss", "# ?/?"), which
// [numFormat] renders as for an XLSX, with the separators of the style's
// language (number:language and number:country): "1.234,50" in German.
// A style without one shows "." and ",", as LibreOffice shows it in an
// English locale (it takes the system's, not the document's default
// language).

// odsDataStyle reads a data style just started (start) and returns its
// format code and the conditions it maps to other styles with
// (style:map: value()>=0 applies another style); ok is false for a style
// rendered otherwise (a date, text).
func odsDataStyle(s *xmlStream, start xml.StartElement) (code string, maps []odsMap, ok bool) {
	kind := start.Name.Local
	ok = kind == "number-style" || kind == "currency-style" || kind == "percentage-style" || kind == "time-style" || kind == "boolean-style"
	var sb strings.Builder
	quote := func(t string) {
		if t == "" {
			return
		}
		sb.WriteByte('"')
		sb.WriteString(strings.ReplaceAll(t, `"`, ``))
		sb.WriteByte('"')
	}
	elapsed := attrOf(start, "truncate-on-overflow") == "false"
	inText := false
	var text strings.Builder
	depth := s.depth
	for s.depth >= depth {
		tok, err := s.inside()
		if err != nil {
			return "", nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			long := attrOf(t, "style") == "long"
			switch t.Name.Local {
			case "number":
				sb.WriteString(odsNumber(t))
			case "scientific-number":
				sb.WriteString(odsInt(t, false))
				if d := odsAttrInt(t, "decimal-places", 0); d > 0 {
					sb.WriteString("." + strings.Repeat("0", min(d, 30)))
				}
				sb.WriteString("E+" + strings.Repeat("0", min(max(odsAttrInt(t, "min-exponent-digits", 1), 1), 5)))
			case "fraction":
				if odsAttrInt(t, "min-integer-digits", 0) > 0 {
					sb.WriteString("0 ")
				} else {
					sb.WriteString("# ")
				}
				sb.WriteString(strings.Repeat("?", min(max(odsAttrInt(t, "min-numerator-digits", 1), 1), 7)) + "/")
				if v := odsAttrInt(t, "denominator-value", 0); v > 0 {
					sb.WriteString(strconv.Itoa(v))
				} else {
					sb.WriteString(strings.Repeat("?", min(max(odsAttrInt(t, "min-denominator-digits", 1), 1), 7)))
				}
			case "hours", "minutes", "seconds":
				c := t.Name.Local[:1]
				w := c
				if long {
					w = c + c
				}
				if elapsed {
					// The first unit takes what is above it: [hh]:mm:ss.
					w = "[" + w + "]"
					elapsed = false
				}
				sb.WriteString(w)
				if d := odsAttrInt(t, "decimal-places", 0); c == "s" && d > 0 {
					sb.WriteString("." + strings.Repeat("0", min(d, 9)))
				}
			case "am-pm":
				sb.WriteString("AM/PM")
			case "boolean":
				sb.WriteString(`"TRUE";"TRUE";"FALSE"`)
			case "currency-symbol", "text":
				inText = true
				text.Reset()
			case "text-content":
				sb.WriteByte('@')
			case "map":
				maps = append(maps, odsMap{cond: attrOf(t, "condition"), style: attrOf(t, "apply-style-name")})
			case "day", "month", "year", "day-of-week", "era", "quarter", "week-of-year":
				ok = false
			}
		case xml.EndElement:
			if (t.Name.Local == "text" || t.Name.Local == "currency-symbol") && inText {
				inText = false
				lit := text.String()
				if kind == "percentage-style" && strings.Contains(lit, "%") {
					before, after, _ := strings.Cut(lit, "%")
					quote(before)
					sb.WriteByte('%')
					quote(after)
				} else {
					quote(lit)
				}
			}
		case xml.CharData:
			if inText {
				text.Write(t)
			}
		}
	}
	return sb.String(), maps, ok
}

// odsMap is a data style's style:map: the style applied where the value
// meets the condition ("value()>=0").
type odsMap struct{ cond, style string }

// odsNumber returns the format code of a number:number element: its
// integer digits (grouped), decimals and display factor.
func odsNumber(t xml.StartElement) string {
	var sb strings.Builder
	sb.WriteString(odsInt(t, attrOf(t, "grouping") == "true"))
	d := min(odsAttrInt(t, "decimal-places", 0), 30)
	m := min(odsAttrInt(t, "min-decimal-places", d), d)
	if d > 0 {
		sb.WriteString("." + strings.Repeat("0", m) + strings.Repeat("#", d-m))
	}
	if f, err := strconv.ParseFloat(attrOf(t, "display-factor"), 64); err == nil && f > 1 {
		for n := math.Round(math.Log10(f) / 3); n > 0 && n < 6; n-- {
			sb.WriteByte(',')
		}
	}
	return sb.String()
}

// odsInt returns the integer placeholders of a number element: its
// min-integer-digits zeros, grouped ("#,##0") when grouping.
func odsInt(t xml.StartElement, grouping bool) string {
	n := min(odsAttrInt(t, "min-integer-digits", 1), 30)
	zeros := strings.Repeat("0", n)
	if zeros == "" {
		zeros = "#"
	}
	if grouping {
		return "#," + strings.Repeat("#", max(3-n, 0)) + zeros
	}
	return zeros
}

func odsAttrInt(t xml.StartElement, name string, def int) int {
	n, err := strconv.Atoi(attrOf(t, name))
	if err != nil || n < 0 {
		return def
	}
	return n
}

// odsFormats resolves the data styles read into formats: a style mapped
// to another for value()>=0 (or >0) is that style's code for those values
// and its own for the others, as an XLSX code's sections are.
func odsFormats(codes map[string]string, maps map[string][]odsMap) map[string]*numFormat {
	out := make(map[string]*numFormat, len(codes))
	for name, code := range codes {
		for _, m := range maps[name] {
			other, ok := codes[m.style]
			if !ok {
				continue
			}
			switch strings.ReplaceAll(m.cond, " ", "") {
			case "value()>=0":
				code = other + ";" + code
			case "value()>0":
				code = other + ";" + code + ";" + code
			}
			break
		}
		out[name] = parseNumFormat(code)
	}
	return out
}

// odsDuration returns an office:time-value (PT36H01M05S, P1DT2H) in days.
func odsDuration(v string) (float64, bool) {
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimPrefix(v, "-")
	if !strings.HasPrefix(v, "P") {
		return 0, false
	}
	v = v[1:]
	days := 0.0
	inTime := false
	for v != "" {
		if v[0] == 'T' {
			inTime = true
			v = v[1:]
			continue
		}
		i := strings.IndexAny(v, "YMWDHS")
		if i <= 0 {
			return 0, false
		}
		n, err := strconv.ParseFloat(v[:i], 64)
		if err != nil {
			return 0, false
		}
		switch c := v[i]; {
		case c == 'D' && !inTime:
			days += n
		case c == 'W' && !inTime:
			days += 7 * n
		case c == 'H' && inTime:
			days += n / 24
		case c == 'M' && inTime:
			days += n / 1440
		case c == 'S' && inTime:
			days += n / 86400
		default:
			return 0, false // years and months have no fixed length
		}
		v = v[i+1:]
	}
	if neg {
		days = -days
	}
	return days, true
}
