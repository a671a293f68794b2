package merklecmd

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// writeFieldMatrix writes a seeded rows x cols matrix of field elements as
// little-endian uint64, row by row, and returns it with the file's path.
func writeFieldMatrix(t *testing.T, dir string, rows, cols int, seed uint64) (merkle.Matrix[uint64], string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	m := merkle.Matrix[uint64]{Rows: rows, Cols: cols, Data: make([]uint64, rows*cols)}
	raw := make([]byte, 8*len(m.Data))
	for i := range m.Data {
		m.Data[i] = r.Uint64N(rescue.P)
		if i%7 == 0 {
			m.Data[i] = rescue.P - 1
		}
		binary.LittleEndian.PutUint64(raw[8*i:], m.Data[i])
	}
	path := filepath.Join(dir, fmt.Sprintf("matrix-%dx%d.bin", rows, cols))
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	return m, path
}

func schedule(t *testing.T, s string) merkle.Schedule {
	t.Helper()
	sc, err := parseSchedule(s)
	require.NoError(t, err)
	return sc
}

func TestCommitMatrixCLI(t *testing.T) {
	dir := t.TempDir()
	m, in := writeFieldMatrix(t, dir, 16, 9, 5)
	ref, err := merkle.CommitMatrix(nil, m, rescue.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	root := ref.Root()
	for _, backend := range append(gputest.Backends(), "cpu") {
		out := filepath.Join(dir, "nodes-"+backend)
		stdout, _, err := wgbench(t, "commit", "--backend", backend, "--matrix", "16x9", "--in", in, "--out", out)
		require.NoError(t, err, backend)
		require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, backend)
		requireFile(t, out, wgpu.Bytes(ref.Nodes()))
	}
	// A proof of row 5: its leaf is the row's hash, and merkle verify
	// takes it.
	stdout, _, err := wgbench(t, "commit", "--backend", gputest.Backends()[0], "--matrix", "16X9", "--hash", "rescue", "--in", in, "--prove", "5")
	require.NoError(t, err)
	proof := filepath.Join(dir, "proof.json")
	require.NoError(t, os.WriteFile(proof, []byte(stdout), 0o644))
	p, err := readProof(proof)
	require.NoError(t, err)
	require.Equal(t, rescue.MerkleMerge{}.HashRow(m.Row(5)), p.Leaf)
	require.True(t, merkle.VerifyRow(rescue.MerkleMerge{}, root, 16, m.Row(5), p))
	_, _, err = wgbench(t, "merkle", "verify", "--hash", "rescue", "--proof", proof, "--root", hex.EncodeToString(root[:]), "--leaves", "16")
	require.NoError(t, err)

	// Bad input says what is wrong.
	bad := mustRead(t, in)
	binary.LittleEndian.PutUint64(bad[8*(3*9+4):], rescue.P+2)
	badPath := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(badPath, bad, 0o644))
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x9", "--in", badPath}, "row 3, column 4", "not a Goldilocks field element")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x8", "--in", in}, "has 1152 bytes: a 16x8 matrix of little-endian uint64 is 1024 bytes")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "12x12", "--in", in}, "power of two")
	// Shapes whose bytes pass 2^63 (2^64 wrapped to 0 and matched an
	// empty file) are refused, their factors named.
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "1152921504606846976x2", "--in", empty},
		`--matrix "1152921504606846976x2": a matrix of little-endian uint64 of that shape has too many bytes: 1152921504606846976 × 2 × 8 is more than 9223372036854775807`)
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "4294967296x4294967296", "--in", empty}, "4294967296 × 4294967296 × 8 is more than")
	for _, shape := range []string{"16", "16x", "x9", "0x9", "16x-1", "axb"} {
		requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", shape, "--in", in}, "want ROWSxCOLS")
	}
	requireInputError(t, []string{"commit", "--backend", "cpu", "--in", in}, "give one of --matrix")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x9", "--records", "8", "--in", in}, "give one of --matrix")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x9"}, "--in FILE is required")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x9", "--hash", "blake3", "--in", in}, "blake3 does not hash rows")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "16x9", "--hash", "sha1", "--in", in}, `unknown hash "sha1"`)
}

