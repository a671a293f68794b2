//go:build unix

// The reliability cases use what Unix systems have: /proc, /dev/full,
// FIFOs and the umask.

package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// cliCase is one run of wgbench, in-process as main runs it.
type cliCase struct {
	name  string
	args  []string
	stdin io.Reader
	// memory bounds what commands hold in host memory; 0: what the host
	// has available.
	memory int64
	// stdout receives the output; nil: a buffer, checked by out and check.
	stdout io.Writer
	// setup runs first: it makes FIFOs and their writers, or skips.
	setup func(t *testing.T)
	// code is the exit status; stderr holds every string of errs, and is
	// empty when errs is.
	code int
	errs []string
	// out, when set, is the whole expected stdout.
	out string
	// check, when set, inspects stdout and the files.
	check func(t *testing.T, stdout string)
	// absent are paths that must not exist afterwards.
	absent []string
	// maxAlloc, when set, bounds the bytes the run allocates.
	maxAlloc uint64
}

// TestReliability runs issue 14's command-line cases: for each, the exit
// status, the message on standard error, and that no partial output (and
// no temporary file) is left. New cases go here.
func TestReliability(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	write := func(name string, b []byte, mode fs.FileMode) string {
		p := at(name)
		require.NoError(t, os.WriteFile(p, b, mode))
		require.NoError(t, os.Chmod(p, mode))
		return p
	}
	gpu := gputest.Backends()[0]

	// Rescue merge input, and its digests from the reference.
	pairs := make([]byte, 3*64)
	for i := range pairs {
		pairs[i] = byte(i)
	}
	pairsIn := write("pairs.bin", pairs, 0o644)
	wantDigests := rescueCPU(t, pairsIn)

	// Merkle leaves and a proof.
	leaves, leavesIn := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, 4, 3)
	tree, err := merkle.Build(nil, leaves, blake3.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	rootHex := hex.EncodeToString(func() []byte { r := tree.Root(); return r[:] }())
	proof, err := tree.Proof(1)
	require.NoError(t, err)
	proofJSON, err := json.Marshal(proof)
	require.NoError(t, err)
	tampered := write("tampered.json", bytes.Replace(proofJSON, []byte(hex.EncodeToString(proof.Leaf[:4])), []byte("00000000"), 1), 0o644)
	longDigest := strings.Repeat("ab", 100_000)
	badDigest := write("bad-digest.json", []byte(`{"index": 0, "leaves": 4, "leaf": "`+longDigest+`", "path": [], "root": "`+rootHex+`"}`), 0o644)
	badPath := write("bad-path.json", []byte(`{"index": 0, "leaves": 2, "leaf": "`+rootHex+`", "path": ["`+strings.Repeat("zz", 32)+`"], "root": "`+rootHex+`"}`), 0o644)
	oneLeaf := write("one-leaf.bin", make([]byte, 32), 0o644)
	goodProof := write("proof.json", proofJSON, 0o644)
	otherRoot := strings.Repeat("0", 64)

	// Issue 14 item 10: node 2 of an 8-leaf tree, with the path [node 3],
	// is a valid proof of leaf 0 of a 2-leaf tree with the same root;
	// only the trusted size tells them apart. forged claims the 8 leaves.
	leaves8, _ := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, 8, 5)
	tree8, err := merkle.Build(nil, leaves8, blake3.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	root8 := hex.EncodeToString(func() []byte { r := tree8.Root(); return r[:] }())
	proofFile := func(name string, p merkle.Proof) string {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		return write(name, b, 0o644)
	}
	interior := merkle.Proof{Index: 0, Leaves: 2, Leaf: tree8.Nodes()[2], Path: [][32]byte{tree8.Nodes()[3]}, Root: tree8.Root()}
	interiorProof := proofFile("interior.json", interior)
	interior.Leaves = 8
	forgedProof := proofFile("forged.json", interior)

	hello := write("hello.txt", []byte("hello"), 0o644)
	helloSum := blake3.Sum256([]byte("hello"))
	helloRecord := write("hello.rec", []byte("b3piece hash 5 0 5 "+strings.Repeat("0", 64)+" 68656c6c6f\n"), 0o644)
	matrix := write("m.bin", wgpu.Bytes([]float32{1, 1, 2, 2, 1, 3, 2, 3, 5}), 0o644)

	full := func(t *testing.T) io.Writer {
		t.Helper()
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skipf("no /dev/full: %v", err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	var devFull io.Writer
	needFull := func(t *testing.T) { devFull = full(t) }
	sysFile := "/sys/devices/system/cpu/online" // stat size 4096, a few bytes of content
	needSys := func(t *testing.T) {
		fi, err := os.Stat(sysFile)
		if err != nil || fi.Size() != 4096 {
			t.Skipf("%s: %v, size %d: not a file whose stat size exceeds its content", sysFile, err, fi.Size())
		}
	}
	sysContent := func() []byte {
		b, _ := os.ReadFile(sysFile)
		return b
	}

	cases := []cliCase{
		// Item 3: one writer for every --out.
		{name: "rescue --out through a symlink", args: []string{"rescue", "merge", "--backend", "cpu", "--in", pairsIn, "--out", at("link.bin")},
			setup: func(t *testing.T) { require.NoError(t, os.Symlink("target.bin", at("link.bin"))) },
			check: func(t *testing.T, _ string) {
				fi, err := os.Lstat(at("link.bin"))
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link must stay a link")
				requireFile(t, at("target.bin"), wantDigests)
			}},
		{name: "rescue --out to a device", args: []string{"rescue", "merge", "--backend", "cpu", "--in", pairsIn, "--out", os.DevNull},
			check: func(t *testing.T, _ string) {
				fi, err := os.Lstat(os.DevNull)
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s must stay a device", os.DevNull)
			}},
		{name: "rescue --out onto its input keeps the mode", args: []string{"rescue", "merge", "--backend", "cpu", "--in", at("inout.bin"), "--out", at("inout.bin")},
			setup: func(t *testing.T) { write("inout.bin", pairs, 0o644) },
			check: func(t *testing.T, _ string) {
				requireFile(t, at("inout.bin"), wantDigests)
				requireMode(t, at("inout.bin"), 0o644)
			}},
		{name: "rescue --out new file gets the umask's mode", args: []string{"rescue", "merge", "--backend", "cpu", "--in", pairsIn, "--out", at("new.bin")},
			check: func(t *testing.T, _ string) {
				umask := syscall.Umask(0)
				syscall.Umask(umask)
				requireMode(t, at("new.bin"), fs.FileMode(0o666&^umask))
			}},
		{name: "rescue --out into a missing directory", args: []string{"rescue", "merge", "--backend", "cpu", "--in", pairsIn, "--out", at("missing/d.bin")},
			code: 2, errs: []string{"write " + at("missing/d.bin") + ": ", "no such file or directory"}},
		{name: "merkle --out through a symlink", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", leavesIn, "--out", at("nodes-link")},
			setup: func(t *testing.T) { require.NoError(t, os.Symlink("nodes.bin", at("nodes-link"))) },
			out:   rootHex + "\n",
			check: func(t *testing.T, _ string) { requireFile(t, at("nodes.bin"), wgpu.Bytes(tree.Nodes())) }},
		{name: "merkle --out into a missing directory", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", leavesIn, "--out", at("missing/nodes.bin")},
			code: 2, errs: []string{"merkle: write " + at("missing/nodes.bin") + ": "}},

		// Item 5: no panics.
		{name: "rescue --elements 2^61", args: []string{"rescue", "hash", "--in", pairsIn, "--elements", "2305843009213693952"},
			code: 2, errs: []string{"--elements is 2305843009213693952", "1 to 2147483648"}},
		{name: "rescue --elements 2^63-1", args: []string{"rescue", "hash", "--in", pairsIn, "--elements", "9223372036854775807"},
			code: 2, errs: []string{"--elements is 9223372036854775807", "1 to 2147483648"}},
		{name: "rescue --elements 2^60", args: []string{"rescue", "hash", "--in", pairsIn, "--elements", "1152921504606846976"},
			code: 2, errs: []string{"--elements is 1152921504606846976", "1 to 2147483648"}},
		{name: "eigen --in shorter than its stat size", args: []string{"eigen", "--cpu", "--in", sysFile, "--n", "32"}, setup: needSys,
			code: 2, errs: []string{sysFile + " has ", "a 32×32 float32 matrix has 4096"}},
		{name: "eigen --in a short FIFO", args: []string{"eigen", "--cpu", "--in", at("short.fifo"), "--n", "2"},
			setup: func(t *testing.T) { clitest.Fifo(t, at("short.fifo"), make([]byte, 8)) },
			code:  2, errs: []string{"short.fifo has 8 bytes; a 2×2 float32 matrix has 16"}},
		{name: "eigen --in a long FIFO", args: []string{"eigen", "--cpu", "--in", at("long.fifo"), "--n", "2"},
			setup: func(t *testing.T) { clitest.Fifo(t, at("long.fifo"), make([]byte, 17)) },
			code:  2, errs: []string{"long.fifo has more than 16 bytes"}},

		// Item 6: memory bounded.
		{name: "b3sum --length 1e12 streams", args: []string{"b3sum", "--length", "1000000000000", hello},
			stdout: &limitedWriter{n: 4 << 20}, code: 1, errs: []string{"write standard output: ", "the test's writer is full"}, maxAlloc: 32 << 20},
		{name: "eigen --random 262144 before building it", args: []string{"eigen", "--random", "262144", "--seed", "1", "--backend", gpu}, memory: 1 << 30,
			code: 2, errs: []string{"--random 262144", "256.0 GiB of host memory, over the 1.0 GiB available"}, maxAlloc: 64 << 20},
		{name: "eigen --hilbert 100000 over the device's buffer", args: []string{"eigen", "--hilbert", "100000", "--backend", gpu}, memory: 1 << 50,
			code: 2, errs: []string{"n = 100000", "over the device's largest buffer", "n ≤ "}, maxAlloc: 64 << 20},
		{name: "eigen --hilbert 100000 --cpu over host memory", args: []string{"eigen", "--hilbert", "100000", "--cpu"}, memory: 1 << 30,
			code: 2, errs: []string{"--hilbert 100000", "float64 copy", "over the 1.0 GiB available"}, maxAlloc: 64 << 20},
		{name: "rescue merge --in /dev/zero", args: []string{"rescue", "merge", "--backend", "cpu", "--in", "/dev/zero"}, memory: 4 << 20,
			code: 2, errs: []string{"/dev/zero is larger than 1.0 MiB, the most rescue can hash"}},
		{name: "rescue of a file larger than memory fails before reading", args: []string{"rescue", "merge", "--backend", "cpu", "--in", at("sparse.bin")}, memory: 4 << 20,
			setup: func(t *testing.T) { require.NoError(t, os.Truncate(write("sparse.bin", nil, 0o644), 64<<20)) },
			code:  2, errs: []string{"sparse.bin is larger than 1.0 MiB"}, maxAlloc: 1 << 20},
		{name: "merkle --in /dev/zero", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", "/dev/zero"}, memory: 3 << 20,
			code: 2, errs: []string{"/dev/zero is larger than 1.0 MiB"}},
		// A stream is joined from its pieces once read: ntt takes a third
		// of the memory (it needs twice its input, and a stream once more
		// while joined); encode, told the size by --matrix, no more.
		{name: "ntt --in /dev/zero", args: []string{"ntt", "--backend", "cpu", "--field", "babybear", "--log2", "4", "--in", "/dev/zero"}, memory: 3 << 20,
			code: 2, errs: []string{"ntt: /dev/zero is larger than 1.0 MiB, the most ntt can transform", "a pipe or device once more"}, maxAlloc: 5 << 19},
		{name: "encode --in /dev/zero", args: []string{"encode", "--backend", "cpu", "--field", "babybear", "--rate", "2", "--matrix", "4x16", "--in", "/dev/zero"},
			code: 2, errs: []string{"encode: /dev/zero is larger than 256 bytes, the most a 4x16 matrix of uint32 holds"}, maxAlloc: 1 << 20},
		{name: "encode of a matrix over host memory", args: []string{"encode", "--backend", "cpu", "--field", "babybear", "--rate", "2", "--matrix", "1024x1024", "--in", "/dev/zero"}, memory: 15 << 20,
			code: 2, errs: []string{"encode: a 1024x1024 matrix of uint32 needs 16.0 MiB of host memory (4 times its 4.0 MiB), over the 15.0 MiB available"}, maxAlloc: 1 << 20},
		{name: "commit --rate without --scheme vortex", args: []string{"commit", "--backend", "cpu", "--records", "32", "--in", leavesIn, "--rate", "3"},
			code: 2, errs: []string{"commit: --rate is a flag of --scheme vortex; a Merkle tree (no --scheme) takes no --rate"}},
		{name: "commit --sis without --scheme vortex", args: []string{"commit", "--backend", "cpu", "--records", "32", "--in", leavesIn, "--sis", "1,1"},
			code: 2, errs: []string{"commit: --sis is a flag of --scheme vortex; a Merkle tree (no --scheme) takes no --sis"}},
		{name: "merkle verify --proof /dev/zero", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", "/dev/zero"},
			code: 2, errs: []string{"/dev/zero is larger than 64.0 MiB, the most a proof file can hold"}},
		{name: "a bad path digest is named", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", badPath},
			code: 2, errs: []string{`proof path[0]: digest "` + strings.Repeat("zz", 32) + `": want 64 hex digits`}},
		{name: "a long bad digest is not echoed", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", badDigest},
			code: 2, errs: []string{"bad-digest.json is not a proof", "leaf: digest of 200000 characters: want 64 hex digits"}},

		// Item 7: lost output is an error.
		{name: "b3sum > /dev/full", args: []string{"b3sum", hello}, setup: needFull, code: 1, errs: []string{"write standard output: no space left on device"}},
		{name: "b3sum --subtree > /dev/full", args: []string{"b3sum", "--subtree", "0/1", hello}, setup: needFull,
			code: 1, errs: []string{"write standard output: no space left on device"}},
		{name: "b3sum combine > /dev/full", args: []string{"b3sum", "combine", helloRecord}, setup: needFull,
			code: 1, errs: []string{"write standard output: no space left on device"}},
		{name: "merkle > /dev/full", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", leavesIn}, setup: needFull,
			code: 2, errs: []string{"write standard output: no space left on device"}},
		{name: "merkle prove > /dev/full", args: []string{"merkle", "prove", "--backend", "cpu", "--hash", "blake3", "--in", leavesIn, "--index", "1"}, setup: needFull,
			code: 2, errs: []string{"write standard output: no space left on device"}},
		{name: "eigen > /dev/full", args: []string{"eigen", "--cpu", "--hilbert", "8"}, setup: needFull,
			code: 2, errs: []string{"write standard output: no space left on device"}},
		{name: "bench > /dev/full", args: []string{"bench", "transfer", "--quick", "--repeats", "1", "--backend", gpu, "--json", at("lost.json")}, setup: needFull,
			code: 2, errs: []string{"write standard output: no space left on device"},
			// The JSON file is written as results come in: it holds the
			// timings taken before the output failed, marked incomplete.
			check: func(t *testing.T, _ string) {
				b := mustRead(t, at("lost.json"))
				require.Contains(t, string(b), `"complete": false`)
				require.Contains(t, string(b), `"tables": []`)
			}},

		// Item 11.
		{name: "merkle --in a FIFO", args: []string{"merkle", "--backend", gpu, "--hash", "blake3", "--in", at("leaves.fifo")},
			setup: func(t *testing.T) { clitest.Fifo(t, at("leaves.fifo"), wgpu.Bytes(leaves)) }, out: rootHex + "\n"},
		{name: "eigen --in a FIFO", args: []string{"eigen", "--backend", gpu, "--in", at("m.fifo"), "--n", "3", "--json"},
			setup: func(t *testing.T) {
				b, err := os.ReadFile(matrix)
				require.NoError(t, err)
				clitest.Fifo(t, at("m.fifo"), b)
			},
			check: func(t *testing.T, stdout string) { require.Contains(t, stdout, `"converged":true`) }},
		{name: "mistyped rescue subcommand", args: []string{"rescue", "merg"},
			code: 2, errs: []string{`unknown command "merg" for "wgbench rescue": choose from hash, merge`}},
		{name: "mistyped merkle subcommand", args: []string{"merkle", "prov"},
			code: 2, errs: []string{`unknown command "prov" for "wgbench merkle": choose from combine, join, prove, verify`}},
		{name: "an invalid proof says so", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", tampered},
			code: 1, errs: []string{"tampered.json does not verify: leaf 1 and its path of 2 digests do not give root " + rootHex}},
		{name: "merkle verify against a trusted root and size", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--root", rootHex, "--leaves", "4"}},
		{name: "merkle verify without a trusted root and size says so", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof},
			errs: []string{"the proof is consistent, but the tree's root and size were taken from the proof itself (root " + rootHex + ", 4 leaves)", "pass --root and --leaves"}},
		{name: "merkle verify with --leaves alone says the root is the proof's", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--leaves", "4"},
			errs: []string{"the tree's root was taken from the proof itself"}},
		{name: "merkle verify against another root", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--root", otherRoot, "--leaves", "4"},
			code: 1, errs: []string{"proof.json does not verify: it states root " + rootHex + ", not the " + otherRoot + " given by --root"}},
		{name: "merkle verify against another size", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--root", rootHex, "--leaves", "8"},
			code: 1, errs: []string{"it is a proof for a tree of 4 leaves, not of the 8 given by --leaves"}},
		{name: "an interior node as a leaf is only self-consistent", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", interiorProof},
			errs: []string{"the tree's root and size were taken from the proof itself (root " + root8 + ", 2 leaves)"}},
		{name: "an interior node as a leaf fails against the trusted size", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", interiorProof, "--root", root8, "--leaves", "8"},
			code: 1, errs: []string{"interior.json does not verify: it is a proof for a tree of 2 leaves, not of the 8 given by --leaves"}},
		{name: "an interior node claiming the trusted size fails", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", forgedProof, "--root", root8, "--leaves", "8"},
			code: 1, errs: []string{"forged.json does not verify: leaf 0 of a tree of 8 leaves needs a path of 3 digests, the proof's has 1"}},
		{name: "merkle verify --leaves not a tree size", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--leaves", "0"},
			code: 2, errs: []string{"merkle verify: --leaves: merkle: 0 leaves: a tree needs at least 1 leaf"}},
		{name: "merkle verify against a size that is no power of two", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--root", rootHex, "--leaves", "6"},
			code: 1, errs: []string{"it is a proof for a tree of 4 leaves, not of the 6 given by --leaves"}},
		{name: "merkle verify --root not a digest", args: []string{"merkle", "verify", "--hash", "blake3", "--proof", goodProof, "--root", "xyz"},
			code: 2, errs: []string{"merkle verify: --root: merkle: digest of 3 characters: want 64 hex digits"}},
		{name: "bench --json into a missing directory fails before the run", args: []string{"bench", "--backend", gpu, "--json", at("missing/r.json")},
			code: 2, errs: []string{"bench: write " + at("missing/r.json") + ": ", "no such file or directory"}, maxAlloc: 16 << 20},
		{name: "bench --md onto a directory fails before the run", args: []string{"bench", "--backend", gpu, "--md", dir},
			code: 2, errs: []string{"bench: write " + dir + ": is a directory"}, maxAlloc: 16 << 20},
		{name: "bench --svg onto a file fails before the run", args: []string{"bench", "--backend", gpu, "--svg", hello + "/svg"},
			code: 2, errs: []string{"bench: --svg " + hello + "/svg: not a directory"}, maxAlloc: 16 << 20},
		{name: "bench --repeats 0", args: []string{"bench", "--repeats", "0"}, code: 2, errs: []string{"--repeats 0: must be at least 1"}},
		{name: "eigen --eps 0", args: []string{"eigen", "--hilbert", "4", "--eps", "0"}, code: 2, errs: []string{"--eps 0: must be a positive finite number"}},
		{name: "eigen --max-iter 0", args: []string{"eigen", "--hilbert", "4", "--max-iter", "0"}, code: 2, errs: []string{"--max-iter 0: must be at least 1"}},
		{name: "eigen --batch 0", args: []string{"eigen", "--hilbert", "4", "--batch", "0"}, code: 2, errs: []string{"--batch 0: must be at least 1"}},
		{name: "eigen --batch -1", args: []string{"eigen", "--hilbert", "4", "--batch", "-1"}, code: 2, errs: []string{"--batch -1: must be at least 1"}},
		{name: "devices --backend cpu", args: []string{"devices", "--backend", "cpu"},
			check: func(t *testing.T, stdout string) {
				require.Contains(t, stdout, "The CPU backend has no adapters")
				require.NotContains(t, stdout, "driver")
			}},
		{name: "1 leaf", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", oneLeaf},
			check: func(t *testing.T, stdout string) {
				require.Equal(t, strings.Repeat("0", 64)+"\n", stdout, "the root of one leaf is the leaf")
			}},
		{name: "b3sum of a directory", args: []string{"b3sum", dir}, code: 1, errs: []string{"b3sum: " + dir + ": Is a directory (os error 21)\n"}},
		{name: "merkle of a directory", args: []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", dir}, code: 2, errs: []string{"wgbench: merkle: " + dir + ": is a directory\n"}},
		{name: "rescue of a directory", args: []string{"rescue", "merge", "--backend", "cpu", "--in", dir}, code: 2, errs: []string{"wgbench: rescue merge: " + dir + ": is a directory\n"}},
		{name: "eigen of a directory", args: []string{"eigen", "--cpu", "--in", dir, "--n", "2"}, code: 2, errs: []string{"wgbench: eigen: " + dir + ": is a directory\n"}},
		{name: "b3sum usage errors exit 1", args: []string{"b3sum", "--bogus"}, code: 1, errs: []string{"error: Found argument '--bogus' which wasn't expected, or isn't valid in this context"}},
		{name: "b3sum --length 0 prints an empty hash, as b3sum 1.2.0 does", args: []string{"b3sum", "--length", "0", "--backend", "cpu", "-"}, out: "  -\n"},
		{name: "other usage errors exit 2", args: []string{"merkle", "--bogus"}, code: 2, errs: []string{"unknown flag: --bogus"}},
		{name: "b3sum prints a CR in a name as it is", args: []string{"b3sum", "--backend", "cpu", at("cr\rname")},
			setup: func(t *testing.T) { write("cr\rname", []byte("hello"), 0o644) },
			out:   hex.EncodeToString(helloSum[:]) + "  " + at("cr\rname") + "\n"},
		{name: "b3sum prints invalid UTF-8 as U+FFFD", args: []string{"b3sum", "--backend", "cpu", at("bad\xffname")},
			setup: func(t *testing.T) { write("bad\xffname", []byte("hello"), 0o644) },
			out:   hex.EncodeToString(helloSum[:]) + "  " + at("bad\uFFFDname") + "\n"},

		// Item 2: the stat size is not trusted.
		{name: "b3sum of a /proc file on the GPU", args: []string{"b3sum", "--device", "gpu", "--backend", gpu, "/proc/version"},
			check: func(t *testing.T, stdout string) {
				requireSum(t, stdout, "/proc/version", mustRead(t, "/proc/version"))
			}},
		{name: "b3sum of a /proc file on the CPU", args: []string{"b3sum", "--backend", "cpu", "/proc/version"},
			check: func(t *testing.T, stdout string) {
				requireSum(t, stdout, "/proc/version", mustRead(t, "/proc/version"))
			}},
		{name: "b3sum of stdin from a /proc file", args: []string{"b3sum", "--backend", gpu}, stdin: mustOpen(t, "/proc/version"),
			check: func(t *testing.T, stdout string) { requireSum(t, stdout, "-", mustRead(t, "/proc/version")) }},
		{name: "b3sum of a file shorter than its stat size", args: []string{"b3sum", "--device", "gpu", "--backend", gpu, sysFile}, setup: needSys,
			check: func(t *testing.T, stdout string) { requireSum(t, stdout, sysFile, sysContent()) }},
		{name: "b3sum --subtree of a file shorter than its stat size", args: []string{"b3sum", "--subtree", "0/1", sysFile}, setup: needSys,
			code: 1, errs: []string{"Error: " + sysFile + ": ", "unexpected EOF"}},
		{name: "b3sum --subtree of a FIFO", args: []string{"b3sum", "--subtree", "0/1", at("subtree.fifo")},
			setup: func(t *testing.T) { clitest.Fifo(t, at("subtree.fifo"), []byte("fifo")) },
			code:  1, errs: []string{"is a named pipe: --subtree hashes a regular file or a block device, of known size"}},
		{name: "b3sum combine of a record", args: []string{"b3sum", "combine", "--name", hello, helloRecord},
			out: hex.EncodeToString(helloSum[:]) + "  " + hello + "\n"},
		{name: "b3sum of a FIFO on the GPU", args: []string{"b3sum", "--device", "gpu", "--backend", gpu, at("b3.fifo")},
			setup: func(t *testing.T) { clitest.Fifo(t, at("b3.fifo"), bytes.Repeat([]byte("fifo "), 3000)) },
			check: func(t *testing.T, stdout string) {
				requireSum(t, stdout, at("b3.fifo"), bytes.Repeat([]byte("fifo "), 3000))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			devFull = nil
			if tc.setup != nil {
				tc.setup(t)
			}
			var out, errOut bytes.Buffer
			stdout := tc.stdout
			switch {
			case devFull != nil:
				stdout = devFull
			case stdout == nil:
				stdout = &out
			}
			stdin := tc.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code := cli.Run(&cli.Globals{Args: tc.args, Memory: tc.memory}, newRoot, stdin, stdout, &errOut)
			runtime.ReadMemStats(&after)
			stderr := errOut.String()
			require.Equal(t, tc.code, code, "exit status; stderr: %s", stderr)
			for _, e := range tc.errs {
				require.Contains(t, stderr, e)
			}
			if len(tc.errs) == 0 {
				require.Empty(t, stderr)
			}
			require.Less(t, len(stderr), 600, "the message is short")
			if tc.out != "" {
				require.Equal(t, tc.out, out.String())
			}
			if tc.check != nil {
				tc.check(t, out.String())
			}
			for _, p := range tc.absent {
				_, err := os.Lstat(p)
				require.True(t, errors.Is(err, fs.ErrNotExist), "%s must not exist: %v", p, err)
			}
			if tc.maxAlloc != 0 {
				require.Less(t, after.TotalAlloc-before.TotalAlloc, tc.maxAlloc, "bytes allocated")
			}
			requireNoTemp(t, dir)
		})
	}
}

// limitedWriter takes n bytes, then fails.
type limitedWriter struct{ n int }

func (w *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errors.New("the test's writer is full")
	}
	w.n -= len(p)
	return len(p), nil
}

func requireMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, want, fi.Mode().Perm(), path)
}

// requireSum checks b3sum's line for name: the reference hash of content.
func requireSum(t *testing.T, stdout, name string, content []byte) {
	t.Helper()
	require.NotEmpty(t, content, "%s must have content for the test to mean anything", name)
	sum := blake3.Sum256(content)
	require.Equal(t, hex.EncodeToString(sum[:])+"  "+name+"\n", stdout)
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// rescueCPU is the digests of the merge records in path, from the
// reference.
func rescueCPU(t *testing.T, path string) []byte {
	t.Helper()
	raw := mustRead(t, path)
	els := make([]uint64, len(raw)/8)
	for i := range els {
		els[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return clitest.GoldilocksDigests(rescue.HashElements, els, 8)
}
