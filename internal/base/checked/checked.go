// Package checked multiplies sizes that come from user input (rows,
// columns, counts, element sizes) and says when the product does not fit,
// instead of letting it wrap: a shape of 2^60 × 2 elements of 8 bytes
// wraps to 0 bytes, which an empty file then matches.
//
// Every package that sizes memory, a file or a buffer from what a caller
// or a command line gave multiplies through Mul, so that one rule (the
// product fits an int64, and so a slice length, a file offset and a buffer
// size on a 64-bit host) holds everywhere, and every error prints the
// factors rather than a wrapped product.
package checked

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"unsafe"
)

// Int is the integer types sizes come in.
type Int interface {
	~int | ~int64 | ~uint64 | ~uint32 | ~int32
}

// OverflowError reports a product of sizes that does not fit, or a
// negative factor.
type OverflowError struct {
	// Factors are the factors as given, in decimal.
	Factors []string
	// Max is the largest product the result type holds (at most
	// math.MaxInt64).
	Max uint64
	// Negative is set when a factor is negative: no size is.
	Negative bool
}

func (e *OverflowError) Error() string {
	p := strings.Join(e.Factors, " × ")
	if e.Negative {
		return fmt.Sprintf("%s has a negative factor: sizes are 0 or more", p)
	}
	return fmt.Sprintf("%s is more than %d", p, e.Max)
}

// Mul returns the product of the factors (1 for none; 0 when one is 0,
// whatever the others), or an
// *OverflowError when a factor is negative or the product exceeds the
// largest value of T, or math.MaxInt64 for unsigned T: a size past that
// is no slice length or file offset either.
func Mul[T Int](factors ...T) (T, error) {
	limit := maxOf[T]()
	p := uint64(1)
	over := false
	for _, f := range factors {
		if f < 0 {
			return 0, overflow(factors, limit, true)
		}
		hi, lo := bits.Mul64(p, uint64(f))
		if hi != 0 || lo > limit {
			over = true // keep looking for a negative factor
			continue
		}
		p = lo
	}
	if over && p != 0 { // a zero factor makes any product 0
		return 0, overflow(factors, limit, false)
	}
	return T(p), nil
}

// maxOf is the largest product Mul returns as a T.
func maxOf[T Int]() uint64 {
	var zero T
	size := uint(unsafe.Sizeof(zero)) * 8
	if ^zero < 0 { // signed
		return uint64(1)<<(size-1) - 1
	}
	return min(uint64(1)<<size-1, math.MaxInt64)
}

func overflow[T Int](factors []T, limit uint64, negative bool) error {
	e := &OverflowError{Max: limit, Negative: negative}
	for _, f := range factors {
		e.Factors = append(e.Factors, fmt.Sprint(f))
	}
	return e
}
