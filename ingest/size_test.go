package ingest

import (
	"fmt"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"10b", 10}, {"500KB", 500_000}, {"500kB", 500_000}, {"50MB", 50_000_000}, {"50 mb", 50_000_000},
		{"1.5 GB", 1_500_000_000}, {"2m", 2_000_000}, {"64MiB", 64 << 20}, {"1 KiB", 1024}, {"1GiB", 1 << 30},
	} {
		if got, err := ParseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "MB", "-1", "lots", "0", "1e300GB", "NaN", "Inf", "0.1b"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

// TestSizeRoundTrip: a size read from --max-size is reported as written
// (50MB was read as 50 MiB and reported as 52.4 MB).
func TestSizeRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"50MB": "50.0 MB", "500kB": "500.0 kB", "2GB": "2.00 GB", "999": "999 bytes", "64MiB": "67.1 MB"} {
		n, err := ParseSize(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(ParseSize(%q)) = %q, want %q", in, got, want)
		}
	}
	if got := tooLarge(50_000_001, 50_000_000); got != "too large (50000001 bytes, limit 50000000 bytes)" {
		t.Errorf("tooLarge = %q", got)
	}
	if got := FormatSize(DefaultMaxSize); got != "50.0 MB" {
		t.Errorf("DefaultMaxSize is %s", got)
	}
}

func ExampleParseSize() {
	n, _ := ParseSize("50MB")
	fmt.Println(n, FormatSize(n))
	n, _ = ParseSize("50MiB")
	fmt.Println(n, FormatSize(n))
	// Output:
	// 50000000 50.0 MB
	// 52428800 52.4 MB
}
