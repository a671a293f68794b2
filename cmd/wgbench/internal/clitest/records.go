package clitest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// GoldilocksRecords returns k records of m random field elements, edges
// included, as the elements and as the file bytes.
func GoldilocksRecords(rng *rand.Rand, k, m int) ([]uint64, []byte) {
	els := make([]uint64, k*m)
	raw := make([]byte, 8*k*m)
	for i := range els {
		switch rng.IntN(4) {
		case 0:
			els[i] = u64emu.P - 1 - rng.Uint64N(16)
		case 1:
			els[i] = rng.Uint64N(16)
		default:
			els[i] = rng.Uint64N(u64emu.P)
		}
		binary.LittleEndian.PutUint64(raw[8*i:], els[i])
	}
	return els, raw
}

// Records31 returns k records of m canonical elements of h's field, drawn
// from rng, and their little-endian bytes.
func Records31(rng *rand.Rand, h registry.Hash, k, m int) ([]uint32, []byte) {
	p := h.Merkle.(interface{ Modulus() uint32 }).Modulus()
	els := make([]uint32, k*m)
	raw := make([]byte, 4*len(els))
	for i := range els {
		els[i] = rng.Uint32N(p)
		if i%13 == 0 {
			els[i] = p - 1
		}
		binary.LittleEndian.PutUint32(raw[4*i:], els[i])
	}
	return els, raw
}

// WriteLeaves writes n seeded random leaves that hash accepts to a file in
// dir and returns them with the file's path.
func WriteLeaves(t *testing.T, dir string, hash merkle.Hash, n int, seed uint64) ([][32]byte, string) {
	t.Helper()
	leaves := cli.RandomLeaves(hash, n, seed)
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.bin", hash.Name(), n))
	require.NoError(t, os.WriteFile(path, wgpu.Bytes(leaves), 0o644))
	return leaves, path
}

// GoldilocksDigests is what 'wgbench HASH hash' writes for the records of
// m elements els: hashElements of each, 32 little-endian bytes each.
func GoldilocksDigests(hashElements func([]uint64) [4]uint64, els []uint64, m int) []byte {
	out := make([]byte, 0, 32*len(els)/m)
	for i := 0; i < len(els); i += m {
		for _, e := range hashElements(els[i : i+m]) {
			out = binary.LittleEndian.AppendUint64(out, e)
		}
	}
	return out
}
