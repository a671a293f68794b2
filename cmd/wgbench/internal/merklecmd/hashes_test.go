package merklecmd

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestPoseidon2Merkle builds, proves and verifies a tree with --hash
// poseidon2 on the CPU and the GPU.
func TestPoseidon2Merkle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	_, raw := clitest.GoldilocksRecords(rng, 64, 4)
	leaves := make([][32]byte, 64)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	want, err := merkle.Build(nil, leaves, poseidon2.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	root := want.Root()
	dir := t.TempDir()
	in := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	for _, backend := range []string{"cpu", gputest.Backends()[0]} {
		t.Run(backend, func(t *testing.T) {
			nodes := filepath.Join(dir, backend+"-nodes.bin")
			out, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", "poseidon2", "--in", in, "--out", nodes)
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", out)
			requireFile(t, nodes, wgpu.Bytes(want.Nodes()))

			proof, _, err := wgbench(t, "merkle", "prove", "--backend", backend, "--hash", "poseidon2", "--in", in, "--index", "37")
			require.NoError(t, err)
			var p merkle.Proof
			require.NoError(t, json.Unmarshal([]byte(proof), &p))
			require.True(t, merkle.Verify(poseidon2.MerkleMerge{}, root, 64, p))
			pf := filepath.Join(dir, backend+"-proof.json")
			require.NoError(t, os.WriteFile(pf, []byte(proof), 0o644))
			_, _, err = wgbench(t, "merkle", "verify", "--hash", "poseidon2", "--proof", pf, "--root", hex.EncodeToString(root[:]), "--leaves", "64")
			require.NoError(t, err)
			_, _, err = wgbench(t, "merkle", "verify", "--hash", "rescue", "--proof", pf, "--root", hex.EncodeToString(root[:]), "--leaves", "64")
			require.Error(t, err, "a Poseidon2 proof does not verify as Rescue")
		})
	}
	_, _, err = wgbench(t, "merkle", "--hash", "nope", "--in", in)
	require.ErrorContains(t, err, "blake3, rescue, rpo, poseidon2")
}

// TestRPOMerkleCLI builds an RPO tree with 'merkle --hash rpo' and checks
// its root against the library's CPU reference.
func TestRPOMerkleCLI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	_, raw := clitest.GoldilocksRecords(rng, 64, 4)
	in := filepath.Join(t.TempDir(), "leaves.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	want := rpoRoot(raw)
	for _, backend := range append([]string{"cpu"}, gputest.Backends()...) {
		out, _, err := wgbench(t, "--backend", backend, "merkle", "--hash", "rpo", "--in", in)
		require.NoError(t, err, backend)
		require.Contains(t, out, want, backend)
	}
}

// TestMerkle31CLI checks that the registry's 31-bit hashes reach merkle and
// commit by name: a tree of canonical digests built, proved and verified
// with --hash poseidon2-F (the GPU's root equal to the CPU reference's),
// and a matrix committed with --hash poseidon2-F alone, its --prove output
// checked by merkle verify.
func TestMerkle31CLI(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 9))
	dir := t.TempDir()
	for _, f := range registry.Fields31 {
		h := registry.Of(f)[0]
		_, raw := clitest.Records31(rng, h, 37, 8) // 37 leaves of 8 elements
		leaves := make([][32]byte, 37)
		for i := range leaves {
			copy(leaves[i][:], raw[32*i:])
		}
		want, err := merkle.Build(nil, leaves, h.Merkle, merkle.Options{})
		require.NoError(t, err)
		wr := want.Root()
		root := hex.EncodeToString(wr[:])
		in := filepath.Join(dir, f+"-leaves.bin")
		require.NoError(t, os.WriteFile(in, raw, 0o644))
		for _, backend := range []string{"cpu", gputest.Backends()[0]} {
			out, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", h.Name, "--in", in)
			require.NoError(t, err, backend)
			require.Equal(t, root+"\n", out, "%s %s", h.Name, backend)
		}
		proof, _, err := wgbench(t, "merkle", "prove", "--hash", h.Name, "--in", in, "--index", "30")
		require.NoError(t, err)
		pf := filepath.Join(dir, f+"-proof.json")
		require.NoError(t, os.WriteFile(pf, []byte(proof), 0o644))
		_, _, err = wgbench(t, "merkle", "verify", "--hash", h.Name, "--proof", pf, "--root", root, "--leaves", "37")
		require.NoError(t, err)
		_, _, err = wgbench(t, "merkle", "verify", "--hash", "poseidon2", "--proof", pf, "--root", root, "--leaves", "37")
		require.Error(t, err, "a %s proof does not verify as Goldilocks Poseidon2", h.Name)

		// A matrix of 16 rows of 5 elements, committed with --hash alone.
		els, mraw := clitest.Records31(rng, h, 16, 5)
		matIn := filepath.Join(dir, f+"-matrix.bin")
		require.NoError(t, os.WriteFile(matIn, mraw, 0o644))
		ref, err := merkle.CommitMatrix(nil, merkle.Matrix[uint32]{Rows: 16, Cols: 5, Data: els}, h.Merkle.(merkle.RowHash[uint32]), merkle.Options{})
		require.NoError(t, err)
		rr := ref.Root()
		mroot := hex.EncodeToString(rr[:])
		out, _, err := wgbench(t, "commit", "--hash", h.Name, "--matrix", "16x5", "--in", matIn)
		require.NoError(t, err)
		require.Equal(t, mroot+"\n", out)
		proof, _, err = wgbench(t, "commit", "--hash", h.Name, "--matrix", "16x5", "--in", matIn, "--prove", "11")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(pf, []byte(proof), 0o644))
		_, _, err = wgbench(t, "merkle", "verify", "--hash", h.Name, "--proof", pf, "--root", mroot, "--leaves", "16")
		require.NoError(t, err)
	}
}

// rpoRoot is the hex root of the tree over raw's 32-byte leaves, merged
// with rpo.MerkleMerge.
func rpoRoot(raw []byte) string {
	level := make([][32]byte, len(raw)/32)
	for i := range level {
		copy(level[i][:], raw[32*i:])
	}
	for len(level) > 1 {
		next := make([][32]byte, len(level)/2)
		for i := range next {
			next[i] = rpo.MerkleMerge{}.Merge(level[2*i], level[2*i+1])
		}
		level = next
	}
	return hex.EncodeToString(level[0][:])
}