// TestCommitMatrixOtherHashesCLI: --hash poseidon2 and rpo commit rows
// with their sponges, on the GPU as on the CPU.
func TestCommitMatrixOtherHashesCLI(t *testing.T) {
	dir := t.TempDir()
	m, in := writeFieldMatrix(t, dir, 8, 11, 6)
	for _, hash := range []merkle.RowHash[uint64]{poseidon2.MerkleMerge{}, rpo.MerkleMerge{}} {
		name := hash.(merkle.Hash).Name()
		ref, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{})
		require.NoError(t, err)
		root := ref.Root()
		for _, backend := range append(gputest.Backends(), "cpu") {
			stdout, _, err := wgbench(t, "commit", "--backend", backend, "--matrix", "8x11", "--hash", name, "--in", in)
			require.NoError(t, err, "%s %s", name, backend)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, "%s %s", name, backend)
		}
	}
}

// TestCommitMatricesCLI: several --matrix/--in pairs commit to matrices
// of different heights in one tree.
func TestCommitMatricesCLI(t *testing.T) {
	dir := t.TempDir()
	a, inA := writeFieldMatrix(t, dir, 32, 3, 1)
	b, inB := writeFieldMatrix(t, dir, 8, 5, 2)
	c, inC := writeFieldMatrix(t, dir, 32, 2, 3)
	ref, err := merkle.CommitMatrices(nil, []merkle.Matrix[uint64]{a, b, c}, rescue.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	root := ref.Root()
	for _, backend := range append(gputest.Backends(), "cpu") {
		out := filepath.Join(dir, "nodes")
		stdout, _, err := wgbench(t, "commit", "--backend", backend, "--matrix", "32x3", "--in", inA, "--matrix", "8x5", "--in", inB, "--matrix", "32x2", "--in", inC, "--out", out)
		require.NoError(t, err, backend)
		require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, backend)
		requireFile(t, out, wgpu.Bytes(ref.Nodes()))
	}
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "32x3", "--in", inA, "--matrix", "8x5"}, "2 --matrix shapes and 1 --in files")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "32x3", "--in", inA, "--matrix", "8x5", "--in", inB, "--prove", "3"}, "--prove opens one matrix")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "32x3", "--in", inA, "--matrix", "8x5", "--in", inB, "--hash", "rescue:2,blake3"}, "one hash, not the schedule")
	_, inD := writeFieldMatrix(t, dir, 6, 5, 4)
	requireInputError(t, []string{"commit", "--backend", "cpu", "--matrix", "32x3", "--in", inA, "--matrix", "6x5", "--in", inD}, "matrix 1 has 6 rows: matrices committed together have power-of-two heights")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "3", "--in", inA, "--in", inB}, "--records takes one --in")
}

