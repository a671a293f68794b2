package main

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/rescue"
)

// runRescue runs 'wgbench rescue args...' and returns stdout and the error
// RunE returned.
func runRescue(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	out, _, err := wgbench(t, append([]string{"rescue"}, args...)...)
	return []byte(out), err
}

// rescueRecords returns k records of m random field elements, edges
// included, as the elements and as the file bytes.
func rescueRecords(rng *rand.Rand, k, m int) ([]uint64, []byte) {
	els := make([]uint64, k*m)
	raw := make([]byte, 8*k*m)
	for i := range els {
		switch rng.IntN(4) {
		case 0:
			els[i] = rescue.P - 1 - rng.Uint64N(16)
		case 1:
			els[i] = rng.Uint64N(16)
		default:
			els[i] = rng.Uint64N(rescue.P)
		}
		binary.LittleEndian.PutUint64(raw[8*i:], els[i])
	}
	return els, raw
}

// digestBytes is the reference output: HashElements of each record of m
// elements, 32 little-endian bytes each.
func digestBytes(els []uint64, m int) []byte {
	out := make([]byte, 0, 32*len(els)/m)
	for i := 0; i < len(els); i += m {
		d := rescue.HashElements(els[i : i+m])
		for _, e := range d {
			out = binary.LittleEndian.AppendUint64(out, e)
		}
	}
	return out
}

func TestRescueCLI(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	mergeEls, mergeRaw := rescueRecords(rng, 37, 8)
	hashEls, hashRaw := rescueRecords(rng, 29, 13)
	// A merge is HashElements of the two digests' eight elements.
	wantMerge, wantHash := digestBytes(mergeEls, 8), digestBytes(hashEls, 13)
	for i := 0; i < 37; i++ {
		m := rescue.Merge([4]uint64(mergeEls[8*i:]), [4]uint64(mergeEls[8*i+4:]))
		require.Equal(t, m[0], binary.LittleEndian.Uint64(wantMerge[32*i:]), "record %d", i)
	}
	for _, backend := range []string{"cpu", "vulkan"} {
		t.Run(backend, func(t *testing.T) {
			t.Setenv("WGCOMPUTE_BACKEND", backend)
			dir := t.TempDir()
			in := filepath.Join(dir, "pairs.bin")
			require.NoError(t, os.WriteFile(in, mergeRaw, 0o644))
			out, err := runRescue(t, "merge", "--in", in)
			require.NoError(t, err)
			require.Equal(t, wantMerge, out)

			in = filepath.Join(dir, "records.bin")
			outPath := filepath.Join(dir, "digests.bin")
			require.NoError(t, os.WriteFile(in, hashRaw, 0o644))
			out, err = runRescue(t, "hash", "--elements", "13", "--in", in, "--out", outPath)
			require.NoError(t, err)
			require.Empty(t, out, "--out given: nothing on stdout")
			requireFile(t, outPath, wantHash)
		})
	}
}

func TestRescueCLIVariant(t *testing.T) {
	t.Setenv("WGCOMPUTE_BACKEND", "vulkan")
	rng := rand.New(rand.NewPCG(9, 9))
	els, raw := rescueRecords(rng, 5, 8)
	in := filepath.Join(t.TempDir(), "pairs.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	out, err := runRescue(t, "merge", "--in", in, "--variant", rescue.Vec4.String())
	require.NoError(t, err)
	require.Equal(t, digestBytes(els, 8), out)
	_, err = runRescue(t, "merge", "--in", in, "--variant", "nope")
	require.ErrorContains(t, err, "unknown variant")
	require.ErrorContains(t, err, "arkworkgroup")
}

func TestRescueCLIBadInput(t *testing.T) {
	// Input is checked before a device is opened, so the CPU path stands
	// for every backend here.
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	rng := rand.New(rand.NewPCG(1, 3))
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.bin")
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	noOutput := func(t *testing.T, stdout []byte) {
		t.Helper()
		require.Empty(t, stdout)
		_, err := os.Stat(outPath)
		require.True(t, os.IsNotExist(err), "--out must not be written on bad input")
		requireNoTemp(t, dir)
	}

	_, raw := rescueRecords(rng, 6, 8)
	binary.LittleEndian.PutUint64(raw[8*(3*8+2):], rescue.P) // record 3, element 2
	binary.LittleEndian.PutUint64(raw[8*(5*8+7):], ^uint64(0))
	in := write("bad-element.bin", raw)
	out, err := runRescue(t, "merge", "--in", in, "--out", outPath)
	require.ErrorContains(t, err, "record 3 element 2")
	require.ErrorContains(t, err, "below p")
	noOutput(t, out)
	out, err = runRescue(t, "merge", "--in", in)
	require.ErrorContains(t, err, "record 3 element 2")
	noOutput(t, out)

	_, raw = rescueRecords(rng, 4, 3)
	binary.LittleEndian.PutUint64(raw[8*(2*3+1):], rescue.P+1) // record 2, element 1
	out, err = runRescue(t, "hash", "--elements", "3", "--in", write("bad-hash.bin", raw), "--out", outPath)
	require.ErrorContains(t, err, "record 2 element 1")
	noOutput(t, out)

	_, raw = rescueRecords(rng, 3, 8)
	out, err = runRescue(t, "merge", "--in", write("short.bin", raw[:3*64-5]), "--out", outPath)
	require.ErrorContains(t, err, "not a whole number of 64-byte records")
	require.ErrorContains(t, err, "record 2")
	noOutput(t, out)
	out, err = runRescue(t, "hash", "--elements", "5", "--in", write("short-hash.bin", raw[:41]), "--out", outPath)
	require.ErrorContains(t, err, "not a whole number of 40-byte records")
	noOutput(t, out)

	for _, n := range []string{"0", "-3"} {
		out, err = runRescue(t, "hash", "--elements", n, "--in", write("any.bin", raw), "--out", outPath)
		require.ErrorContains(t, err, "--elements is "+n)
		noOutput(t, out)
	}
	_, err = runRescue(t, "hash", "--in", write("any.bin", raw))
	require.ErrorContains(t, err, `"elements" not set`)

	missing := filepath.Join(dir, "missing.bin")
	out, err = runRescue(t, "merge", "--in", missing, "--out", outPath)
	require.ErrorContains(t, err, missing)
	noOutput(t, out)
	out, err = runRescue(t, "hash", "--elements", "2", "--in", dir, "--out", outPath)
	require.Error(t, err, "a directory is not a readable input")
	noOutput(t, out)
	_, err = runRescue(t, "merge")
	require.ErrorContains(t, err, `"in" not set`)

	// No records: no digests, and no error.
	out, err = runRescue(t, "merge", "--in", write("empty.bin", nil))
	require.NoError(t, err)
	require.Empty(t, out)
}
