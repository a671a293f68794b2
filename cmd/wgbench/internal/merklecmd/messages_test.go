package merklecmd

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHashRequired: the merkle commands without --hash say it is required
// and list the registry's names (it said: unknown hash "").
func TestHashRequired(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"merkle", []string{"merkle", "--in", "x"}},
		{"merkle prove", []string{"merkle", "prove", "--in", "x", "--index", "0"}},
		{"merkle verify", []string{"merkle", "verify", "--proof", "x"}},
	} {
		_, _, err := wgbench(t, tc.args...)
		require.ErrorContains(t, err, tc.name+": --hash is required: accepted are "+merkleHashNames(", "), "%q", tc.args)
	}
}
