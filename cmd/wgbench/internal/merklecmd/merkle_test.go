package merklecmd

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMerkleRootAndNodes(t *testing.T) {
	for _, backend := range append(gputest.Backends(), "cpu") {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			for _, hash := range merkleHashes() {
				// Each run opens a device and compiles its kernel, so every
				// approach sees one size with several workgroups, and the
				// default the smallest tree.
				for _, c := range []struct {
					n        int
					approach string
				}{{2, "0"}, {512, "1"}, {512, "2"}, {512, "3"}} {
					n, approach := c.n, c.approach
					leaves, in := clitest.WriteLeaves(t, dir, hash, n, 7)
					ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
					require.NoError(t, err)
					root := ref.Root()
					want := hex.EncodeToString(root[:])
					what := fmt.Sprintf("%s n=%d approach %s", hash, n, approach)
					out := filepath.Join(dir, "nodes.bin")
					stdout, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", hash.Name(), "--in", in, "--out", out, "--approach", approach)
					require.NoError(t, err, what)
					require.Equal(t, want+"\n", stdout, what)
					nodes, err := os.ReadFile(out)
					require.NoError(t, err)
					require.Len(t, nodes, n*merkle.DigestSize, what)
					require.Equal(t, make([]byte, merkle.DigestSize), nodes[:merkle.DigestSize], "%s: node 0 must be zero", what)
					require.Equal(t, wgpu.Bytes(ref.Nodes()), nodes, what)
					require.NoError(t, os.Remove(out))
				}
			}
		})
	}
}

