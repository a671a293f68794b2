package merkle_test

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// FuzzCommitMatrixGPU holds matrix commitments on the GPU to the
// reference, for matrices of 2 to 64 rows and 1 to 40 columns drawn from
// the fuzzer's seed.
func FuzzCommitMatrixGPU(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint8(1))
	f.Add(uint64(2), uint8(3), uint8(8))
	f.Add(uint64(3), uint8(6), uint8(9))
	f.Add(uint64(4), uint8(2), uint8(39))
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, seed uint64, logRows, cols uint8) {
		m := randomMatrix(1<<(1+int(logRows)%6), 1+int(cols)%40, seed)
		leaves, nodes := matrixReference(m, rescue.MerkleMerge{})
		got, err := merkle.CommitMatrix(ctx, m, rescue.MerkleMerge{}, merkle.Options{})
		if err != nil {
			t.Fatalf("%d×%d: %v", m.Rows, m.Cols, err)
		}
		requireLeaves(t, leaves, got, "fuzz")
		requireNodes(t, nodes, got, "fuzz")
	})
}

// FuzzMixedGPU holds mixed trees on the GPU (BLAKE3 for the lowest k
// levels, Rescue above) to the reference, for trees of 4 to 256 leaves.
func FuzzMixedGPU(f *testing.F) {
	f.Add(uint64(1), uint8(2), uint8(1))
	f.Add(uint64(2), uint8(8), uint8(7))
	f.Add(uint64(3), uint8(5), uint8(2))
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, seed uint64, logN, k uint8) {
		lg := 2 + int(logN)%7
		s := merkle.Schedule{{Hash: blake3.MerkleMerge{}, Count: 1 + int(k)%(lg-1)}, {Hash: rescue.MerkleMerge{}}}
		leaves := randomLeaves(blake3.MerkleMerge{}, 1<<lg, seed)
		hs, err := s.Levels(len(leaves))
		if err != nil {
			t.Fatal(err)
		}
		got, err := merkle.Build(ctx, leaves, nil, merkle.Options{Schedule: s})
		if err != nil {
			t.Fatalf("%s, %d leaves: %v", s, len(leaves), err)
		}
		requireNodes(t, mixedReference(leaves, hs), got, s.String())
	})
}

// FuzzCommitMatricesGPU holds commitments to matrices of several heights
// on the GPU to the reference: up to 5 matrices of 1 to 64 rows and 1 to
// 12 columns, shapes drawn from the fuzzer's bytes.
func FuzzCommitMatricesGPU(f *testing.F) {
	f.Add(uint64(1), []byte{1, 1})
	f.Add(uint64(2), []byte{5, 3, 5, 9, 2, 1, 0, 4})
	f.Add(uint64(3), []byte{6, 8, 3, 3, 6, 1})
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, seed uint64, shape []byte) {
		var shapes [][2]int
		tall := 0
		for k := 0; k+1 < len(shape) && len(shapes) < 5; k += 2 {
			h := 1 << (int(shape[k]) % 7)
			shapes = append(shapes, [2]int{h, 1 + int(shape[k+1])%12})
			tall = max(tall, h)
		}
		if tall < 2 {
			shapes = append(shapes, [2]int{2, 1})
		}
		ms := randomMatrices(shapes, seed)
		leaves, nodes := matricesReference(ms, rescue.MerkleMerge{})
		got, err := merkle.CommitMatrices(ctx, ms, rescue.MerkleMerge{}, merkle.Options{})
		if err != nil {
			t.Fatalf("%v: %v", shapes, err)
		}
		requireLeaves(t, leaves, got, "fuzz")
		requireNodes(t, nodes, got, "fuzz")
	})
}
