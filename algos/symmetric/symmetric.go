// Package symmetric holds the constructions Plonky3 builds from any
// cryptographic permutation (p3-symmetric): the sponge PaddingFreeSponge
// and the 2-to-1 compression TruncatedPermutation, and gnark-crypto's
// FeedForwardCompression and MerkleDamgard, written once over a
// Permutation of any element type and width.
//
// They are the plain-Go references; the WGSL twins are package poseidon2's
// sponge31.wgsl and compress31.wgsl (Plonky3's constructions or gnark-crypto's, as their
// prelude constants choose), over whichever permutation a module names.
package symmetric

import "fmt"

// Permutation is a permutation of a state of Width elements (Poseidon2
// over a field, for example).
type Permutation[E any] interface {
	// Width returns the state size.
	Width() int
	// Permute permutes state, of Width elements, in place; it returns an
	// error for a state of another size or of elements it does not take.
	Permute(state []E) error
}

// PaddingFreeSponge is Plonky3's PaddingFreeSponge<P, WIDTH, RATE, OUT>:
// from the all-zero state, the input is absorbed Rate elements at a time,
// each block overwriting state[At..At+Rate] (a partial last block only its
// own elements, the rest of the state left as the previous permutation
// left it), with a permutation after every block; the hash is
// state[0..Out]. An empty input hashes to Out zeros.
//
// At is 0 in Plonky3's sponge. gnark-crypto's vortex.HashPoseidon2 is this
// sponge with At 8, Rate 16 and Out 8 over its width-24 permutation: the
// input overwrites the lanes after the digest's.
//
// It has no padding: it is collision resistant only among inputs of one
// length (the rows of one matrix), and [a] and [a, 0] hash alike.
type PaddingFreeSponge[E any] struct {
	Perm          Permutation[E]
	Rate, Out, At int
}

// check returns an error unless the sponge's sizes fit its permutation.
func (s PaddingFreeSponge[E]) check() error {
	if s.Perm == nil {
		return fmt.Errorf("symmetric: sponge without a permutation")
	}
	w := s.Perm.Width()
	if s.Rate < 1 || s.Rate > w || s.Out < 1 || s.Out > w {
		return fmt.Errorf("symmetric: sponge of rate %d and output %d over a width-%d permutation: both must be 1..%d", s.Rate, s.Out, w, w)
	}
	if s.At < 0 || s.At > w-s.Rate {
		return fmt.Errorf("symmetric: sponge of rate %d from lane %d over a width-%d permutation: the lanes must fit in the state", s.Rate, s.At, w)
	}
	return nil
}

// Hash returns the sponge's hash of in.
func (s PaddingFreeSponge[E]) Hash(in []E) ([]E, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	state := make([]E, s.Perm.Width())
	if err := s.HashInto(state, in); err != nil {
		return nil, err
	}
	return state[:s.Out], nil
}

// HashInto is Hash in the caller's state, of the permutation's width,
// which it zeroes first: the hash is state[:Out]. It allocates nothing, so
// a caller that keeps states hashes without garbage.
func (s PaddingFreeSponge[E]) HashInto(state, in []E) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(state) != s.Perm.Width() {
		return fmt.Errorf("symmetric: sponge state of %d elements, want %d", len(state), s.Perm.Width())
	}
	clear(state)
	for len(in) > 0 {
		n := copy(state[s.At:s.At+s.Rate], in)
		in = in[n:]
		if err := s.Perm.Permute(state); err != nil {
			return err
		}
	}
	return nil
}

// TruncatedPermutation is Plonky3's TruncatedPermutation<P, N, CHUNK,
// WIDTH>: the N inputs of Chunk elements each, concatenated and followed
// by zeros to the permutation's width, are permuted, and the first Chunk
// elements are the result.
type TruncatedPermutation[E any] struct {
	Perm     Permutation[E]
	N, Chunk int
}

// Compress returns the compression of in, N slices of Chunk elements.
func (c TruncatedPermutation[E]) Compress(in ...[]E) ([]E, error) {
	if c.Perm == nil {
		return nil, fmt.Errorf("symmetric: compression without a permutation")
	}
	state := make([]E, c.Perm.Width())
	if err := c.CompressInto(state, in...); err != nil {
		return nil, err
	}
	return state[:c.Chunk], nil
}

