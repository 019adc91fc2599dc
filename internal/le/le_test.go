package le

import (
	"encoding/binary"
	"testing"
)

func TestWords(t *testing.T) {
	for _, s := range []string{"abcdefgh", "\x00\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		b := []byte(s)
		if got, want := Uint64(s), binary.LittleEndian.Uint64(b); got != want || Uint64(b) != want {
			t.Errorf("Uint64(%q) = %#x, %#x; want %#x", s, got, Uint64(b), want)
		}
		if got, want := Uint32(s), binary.LittleEndian.Uint32(b); got != want || Uint32(b) != want {
			t.Errorf("Uint32(%q) = %#x, %#x; want %#x", s, got, Uint32(b), want)
		}
	}
}
