package bytesize

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1 << 10, "1 KiB"},
		{48 << 10, "48 KiB"},
		{1536, "1.5 KiB"},
		{64 << 20, "64 MiB"},
		{128 << 20, "128 MiB"},
		{1 << 30, "1 GiB"},
		{3 << 29, "1.5 GiB"},
		{math.MaxUint32, "4.0 GiB"},
		{256 << 30, "256 GiB"},
		{math.MaxUint64, "17179869184.0 GiB"},
	} {
		if got := Format(tc.n); got != tc.want {
			t.Errorf("Format(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Format(int64(-5)); got != "-5 bytes" {
		t.Errorf("Format(-5) = %q", got)
	}
	if got := Format(int64(16 << 20)); got != "16 MiB" {
		t.Errorf("Format(int64(16 MiB)) = %q", got)
	}
}

func TestTenths(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{-1, "-1 bytes"},
		{512, "512 bytes"},
		{1 << 10, "1.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{64 << 20, "64.0 MiB"},
		{1 << 30, "1.0 GiB"},
		{256 << 30, "256.0 GiB"},
		{13<<30 + 400<<20, "13.4 GiB"},
	} {
		if got := Tenths(tc.n); got != tc.want {
			t.Errorf("Tenths(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, n := range []int64{0, 1, 512, 1 << 10, 3 << 10, 64 << 20, 2 << 30, 1 << 40} {
		got, ok := Parse(Format(n))
		if !ok || got != n {
			t.Errorf("Parse(%q) = %d, %v; want %d", Format(n), got, ok, n)
		}
	}
	for _, s := range []string{"", "1.5 GiB", "16MiB", "16 MB", "-1 KiB", "x KiB", "9223372036854775807 KiB", "2^20", "64² = 4096"} {
		if n, ok := Parse(s); ok {
			t.Errorf("Parse(%q) = %d, want not ok", s, n)
		}
	}
}
