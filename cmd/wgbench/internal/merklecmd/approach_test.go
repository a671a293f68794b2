package merklecmd

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/internal/base/impl"
)

// TestForceMerkle: the merkle variants the benchmarks and --approach
// force by name are registered, so forceMerkle never falls back to the
// options it was given.
func TestForceMerkle(t *testing.T) {
	for entry, names := range map[string][]string{
		"merkle":        {"default", "level-per-dispatch", "workgroup-levels", "subtrees"},
		"merkle-passes": {"pass-per-level"},
	} {
		for _, name := range names {
			_, err := impl.Select[func(merkle.Options) merkle.Options](entry, name)
			require.NoError(t, err, "%s %s", entry, name)
		}
	}
	require.Equal(t, []string{"default", "level-per-dispatch", "workgroup-levels", "subtrees"}, impl.List("merkle"), "--approach N is variant N")
	for a := 0; a <= 3; a++ {
		_, err := approachOptions(a)
		require.NoError(t, err)
	}
	_, err := approachOptions(4)
	require.ErrorContains(t, err, "approach 4: accepted are 1")
}
