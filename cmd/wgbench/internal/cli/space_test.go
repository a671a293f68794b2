package cli

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpaceLeft: an address-space limit leaves the limit less what is
// mapped, never less than nothing.
func TestSpaceLeft(t *testing.T) {
	require.Equal(t, int64(3<<30), spaceLeft(8<<30, 5<<30))
	require.Equal(t, int64(0), spaceLeft(1<<30, 2<<30))
	require.Equal(t, int64(0), spaceLeft(1<<30, 1<<30))
	require.Equal(t, int64(1<<40), spaceLeft(1<<62, 0))
}

// TestSpaceErrorFor: a limit below what wgbench needs on the CPU, or with
// a GPU driver, is refused saying so, with the way out; the threads of a
// larger machine, and larger stacks, need more.
func TestSpaceErrorFor(t *testing.T) {
	const mib = 1 << 20
	require.NoError(t, spaceErrorFor(cpuSpace, false, 2, defaultStack))
	require.NoError(t, spaceErrorFor(gpuSpace, true, 2, defaultStack))
	require.NoError(t, spaceErrorFor(cpuSpace, false, 1, 2*mib), "one core and small stacks need no more than two cores")
	err := spaceErrorFor(cpuSpace-1, false, 2, defaultStack)
	require.ErrorContains(t, err, "(ulimit -v), below the ")
	require.ErrorContains(t, err, " wgbench needs on the CPU (README, \"Memory limits\"): raise the limit")
	require.NotContains(t, err.Error(), "--backend cpu")
	err = spaceErrorFor(gpuSpace-1, true, 2, defaultStack)
	require.ErrorContains(t, err, "a GPU driver and wgbench need")
	require.ErrorContains(t, err, "or run on the CPU (--backend cpu)")
	require.NotContains(t, spaceErrorFor(cpuSpace-1, true, 2, defaultStack).Error(), "--backend cpu")
	require.Error(t, spaceErrorFor(cpuSpace, false, 66, defaultStack))
	require.NoError(t, spaceErrorFor(cpuSpace+64*defaultStack, false, 66, defaultStack))
	require.Error(t, spaceErrorFor(cpuSpace, false, 2, 64*mib))
	require.NoError(t, spaceErrorFor(cpuSpace+(2+baseThreads)*56*mib, false, 2, 64*mib))
}
