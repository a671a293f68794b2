package rpo

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rpo/internal/params"
)

// spec is the part of testdata/rpo256.json the tests read.
type spec struct {
	hashtest.RescueSpec
	Vectors    []hashtest.JSONVector `json:"vectors"`
	MergeChain struct {
		Chain [][]string `json:"chain"`
	} `json:"merge_chain"`
}

func loadSpec(t testing.TB) (s spec) {
	hashtest.LoadJSON(t, "../../testdata/rpo256.json", &s)
	return s
}

// nums parses the file's elements.
var nums = hashtest.Nums

// chain returns the spec's merge chain: chain[0] is the zero digest and
// chain[d+1] = Merge(chain[d], chain[d]).
func (s spec) chain(t testing.TB) [][4]uint64 {
	c := make([][4]uint64, len(s.MergeChain.Chain))
	for i, d := range s.MergeChain.Chain {
		c[i] = [4]uint64(nums(t, d))
	}
	return c
}

// TestConstantsMatchSpec: RPO shares Rp64_256's circulant MDS matrix.
func TestConstantsMatchSpec(t *testing.T) {
	loadSpec(t).Check(t, InvAlpha, rescueprime.MDSRow, params.ARK1[:], params.ARK2[:])
}

// TestGeneratedWGSLIsFresh fails when rpo_consts.wgsl was not
// regenerated after a change to the constants or the generator: run
// go generate ./algos/rpo.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	files := params.Files()
	require.Len(t, files, 1)
	hashtest.GeneratedFresh(t, shaders, files, "algos/rpo")
}

// TestVectors checks the reference against miden-crypto's vectors:
// hash_elements of 0..i for i < 19, a merge, and the chain of 255 merges
// of the empty subtrees' roots.
func TestVectors(t *testing.T) {
	s := loadSpec(t)
	seen := map[string]int{}
	for i, v := range s.Vectors {
		seen[v.Fn]++
		family.CheckReference(t, i, v.Vector(t))
	}
	require.Equal(t, map[string]int{"hash_elements": 19, "merge": 1}, seen)
	c := s.chain(t)
	require.Len(t, c, 256)
	require.Equal(t, [4]uint64{}, c[0])
	for d := 0; d+1 < len(c); d++ {
		require.Equal(t, c[d+1], Merge(c[d], c[d]), "chain step %d", d)
	}
}

// TestMergeIsHashElements checks miden-crypto's consistency of merge and
// hash_elements on random digests.
func TestMergeIsHashElements(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		els := randElements(rng, 8)
		require.Equal(t, Merge([4]uint64(els[:4]), [4]uint64(els[4:])), HashElements(els))
	}
}

// TestHashElementsPadding: the length mod 8 in the capacity tells a
// partial block from the same block padded with zeros.
func TestHashElementsPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	e := randElements(rng, 17)
	require.NotEqual(t, HashElements(e[:2]), HashElements(append(e[:2:2], 0)))
	require.NotEqual(t, HashElements(e[:9]), HashElements(append(e[:9:9], 0, 0, 0, 0, 0, 0, 0)))
	require.NotEqual(t, HashElements(e[:8]), HashElements(append(e[:8:8], make([]uint64, 8)...)))
	require.Equal(t, [4]uint64{}, HashElements(nil))
}

// TestHash repeats miden-crypto's tests of hashing bytes, which has no
// published digests: the empty input, trailing zeros, a full last block
// that takes no extra permutation, and no collision among the zero strings
// of 0..254 bytes.
func TestHash(t *testing.T) {
	require.Equal(t, [4]uint64{}, Hash(nil))
	require.Equal(t, [4]uint64{}, Hash([]byte{}))
	for _, pair := range [][2][]byte{
		{{1, 2, 3}, {1, 2, 3, 0}},
		{{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 0}},
		{{1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6, 7, 0}},
		{{1, 2, 3, 4, 5, 6, 7, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0}},
	} {
		require.NotEqual(t, Hash(pair[0]), Hash(pair[1]), "%v", pair)
	}

	// 56 bytes are 8 elements, one block: one permutation of
	// state[0] = 8 and the last element 97·2^48 + 2^56.
	buf := make([]byte, ChunkSize*Rate)
	buf[len(buf)-1] = 97
	var s [Width]uint64
	s[0] = Rate
	s[Width-1] = binary.LittleEndian.Uint64([]byte{0, 0, 0, 0, 0, 0, 97, 1})
	Permute(&s)
	require.Equal(t, [4]uint64(s[4:8]), Hash(buf))

	require.NotEqual(t, Hash(make([]byte, 8)), Hash(binary.LittleEndian.AppendUint64(nil, P)))
	seen := map[[4]uint64]int{}
	for n := range 255 {
		d := Hash(make([]byte, n))
		if m, ok := seen[d]; ok {
			t.Fatalf("%d and %d zero bytes hash to the same digest", m, n)
		}
		seen[d] = n
	}
	// Bytes and elements are hashed apart: the capacity starts at 8 or more.
	require.NotEqual(t, HashElements([]uint64{1}), Hash([]byte{}))
	require.NotEqual(t, HashElements([]uint64{0x0100_0000_0000_0000 | 0x030201}), Hash([]byte{1, 2, 3, 0, 0, 0, 0}))
}

// TestHashMatchesElements spells Hash out for every length up to 40
// bytes: the elements it makes, absorbed with state[0] = 8 + n mod 8.
func TestHashMatchesElements(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 0; n <= 40; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var els []uint64
		for lo := 0; lo < n; lo += ChunkSize {
			var b [8]byte
			c := copy(b[:], data[lo:min(n, lo+ChunkSize)])
			if lo+ChunkSize >= n {
				b[c] = 1
			}
			els = append(els, binary.LittleEndian.Uint64(b[:]))
		}
		var s [Width]uint64
		s[0] = uint64(Rate + len(els)%Rate)
		for lo := 0; lo < len(els); lo += Rate {
			clear(s[4:])
			copy(s[4:], els[lo:min(len(els), lo+Rate)])
			Permute(&s)
		}
		require.Equal(t, [4]uint64(s[4:8]), Hash(data), "%d bytes", n)
	}
}

// TestPermuteRound spells one round out from the layers, to pin the order
// (MDS, ARK1, S-box, MDS, ARK2, inverse S-box) independently of Permute's
// loop: a permutation of seven such rounds.
func TestPermuteRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	st := [Width]uint64(randElements(rng, Width))
	want := st
	for r := 0; r < Rounds; r++ {
		rescueprime.MDS(&want)
		for i := range want {
			want[i] = u64emu.Exp(u64emu.Add(want[i], params.ARK1[r][i]), 7)
		}
		rescueprime.MDS(&want)
		for i := range want {
			want[i] = u64emu.Exp(u64emu.Add(want[i], params.ARK2[r][i]), InvAlpha)
		}
	}
	Permute(&st)
	require.Equal(t, want, st)
}