func TestMerkleProveVerify(t *testing.T) {
	dir := t.TempDir()
	for _, hash := range merkleHashes() {
		const n = 64
		leaves, in := clitest.WriteLeaves(t, dir, hash, n, 11)
		ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		for _, index := range []int{0, 37, n - 1} {
			what := fmt.Sprintf("%s leaf %d", hash, index)
			stdout, _, err := wgbench(t, "merkle", "prove", "--backend", gputest.Backends()[0], "--hash", hash.Name(), "--in", in, "--index", fmt.Sprint(index))
			require.NoError(t, err, what)

			var fields map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(stdout), &fields), what)
			require.ElementsMatch(t, []string{"index", "leaves", "leaf", "path", "root"}, keys(fields), what)
			var p struct {
				Index  int      `json:"index"`
				Leaves int      `json:"leaves"`
				Leaf   string   `json:"leaf"`
				Path   []string `json:"path"`
				Root   string   `json:"root"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &p))
			want, err := ref.Proof(index)
			require.NoError(t, err)
			require.Equal(t, index, p.Index)
			require.Equal(t, n, p.Leaves)
			require.Equal(t, hex.EncodeToString(leaves[index][:]), p.Leaf)
			require.Equal(t, hex.EncodeToString(want.Root[:]), p.Root)
			require.Len(t, p.Path, 6, what)
			for k := range p.Path {
				require.Equal(t, hex.EncodeToString(want.Path[k][:]), p.Path[k], "%s: path[%d]", what, k)
			}

			proof := filepath.Join(dir, "proof.json")
			require.NoError(t, os.WriteFile(proof, []byte(stdout), 0o644))
			_, _, err = wgbench(t, "merkle", "verify", "--hash", hash.Name(), "--proof", proof)
			require.NoError(t, err, "%s: the printed proof must verify", what)

			// The other hash's merge does not give this root.
			other := merkleHashes()[0]
			if other == hash {
				other = merkleHashes()[1]
			}
			_, _, err = wgbench(t, "merkle", "verify", "--hash", other.Name(), "--proof", proof)
			require.Equal(t, cli.ExitError{Code: 1}, err, "%s verified with %s", what, other)

			// One hex digit changed in the leaf, the root or a path entry, or
			// a different index: exit 1, nothing on stdout, the reason on
			// stderr.
			tampered := []string{
				strings.Replace(stdout, p.Leaf, flipDigit(p.Leaf, 5), 1),
				strings.Replace(stdout, p.Root, flipDigit(p.Root, 63), 1),
				strings.Replace(stdout, p.Path[3], flipDigit(p.Path[3], 0), 1),
				strings.Replace(stdout, fmt.Sprintf(`"index": %d`, index), fmt.Sprintf(`"index": %d`, index^1), 1),
			}
			for k, s := range tampered {
				require.NotEqual(t, stdout, s, "tamper %d did not change the proof", k)
				require.NoError(t, os.WriteFile(proof, []byte(s), 0o644))
				stdout, stderr, err := wgbench(t, "merkle", "verify", "--hash", hash.Name(), "--proof", proof)
				require.Equal(t, cli.ExitError{Code: 1}, err, "%s: tamper %d verified", what, k)
				require.Empty(t, stdout)
				require.Contains(t, stderr, "proof.json does not verify")
			}
		}
	}
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// flipDigit changes hex digit i of s.
func flipDigit(s string, i int) string {
	c := byte('0')
	if s[i] == '0' {
		c = '1'
	}
	return s[:i] + string(c) + s[i+1:]
}

func TestMerkleBadInput(t *testing.T) {
	dir := t.TempDir()
	_, in4 := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, 4, 1)
	file := func(name string, size int) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, make([]byte, size), 0o644))
		return p
	}
	three, empty, odd := file("three.bin", 96), file("empty.bin", 0), file("odd.bin", 65)
	bad := [][32]byte{{}, {}}
	for j := 0; j < 8; j++ {
		bad[1][8+j] = 0xff // element 1 of leaf 1 is 2^64-1, at least p
	}
	nonCanonical := filepath.Join(dir, "noncanonical.bin")
	require.NoError(t, os.WriteFile(nonCanonical, wgpu.Bytes(bad), 0o644))
	garbage := file("garbage.json", 10)

	for _, backend := range []string{gputest.Backends()[0], "cpu"} {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"merkle", "--hash", "blake3", "--in", empty}, []string{"empty.bin holds no leaves: a tree needs at least 1 leaf"}},
			{[]string{"merkle", "--hash", "blake3", "--in", odd}, []string{"65 bytes", "whole number of 32-byte leaves"}},
			{[]string{"merkle", "--hash", "blake3", "--in", filepath.Join(dir, "missing.bin")}, []string{"missing.bin", "no such file"}},
			{[]string{"merkle", "--hash", "blake3"}, []string{"--in LEAVES is required"}},
			{[]string{"merkle", "--in", in4}, []string{"merkle: --hash is required: accepted are blake3, rescue"}},
			{[]string{"merkle", "--hash", "sha256", "--in", in4}, []string{`unknown hash "sha256"`, "blake3, rescue"}},
			{[]string{"merkle", "--hash", "rescue", "--in", nonCanonical}, []string{"leaf 1", "element 1", "not a Goldilocks field element"}},
			{[]string{"merkle", "--hash", "blake3", "--in", in4, "--approach", "4"}, []string{"approach 4", "accepted are 1", "3 (subtrees"}},
			{[]string{"merkle", "--hash", "blake3", "--in", in4, "--approach", "-1"}, []string{"approach -1", "accepted are 1"}},
			{[]string{"merkle", "--hash", "blake3", "--in", in4, "--approach", "x"}, []string{`invalid argument "x"`}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", in4, "--index", "4"}, []string{"leaf 4", "leaves 0..3"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", in4}, []string{"--index I is required"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", in4, "--index", "1,4"}, []string{"multi-proof of leaf 4", "leaves 0..3"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", three, "--index", "0,1", "--format", "single"}, []string{"--format single proves one leaf, and 2 indices are given"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", three, "--index", "0", "--format", "octopus"}, []string{`--format "octopus": accepted are single, multi and pruned`}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", three, "--index", "0", "--cap", "-1"}, []string{"--cap -1: accepted are 0"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", in4, "--index", "0,1", "--range", "0/2"}, []string{"--range proves one leaf, in the single form"}},
			{[]string{"merkle", "prove", "--hash", "blake3", "--in", in4, "--index", "x"}, []string{`invalid argument "x"`}},
			{[]string{"merkle", "verify", "--hash", "blake3", "--proof", garbage}, []string{"garbage.json"}},
			{[]string{"merkle", "verify", "--hash", "blake3"}, []string{"--proof FILE is required"}},
			{[]string{"merkle", "verify", "--hash", "md5", "--proof", garbage}, []string{`unknown hash "md5"`}},
			{[]string{"merkle", "--hash", "blake3", "--in", in4, "extra"}, []string{"unknown command", "extra"}},
		} {
			requireInputError(t, append(tc.args, "--backend", backend), tc.want...)
		}
	}
}

// TestMerkleVerifySays checks that merkle verify prints valid on success,
// nothing with --quiet, and nothing on standard output on failure.
func TestMerkleVerifySays(t *testing.T) {
	dir := t.TempDir()
	hash := merkleHashes()[0]
	const n = 8
	leaves, _ := clitest.WriteLeaves(t, dir, hash, n, 3)
	ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
	require.NoError(t, err)
	p, err := ref.Proof(5)
	require.NoError(t, err)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	proof := filepath.Join(dir, "proof.json")
	require.NoError(t, os.WriteFile(proof, b, 0o644))
	root := hex.EncodeToString(p.Root[:])
	args := []string{"merkle", "verify", "--hash", hash.Name(), "--proof", proof, "--root", root, "--leaves", fmt.Sprint(n)}

	stdout, stderr, err := wgbench(t, args...)
	require.NoError(t, err)
	require.Equal(t, "valid\n", stdout)
	require.Empty(t, stderr)

	stdout, stderr, err = wgbench(t, append(args, "--quiet")...)
	require.NoError(t, err)
	require.Empty(t, stdout)
	require.Empty(t, stderr)

	// A wrong root: exit 1, the reason on stderr, with or without --quiet.
	bad := append([]string(nil), args...)
	bad[len(bad)-3] = flipDigit(root, 7)
	for _, extra := range [][]string{nil, {"--quiet"}} {
		stdout, stderr, err = wgbench(t, append(bad, extra...)...)
		require.Equal(t, cli.ExitError{Code: 1}, err)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "proof.json does not verify")
	}

	// A mixed tree's proof, through the schedule's path, says the same.
	s, err := parseSchedule("blake3:1,rescue")
	require.NoError(t, err)
	mixed, err := merkle.Build(nil, leaves, nil, merkle.Options{Schedule: s})
	require.NoError(t, err)
	mp, err := mixed.Proof(2)
	require.NoError(t, err)
	b, err = json.Marshal(mp)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(proof, b, 0o644))
	mroot := mixed.Root()
	stdout, _, err = wgbench(t, "merkle", "verify", "--hash", "blake3:1,rescue", "--proof", proof, "--root", hex.EncodeToString(mroot[:]), "--leaves", fmt.Sprint(n))
	require.NoError(t, err)
	require.Equal(t, "valid\n", stdout)
}
