package poseidon2

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gnarkp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/internal/base/par"
)

// commitBatch31 is merkle.CommitMatrix's root for a matrix of a power
// of two rows, built from the batch functions on the CPU: the rows hashed
// by HashElementsMany, each level merged by MergeMany.
func commitBatch31(f *batch.Monty31, data []uint32, rows, cols int) ([32]byte, error) {
	level := make([][Digest31]uint32, rows)
	if err := f.HashElementsMany(nil, level, data, cols, batch.Options{}); err != nil {
		return [32]byte{}, err
	}
	for len(level) > 1 {
		pairs := unsafe.Slice((*[2 * Digest31]uint32)(unsafe.Pointer(unsafe.SliceData(level))), len(level)/2)
		next := make([][Digest31]uint32, len(pairs))
		if err := f.MergeMany(nil, next, pairs, batch.Options{}); err != nil {
			return [32]byte{}, err
		}
		level = next
	}
	return Digest31Bytes(level[0]), nil
}

// TestCommitBatch31 holds commitBatch31 to merkle's commitment of the same
// matrix, for both fields.
func TestCommitBatch31(t *testing.T) {
	rng := newRand(t)
	for _, b := range batches31 {
		for _, shape := range [][2]int{{2, 1}, {2, 9}, {64, 16}, {1024, 17}} {
			rows, cols := shape[0], shape[1]
			data := randStates31(b.m.Permutation(), rng, rows*cols/16+1)[:rows*cols]
			tree, err := merkle.CommitMatrix(nil, merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: data}, b.m, merkle.Options{})
			require.NoError(t, err)
			root, err := commitBatch31(b.f, data, rows, cols)
			require.NoError(t, err)
			require.Equal(t, tree.Root(), root, "%s %d × %d", b.m.Name(), rows, cols)
		}
	}
}

// gnarkCommit is gnark-crypto's own work for a matrix commitment of the
// same shape with its own KoalaBear instance, as its Vortex hashes: each
// row absorbed by its width-24 sponge 16 elements a permutation, 16 rows
// side by side (Permutation16x24, as HashPoseidon2x16), on all cores; the
// leaves merged by its width-16 compression (vortex.BuildMerkleTree).
// rows is a multiple of 16 and cols of 16.
func gnarkCommit(data []koalabear.Element, rows, cols int) vortex.Hash {
	perm := gnarkCryptoSponge24
	leaves := make([]vortex.Hash, rows)
	par.For(rows/16, 1, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			var state [24][16]koalabear.Element
			for c := 0; c < cols; c += 16 {
				for k := range 16 {
					for j := range 16 {
						state[8+k][j] = data[(16*g+j)*cols+c+k]
					}
				}
				perm.Permutation16x24(&state)
			}
			for k := range 8 {
				for j := range 16 {
					leaves[16*g+j][k] = state[k][j]
				}
			}
		}
	})
	return vortex.BuildMerkleTree(leaves, nil).Root()
}

// gnarkCryptoSponge24 is the permutation of vortex.HashPoseidon2.
var gnarkCryptoSponge24 = gnarkp2.NewPermutation(24, 6, 21)

// TestGnarkCommit holds gnarkCommit's leaves to vortex.HashPoseidon2: the
// benchmark times gnark-crypto's hash, not another.
func TestGnarkCommit(t *testing.T) {
	rng := newRand(t)
	const rows, cols = 32, 48
	data := make([]koalabear.Element, rows*cols)
	for i := range data {
		data[i].SetUint64(uint64(rng.Uint32N(KoalaBear16.Field().P())))
	}
	leaves := make([]vortex.Hash, rows)
	for r := range leaves {
		leaves[r] = vortex.HashPoseidon2(data[r*cols : (r+1)*cols])
	}
	require.Equal(t, vortex.BuildMerkleTree(leaves, nil).Root(), gnarkCommit(data, rows, cols))
}

// BenchmarkCommit31CPU commits a KoalaBear matrix of 2^14 and 2^20 rows
// of 128 columns on all cores three ways, side by side: merkle's CPU path
// (merkle.CommitMatrix with a nil Context: a row and a merge at a
// time, in scalar Go), the same commitment from the batch functions
// (blocks of states with gnark-crypto's vector arithmetic; the roots are
// checked equal first), and gnark-crypto's own instance on the same
// shape (gnarkCommit). The bytes are the matrix's.
//
//	go test -run - -bench 'Commit31CPU/2\^20' -benchtime 3x ./algos/poseidon2/
func BenchmarkCommit31CPU(b *testing.B) {
	const cols = 128
	for _, lg := range []int{14, 20} {
		rows := 1 << lg
		var data []uint32 // made by the first sub-benchmark that runs
		matrix := func() merkle.Matrix[uint32] {
			if data == nil {
				data = randStates31(KoalaBear16, newRand(b), rows*cols/16)
			}
			return merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: data}
		}
		name := fmt.Sprintf("2^%dx%d", lg, cols)
		var want [32]byte
		b.Run(name+"/merkle", func(b *testing.B) {
			m := matrix()
			b.SetBytes(int64(4 * len(data)))
			loopCPU(b, func() {
				tree, err := merkle.CommitMatrix(nil, m, KoalaBearMerkle, merkle.Options{})
				if err != nil {
					b.Fatal(err)
				}
				want = tree.Root()
			})
		})
		b.Run(name+"/batch", func(b *testing.B) {
			data := matrix().Data
			root, err := commitBatch31(KoalaBearBatch, data, rows, cols)
			if err != nil {
				b.Fatal(err)
			}
			if want != ([32]byte{}) && root != want {
				b.Fatalf("root %x, merkle's %x", root, want)
			}
			b.SetBytes(int64(4 * len(data)))
			loopCPU(b, func() {
				if _, err := commitBatch31(KoalaBearBatch, data, rows, cols); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(name+"/gnark", func(b *testing.B) {
			data := matrix().Data
			els := make([]koalabear.Element, len(data))
			for i, x := range data {
				els[i].SetUint64(uint64(x))
			}
			b.SetBytes(int64(4 * len(data)))
			loopCPU(b, func() { gnarkCommit(els, rows, cols) })
		})
		data = nil
		runtime.GC()
	}
}
