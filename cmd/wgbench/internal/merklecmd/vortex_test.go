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

	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestCommitVortexCLI holds commit --scheme vortex's root to
// gnark-crypto's vortex.Commit, on every backend and the CPU, and checks
// its refusals.
func TestCommitVortexCLI(t *testing.T) {
	const rows, cols, rate = 5, 64, 4
	r := rand.New(rand.NewPCG(7, 33))
	raw := make([]byte, 4*rows*cols)
	m := make([][]koalabear.Element, rows)
	for i := range m {
		m[i] = make([]koalabear.Element, cols)
		for j := range m[i] {
			x := r.Uint32N(2130706433)
			m[i][j].SetUint64(uint64(x))
			binary.LittleEndian.PutUint32(raw[4*(i*cols+j):], x)
		}
	}
	in := filepath.Join(t.TempDir(), "m.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	rs, err := gsis.NewRSis(0, 6, 8, rows)
	require.NoError(t, err)
	p, err := gvortex.NewParams(cols, rows, rs, rate, 1)
	require.NoError(t, err)
	st, err := gvortex.Commit(p, m)
	require.NoError(t, err)
	var root [32]byte
	for i, e := range st.GetCommitment() {
		binary.LittleEndian.PutUint32(root[4*i:], uint32(e.Uint64()))
	}
	for _, backend := range append(gputest.Backends(), "cpu") {
		stdout, _, err := wgbench(t, "commit", "--backend", backend, "--scheme", "vortex", "--rate", "4", "--sis", "6,8", "--matrix", "5x64", "--in", in)
		require.NoError(t, err, backend)
		require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, backend)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--matrix", "5x64", "--rate", "3"}, "rate 3"},
		{[]string{"--matrix", "5x48"}, "48 columns"},
		{[]string{"--matrix", "4x64"}, "has 1280 bytes: a 4x64 matrix"},
		{[]string{"--matrix", "5x64", "--sis", "9"}, `--sis "9"`},
		{[]string{"--matrix", "5x64", "--records", "4"}, "not --records"},
	} {
		_, _, err := wgbench(t, append([]string{"commit", "--backend", "cpu", "--scheme", "vortex", "--in", in}, c.args...)...)
		require.ErrorContains(t, err, c.want)
	}
}
