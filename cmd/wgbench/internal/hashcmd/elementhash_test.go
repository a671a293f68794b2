package hashcmd

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// cliHash is a command of newElementHashCmd as the shared CLI tests run
// it: its name, its references, and the seeds of its records.
type cliHash struct {
	name         string
	merge        func(a, b [4]uint64) [4]uint64
	hashElements func(els []uint64) [4]uint64
	// seed is the second word of the records' generators.
	seed uint64
	// variant is a variant other than the default where there is one,
	// and lastVariant the last name the command accepts.
	variant, lastVariant string
}

// run runs 'wgbench h.name args...' and returns stdout and the error RunE
// returned.
func (h cliHash) run(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	out, _, err := wgbench(t, append([]string{h.name}, args...)...)
	return []byte(out), err
}

// digestBytes is the reference output: HashElements of each record of m
// elements, 32 little-endian bytes each.
func (h cliHash) digestBytes(els []uint64, m int) []byte {
	return clitest.GoldilocksDigests(h.hashElements, els, m)
}

// testElementHashCLI merges to stdout and hashes to --out on the CPU
// backend and every GPU backend, and on the GPU split over three devices
// of one adapter, and compares with the reference.
func testElementHashCLI(t *testing.T, h cliHash) {
	rng := rand.New(rand.NewPCG(5, h.seed))
	mergeEls, mergeRaw := clitest.GoldilocksRecords(rng, 37, 8)
	hashEls, hashRaw := clitest.GoldilocksRecords(rng, 29, 13)
	// A merge of a record is the reference's Merge of its two halves.
	wantMerge, wantHash := make([]byte, 0, 32*37), h.digestBytes(hashEls, 13)
	for i := 0; i < 37; i++ {
		for _, e := range h.merge([4]uint64(mergeEls[8*i:]), [4]uint64(mergeEls[8*i+4:])) {
			wantMerge = binary.LittleEndian.AppendUint64(wantMerge, e)
		}
	}
	require.Equal(t, h.digestBytes(mergeEls, 8), wantMerge, "a merge is HashElements of the two digests' eight elements")
	for _, backend := range append([]string{"cpu"}, gputest.Backends()...) {
		t.Run(backend, func(t *testing.T) {
			t.Setenv("WGCOMPUTE_BACKEND", backend)
			dir := t.TempDir()
			in := filepath.Join(dir, "pairs.bin")
			require.NoError(t, os.WriteFile(in, mergeRaw, 0o644))
			out, err := h.run(t, "merge", "--in", in)
			require.NoError(t, err)
			require.Equal(t, wantMerge, out)

			in = filepath.Join(dir, "records.bin")
			outPath := filepath.Join(dir, "digests.bin")
			require.NoError(t, os.WriteFile(in, hashRaw, 0o644))
			out, err = h.run(t, "hash", "--elements", "13", "--in", in, "--out", outPath, "--variant", "fast")
			require.NoError(t, err)
			require.Empty(t, out, "--out given: nothing on stdout")
			requireFile(t, outPath, wantHash)

			// Split over three devices of one adapter: the same digests.
			if backend != "cpu" {
				out, _, err := wgbenchOn(t, gputest.Context(t, backend), 3, "--backend", backend, h.name, "hash", "--elements", "13", "--in", in)
				require.NoError(t, err)
				require.Equal(t, wantHash, []byte(out))
			}
		})
	}
}