// CompressInto is Compress in the caller's state, of the permutation's
// width: the result is state[:Chunk]. It allocates nothing.
func (c TruncatedPermutation[E]) CompressInto(state []E, in ...[]E) error {
	if c.Perm == nil {
		return fmt.Errorf("symmetric: compression without a permutation")
	}
	w := c.Perm.Width()
	if c.N < 1 || c.Chunk < 1 || c.N*c.Chunk > w {
		return fmt.Errorf("symmetric: compression of %d inputs of %d elements over a width-%d permutation: they must fill at most the width", c.N, c.Chunk, w)
	}
	if len(in) != c.N {
		return fmt.Errorf("symmetric: compression of %d inputs, given %d", c.N, len(in))
	}
	if len(state) != w {
		return fmt.Errorf("symmetric: compression state of %d elements, want %d", len(state), w)
	}
	for i, x := range in {
		if len(x) != c.Chunk {
			return fmt.Errorf("symmetric: compression input %d has %d elements, want %d", i, len(x), c.Chunk)
		}
		copy(state[i*c.Chunk:], x)
	}
	clear(state[c.N*c.Chunk:])
	return c.Perm.Permute(state)
}

// FeedForwardCompression is gnark-crypto's 2-to-1 compression
// (poseidon2.Permutation.Compress, vortex.CompressPoseidon2): the state is
// a || b (Chunk elements each) followed by zeros to the permutation's
// width; after one permutation the result is b[i] + state[Chunk+i], the
// second half fed forward with the second input. Add is the field's
// addition.
type FeedForwardCompression[E any] struct {
	Perm  Permutation[E]
	Chunk int
	Add   func(a, b E) E
}

// Compress returns the compression of a and b, Chunk elements each.
func (c FeedForwardCompression[E]) Compress(a, b []E) ([]E, error) {
	if c.Perm == nil || c.Add == nil {
		return nil, fmt.Errorf("symmetric: feed-forward compression without a permutation or an addition")
	}
	w := c.Perm.Width()
	if c.Chunk < 1 || 2*c.Chunk > w {
		return nil, fmt.Errorf("symmetric: compression of two inputs of %d elements over a width-%d permutation: they must fill at most the width", c.Chunk, w)
	}
	if len(a) != c.Chunk || len(b) != c.Chunk {
		return nil, fmt.Errorf("symmetric: compression inputs of %d and %d elements, want %d each", len(a), len(b), c.Chunk)
	}
	state := make([]E, w)
	copy(state, a)
	copy(state[c.Chunk:], b)
	if err := c.Perm.Permute(state); err != nil {
		return nil, err
	}
	out := make([]E, c.Chunk)
	for i := range out {
		out[i] = c.Add(b[i], state[c.Chunk+i])
	}
	return out, nil
}

// MerkleDamgard is gnark-crypto's Merkle-Damgard hasher
// (hash.NewMerkleDamgardHasher over a Poseidon2 permutation's Compress,
// poseidon2.NewMerkleDamgardHasher) on whole elements: from a state of
// Chunk zeros (its initial value), each block of Chunk input elements
// becomes state = Compression(state, block); a partial last block is
// padded with zeros in front (gnark-crypto left-pads the block's bytes).
// The hash is the final state; an empty input hashes to Chunk zeros.
//
// Like the sponge it has no length padding: [a] and [0, a] hash alike.
type MerkleDamgard[E any] struct {
	Compression FeedForwardCompression[E]
}

// Hash returns the hash of in.
func (m MerkleDamgard[E]) Hash(in []E) ([]E, error) {
	n := m.Compression.Chunk
	if n < 1 {
		return nil, fmt.Errorf("symmetric: Merkle-Damgard hasher of blocks of %d elements", n)
	}
	state := make([]E, n)
	block := make([]E, n)
	for len(in) > 0 {
		k := min(n, len(in))
		clear(block)
		copy(block[n-k:], in[:k])
		in = in[k:]
		var err error
		if state, err = m.Compression.Compress(state, block); err != nil {
			return nil, err
		}
	}
	return state, nil
}
