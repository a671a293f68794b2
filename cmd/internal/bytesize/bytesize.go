// Package bytesize writes byte counts in binary units (KiB, MiB, GiB) for
// wgbench's tables, the adapters' limits and error messages.
//
// It has two formats, on purpose. Format writes a whole number where the
// count is a whole number of its unit ("64 MiB", "2 GiB") and a tenth
// otherwise ("1.5 GiB"), so that a size reads exactly as it was chosen and
// a decimal says it was rounded. Tenths always writes a tenth ("64.0 MiB",
// "13.4 GiB"): error messages set a limit beside an amount measured on the
// machine (available memory, a file's size), which is seldom whole, and
// print both to the same precision.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Count is the integer types a byte count comes in: int64 for file sizes
// and host memory, uint64 for buffer sizes and limits.
type Count interface {
	~int | ~int64 | ~uint64
}

// unit returns the largest of KiB, MiB and GiB that is at most n, as a
// shift and a name; ok is false for counts under 1 KiB.
func unit[T Count](n T) (shift uint, name string, ok bool) {
	switch {
	case n >= 1<<30:
		return 30, "GiB", true
	case n >= 1<<20:
		return 20, "MiB", true
	case n >= 1<<10:
		return 10, "KiB", true
	}
	return 0, "", false
}

// Format writes n in the largest binary unit it reaches: a whole number
// when n is a whole number of that unit ("64 MiB", "2 GiB"), else rounded
// to a tenth ("1.5 GiB", "4.0 GiB" for 2^32-1). Counts under 1 KiB are
// written in bytes ("512 bytes").
func Format[T Count](n T) string {
	shift, name, ok := unit(n)
	if !ok {
		return fmt.Sprintf("%d bytes", n)
	}
	if n%(1<<shift) == 0 {
		return fmt.Sprintf("%d %s", n>>shift, name)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(uint64(1)<<shift), name)
}

// Tenths writes n in the largest binary unit it reaches, always to a
// tenth ("64.0 MiB", "13.4 GiB"), for messages that compare a count with a
// measured amount. Counts under 1 KiB are written in bytes ("512 bytes").
func Tenths[T Count](n T) string {
	shift, name, ok := unit(n)
	if !ok {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(uint64(1)<<shift), name)
}

// Parse reads a byte count as Format writes a whole one: "64 MiB",
// "2 GiB", "4 KiB", "512 bytes". A rounded count ("1.5 GiB") is not
// read: its bytes are not known.
func Parse(s string) (int64, bool) {
	num, name, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return 0, false
	}
	shift, ok := map[string]uint{"bytes": 0, "KiB": 10, "MiB": 20, "GiB": 30}[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<63-1)>>shift {
		return 0, false
	}
	return n << shift, true
}
