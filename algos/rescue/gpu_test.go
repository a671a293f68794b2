package rescue

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// TestImplementationsMatchReference checks every implementation against
// the Go reference: the spec's vectors (permutations, hashes, merges and
// the last level of a tree), then odd batches of merges, permutations and
// hashes over one to three blocks (hashtest.MatchReference).
func TestImplementationsMatchReference(t *testing.T) {
	hashtest.MatchReference(t, family, hashtest.Vectors(t, loadSpec(t).Vectors))
}

// TestVariantNames checks the registered variants' names, the default
// first (the rest of the registry: TestFamily/Variants).
func TestVariantNames(t *testing.T) {
	require.Equal(t, []string{"fast", "densemds", "libinv", "vec4", "arkstorage", "arkuniform", "arkworkgroup"}, family.Variants)
}
