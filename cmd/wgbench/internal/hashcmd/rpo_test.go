package hashcmd

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// rpoCLI is 'wgbench rpo' as the shared CLI tests run it.
var rpoCLI = cliHash{name: "rpo", merge: rpo.Merge, hashElements: rpo.HashElements,
	seed: 8, variant: "fast", lastVariant: "fast"}

func TestRPOCLI(t *testing.T) { testElementHashCLI(t, rpoCLI) }

func TestRPOCLIVariant(t *testing.T) { testElementHashCLIVariant(t, rpoCLI) }

// TestRPOCLIVectors hashes miden-crypto's vectors from a file: the 19
// prefixes of 0..18, each its own file of one record.
func TestRPOCLIVectors(t *testing.T) {
	t.Setenv("WGCOMPUTE_BACKEND", gputest.Backends()[0])
	raw, err := os.ReadFile("../../../../testdata/rpo256.json")
	require.NoError(t, err)
	var spec struct {
		Vectors []struct {
			Fn     string   `json:"fn"`
			Input  []string `json:"input"`
			Output []string `json:"output"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(raw, &spec))
	dir := t.TempDir()
	for i, v := range spec.Vectors {
		var rec, want []byte
		for _, s := range v.Input {
			e, err := strconv.ParseUint(s, 10, 64)
			require.NoError(t, err)
			rec = binary.LittleEndian.AppendUint64(rec, e)
		}
		for _, s := range v.Output {
			e, err := strconv.ParseUint(s, 10, 64)
			require.NoError(t, err)
			want = binary.LittleEndian.AppendUint64(want, e)
		}
		in := filepath.Join(dir, "v"+strconv.Itoa(i))
		require.NoError(t, os.WriteFile(in, rec, 0o644))
		args := []string{"rpo", "hash", "--elements", strconv.Itoa(len(v.Input)), "--in", in}
		if v.Fn == "merge" {
			args = []string{"rpo", "merge", "--in", in}
		}
		out, _, err := wgbench(t, args...)
		require.NoError(t, err, "vector %d", i)
		require.Equal(t, want, []byte(out), "vector %d", i)
	}
}

func TestRPOCLIBadInput(t *testing.T) {
	testElementHashCLIBadInput(t, rpoCLI)
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	in := filepath.Join(t.TempDir(), "any.bin")
	require.NoError(t, os.WriteFile(in, make([]byte, 64), 0o644))
	_, _, err := wgbench(t, "rpo", "merge", "--in", in, "--variant", "vec4")
	require.ErrorContains(t, err, `rpo: unknown variant "vec4": accepted are [fast]`)

	help, _, err := wgbench(t, "rpo", "--help")
	require.NoError(t, err)
	require.True(t, strings.Contains(help, "Rpo256::merge"), help)
}
