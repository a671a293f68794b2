package merklecmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestMerkleAnyCount builds trees of counts that are not powers of two
// on a GPU backend and the CPU: the root and the nodes written equal the
// library's reference.
func TestMerkleAnyCount(t *testing.T) {
	dir := t.TempDir()
	for _, backend := range []string{gputest.Backends()[0], "cpu"} {
		for _, hash := range merkleHashes() {
			for _, n := range []int{1, 3, 5, 100} {
				what := fmt.Sprintf("%s %s n=%d", backend, hash.Name(), n)
				leaves, in := clitest.WriteLeaves(t, dir, hash, n, 3)
				ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
				require.NoError(t, err)
				root := ref.Root()
				out := filepath.Join(dir, "nodes.bin")
				stdout, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", hash.Name(), "--in", in, "--out", out)
				require.NoError(t, err, what)
				require.Equal(t, fmt.Sprintf("%x\n", root[:]), stdout, what)
				require.Equal(t, wgpu.Bytes(ref.Nodes()), mustRead(t, out), what)
				require.Len(t, mustRead(t, out), len(ref.Nodes())*merkle.DigestSize, what)
			}
		}
	}
}

// TestMerkleMultiProveVerify proves several leaves of a tree that is not a
// power of two, as a multi-proof and as pruned paths, with and without a
// cap, and verifies them; any changed digit or index fails.
func TestMerkleMultiProveVerify(t *testing.T) {
	dir := t.TempDir()
	backend := gputest.Backends()[0]
	for _, hash := range merkleHashes() {
		const n = 100
		leaves, in := clitest.WriteLeaves(t, dir, hash, n, 11)
		ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		root := fmt.Sprintf("%x", ref.Root())
		prove := func(args ...string) string {
			t.Helper()
			stdout, _, err := wgbench(t, append([]string{"merkle", "prove", "--backend", backend, "--hash", hash.Name(), "--in", in}, args...)...)
			require.NoError(t, err, "%s %v", hash, args)
			return stdout
		}
		verify := func(text string, args ...string) (string, error) {
			t.Helper()
			proof := filepath.Join(dir, "proof.json")
			require.NoError(t, os.WriteFile(proof, []byte(text), 0o644))
			stdout, stderr, err := wgbench(t, append([]string{"merkle", "verify", "--hash", hash.Name(), "--proof", proof}, args...)...)
			if err == nil {
				require.Equal(t, "valid\n", stdout)
			} else {
				require.Empty(t, stdout)
			}
			return stderr, err
		}

		multi := prove("--index", "99,3,17,3")
		require.Equal(t, multi, prove("--index", "3", "--index", "17", "--index", "99"), "repeated --index")
		require.Equal(t, multi, prove("--index", "3,17,99", "--cap", "3"), "capped")
		want, err := ref.MultiProof([]int{3, 17, 99})
		require.NoError(t, err)
		var got merkle.MultiProof
		require.NoError(t, json.Unmarshal([]byte(multi), &got))
		require.Equal(t, want, got)
		require.Contains(t, multi, `"format": "multi"`)
		stderr, err := verify(multi, "--root", root, "--leaves", fmt.Sprint(n))
		require.NoError(t, err, stderr)
		require.Empty(t, stderr)
		stderr, err = verify(multi)
		require.NoError(t, err)
		require.Contains(t, stderr, "the tree's root and size were taken from the proof itself")
		stderr, err = verify(multi, "--root", root, "--leaves", "101")
		require.Equal(t, cli.ExitError{Code: 1}, err)
		require.Contains(t, stderr, "it is a proof for a tree of 100 leaves, not of the 101 given by --leaves")

		pruned := prove("--index", "99,3,17,3", "--format", "pruned")
		require.Equal(t, pruned, prove("--index", "99,3,17,3", "--format", "pruned", "--cap", "2"), "capped")
		wantP, err := ref.PrunedProof([]int{99, 3, 17, 3})
		require.NoError(t, err)
		var gotP merkle.PrunedProof
		require.NoError(t, json.Unmarshal([]byte(pruned), &gotP))
		require.Equal(t, wantP, gotP)
		stderr, err = verify(pruned, "--root", root, "--leaves", fmt.Sprint(n))
		require.NoError(t, err, stderr)

		single := prove("--index", "99")
		require.Equal(t, single, prove("--index", "99", "--cap", "4"))
		require.NotContains(t, single, "format")
		stderr, err = verify(single, "--root", root, "--leaves", fmt.Sprint(n))
		require.NoError(t, err, stderr)
		one := prove("--index", "42", "--format", "multi")
		stderr, err = verify(one, "--root", root, "--leaves", fmt.Sprint(n))
		require.NoError(t, err, stderr)

		// Every digest's digits, and every index, changed in turn.
		for _, text := range []string{multi, pruned} {
			digests := regexp.MustCompile(`"[0-9a-f]{64}"`).FindAllStringIndex(text, -1)
			require.NotEmpty(t, digests)
			for _, d := range digests {
				for _, at := range []int{d[0] + 1, d[1] - 2} {
					bad := text[:at] + flipDigit(text[at:at+2], 0) + text[at+2:]
					stderr, err := verify(bad, "--root", root, "--leaves", fmt.Sprint(n))
					require.Equal(t, cli.ExitError{Code: 1}, err, "digit %d changed verified", at)
					require.Contains(t, stderr, "proof.json does not verify")
				}
			}
			for _, i := range []string{"3", "17", "99"} {
				bad := strings.Replace(text, "    "+i+",", "    "+i+"1,", 1)
				bad = strings.Replace(bad, "    "+i+"\n", "    1"+i+"\n", 1)
				require.NotEqual(t, text, bad)
				_, err := verify(bad, "--root", root, "--leaves", fmt.Sprint(n))
				require.Equal(t, cli.ExitError{Code: 1}, err, "index %s changed verified", i)
			}
		}
	}
}

func TestMerkleVerifyBadForms(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	d := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`{"format": "octopus"}`, []string{`"format": "octopus": accepted are single (or none), multi and pruned`}},
		{`{"format": "multi", "leaves": 2}`, []string{"is not a proof as merkle prove prints it", `no "version"`}},
		{`{"format": "pruned", "version": 1, "leaves": 2, "indices": [0], "values": ["` + d + `"], "root": "` + d + `"}`, []string{`want "indices", "values" and "paths"`}},
		{`{"format": "multi", "version": 3}`, []string{"version 3: this package reads version 1"}},
		{`[1, 2]`, []string{"is not a proof"}},
	} {
		requireInputError(t, []string{"merkle", "verify", "--hash", "blake3", "--proof", write("bad.json", tc.text)}, tc.want...)
	}
}