func TestCommitRecordsCLI(t *testing.T) {
	dir := t.TempDir()
	const n, size = 64, 37
	records := make([]byte, n*size)
	for i := range records {
		records[i] = byte(i*13 + i>>8)
	}
	in := filepath.Join(dir, "records.bin")
	require.NoError(t, os.WriteFile(in, records, 0o644))
	for _, h := range []string{"", "blake3", "blake3:2,rescue"} {
		s := schedule(t, "blake3")
		if h != "" {
			s = schedule(t, h)
		}
		c, err := merkle.NewCommitter(nil, s, merkle.Options{})
		require.NoError(t, err)
		ref, err := merkle.CommitRecords(nil, records, size, blake3.MerkleMerge{}, merkle.Options{Committer: c})
		require.NoError(t, err)
		root := ref.Root()
		for _, backend := range append(gputest.Backends(), "cpu") {
			args := []string{"commit", "--backend", backend, "--records", "37", "--in", in}
			if h != "" {
				args = append(args, "--hash", h)
			}
			stdout, _, err := wgbench(t, args...)
			require.NoError(t, err, "%s %s", h, backend)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, "%s %s", h, backend)
		}
		if h == "" {
			continue
		}
		stdout, _, err := wgbench(t, "commit", "--backend", gputest.Backends()[0], "--records", "37", "--in", in, "--hash", h, "--prove", "41")
		require.NoError(t, err)
		proof := filepath.Join(dir, "proof.json")
		require.NoError(t, os.WriteFile(proof, []byte(stdout), 0o644))
		p, err := readProof(proof)
		require.NoError(t, err)
		require.Equal(t, blake3.Sum256(records[41*size:42*size]), p.Leaf)
		_, _, err = wgbench(t, "merkle", "verify", "--hash", h, "--proof", proof, "--root", hex.EncodeToString(root[:]), "--leaves", "64")
		require.NoError(t, err, h)
	}
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "36", "--in", in}, "not a whole number of 36-byte records")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "0", "--in", in}, "1 byte or more")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "37", "--hash", "rescue", "--in", in}, "rescue does not hash records")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "37", "--hash", "rescue:2,blake3", "--in", in}, "rescue does not hash records")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "37", "--hash", "blake3:9,rescue", "--in", in}, "covers 10 levels, but a tree of 64 leaves has 6")
}

// TestMerkleMixedCLI: merkle, prove and verify with a schedule for --hash.
func TestMerkleMixedCLI(t *testing.T) {
	dir := t.TempDir()
	const n = 64
	leaves, in := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, n, 9)
	for _, h := range []string{"blake3:2,rescue", "blake3:5,rescue", "rescue:1,blake3"} {
		s := schedule(t, h)
		if h == "rescue:1,blake3" {
			leaves, in = clitest.WriteLeaves(t, dir, rescue.MerkleMerge{}, n, 9)
		}
		ref, err := merkle.Build(nil, leaves, nil, merkle.Options{Schedule: s})
		require.NoError(t, err)
		r := ref.Root()
		root := hex.EncodeToString(r[:])
		for _, backend := range append(gputest.Backends(), "cpu") {
			out := filepath.Join(dir, "nodes")
			stdout, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", h, "--in", in, "--out", out)
			require.NoError(t, err, "%s %s", h, backend)
			require.Equal(t, root+"\n", stdout, "%s %s", h, backend)
			requireFile(t, out, wgpu.Bytes(ref.Nodes()))
		}
		stdout, _, err := wgbench(t, "merkle", "prove", "--backend", gputest.Backends()[0], "--hash", h, "--in", in, "--index", "13")
		require.NoError(t, err)
		proof := filepath.Join(dir, "proof.json")
		require.NoError(t, os.WriteFile(proof, []byte(stdout), 0o644))
		_, _, err = wgbench(t, "merkle", "verify", "--hash", h, "--proof", proof, "--root", root, "--leaves", "64")
		require.NoError(t, err, h)
		_, stderr, err := wgbench(t, "merkle", "verify", "--hash", h, "--proof", proof)
		require.NoError(t, err, h)
		require.Contains(t, stderr, "taken from the proof itself")
		// Another schedule, or one hash, does not give this root.
		_, stderr, err = wgbench(t, "merkle", "verify", "--hash", "blake3:3,rescue", "--proof", proof, "--root", root, "--leaves", "64")
		require.Equal(t, cli.ExitError{Code: 1}, err, h)
		require.Contains(t, stderr, "does not verify")
		_, _, err = wgbench(t, "merkle", "verify", "--hash", "blake3", "--proof", proof, "--root", root, "--leaves", "64")
		require.Equal(t, cli.ExitError{Code: 1}, err, h)
		var p merkle.Proof
		p, err = readProof(proof)
		require.NoError(t, err)
		leaf := hex.EncodeToString(p.Leaf[:])
		require.NoError(t, os.WriteFile(proof, []byte(strings.Replace(stdout, leaf, flipDigit(leaf, 3), 1)), 0o644))
		_, _, err = wgbench(t, "merkle", "verify", "--hash", h, "--proof", proof, "--root", root, "--leaves", "64")
		require.Equal(t, cli.ExitError{Code: 1}, err, h)
	}
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "blake3:7,rescue", "--in", in}, "a tree of 64 leaves has 6")
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "blake3:2,sha1", "--in", in}, `unknown hash "sha1"`)
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "blake3:2,rescue", "--in", in, "--range", "1/4"}, "builds trees of one hash")
}

