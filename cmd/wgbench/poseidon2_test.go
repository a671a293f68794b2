package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// runPoseidon2 runs 'wgbench poseidon2 args...' and returns stdout and the
// error RunE returned.
func runPoseidon2(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	out, _, err := wgbench(t, append([]string{"poseidon2"}, args...)...)
	return []byte(out), err
}

// poseidon2DigestBytes is the reference output: HashElements of each record
// of m elements, 32 little-endian bytes each.
func poseidon2DigestBytes(els []uint64, m int) []byte {
	out := make([]byte, 0, 32*len(els)/m)
	for i := 0; i < len(els); i += m {
		d := poseidon2.HashElements(els[i : i+m])
		for _, e := range d {
			out = binary.LittleEndian.AppendUint64(out, e)
		}
	}
	return out
}

func TestPoseidon2CLI(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	mergeEls, mergeRaw := rescueRecords(rng, 37, 8)
	hashEls, hashRaw := rescueRecords(rng, 29, 13)
	// A merge is HashElements of the two digests' eight elements.
	wantMerge, wantHash := poseidon2DigestBytes(mergeEls, 8), poseidon2DigestBytes(hashEls, 13)
	for i := 0; i < 37; i++ {
		m := poseidon2.Merge([4]uint64(mergeEls[8*i:]), [4]uint64(mergeEls[8*i+4:]))
		require.Equal(t, m[0], binary.LittleEndian.Uint64(wantMerge[32*i:]), "record %d", i)
	}
	for _, backend := range []string{"cpu", "vulkan"} {
		t.Run(backend, func(t *testing.T) {
			t.Setenv("WGCOMPUTE_BACKEND", backend)
			dir := t.TempDir()
			in := filepath.Join(dir, "pairs.bin")
			require.NoError(t, os.WriteFile(in, mergeRaw, 0o644))
			out, err := runPoseidon2(t, "merge", "--in", in)
			require.NoError(t, err)
			require.Equal(t, wantMerge, out)

			in = filepath.Join(dir, "records.bin")
			outPath := filepath.Join(dir, "digests.bin")
			require.NoError(t, os.WriteFile(in, hashRaw, 0o644))
			out, err = runPoseidon2(t, "hash", "--elements", "13", "--in", in, "--out", outPath)
			require.NoError(t, err)
			require.Empty(t, out, "--out given: nothing on stdout")
			requireFile(t, outPath, wantHash)
		})
	}
}

func TestPoseidon2CLIVariantAndDevices(t *testing.T) {
	t.Setenv("WGCOMPUTE_BACKEND", "vulkan")
	rng := rand.New(rand.NewPCG(9, 11))
	els, raw := rescueRecords(rng, 5, 8)
	in := filepath.Join(t.TempDir(), "pairs.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	out, err := runPoseidon2(t, "merge", "--in", in, "--variant", poseidon2.MulDiag.String())
	require.NoError(t, err)
	require.Equal(t, poseidon2DigestBytes(els, 8), out)
	// Two devices of one adapter split the records between them.
	out, err = runPoseidon2(t, "hash", "--elements", "4", "--in", in, "--devices", "0,0")
	require.NoError(t, err)
	require.Equal(t, poseidon2DigestBytes(els, 4), out)
	_, err = runPoseidon2(t, "merge", "--in", in, "--variant", "nope")
	require.ErrorContains(t, err, "unknown variant")
	require.ErrorContains(t, err, "muldiag")
}

func TestPoseidon2CLIBadInput(t *testing.T) {
	// Input is checked before a device is opened, so the CPU path stands
	// for every backend here.
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	rng := rand.New(rand.NewPCG(1, 5))
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
	binary.LittleEndian.PutUint64(raw[8*(3*8+2):], poseidon2.P) // record 3, element 2
	in := write("bad-element.bin", raw)
	out, err := runPoseidon2(t, "merge", "--in", in, "--out", outPath)
	require.ErrorContains(t, err, "poseidon2 merge: record 3 element 2")
	require.ErrorContains(t, err, "below p")
	noOutput(t, out)

	_, raw = rescueRecords(rng, 4, 3)
	binary.LittleEndian.PutUint64(raw[8*(2*3+1):], poseidon2.P+1) // record 2, element 1
	out, err = runPoseidon2(t, "hash", "--elements", "3", "--in", write("bad-hash.bin", raw), "--out", outPath)
	require.ErrorContains(t, err, "poseidon2 hash: record 2 element 1")
	noOutput(t, out)

	_, raw = rescueRecords(rng, 3, 8)
	out, err = runPoseidon2(t, "merge", "--in", write("short.bin", raw[:3*64-5]), "--out", outPath)
	require.ErrorContains(t, err, "not a whole number of 64-byte records")
	noOutput(t, out)
	for _, n := range []string{"0", "-3", "2147483649"} {
		out, err = runPoseidon2(t, "hash", "--elements", n, "--in", write("any.bin", raw), "--out", outPath)
		require.ErrorContains(t, err, "--elements is "+n)
		noOutput(t, out)
	}
	_, err = runPoseidon2(t, "hash", "--in", write("any.bin", raw))
	require.ErrorContains(t, err, `"elements" not set`)
	_, err = runPoseidon2(t, "merge")
	require.ErrorContains(t, err, `"in" not set`)
	_, err = runPoseidon2(t, "permute")
	require.ErrorContains(t, err, `unknown command "permute"`)

	// No records: no digests, and no error.
	out, err = runPoseidon2(t, "merge", "--in", write("empty.bin", nil))
	require.NoError(t, err)
	require.Empty(t, out)
}

// TestPoseidon2Merkle builds, proves and verifies a tree with --hash
// poseidon2 on the CPU and the GPU.
func TestPoseidon2Merkle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	_, raw := rescueRecords(rng, 64, 4)
	leaves := make([][32]byte, 64)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	want, err := merkle.BuildCPU(leaves, poseidon2.MerkleMerge{})
	require.NoError(t, err)
	root := want.Root()
	dir := t.TempDir()
	in := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	for _, backend := range []string{"cpu", "vulkan"} {
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

// TestBenchPoseidon2 runs the suite at its quick sizes and checks the
// tables' shape: every rate a positive number, every variant measured.
func TestBenchPoseidon2(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	_, _, err := wgbench(t, "bench", "poseidon2", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath)
	require.NoError(t, err)
	var tables []table
	require.NoError(t, json.Unmarshal(mustRead(t, jsonPath), &tables))
	require.Len(t, tables, 2)
	main, variants := tables[0], tables[1]
	require.Equal(t, "poseidon2", main.Suite)
	require.True(t, strings.HasPrefix(main.Title, "Poseidon2"))
	require.Len(t, main.Rows, 2, "--quick measures 64² and 128²")
	require.Equal(t, "64² = 4096", main.Rows[0][0])
	for _, row := range main.Rows {
		require.Len(t, row, len(main.Columns))
		for _, c := range []int{1, 2, 3, 4, 5, 6} {
			require.NotContains(t, []string{"", "0", "+Inf", "NaN"}, row[c], "column %q", main.Columns[c])
		}
	}
	require.Len(t, variants.Rows, len(poseidon2.Variants))
	for i, v := range poseidon2.Variants {
		require.Equal(t, v.String(), variants.Rows[i][0])
	}
}
