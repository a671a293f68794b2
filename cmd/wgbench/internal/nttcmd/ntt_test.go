package nttcmd

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// randField returns n random canonical elements of f.
func randField(f field.Monty31, seed uint64, n int) []uint32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]uint32, n)
	for i := range out {
		out[i] = rng.Uint32N(f.P())
	}
	return out
}

func readUint32s(t *testing.T, path string) []uint32 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return append([]uint32(nil), cli.AsElements[uint32](b)...)
}

func TestNTTCommand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range field.Fields {
		for _, k := range []int{1, 7, 13} {
			data := randField(f, uint64(k), 3<<k)
			in := filepath.Join(dir, "in.bin")
			require.NoError(t, os.WriteFile(in, wgpu.Bytes(data), 0o644))
			for _, flags := range [][]string{nil, {"--inverse"}, {"--coset"}, {"--inverse", "--coset"}} {
				o := ntt.Options{}
				for _, fl := range flags {
					o.Inverse = o.Inverse || fl == "--inverse"
					o.Coset = o.Coset || fl == "--coset"
				}
				want := append([]uint32(nil), data...)
				require.NoError(t, ntt.Reference(f, want, k, o))
				for _, backend := range append(gputest.Backends(), "cpu") {
					out := filepath.Join(dir, "out.bin")
					args := append([]string{"ntt", "--field", f.Name(), "--log2", strconv.Itoa(k), "--in", in, "--out", out, "--backend", backend}, flags...)
					_, _, err := wgbench(t, args...)
					require.NoError(t, err, "%q", args)
					require.Equal(t, want, readUint32s(t, out), "%q", args)
				}
			}
		}
	}
}

func TestEncodeCommand(t *testing.T) {
	dir := t.TempDir()
	f := field.KoalaBear
	data := randField(f, 9, 5*256)
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, wgpu.Bytes(data), 0o644))
	for _, rate := range []int{2, 4, 8} {
		want := make([]uint32, len(data)*rate)
		require.NoError(t, ntt.EncodeReedSolomon(nil, f, want, data, 8, rate))
		for _, backend := range append(gputest.Backends(), "cpu") {
			out := filepath.Join(dir, "out.bin")
			_, _, err := wgbench(t, "encode", "--rate", strconv.Itoa(rate), "--matrix", "5x256", "--in", in, "--out", out, "--backend", backend)
			require.NoError(t, err)
			require.Equal(t, want, readUint32s(t, out), "rate %d on %s", rate, backend)
		}
	}
}

// TestNTTCommandErrors checks each refusal's message, and that nothing is
// written.
func TestNTTCommandErrors(t *testing.T) {
	dir := t.TempDir()
	f := field.KoalaBear
	good := filepath.Join(dir, "good.bin")
	require.NoError(t, os.WriteFile(good, wgpu.Bytes(make([]uint32, 24)), 0o644))
	bad := make([]uint32, 16)
	bad[11] = f.P()
	badFile := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(badFile, wgpu.Bytes(bad), 0o644))
	out := filepath.Join(dir, "out.bin")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ntt", "--field", "koalabear", "--log2", "25", "--in", good}, "--log2 25: ntt: rows of 2^25 elements: koalabear takes 2^1 up to 2^24"},
		{[]string{"ntt", "--field", "babybear", "--log2", "28", "--in", good}, "babybear takes 2^1 up to 2^27"},
		{[]string{"ntt", "--field", "koalabear", "--n", "12", "--in", good}, "--n 12: ntt: a row of 12 elements: the length must be a power of two"},
		{[]string{"ntt", "--field", "koalabear", "--log2", "4", "--in", good}, "is 96 bytes, not a whole number of rows of 64 bytes (16 elements): row 1 has only 32 bytes"},
		{[]string{"ntt", "--field", "koalabear", "--log2", "3", "--in", badFile}, "row 1, element 3: 2130706433 is not a koalabear element"},
		{[]string{"ntt", "--field", "goldilocks3", "--log2", "3", "--in", good}, `--field "goldilocks3": accepted are`},
		{[]string{"ntt", "--field", "koalabear", "--log2", "3", "--n", "8", "--in", good}, "give one of --log2 K and --n N"},
		{[]string{"encode", "--rate", "3", "--matrix", "3x8", "--in", good}, "--rate 3: ntt: rate 3: the blowup is a power of two from 2 to 16"},
		{[]string{"encode", "--rate", "2", "--matrix", "2x12", "--in", good}, "--matrix 2x12 --rate 2: ntt: a row of 12 elements: the length must be a power of two"},
		{[]string{"encode", "--rate", "2", "--matrix", "4x8", "--in", good}, "is 96 bytes: a 4x8 matrix of uint32 is 128 bytes"},
		{[]string{"encode", "--rate", "2", "--matrix", "5x4", "--in", good}, "is 96 bytes: a 5x4 matrix of uint32 is 80 bytes"},
		{[]string{"encode", "--rate", "16", "--matrix", "1x2097152", "--in", good}, "the codewords of 2^25 elements exceed koalabear's 2^24"},
		{[]string{"encode", "--rate", "2", "--matrix", "2x8", "--in", badFile}, "row 1, element 3: 2130706433 is not a koalabear element"},
		{[]string{"encode", "--rate", "2", "--matrix", "8by2", "--in", good}, `--matrix "8by2": want ROWSxCOLS`},
	} {
		args := append(c.args, "--out", out, "--backend", "cpu")
		_, _, err := wgbench(t, args...)
		require.ErrorContains(t, err, c.want, "%q", args)
		_, statErr := os.Stat(out)
		require.True(t, os.IsNotExist(statErr), "%q wrote %s", args, out)
	}
}

func TestNTTCommandGoldilocks(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 5))
	data := make([]uint64, 3<<9)
	for i := range data {
		data[i] = rng.Uint64N(u64emu.P)
	}
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, wgpu.Bytes(data), 0o644))
	want := append([]uint64(nil), data...)
	require.NoError(t, ntt.Reference(field.Goldilocks{}, want, 9, ntt.Options{Inverse: true, Coset: true}))
	wantRS := make([]uint64, 2*len(data))
	require.NoError(t, ntt.EncodeReedSolomon(nil, field.Goldilocks{}, wantRS, data, 9, 2))
	for _, backend := range append(gputest.Backends(), "cpu") {
		out := filepath.Join(dir, "out.bin")
		_, _, err := wgbench(t, "ntt", "--field", "goldilocks", "--n", "512", "--inverse", "--coset", "--in", in, "--out", out, "--backend", backend)
		require.NoError(t, err)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, want, append([]uint64(nil), cli.AsElements[uint64](b)...), backend)
		_, _, err = wgbench(t, "encode", "--field", "goldilocks", "--rate", "2", "--matrix", "3x512", "--in", in, "--out", out, "--backend", backend)
		require.NoError(t, err)
		b, err = os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, wantRS, append([]uint64(nil), cli.AsElements[uint64](b)...), backend)
	}
	bad := append([]uint64(nil), data...)
	bad[515] = u64emu.P + 2
	require.NoError(t, os.WriteFile(in, wgpu.Bytes(bad), 0o644))
	_, _, err := wgbench(t, "ntt", "--field", "goldilocks", "--log2", "9", "--in", in, "--out", filepath.Join(dir, "x"), "--backend", "cpu")
	require.ErrorContains(t, err, "row 1, element 3: 18446744069414584323 is not a goldilocks element")
	_, _, err = wgbench(t, "ntt", "--field", "goldilocks", "--log2", "33", "--in", in, "--backend", "cpu")
	require.ErrorContains(t, err, "goldilocks takes 2^1 up to 2^32")
}
