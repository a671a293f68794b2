package merklecmd

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// writeMatrix31 writes a seeded rows x cols matrix of hash's field as
// canonical little-endian uint32, row by row, and returns it with the
// file's path.
func writeMatrix31(t *testing.T, dir string, hash merkle.RowHash[uint32], rows, cols int, seed uint64) (merkle.Matrix[uint32], string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 31))
	m := merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: make([]uint32, rows*cols)}
	raw := make([]byte, 4*len(m.Data))
	for i := range m.Data {
		m.Data[i] = r.Uint32N(hash.Modulus())
		if i%7 == 0 {
			m.Data[i] = hash.Modulus() - 1
		}
		binary.LittleEndian.PutUint32(raw[4*i:], m.Data[i])
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%dx%d-%d.bin", hash.FieldName(), rows, cols, seed))
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	return m, path
}

func TestCommitMatrix31CLI(t *testing.T) {
	dir := t.TempDir()
	for _, hash := range []poseidon2.MerkleMerge31{poseidon2.BabyBearMerkle, poseidon2.KoalaBearMerkle} {
		m, in := writeMatrix31(t, dir, hash, 16, 9, 1)
		ref, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{})
		require.NoError(t, err)
		root := ref.Root()
		a, inA := writeMatrix31(t, dir, hash, 8, 3, 2)
		b, inB := writeMatrix31(t, dir, hash, 2, 17, 3)
		refAB, err := merkle.CommitMatrices(nil, []merkle.Matrix[uint32]{a, b}, hash, merkle.Options{})
		require.NoError(t, err)
		rootAB := refAB.Root()
		for _, backend := range append(gputest.Backends(), "cpu") {
			stdout, _, err := wgbench(t, "commit", "--backend", backend, "--field", hash.FieldName(), "--matrix", "16x9", "--in", in)
			require.NoError(t, err, backend)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, "%s %s", hash.FieldName(), backend)
			stdout, _, err = wgbench(t, "commit", "--backend", backend, "--field", hash.FieldName(), "--hash", "poseidon2",
				"--matrix", "8x3", "--in", inA, "--matrix", "2x17", "--in", inB)
			require.NoError(t, err, backend)
			require.Equal(t, hex.EncodeToString(rootAB[:])+"\n", stdout, "%s %s, two matrices", hash.FieldName(), backend)
		}
		// The root is 8 canonical elements, as little-endian uint32s.
		for i, e := range poseidon2.Digest31Elements(root) {
			require.Less(t, e, hash.Modulus(), "root element %d", i)
		}
	}
}

func TestCommitMatrix31CLIBadInput(t *testing.T) {
	dir := t.TempDir()
	hash := poseidon2.BabyBearMerkle
	_, in := writeMatrix31(t, dir, hash, 4, 3, 1)
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	binary.LittleEndian.PutUint32(raw[4*(2*3+1):], hash.Modulus())
	bad := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--field", "babybear", "--matrix", "4x3", "--in", bad}, "element 7 (row 2, column 1) is 2013265921, not a babybear field element: elements are values below p = 2013265921"},
		{[]string{"--field", "babybear", "--matrix", "4x4", "--in", in}, "a 4x4 matrix of little-endian uint32 is 64 bytes"},
		{[]string{"--field", "mersenne", "--matrix", "4x3", "--in", in}, "accepted are goldilocks (the default), babybear and koalabear"},
		{[]string{"--field", "koalabear", "--hash", "rescue", "--matrix", "4x3", "--in", in}, "committed with poseidon2"},
		{[]string{"--field", "koalabear", "--records", "4", "--in", in}, "--field applies to --matrix"},
		// A BabyBear matrix read as Goldilocks: 48 bytes are not 4x3 uint64s.
		{[]string{"--matrix", "4x3", "--in", in}, "a 4x3 matrix of little-endian uint64 is 96 bytes"},
	} {
		_, _, err := wgbench(t, append([]string{"commit", "--backend", "cpu"}, c.args...)...)
		require.ErrorContains(t, err, c.want, "%v", c.args)
	}
}