// TestCommitErrorPrefixes checks that an error names each layer once: the
// library its package, the command itself, never one of them twice.
func TestCommitErrorPrefixes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, make([]byte, n), 0o644))
		return path
	}
	five := write("five.bin", 5*4)
	three := write("three.bin", 3*32)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"commit", "--records", "4", "--hash", "blake3:1,rescue", "--in", five}, "5 records"},
		{[]string{"commit", "--matrix", "3x1", "--in", write("m.bin", 3*8)}, "3 rows"},
		// A bad flag is named before the input is read (there is none).
		{[]string{"commit", "--matrix", "4x1", "--in", filepath.Join(t.TempDir(), "absent"), "--approach", "9"}, "approach 9"},
		{[]string{"merkle", "--hash", "blake3:1,rescue", "--in", three}, "3 leaves"},
		{[]string{"merkle", "prove", "--hash", "blake3:1,rescue", "--in", three, "--index", "0"}, "3 leaves"},
	} {
		args := append([]string{"--backend", "cpu"}, tc.args...)
		_, _, err := wgbench(t, args...)
		require.Error(t, err, "%q", args)
		msg := err.Error()
		require.Contains(t, msg, tc.want, "%q", args)
		for _, prefix := range []string{"merkle: ", "commit: ", "wgpu: ", "blake3: ", "rescue: "} {
			require.LessOrEqual(t, strings.Count(msg, prefix), 1, "%q: %q names a layer twice", args, msg)
		}
	}
}

// TestCommitRecordsAnyCountCLI: commit --records takes any number of
// records, as merkle takes any number of leaves: the same tree as merkle
// builds from the records' BLAKE3 digests.
func TestCommitRecordsAnyCountCLI(t *testing.T) {
	dir := t.TempDir()
	const size = 37
	hash := blake3.MerkleMerge{}
	for _, n := range []int{1, 5, 100} {
		records := make([]byte, n*size)
		for i := range records {
			records[i] = byte(i*7 + i>>8)
		}
		in := filepath.Join(dir, fmt.Sprintf("records-%d.bin", n))
		require.NoError(t, os.WriteFile(in, records, 0o644))
		leaves := make([][32]byte, n)
		for i := range leaves {
			leaves[i] = hash.HashRecord(records[i*size : (i+1)*size])
		}
		ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		r := ref.Root()
		root := hex.EncodeToString(r[:])
		for _, backend := range append(gputest.Backends(), "cpu") {
			out := filepath.Join(dir, "nodes.bin")
			stdout, _, err := wgbench(t, "commit", "--backend", backend, "--records", fmt.Sprint(size), "--in", in, "--out", out)
			require.NoError(t, err, "%d records on %s", n, backend)
			require.Equal(t, root+"\n", stdout, "%d records on %s", n, backend)
			requireFile(t, out, wgpu.Bytes(ref.Nodes()))
		}
		stdout, _, err := wgbench(t, "commit", "--backend", "cpu", "--records", fmt.Sprint(size), "--in", in, "--prove", fmt.Sprint(n-1))
		require.NoError(t, err)
		proof := filepath.Join(dir, "proof.json")
		require.NoError(t, os.WriteFile(proof, []byte(stdout), 0o644))
		stdout, _, err = wgbench(t, "merkle", "verify", "--hash", "blake3", "--proof", proof, "--root", root, "--leaves", fmt.Sprint(n))
		require.NoError(t, err)
		require.Equal(t, "valid\n", stdout)
	}
}
