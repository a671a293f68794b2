package vortex

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// FromCanonicalInPlace is FromCanonical without a copy: the canonical
// values vals (each below p, row-major) become their Montgomery forms
// where they lie, and the returned elements are vals' own memory. The
// values are checked and converted in one pass on all cores (gnark-crypto's
// vector multiplication, AVX-512 where the host has it). On an error vals
// hold the values they held before. A one-shot commitment of a file read
// into memory needs no second matrix of its size this way.
func FromCanonicalInPlace(vals []uint32, rows, cols int) ([]koalabear.Element, error) {
	n, err := checked.Mul(rows, cols)
	if err != nil || rows < 1 || cols < 1 {
		return nil, fmt.Errorf("vortex: a %d × %d matrix: give positive sizes whose product fits an int", rows, cols)
	}
	if len(vals) != n {
		return nil, fmt.Errorf("vortex: a %d × %d matrix is %d values, given %d", rows, cols, n, len(vals))
	}
	els := unsafe.Slice((*koalabear.Element)(unsafe.Pointer(unsafe.SliceData(vals))), n)
	if i := toMontgomery(els); i >= 0 {
		return nil, fmt.Errorf("vortex: element (%d, %d) is %d: KoalaBear's elements are below p = %d", i/cols, i%cols, vals[i], field.KoalaBear.P())
	}
	return els, nil
}

// montyOne and montyR2 are the words 1 and 2^64 mod p: a Montgomery
// product with montyR2 turns a canonical value into its Montgomery form,
// one with montyOne turns it back.
var (
	montyOne = koalabear.Element{1}
	montyR2  = func() koalabear.Element {
		r := (uint64(1) << 32) % koalabear.Modulus().Uint64()
		return koalabear.Element{uint32(r * r % koalabear.Modulus().Uint64())}
	}()
)

// errNotCanonical stops toMontgomery's other ranges at the first value
// that is not below p.
var errNotCanonical = errors.New("not canonical")

// toMontgomery turns the canonical values held in els into their
// Montgomery forms in place, a block at a time: each block's largest value
// checked against p, then the block multiplied by montyR2. It returns -1,
// or, where a value is not below p, the index of the first such and
// leaves els as they were.
func toMontgomery(els []koalabear.Element) int {
	defer wgpu.Span("vortex: canonical values to Montgomery forms")(int64(len(els)) * 4)
	const block = 1 << 12
	p := uint32(koalabear.Modulus().Uint64())
	var mu sync.Mutex
	var done [][2]int // the ranges converted
	err := par.ForErr(len(els), 1<<16, func(lo, hi int) error {
		at := lo
		defer func() {
			mu.Lock()
			done = append(done, [2]int{lo, at})
			mu.Unlock()
		}()
		for ; at < hi; at += block {
			b := koalabear.Vector(els[at:min(hi, at+block)])
			var m uint32
			for _, v := range b {
				m = max(m, v[0])
			}
			if m >= p {
				return errNotCanonical
			}
			b.ScalarMul(b, &montyR2)
		}
		at = hi
		return nil
	})
	if err == nil {
		return -1
	}
	for _, r := range done {
		b := koalabear.Vector(els[r[0]:r[1]])
		b.ScalarMul(b, &montyOne)
	}
	raw := field.MontyWords(els)
	return batch.FirstNonCanonical(raw, uint64(p))
}
