package batch

import (
	"fmt"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// FirstNonCanonical returns the index of the first element of els not
// below p, or -1: the check of every batch, and of merkle's matrices.
// Large inputs are scanned by all cores, since validation runs before
// every upload: blocks in a plain loop, the element looked for only in the
// first block that holds one. Asked element by element (a call and an
// atomic load each), it took an order of magnitude longer
// (bench/results/HISTORY.md, "Figures moved from code comments").
func FirstNonCanonical[E field.Element](els []E, p uint64) int {
	defer wgpu.Span("check field elements")(int64(len(els)) * int64(unsafe.Sizeof(E(0))))
	const block = 1 << 12
	blocks := (len(els) + block - 1) / block
	b := par.First(blocks, 16, func(b int) bool {
		// A block's largest element against p: a loop without branches,
		// as fast as the memory it reads on gigabyte inputs.
		var m E
		for _, v := range els[b*block : min(len(els), (b+1)*block)] {
			m = max(m, v)
		}
		return uint64(m) >= p
	})
	if b < 0 {
		return -1
	}
	for i := b * block; ; i++ {
		if uint64(els[i]) >= p {
			return i
		}
	}
}

// CheckMerge returns the error of a merge batch that cannot run: dst and
// pairs of different lengths, or an element not below the modulus (named
// by pair and element).
func (f *Family[E, D, P, S]) CheckMerge(dst []D, pairs []P) error {
	if err := f.invalid(); err != nil {
		return err
	}
	if len(dst) != len(pairs) {
		return fmt.Errorf("%s: merge: %d destination digests for %d pairs: they must be equal", f.spec.Name, len(dst), len(pairs))
	}
	els := flat[E](pairs)
	if i := FirstNonCanonical(els, f.spec.Modulus); i >= 0 {
		return fmt.Errorf("%s: merge: pair %d element %d is %d, not a field element (must be below p = %d)",
			f.spec.Name, i/f.pair, i%f.pair, els[i], f.spec.Modulus)
	}
	return nil
}

// CheckHash returns the error of a hash batch that cannot run: m < 0 (or
// above Spec.MaxElements where that is set), inputs not len(dst)*m
// elements, or an element not below the modulus (named by input and
// element).
func (f *Family[E, D, P, S]) CheckHash(dst []D, inputs []E, m int) error {
	if err := f.invalid(); err != nil {
		return err
	}
	name, maxM := f.spec.Name, f.spec.MaxElements
	switch {
	case maxM > 0 && (m < 0 || m > maxM):
		return fmt.Errorf("%s: hash: %d elements per input: must be 0 to %d", name, m, maxM)
	case m < 0:
		return fmt.Errorf("%s: hash: %d elements per input: must be zero or more", name, m)
	}
	want, err := checked.Mul(len(dst), m)
	if err != nil {
		return fmt.Errorf("%s: hash: %d inputs of %d elements: %w elements", name, len(dst), m, err)
	}
	if want != len(inputs) {
		return fmt.Errorf("%s: hash: %d elements for %d inputs of %d elements: need exactly %d", name, len(inputs), len(dst), m, want)
	}
	if i := FirstNonCanonical(inputs, f.spec.Modulus); i >= 0 {
		return fmt.Errorf("%s: hash: input %d element %d is %d, not a field element (must be below p = %d)", name, i/m, i%m, inputs[i], f.spec.Modulus)
	}
	return nil
}

// CheckPermute returns the error of a permutation batch with an element
// not below the modulus (named by state and element).
func (f *Family[E, D, P, S]) CheckPermute(states []S) error {
	if err := f.invalid(); err != nil {
		return err
	}
	els := flat[E](states)
	if i := FirstNonCanonical(els, f.spec.Modulus); i >= 0 {
		return fmt.Errorf("%s: permute: state %d element %d is %d, not a field element (must be below p = %d)",
			f.spec.Name, i/f.width, i%f.width, els[i], f.spec.Modulus)
	}
	return nil
}
