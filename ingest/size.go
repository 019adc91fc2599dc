package ingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sizes are in SI units everywhere cite reads or writes them: 1 kB = 1,000
// bytes, 1 MB = 1,000,000, 1 GB = 1,000,000,000, as in the MB/s it reports.
// KiB, MiB and GiB (powers of 1024) are read too, for those who mean them.

// ParseSize reads a byte size: a number of bytes (1048576) or a number with a
// unit, B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), in
// any case and with or without a space: 500kB, 50MB, 1.5 GB, 64MiB. K, M and
// G alone are kB, MB and GB.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1},
	} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || !(n > 0) || n*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("bad size %q (want e.g. 500kB, 50MB, 1GB; 1 MB = 1,000,000 bytes, 1 MiB = 1,048,576)", s)
	}
	b := int64(math.Round(n * float64(mult)))
	if b < 1 {
		return 0, fmt.Errorf("bad size %q: less than a byte", s)
	}
	return b, nil
}

// FormatSize writes a byte size in SI units, as [ParseSize] reads it: 999
// bytes, 12.3 kB, 52.4 MB, 1.50 GB.
func FormatSize(n int64) string {
	switch {
	case n < 1e3:
		return fmt.Sprintf("%d bytes", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// tooLarge says why a file of size bytes is over limit, in bytes when the
// rounded sizes would read the same.
func tooLarge(size, limit int64) string {
	s, l := FormatSize(size), FormatSize(limit)
	if s == l {
		s, l = strconv.FormatInt(size, 10)+" bytes", strconv.FormatInt(limit, 10)+" bytes"
	}
	return fmt.Sprintf("too large (%s, limit %s)", s, l)
}