// testElementHashCLIVariant runs h.variant on the first GPU backend, and
// a hash split over two devices, and rejects an unknown variant.
func testElementHashCLIVariant(t *testing.T, h cliHash) {
	t.Setenv("WGCOMPUTE_BACKEND", gputest.Backends()[0])
	rng := rand.New(rand.NewPCG(9, h.seed))
	els, raw := clitest.GoldilocksRecords(rng, 5, 8)
	in := filepath.Join(t.TempDir(), "pairs.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	out, err := h.run(t, "merge", "--in", in, "--variant", h.variant)
	require.NoError(t, err)
	want := make([]byte, 0, 32*5)
	for i := 0; i < 5; i++ {
		for _, e := range h.merge([4]uint64(els[8*i:]), [4]uint64(els[8*i+4:])) {
			want = binary.LittleEndian.AppendUint64(want, e)
		}
	}
	require.Equal(t, want, out)
	// Two devices of one adapter split the records between them.
	split, _, err := wgbenchOn(t, gputest.Context(t, gputest.Backends()[0]), 2, h.name, "hash", "--elements", "4", "--in", in, "--variant", h.variant)
	require.NoError(t, err)
	require.Equal(t, h.digestBytes(els, 4), []byte(split))
	_, err = h.run(t, "merge", "--in", in, "--variant", "nope")
	require.ErrorContains(t, err, h.name+`: unknown variant "nope": accepted are [fast`)
	require.ErrorContains(t, err, h.lastVariant+"]")
}

// testElementHashCLIBadInput gives h's commands input they must reject
// before writing anything.
func testElementHashCLIBadInput(t *testing.T, h cliHash) {
	// The command checks the file's size before it waits for a device, and
	// the library checks the elements before any kernel runs, the same on
	// every backend: the CPU path stands for every backend here.
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	rng := rand.New(rand.NewPCG(1, h.seed))
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

	_, raw := clitest.GoldilocksRecords(rng, 6, 8)
	binary.LittleEndian.PutUint64(raw[8*(3*8+2):], u64emu.P) // record 3, element 2
	binary.LittleEndian.PutUint64(raw[8*(5*8+7):], ^uint64(0))
	in := write("bad-element.bin", raw)
	out, err := h.run(t, "merge", "--in", in, "--out", outPath)
	// The library's error: a record of a merge is a pair.
	require.ErrorContains(t, err, h.name+": merge: pair 3 element 2 is 18446744069414584321, not a field element")
	require.ErrorContains(t, err, "must be below p = 18446744069414584321")
	noOutput(t, out)
	out, err = h.run(t, "merge", "--in", in)
	require.ErrorContains(t, err, "pair 3 element 2")
	noOutput(t, out)

	// Past the first piece (1024 records), the error still counts
	// records from the file's start.
	_, raw = clitest.GoldilocksRecords(rng, 3000, 8)
	binary.LittleEndian.PutUint64(raw[8*(2500*8+6):], u64emu.P) // record 2500, element 6
	out, err = h.run(t, "merge", "--in", write("bad-late.bin", raw), "--out", outPath)
	require.ErrorContains(t, err, h.name+": merge: pair 2500 element 6 is 18446744069414584321, not a field element")
	noOutput(t, out)

	_, raw = clitest.GoldilocksRecords(rng, 4, 3)
	binary.LittleEndian.PutUint64(raw[8*(2*3+1):], u64emu.P+1) // record 2, element 1
	out, err = h.run(t, "hash", "--elements", "3", "--in", write("bad-hash.bin", raw), "--out", outPath)
	require.ErrorContains(t, err, h.name+": hash: input 2 element 1 is 18446744069414584322, not a field element")
	require.ErrorContains(t, err, "must be below p")
	noOutput(t, out)

	_, raw = clitest.GoldilocksRecords(rng, 3, 8)
	out, err = h.run(t, "merge", "--in", write("short.bin", raw[:3*64-5]), "--out", outPath)
	require.ErrorContains(t, err, "not a whole number of 64-byte records")
	require.ErrorContains(t, err, "record 2")
	noOutput(t, out)
	out, err = h.run(t, "hash", "--elements", "5", "--in", write("short-hash.bin", raw[:41]), "--out", outPath)
	require.ErrorContains(t, err, h.name+" hash:")
	require.ErrorContains(t, err, "not a whole number of 40-byte records")
	noOutput(t, out)

	for _, n := range []string{"0", "-3", "2147483649"} {
		out, err = h.run(t, "hash", "--elements", n, "--in", write("any.bin", raw), "--out", outPath)
		require.ErrorContains(t, err, h.name+" hash: --elements is "+n)
		noOutput(t, out)
	}
	_, err = h.run(t, "hash", "--in", write("any.bin", raw))
	require.ErrorContains(t, err, `"elements" not set`)
	_, err = h.run(t, "merge", "--in", write("any.bin", raw), "--variant", "nope")
	require.ErrorContains(t, err, h.name+`: unknown variant "nope"`)

	missing := filepath.Join(dir, "missing.bin")
	out, err = h.run(t, "merge", "--in", missing, "--out", outPath)
	require.ErrorContains(t, err, missing)
	noOutput(t, out)
	out, err = h.run(t, "hash", "--elements", "2", "--in", dir, "--out", outPath)
	require.Error(t, err, "a directory is not a readable input")
	noOutput(t, out)
	_, err = h.run(t, "merge")
	require.ErrorContains(t, err, `"in" not set`)
	_, err = h.run(t, "merg")
	require.ErrorContains(t, err, `unknown command "merg" for "wgbench `+h.name+`": choose from hash, merge`)
	_, err = h.run(t, "permute")
	require.ErrorContains(t, err, `unknown command "permute"`)

	// No records: no digests, and no error.
	out, err = h.run(t, "merge", "--in", write("empty.bin", nil))
	require.NoError(t, err)
	require.Empty(t, out)
}

// TestHashCommands checks that every Goldilocks hash of the registry has a
// command of its name.
func TestHashCommands(t *testing.T) {
	cmds := map[string]bool{}
	for _, c := range New(&cli.Globals{}) {
		cmds[c.Name()] = true
	}
	for _, h := range registry.Of(registry.Goldilocks) {
		require.True(t, cmds[h.Name], "no command for %s", h.Name)
	}
}
