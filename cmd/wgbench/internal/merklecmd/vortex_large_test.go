package merklecmd

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// TestCommitVortexLargeFile holds commit --scheme vortex's read of a file
// large enough to be read on every core into words of their own, and
// turned into Montgomery forms where it lies, to gnark-crypto's root, and
// checks the refusals on that path: an element not below p, named; a file
// past the memory bound; a file one element long.
func TestCommitVortexLargeFile(t *testing.T) {
	const rows, cols, rate, p = 64, 1 << 15, 2, 2130706433
	require.GreaterOrEqual(t, 4*rows*cols, cli.ParallelRead, "the test's file takes the parallel read")
	r := rand.New(rand.NewPCG(5, 12))
	raw := make([]byte, 4*rows*cols)
	m := make([][]koalabear.Element, rows)
	for i := range m {
		m[i] = make([]koalabear.Element, cols)
		for j := range m[i] {
			x := r.Uint32N(p)
			m[i][j].SetUint64(uint64(x))
			binary.LittleEndian.PutUint32(raw[4*(i*cols+j):], x)
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "m.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	rs, err := gsis.NewRSis(0, 4, 8, rows)
	require.NoError(t, err)
	gp, err := gvortex.NewParams(cols, rows, rs, rate, 1)
	require.NoError(t, err)
	st, err := gvortex.Commit(gp, m)
	require.NoError(t, err)
	var root [32]byte
	for i, e := range st.GetCommitment() {
		binary.LittleEndian.PutUint32(root[4*i:], uint32(e.Uint64()))
	}
	args := []string{"commit", "--backend", "cpu", "--scheme", "vortex", "--rate", "2", "--sis", "4,8", "--matrix", "64x32768", "--in", in}
	stdout, _, err := wgbench(t, args...)
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout)

	_, _, err = wgbenchWith(t, &cli.Globals{Args: args, Memory: 16 << 20}, "")
	require.ErrorContains(t, err, "is larger than 4.0 MiB, the most a commitment's input can take here")

	bad := filepath.Join(dir, "bad.bin")
	binary.LittleEndian.PutUint32(raw[4*(40*cols+7):], p)
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	_, _, err = wgbench(t, append(args[:len(args)-1], bad)...)
	require.ErrorContains(t, err, "element (40, 7) is 2130706433")

	long := filepath.Join(dir, "long.bin")
	require.NoError(t, os.WriteFile(long, append(raw, 0, 0, 0, 0), 0o644))
	_, _, err = wgbench(t, append(args[:len(args)-1], long)...)
	require.ErrorContains(t, err, "has 8388612 bytes: a 64x32768 matrix of little-endian uint32 is 8388608 bytes")
}
