package goldilocks

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"

	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/wgsl"
)

// toy is a permutation for the constructions' tests: not a hash, but every
// lane depends on every other.
func toy(s *[Width]uint64) {
	var sum uint64
	for _, x := range s {
		sum += x
	}
	for i := range s {
		s[i] = (s[i]*3 + sum + uint64(i)) % P
	}
}

// TestSponge holds Sponge and Compression equal to the loops Plonky3's
// PaddingFreeSponge<_, 12, 8, 4> and TruncatedPermutation<_, 2, 4, 12>
// are.
func TestSponge(t *testing.T) {
	sponge, compress := Sponge(toy), Compression(toy)
	for n := range 30 {
		els := make([]uint64, n)
		for i := range els {
			els[i] = uint64(i*i + 1)
		}
		var s [Width]uint64
		for lo := 0; lo < n; lo += 8 {
			copy(s[:8], els[lo:min(n, lo+8)])
			toy(&s)
		}
		require.Equal(t, [DigestSize]uint64(s[:4]), sponge(els), "%d elements", n)
	}
	a, b := [DigestSize]uint64{1, 2, 3, 4}, [DigestSize]uint64{5, 6, 7, 8}
	s := [Width]uint64{1, 2, 3, 4, 5, 6, 7, 8}
	toy(&s)
	require.Equal(t, [DigestSize]uint64(s[:4]), compress(a, b))
	require.Equal(t, sponge([]uint64{1, 2, 3, 4, 5, 6, 7, 8}), compress(a, b))
	require.ErrorContains(t, Permutation(toy).Permute(make([]uint64, 11)), "permutation of 12 elements, given 11")
}

// testShaders is the library a toy hash's package would embed.
var testShaders = wgsl.NewLibrary("algos/internal/goldilocks/toy", fstest.MapFS{
	"toy_merge.wgsl": {Data: []byte("fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> { return a; }\n")},
	"toy_row.wgsl":   {Data: []byte("fn hash_row(row: u32, cols: u32) -> array<u32, 8> { return array<u32, 8>(); }\n")},
}, wgsl.Shared)

// testSpec names testHash.
type testSpec struct{}

func (testSpec) Hash() *Hash { return &testHash }

var testHash = Hash{Name: "toy", Title: "Toy", Merge: Compression(toy), HashElements: Sponge(toy),
	MergeFile: "toy_merge.wgsl", RowFile: "toy_row.wgsl", Shaders: testShaders,
	CPUMerge: 13 * time.Microsecond, GPULevel: 350 * time.Microsecond, Approach: "level-per-dispatch"}

// TestMerkle: Merkle and Tuned answer from their Hash.
func TestMerkle(t *testing.T) {
	var m Tuned[testSpec]
	require.Equal(t, "toy", m.Name())
	a, b := field.GoldilocksLeaf([4]uint64{1, 2, 3, 4}), field.GoldilocksLeaf([4]uint64{5, 6, 7, 8})
	require.Equal(t, field.GoldilocksLeaf(Compression(toy)([4]uint64{1, 2, 3, 4}, [4]uint64{5, 6, 7, 8})), m.Merge(a, b))
	require.Equal(t, field.GoldilocksLeaf(Sponge(toy)([]uint64{9, 10})), m.HashRow([]uint64{9, 10}))
	require.ErrorContains(t, m.CheckDigest(field.GoldilocksLeaf([4]uint64{0, P})), "element 1 is 18446744069414584321, not a Goldilocks field element: Toy digests")
	require.Equal(t, wgsl.Module{Library: testShaders, Files: []string{"toy_merge.wgsl"}}, m.MergeModule())
	require.Equal(t, wgsl.Module{Library: testShaders, Files: []string{"toy_row.wgsl"}}, m.RowModule())
	require.Equal(t, wgsl.Module{Library: shaders, Files: []string{"goldilocks_digest.wgsl"}}, m.ConvertModule())
	require.Equal(t, ConvertDigest(a), m.ConvertDigest(a))
	require.Equal(t, 64, m.MerkleHostWidth(2))
	require.Equal(t, "level-per-dispatch", m.MerkleApproach(1<<20))
	require.Zero(t, m.MerkleWorkgroupSize("level-per-dispatch"))
}
