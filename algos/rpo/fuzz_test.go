package rpo

import (
	"encoding/binary"
	"testing"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// maxFuzzElements bounds the elements FuzzGPU takes from one input: a few
// hundred permutations, milliseconds on a CPU-emulated GPU.
const maxFuzzElements = 1 << 10

// FuzzGPU holds the GPU to the reference. The fuzzer's bytes are field
// elements (8 little-endian bytes each, reduced mod p, so every value is
// reached, p-1 and 0 included) and split is a length: the elements are
// hashed as inputs of split elements (the rest dropped), merged as pairs
// and permuted as states, and every digest and state must equal the
// reference's.
//
// Run it with -fuzzminimizetime 2s, as blake3's FuzzSumGPU.
func FuzzGPU(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(make([]byte, 8*8), uint8(8))
	f.Add(make([]byte, 8*24), uint8(9))
	ones := make([]byte, 8*36)
	for i := range ones {
		ones[i] = 0xff
	}
	f.Add(ones, uint8(7))
	f.Add(ones, uint8(17))
	seq := make([]byte, 8*19)
	for i := 0; i < 19; i++ {
		binary.LittleEndian.PutUint64(seq[8*i:], uint64(i))
	}
	f.Add(seq, uint8(19))
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		els := make([]uint64, min(len(data)/8, maxFuzzElements))
		for i := range els {
			els[i] = u64emu.Canon(binary.LittleEndian.Uint64(data[8*i:]))
		}
		if m := int(split); m > 0 {
			k := len(els) / m
			in := els[:k*m]
			dst := make([][4]uint64, k)
			if err := Batch.HashElementsMany(ctx, dst, in, m, batch.Options{}); err != nil {
				t.Fatalf("hash %d inputs of %d: %v", k, m, err)
			}
			for i := range dst {
				if want := HashElements(in[i*m : (i+1)*m]); dst[i] != want {
					t.Fatalf("hash of input %d of %d elements: GPU %v, reference %v", i, m, dst[i], want)
				}
			}
		}
		pairs := make([][8]uint64, len(els)/8)
		for i := range pairs {
			pairs[i] = [8]uint64(els[8*i:])
		}
		dst := make([][4]uint64, len(pairs))
		if err := Batch.MergeMany(ctx, dst, pairs, batch.Options{}); err != nil {
			t.Fatalf("merge %d pairs: %v", len(pairs), err)
		}
		for i := range dst {
			if want := Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])); dst[i] != want {
				t.Fatalf("merge of pair %d: GPU %v, reference %v", i, dst[i], want)
			}
		}
		states := make([][12]uint64, len(els)/12)
		for i := range states {
			states[i] = [12]uint64(els[12*i:])
		}
		want := append([][12]uint64(nil), states...)
		for i := range want {
			Permute(&want[i])
		}
		if err := Batch.PermuteMany(ctx, states, batch.Options{}); err != nil {
			t.Fatalf("permute %d states: %v", len(states), err)
		}
		for i := range states {
			if states[i] != want[i] {
				t.Fatalf("permutation of state %d: GPU %v, reference %v", i, states[i], want[i])
			}
		}
	})
}
