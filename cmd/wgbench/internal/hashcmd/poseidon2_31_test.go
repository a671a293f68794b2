package hashcmd

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// digests31 returns the little-endian bytes of ds.
func digests31(ds [][8]uint32) []byte {
	out := make([]byte, 32*len(ds))
	for i, d := range ds {
		for j, x := range d {
			binary.LittleEndian.PutUint32(out[32*i+4*j:], x)
		}
	}
	return out
}

// TestPoseidon2CLIField31 checks 'wgbench poseidon2 --field F merge|hash'
// (and every other command of a hash over a 31-bit field, poseidon2-gnark)
// against the reference, on the CPU backend and a GPU one, to --out and to
// stdout.
func TestPoseidon2CLIField31(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	dir := t.TempDir()
	for _, h := range registry.Batched() {
		r, ok := registry.ReferenceOf[uint32, [8]uint32, [16]uint32](h)
		if !ok {
			continue
		}
		f := h.Field
		els, raw := clitest.Records31(rng, h, 37, 16)
		pairs := filepath.Join(dir, h.Name+"-pairs.bin")
		require.NoError(t, os.WriteFile(pairs, raw, 0o644))
		want := make([][8]uint32, 37)
		for i := range want {
			want[i] = r.Merge([8]uint32(els[16*i:]), [8]uint32(els[16*i+8:]))
		}
		const m = 11
		hels, hraw := clitest.Records31(rng, h, 29, m)
		inputs := filepath.Join(dir, h.Name+"-inputs.bin")
		require.NoError(t, os.WriteFile(inputs, hraw, 0o644))
		wantHash := make([][8]uint32, 29)
		for i := range wantHash {
			wantHash[i] = r.HashElements(hels[m*i : m*(i+1)])
		}
		for _, backend := range []string{"cpu", gputest.Backends()[0]} {
			t.Run(h.Name+"/"+backend, func(t *testing.T) {
				out := filepath.Join(dir, h.Name+backend+"-merged.bin")
				_, _, err := wgbench(t, h.Command, "--field", f, "merge", "--backend", backend, "--in", pairs, "--out", out)
				require.NoError(t, err)
				requireFile(t, out, digests31(want))
				stdout, _, err := wgbench(t, h.Command, "--field", f, "hash", "--elements", "11", "--backend", backend, "--in", inputs)
				require.NoError(t, err)
				require.Equal(t, string(digests31(wantHash)), stdout)
			})
		}
	}
}

// TestPoseidon2CLIField31BadInput checks that a value at or above p is
// named by record and element, a partial record by its number, and a
// field or variant the command does not know by what it accepts; nothing
// is written.
func TestPoseidon2CLIField31BadInput(t *testing.T) {
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	rng := rand.New(rand.NewPCG(31, 8))
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.bin")
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	noOutput := func(t *testing.T, stdout string) {
		t.Helper()
		require.Empty(t, stdout)
		_, err := os.Stat(outPath)
		require.True(t, os.IsNotExist(err), "--out must not be written on bad input")
		requireNoTemp(t, dir)
	}
	h := registry.Of(registry.BabyBear)[0]
	_, raw := clitest.Records31(rng, h, 6, 16)
	binary.LittleEndian.PutUint32(raw[4*(3*16+9):], 2013265921) // record 3, element 9: p
	in := write("bad.bin", raw)
	out, _, err := wgbench(t, "poseidon2", "--field", "babybear", "merge", "--in", in, "--out", outPath)
	require.ErrorContains(t, err, "poseidon2-babybear: merge: pair 3 element 9 is 2013265921, not a field element")
	require.ErrorContains(t, err, "must be below p = 2013265921")
	noOutput(t, out)
	// Below KoalaBear's p, the same value is an element.
	_, _, err = wgbench(t, "poseidon2", "--field", "koalabear", "merge", "--in", in, "--out", outPath)
	require.NoError(t, err)
	require.NoError(t, os.Remove(outPath))

	_, raw = clitest.Records31(rng, h, 4, 3)
	binary.LittleEndian.PutUint32(raw[4*(2*3+1):], ^uint32(0)) // record 2, element 1
	out, _, err = wgbench(t, "poseidon2", "--field", "babybear", "hash", "--elements", "3", "--in", write("bad-hash.bin", raw), "--out", outPath)
	require.ErrorContains(t, err, "poseidon2-babybear: hash: input 2 element 1 is 4294967295, not a field element")
	noOutput(t, out)

	_, raw = clitest.Records31(rng, h, 3, 16)
	out, _, err = wgbench(t, "poseidon2", "--field", "babybear", "merge", "--in", write("short.bin", raw[:3*64-5]), "--out", outPath)
	require.ErrorContains(t, err, "not a whole number of 64-byte records: record 2 has only 59 bytes")
	noOutput(t, out)
	out, _, err = wgbench(t, "poseidon2", "--field", "babybear", "hash", "--elements", "5", "--in", write("short-hash.bin", raw[:41]), "--out", outPath)
	require.ErrorContains(t, err, "poseidon2-babybear hash: ")
	require.ErrorContains(t, err, "not a whole number of 20-byte records")
	noOutput(t, out)

	_, _, err = wgbench(t, "poseidon2", "--field", "mersenne", "merge", "--in", in)
	require.EqualError(t, err, `poseidon2: --field "mersenne": accepted are goldilocks, babybear, koalabear`)
	_, _, err = wgbench(t, "poseidon2", "--field", "koalabear", "merge", "--in", in, "--variant", "muldiag")
	require.ErrorContains(t, err, `poseidon2-koalabear: unknown variant "muldiag": accepted are [fast]`)
	_, _, err = wgbench(t, "rescue", "--field", "babybear", "merge", "--in", in)
	require.ErrorContains(t, err, "unknown flag: --field", "only a command of several fields takes --field")
}
