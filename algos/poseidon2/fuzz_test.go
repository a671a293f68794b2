package poseidon2

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// FuzzGPUMatchesReference reads data as little-endian uint64 elements and
// runs them through every operation on the first GPU backend and on the
// CPU backend: both reject the same non-canonical element with the same
// error, or both give the reference's digests. m is the hash input length
// (1 to 64); the elements are hashed as inputs of m, merged as pairs of
// digests and permuted as states, each over as many whole items as fit.
//
//	go test ./algos/poseidon2 -run '^$' -fuzz FuzzGPUMatchesReference -fuzztime 1m
func FuzzGPUMatchesReference(f *testing.F) {
	seed := func(els []uint64, m uint8) {
		b := make([]byte, 8*len(els))
		for i, e := range els {
			binary.LittleEndian.PutUint64(b[8*i:], e)
		}
		f.Add(b, m)
	}
	ramp := make([]uint64, 40)
	for i := range ramp {
		ramp[i] = uint64(i) * 0x9e37_79b9_7f4a_7c15 % P
	}
	seed(ramp, 7)
	seed(ramp, 8)
	seed(ramp[:25], 12)
	seed([]uint64{P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1}, 1)
	seed([]uint64{0, 1, 2, P, 4, 5, 6, 7, 8, 9, 10, 11}, 3)
	seed([]uint64{^uint64(0)}, 1)
	seed(nil, 5)
	ctx := gputest.Context(f, gputest.Backends()[0])
	muldiag, err := impl.Select[*batch.Goldilocks]("poseidon2", "muldiag")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		els := make([]uint64, len(data)/8)
		for i := range els {
			els[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		mm := int(m%64) + 1
		k := len(els) / mm
		in := els[:k*mm]
		gpu, cpu := make([][4]uint64, k), make([][4]uint64, k)
		errG := Batch.HashElementsMany(ctx, gpu, in, mm, batch.Options{})
		errC := Batch.HashElementsMany(nil, cpu, in, mm, batch.Options{})
		same(t, errC, errG)
		if errC == nil {
			for i := range cpu {
				require.Equal(t, HashElements(in[i*mm:(i+1)*mm]), cpu[i], "input %d", i)
			}
			require.Equal(t, cpu, gpu, "hash, m=%d", mm)
		}

		pairs := make([][8]uint64, len(els)/8)
		for i := range pairs {
			pairs[i] = [8]uint64(els[8*i:])
		}
		gpu, cpu = make([][4]uint64, len(pairs)), make([][4]uint64, len(pairs))
		errG = muldiag.MergeMany(ctx, gpu, pairs, batch.Options{})
		errC = Batch.MergeMany(nil, cpu, pairs, batch.Options{})
		same(t, errC, errG)
		if errC == nil {
			require.Equal(t, cpu, gpu, "merge")
		}

		states := make([][12]uint64, len(els)/12)
		for i := range states {
			states[i] = [12]uint64(els[12*i:])
		}
		want := make([][12]uint64, len(states))
		copy(want, states)
		errG = Batch.PermuteMany(ctx, states, batch.Options{})
		errC = Batch.PermuteMany(nil, want, batch.Options{})
		same(t, errC, errG)
		if errC == nil {
			require.Equal(t, want, states, "permute")
		}
	})
}

// same fails unless the two errors are both nil or say the same.
func same(t *testing.T, want, got error) {
	t.Helper()
	if want == nil || got == nil {
		require.Equal(t, want, got)
		return
	}
	require.EqualError(t, got, want.Error())
}
