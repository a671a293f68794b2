package poseidon2

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// TestImplementationsMatchReference checks every implementation against
// the vectors of testdata, then the Go reference on fresh random batches
// of odd sizes (hashtest.MatchReference).
func TestImplementationsMatchReference(t *testing.T) {
	hashtest.MatchReference(t, family, hashtest.Vectors(t, allVectors(loadSpec(t))))
}

// TestVariantNames checks the registered variants' names, the default
// first (the rest of the registry: TestFamily/Variants).
func TestVariantNames(t *testing.T) {
	require.Equal(t, []string{"fast", "muldiag"}, family.Variants)
}
