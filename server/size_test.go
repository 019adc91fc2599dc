package server

import "testing"

// TestLimitSize: a limit reads in the unit it is a whole number of, else
// rounded as cite prints sizes.
func TestLimitSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{1 << 20, "1 MiB"},
		{10_000_000, "10 MB"},
		{8 << 10, "8 KiB"},
		{1000, "1 kB"},
		{2 << 30, "2 GiB"},
		{100_000_000, "100 MB"},
		{999, "999 bytes"},
		{1_500_000, "1.5 MB"},
		{1_234_567, "1.2 MB"},
		{81_048_576, "81.0 MB"},
	} {
		if got := limitSize(tt.n); got != tt.want {
			t.Errorf("limitSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
